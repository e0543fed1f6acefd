"""Small Sphinx extension: keep the book's HTML clean offline.

* Jupyter Book registers sphinx-thebe's inline configuration script twice on every
  page, and the second ``const THEBE_JS_URL`` throws "Identifier has already been
  declared" in the browser console. Thebe is not used in this book (no kernel is
  reachable offline), so duplicates of every inline script are dropped.
* Adds the small stylesheet for the book's static explorers.
"""

from __future__ import annotations


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


_CSS = """
.ic-explorer { border: 1px solid var(--pst-color-border, #ccc); border-radius: 6px; padding: 0.6rem 0.8rem; \
margin: 0.8rem 0; background: var(--pst-color-surface, #fafafa); }
.ic-explorer-title { margin-bottom: 0.4rem; }
.ic-explorer-row { display: flex; align-items: center; gap: 0.6rem; margin: 0.15rem 0; font-size: 0.92rem; }
.ic-explorer-label { min-width: 14rem; }
.ic-explorer-row input[type=range] { flex: 1 1 auto; max-width: 22rem; }
.ic-explorer-row output { min-width: 12rem; font-variant-numeric: tabular-nums; }
.ic-explorer-note { font-size: 0.85rem; opacity: 0.8; margin-top: 0.3rem; }
.ic-explorer img { background: white; }
"""


def _write_css(app, exc):
    if exc is not None or app.builder.format != "html":
        return
    import pathlib

    out = pathlib.Path(app.outdir) / "_static" / "ic-explorer.css"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(_CSS)


def setup(app):
    app.connect("html-page-context", _dedupe_scripts, priority=900)
    app.add_css_file("ic-explorer.css")
    app.connect("build-finished", _write_css)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
