"""Small Sphinx extension: keep the book's HTML clean offline.

* Jupyter Book registers sphinx-thebe's inline configuration script twice on every
  page, and the second ``const THEBE_JS_URL`` throws "Identifier has already been
  declared" in the browser console. Thebe is not used in this book (no kernel is
  reachable offline), so duplicates of every inline script are dropped.
* Adds the book's stylesheet, ``tools/_static/ic-book.css``: the static explorers in
  light and dark mode, and a layout that fits a phone (long code lines, equations and
  words wrap or scroll inside their own box). ``tests/test_browser.py`` measures both.
* Adds the book's script, ``tools/_static/ic-book.js``: a click on an explorer's frame
  shows it at full size (for phones).
"""

from __future__ import annotations

import pathlib


def _dedupe_scripts(app, pagename, templatename, context, doctree):
    scripts = context.get("script_files")
    if not scripts:
        return
    seen = set()
    kept = []
    for js in scripts:
        attrs = getattr(js, "attributes", {}) or {}
        key = (getattr(js, "filename", None) or "", str(attrs.get("body", "")))
        if key in seen:
            continue
        seen.add(key)
        kept.append(js)
    scripts[:] = kept


_STATIC = pathlib.Path(__file__).resolve().parent / "_static"
_CSS = _STATIC / "ic-book.css"
_JS = _STATIC / "ic-book.js"


def _write_static(app, exc):
    if exc is not None or app.builder.format != "html":
        return
    for src in (_CSS, _JS):
        out = pathlib.Path(app.outdir) / "_static" / src.name
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(src.read_text(encoding="utf-8"), encoding="utf-8")


def setup(app):
    app.connect("html-page-context", _dedupe_scripts, priority=900)
    app.add_css_file(_CSS.name)
    app.add_js_file(_JS.name, defer="defer")
    app.connect("build-finished", _write_static)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
