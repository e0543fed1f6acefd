"""Lecture slides from the chapters: one offline reveal.js deck per chapter (instructors).

Usage::

    python tools/slides.py OUTDIR [CHAPTER.ipynb ...]    # every chapter of _toc.yml, or those named

Each deck is made from the chapter's committed notebook, without executing it: a title
slide; then, section by section (the ``##`` headings), a slide with the section's key
equations (its display math, the glued numbers rendered as text) and one slide per figure
(the image the notebook's output holds, its caption's first sentence under it, its alt
text as speaker notes). nbconvert's reveal.js exporter writes the HTML through the
template in ``tools/slides_template``, which loads reveal.js and MathJax from
``OUTDIR/_assets`` (copied from the installed sphinx-revealjs and sphinx-mathjax-offline
packages), never from a CDN: the decks work offline. ``tests/test_slides.py`` builds one
chapter's deck and checks that it holds the chapter's figures and equations and that no
script or style sheet comes from an http(s) URL.
"""

from __future__ import annotations

import copy
import json
import pathlib
import re
import shutil
import sys

import nbformat
import yaml

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
from student_edition import render_glue  # noqa: E402

DISPLAY_MATH = re.compile(r"\$\$(.+?)\$\$", re.S)
MATH_DIRECTIVE = re.compile(r"```\{math\}[^\n]*\n(?::[^\n]*\n)*(.*?)\n```", re.S)
HEADING = re.compile(r"^(#{1,2}) (.+)$", re.M)
EQUATIONS_PER_SLIDE = 4


def _assets():
    """``(reveal.js dir, MathJax dir)`` of the installed packages (sphinx-revealjs bundles
    reveal.js; sphinx-mathjax-offline, a data directory without a module, MathJax 3)."""
    import sysconfig

    import sphinx_revealjs

    reveal = pathlib.Path(sphinx_revealjs.__file__).parent / "_static/revealjs"
    sites = [pathlib.Path(sysconfig.get_paths()["purelib"])] + [pathlib.Path(p) for p in sys.path if p]
    mathjax = next((s / "sphinx-mathjax-offline/static/mathjax" for s in sites
                    if (s / "sphinx-mathjax-offline/static/mathjax/tex-chtml.js").is_file()), None)
    if not (reveal / "dist/reveal.js").is_file() or mathjax is None:
        raise FileNotFoundError("reveal.js (sphinx-revealjs) or MathJax (sphinx-mathjax-offline) is not installed")
    return reveal, mathjax


def copy_assets(outdir):
    """Copy reveal.js and MathJax (tex-chtml and its fonts) to ``outdir/_assets``."""
    reveal, mathjax = _assets()
    dest = pathlib.Path(outdir) / "_assets"
    if not (dest / "reveal/dist/reveal.js").is_file():
        shutil.copytree(reveal / "dist", dest / "reveal/dist", dirs_exist_ok=True)
        shutil.copytree(reveal / "plugin/notes", dest / "reveal/plugin/notes", dirs_exist_ok=True)
    if not (dest / "mathjax/tex-chtml.js").is_file():
        (dest / "mathjax").mkdir(parents=True, exist_ok=True)
        shutil.copy2(mathjax / "tex-chtml.js", dest / "mathjax/tex-chtml.js")
        shutil.copytree(mathjax / "output", dest / "mathjax/output", dirs_exist_ok=True)
    return dest


def _md(text, slide_type):
    return nbformat.v4.new_markdown_cell(text, metadata={"slideshow": {"slide_type": slide_type}})


def _first_sentence(text):
    m = re.match(r"(.+?[.!?])(\s|$)", " ".join(text.split()))
    return m.group(1) if m else text


def deck(nb):
    """The slide notebook of a chapter notebook (a dict, nbformat 4)."""
    nb = render_glue(nb)
    cells, section, title, pending = [], None, None, []

    def flush():
        for i in range(0, len(pending), EQUATIONS_PER_SLIDE):
            eqs = "\n\n".join(f"$$\n{e.strip()}\n$$" for e in pending[i:i + EQUATIONS_PER_SLIDE])
            cells.append(_md(f"## {section or title}\n\n{eqs}", "slide"))
        pending.clear()

    for cell in nb["cells"]:
        src = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
        if cell["cell_type"] == "markdown":
            for m in HEADING.finditer(src):
                if m.group(1) == "#" and title is None:
                    title = m.group(2).strip()
                    cells.append(_md(f"# {title}\n\n*GPU Interconnects*", "slide"))
                elif m.group(1) == "##":
                    flush()
                    section = m.group(2).strip()
            if section and section.lower().startswith(("exercises", "references")):
                continue
            pending.extend(DISPLAY_MATH.findall(src) + MATH_DIRECTIVE.findall(src))
            continue
        if cell["cell_type"] != "code":
            continue
        for out in cell.get("outputs", []):
            if "image/png" not in out.get("data", {}):
                continue
            flush()
            meta = cell.get("metadata", {}).get("mystnb", {})
            caption = meta.get("figure", {}).get("caption", "")
            alt = meta.get("image", {}).get("alt", "")
            cells.append(_md(f"### {section or title}", "slide"))
            img = nbformat.v4.new_code_cell("", metadata={"slideshow": {"slide_type": "-"}, "alt": alt or caption})
            img.outputs = [nbformat.v4.new_output("display_data", data={"image/png": out["data"]["image/png"]},
                                                  metadata={"image/png": {"alt": alt}} if alt else {})]
            cells.append(img)
            if caption:
                cells.append(_md(f"<small>{_first_sentence(caption)}</small>", "-"))
            if alt:
                cells.append(_md(alt, "notes"))
    flush()
    out = nbformat.v4.new_notebook(cells=cells)
    out.metadata["title"] = f"{title or 'GPU Interconnects'}"
    return out


def write_deck(chapter, outdir):
    """Write ``outdir/<chapter name>.html``, the deck of one chapter notebook; return its path."""
    from nbconvert import SlidesExporter

    chapter, outdir = pathlib.Path(chapter), pathlib.Path(outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    copy_assets(outdir)
    nb = nbformat.from_dict(deck(json.loads(chapter.read_text())))
    exporter = SlidesExporter(extra_template_basedirs=[str(ROOT / "tools")], template_name="slides_template",
                              reveal_url_prefix="_assets/reveal", mathjax_url="_assets/mathjax/tex-chtml.js",
                              exclude_input=True, exclude_input_prompt=True, exclude_output_prompt=True)
    exporter.reveal_theme = "white"
    body, _ = exporter.from_notebook_node(copy.deepcopy(nb))
    path = outdir / f"{chapter.stem}.html"
    path.write_text(body, encoding="utf-8")
    return path


def chapters():
    """The chapter notebooks of _toc.yml, in order."""
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    out = []
    for part in toc["parts"]:
        for c in part.get("chapters", []):
            path = ROOT / f"{c['file']}.ipynb"
            if path.is_file():
                out.append(path)
    return out


def main(argv):
    if not argv:
        sys.exit(__doc__)
    outdir = pathlib.Path(argv[0])
    for chapter in [pathlib.Path(a) for a in argv[1:]] or chapters():
        path = write_deck(chapter, outdir)
        print(f"slides: {path}")


if __name__ == "__main__":
    main(sys.argv[1:])
