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
* **Glued words in Chinese.** A glued string (``interconnect.book.glue``: inline Markdown such as
  ``"64 years"`` or ``"450 GB/s per direction"``) is computed by the notebook and carries English
  words. In the Chinese edition (``language = "zh_CN"``) its Markdown passes through
  ``GLUE_ZH``, a small explicit table of English patterns and their Chinese, before myst-nb
  renders it: the words change, the numbers stay byte-identical (``64 years`` -> ``64 年``,
  ``450 GB/s per direction`` -> ``单向 450 GB/s``). A glued value no pattern matches is shown
  as computed (names, routes, layouts such as ``dp=16 tp=4``).
* **Exercise titles in Chinese.** ``tools/chapter_frame.py`` writes each exercise's level into
  its ``{exercise}`` directive's title ("★★ core"), and sphinx-exercise numbers it "Exercise
  12.3"; neither reaches a catalog. In the Chinese edition the title reads "习题 12.3（★★ 核心）",
  the names the preface's translation gives the scale (``EXERCISE_ZH``, ``EXERCISE_LEVELS_ZH``).
"""

from __future__ import annotations

import dataclasses
import decimal
import html
import os
import re

from docutils import nodes
from docutils.transforms import Transform
from sphinx import addnodes
from sphinx.transforms.post_transforms import SphinxPostTransform

_PAGE = {}   # the notebook renderer of the page being read, for glue roles inside a translated message

_NUM = r"[-+~≈]?\d[\d.,]*"

# Glued strings in the Chinese edition: (English pattern, Chinese), applied in order with re.sub
# to the glued Markdown. Each pattern names the English words exactly; the numbers are captured
# and written back as they are. Add a row when a chapter glues a new phrase (tests/test_zh_build.py
# lists what is left in English).
GLUE_ZH = [
    # bandwidth: the direction first, as the book's Chinese prose writes it (单向 450 GB/s)
    (rf"^({_NUM} [KMGT]?B/s) bidirectional of raw signalling$", r"双向 \1（原始信令速率）"),
    (rf"^({_NUM} [KMGT]?B/s) per direction$", r"单向 \1"),
    (rf"^({_NUM} [KMGT]?B/s) bidirectional$", r"双向 \1"),
    (rf"^({_NUM} [KMGT]?B/s) \(reads and writes together\)$", r"\1（读写合计）"),
    # durations
    (rf"^({_NUM}) years?$", r"\1 年"),
    (rf"^({_NUM}) days?$", r"\1 天"),
    (rf"^({_NUM}) min$", r"\1 分钟"),
    # memory fit
    (rf"^({_NUM} [KMG]iB), which fits$", r"\1，放得下"),
    (rf"^({_NUM} [KMG]iB), which does not fit$", r"\1，放不下"),
    (r"^fits$", "放得下"),
    (r"^does not fit$", "放不下"),
    # the data loader's rate and its bottleneck
    (rf"^({_NUM}) images/s, bound by the CPU decode$", r"\1 张图像/s，瓶颈在 CPU 解码"),
    (rf"^({_NUM}) images/s, bound by the storage read$", r"\1 张图像/s，瓶颈在存储读取"),
    (rf"^({_NUM}) images/s, bound by the GPU consumption$", r"\1 张图像/s，瓶颈在 GPU 消耗"),
    (r"^storage$", "存储"),
    # a plan's dominant cost
    (r"^bubble$", "流水线气泡"),
    (r"^tp comm$", "张量并行通信"),
    # a training layout (planning): its activation recomputation, the last item
    (r"^(\d+×\d+×\d+(?:, [^,]+)*), none$", r"\1，不做激活重计算"),
    (r"^(\d+×\d+×\d+(?:, [^,]+)*), selective$", r"\1，选择性激活重计算"),
    (r"^(\d+×\d+×\d+(?:, [^,]+)*), full$", r"\1，完整激活重计算"),
    # serving plans
    (r"^colocated (.+)$", r"共置 \1"),
    (r"^disaggregated (.+) prefill \+ (.+) decode$", r"分离式 \1 预填充 + \2 解码"),
    # links and products (appendix tables)
    (r"^(\d+) Gigabit Ethernet \((.+)\)$", r"\1 Gb 以太网（\2）"),
    (r"^(NVLink \d) \((\w+), (\d+) links\)$", r"\1（\2，\3 条链路）"),
    (r"^NVIDIA SLI bridge \(classic MIO link\)$", "NVIDIA SLI 桥接器（经典 MIO 链路）"),
    (r"^NVIDIA SLI HB bridge \(Pascal, dual link\)$", "NVIDIA SLI HB 桥接器（Pascal，双链路）"),
    (r"^AMD XDMA CrossFire \(bridgeless, over PCIe\)$", "AMD XDMA CrossFire（无桥接器，经由 PCIe）"),
    (r"^end-to-end, NCCL model \((.+), (.+)\)$", r"端到端，NCCL 模型（\1，\2）"),
    (r"^not published \(stand-in: NCCL's PCIe value\)$", "未公布（以 NCCL 的 PCIe 数值代替）"),
    (r"^end-to-end latency of one small message over one hop of the link or fabric, one way, software plus wire, "
     r"as a collective library sees it \(GPU memory to GPU memory; for a network, through the NICs and one switch\)$",
     "一条小消息经过链路或网络一跳的端到端单程延迟（软件加线路），即集合通信库所见的延迟（GPU 显存到 GPU 显存；"
     "网络则经过网卡和一台交换机）"),
]
_GLUE_ZH = [(re.compile(pattern), repl) for pattern, repl in GLUE_ZH]
_BILLION = re.compile(rf"^({_NUM}) billion$")


def glue_zh(text):
    """A glued Markdown string as the Chinese edition shows it (``GLUE_ZH``); unchanged if no row matches."""
    m = _BILLION.match(text)
    if m:   # 8.0 billion -> 80 亿: the number times ten, exactly (decimal arithmetic)
        n = decimal.Decimal(m.group(1).replace(",", "")) * 10
        return f"{n.normalize():f} 亿"
    for pattern, repl in _GLUE_ZH:
        if pattern.search(text):
            return pattern.sub(repl, text)
    return text


EXERCISE_ZH = "习题 %s"
EXERCISE_LEVELS_ZH = {"warm-up": "入门", "core": "核心", "challenge": "挑战"}
_LEVEL = re.compile(r"^(★+) (" + "|".join(map(re.escape, EXERCISE_LEVELS_ZH)) + r")$")


def exercise_level_zh(title):
    """"★★ core" -> "★★ 核心"; any other title unchanged."""
    return _LEVEL.sub(lambda m: f"{m.group(1)} {EXERCISE_LEVELS_ZH[m.group(2)]}", title)


class TranslateExerciseLevels(Transform):
    """The level in an exercise's title ("★★ core"), in the Chinese edition."""

    default_priority = 25   # after Locale (20)

    def apply(self, **kwargs):
        env = self.document.settings.env
        if not (env.config.language or "en").startswith("zh"):
            return
        try:
            from sphinx_exercise.nodes import exercise_subtitle
        except ImportError:
            return
        for sub in self.document.findall(exercise_subtitle):
            for text in list(sub.findall(nodes.Text)):
                new = exercise_level_zh(str(text))
                if new != str(text):
                    text.parent.replace(text, nodes.Text(new))


