"""Sphinx extension for the book's two editions (English and Chinese, gettext catalogs).

* **What is translated.** Only prose: the Markdown cells and pages, headings, figure
  captions and alt text. Everything a code cell prints (text, Markdown tables made by
  ``interconnect.book.table``, explorers' HTML) is marked untranslatable before Sphinx's
  ``Locale`` transform and the gettext builder see it, so computed numbers never enter a
  catalog and are the same in both editions. Code itself (literal blocks) and the library
  reference's docstrings (autodoc) are not translated either. The pages listed in
  ``ic_i18n_output_pages`` are the exception: their Markdown outputs are prose written by
  the page (the landing page's reading paths, from ``book/_data/chapters.yml``) and hold no
  computed number, so they are translated like the page's own text.
* **Glued numbers survive translation.** A translated paragraph keeps its ``{glue}`` roles
  (translators copy them into the ``msgstr``); Sphinx parses the ``msgstr`` as a small
  document of its own, where myst-nb would find no glue data, so the roles are pointed at
  the page's notebook (``_retrieve_glue_data``).
* **Language switch.** With ``ic_other_edition`` set (``{"label": "中文", "root":
  "../html-zh/", "lang": "zh-CN"}``, a root relative to this edition's root), every HTML
  page gets a link to the same page in the other edition (``tools/_static/ic-book.css``
  styles it). Empty (the default, and the student edition's) adds nothing.
"""

from __future__ import annotations

import html
import os

from docutils import nodes
from docutils.transforms import Transform
from sphinx import addnodes

_PAGE = {}   # the notebook renderer of the page being read, for glue roles inside a translated message


def _retrieve_glue_data(document, key):
    from myst_nb.ext.glue import utils

    renderer = _PAGE.get("renderer")
    if ("nb_renderer" not in document and renderer is not None
            and str(document.get("source", "")).endswith("<translated>")):
        document.attributes["nb_renderer"] = renderer
        try:
            return utils.retrieve_glue_data(document, key)
        finally:
            document.attributes.pop("nb_renderer")
    return utils.retrieve_glue_data(document, key)


def _patch_glue():
    """Glue roles in a translated message read the glue data of the page's notebook.

    myst-nb keeps a notebook's renderer (and through it the glue data) on the document only
    while it parses the notebook; Sphinx parses each translated message later, as a small
    document of its own. The renderer each notebook gets is remembered here until the next.
    """
    from myst_nb import sphinx_
    from myst_nb.ext.glue import directives, roles

    load_renderer = sphinx_.load_renderer

    def remembering(name):
        cls = load_renderer(name)

        def make(*args, **kwargs):
            _PAGE["renderer"] = cls(*args, **kwargs)
            return _PAGE["renderer"]
        return make

    sphinx_.load_renderer = remembering
    roles.retrieve_glue_data = _retrieve_glue_data
    directives.retrieve_glue_data = _retrieve_glue_data


def _untranslatable(node):
    for sub in node.findall(nodes.TextElement):
        # a figure's caption (from the cell's metadata) is prose: keep it translatable
        if isinstance(sub, (nodes.caption, nodes.legend)) or _inside(sub, (nodes.caption, nodes.legend), node):
            continue
        sub["translatable"] = False
    for img in node.findall(nodes.image):
        if not img.get("alt"):
            img["translatable"] = False


def _inside(node, types, stop):
    parent = node.parent
    while parent is not None and parent is not stop:
        if isinstance(parent, types):
            return True
        parent = parent.parent
    return False


class MarkUntranslatable(Transform):
    """Keep code cells' outputs and autodoc's docstrings out of the catalogs (before ``Locale``, 20)."""

    default_priority = 15

    def apply(self, **kwargs):
        env = self.document.settings.env
        keep_outputs = env.docname in set(env.config.ic_i18n_output_pages)
        for node in self.document.findall(nodes.container):
            if node.get("nb_element") == "cell_code_output" and not keep_outputs:
                _untranslatable(node)
        for node in self.document.findall(addnodes.desc):
            _untranslatable(node)
        # automodule's module docstrings sit outside any desc node; their source names them
        for node in self.document.findall(nodes.TextElement):
            if ":docstring of " in str(node.source or ""):
                node["translatable"] = False


class TranslateTocCaptions(Transform):
    """The parts' captions in the sidebar (``_toc.yml``), from the root page's catalog.

    sphinx-external-toc inserts the toctrees after Sphinx's ``Locale`` transform has run, so
    their captions, which the gettext builder does extract, are translated here.
    """

    default_priority = 870   # after InsertToctrees, before DoctreeReadEvent (880)

    def apply(self, **kwargs):
        env = self.document.settings.env
        if not env.config.language or env.config.language == "en":
            return
        trees = [n for n in self.document.findall(addnodes.toctree) if n.get("caption")]
        if not trees:
            return
        from sphinx.locale import init
        from sphinx.util.i18n import docname_to_domain

        dirs = [os.path.join(env.srcdir, d) for d in env.config.locale_dirs]
        catalog, has = init(dirs, env.config.language, docname_to_domain(env.docname, env.config.gettext_compact))
        if not has:
            return
        for node in trees:
            text = catalog.gettext(node["caption"])
            node["caption"] = text
            if "rawcaption" in node:
                node["rawcaption"] = text


def _switch(app, pagename, templatename, context, doctree):
    other = app.config.ic_other_edition
    if not other or app.builder.name != "html" or "body" not in context:
        return
    depth = pagename.count("/")
    href = "../" * depth + other["root"] + pagename + ".html"
    label = html.escape(other["label"])
    lang = html.escape(other["lang"])
    title = html.escape(other.get("title", label))
    context["body"] = (f'<p class="ic-lang-switch"><a href="{html.escape(href)}" hreflang="{lang}" lang="{lang}" '
                       f'title="{title}">{label}</a></p>\n') + context["body"]


def setup(app):
    app.add_config_value("ic_other_edition", {}, "html")
    app.add_config_value("ic_i18n_output_pages", [], "env")
    app.add_transform(MarkUntranslatable)
    app.add_transform(TranslateTocCaptions)
    app.connect("html-page-context", _switch)
    app.connect("source-read", lambda app, docname, source: _PAGE.pop("renderer", None))
    _patch_glue()
    return {"parallel_read_safe": True, "parallel_write_safe": True}