class ExerciseTitleParentheses(SphinxPostTransform):
    """The parentheses sphinx-exercise puts around an exercise's level, full-width in the Chinese edition."""

    default_priority = 21   # after sphinx-exercise's ResolveTitlesInExercises (20) writes them

    def run(self, **kwargs):
        if not (self.config.language or "en").startswith("zh"):
            return
        for title in self.document.findall(nodes.title):
            parent = title.parent
            if parent is None or not type(parent).__name__.startswith("exercise"):
                continue
            for text in list(title.findall(nodes.Text)):
                if str(text) in (" (", ")"):
                    text.parent.replace(text, nodes.Text("（" if str(text) == " (" else "）"))


def _exercise_numbers(app, config):
    """sphinx-exercise's "Exercise %s" (its own zh_CN catalog says 练习) as the book's Chinese says it."""
    if (config.language or "en").startswith("zh"):
        config.numfig_format = {**config.numfig_format, "exercise": EXERCISE_ZH}


def _language(document):
    env = getattr(document.settings, "env", None)
    return getattr(getattr(env, "config", None), "language", None) or "en"


def _translated(output, document):
    """The glued value in the page's language (a copy; the notebook's glue data is not changed)."""
    if not _language(document).startswith("zh"):
        return output
    data = output.data
    if not isinstance(data.get("text/markdown"), str):
        return output
    text = glue_zh(data["text/markdown"])
    if text == data["text/markdown"]:
        return output
    return dataclasses.replace(output, data={**data, "text/markdown": text})


def _retrieve_glue_data(document, key):
    from myst_nb.ext.glue import utils

    renderer = _PAGE.get("renderer")
    if ("nb_renderer" not in document and renderer is not None
            and str(document.get("source", "")).endswith("<translated>")):
        document.attributes["nb_renderer"] = renderer
        try:
            return _translated(utils.retrieve_glue_data(document, key), document)
        finally:
            document.attributes.pop("nb_renderer")
    return _translated(utils.retrieve_glue_data(document, key), document)


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
    app.add_transform(TranslateExerciseLevels)
    app.add_post_transform(ExerciseTitleParentheses)
    app.connect("config-inited", _exercise_numbers, priority=400)   # before sphinx-exercise's (500) merges it
    app.connect("html-page-context", _switch)
    app.connect("source-read", lambda app, docname, source: _PAGE.pop("renderer", None))
    _patch_glue()
    return {"parallel_read_safe": True, "parallel_write_safe": True}

