"""The whole-book PDF (``tools/build_pdf.py``, ``make pdf``): it exists, holds every chapter,
every figure and every formula typeset, and no character is missing its glyph.

Run after ``make pdf``; ``make test`` does both. Skipped, with a message, when there is no PDF
(``lib-tests`` leaves this file out; ``make test`` runs it with ``PDF_REQUIRED=1``, so a missing
PDF fails there).
"""

from __future__ import annotations

import json
import os
import pathlib
import re
import unicodedata

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
PDF = pathlib.Path(os.environ.get("BOOK_PDF", ROOT / "_build" / "html" / "gpu-interconnects.pdf"))
REPORT = ROOT / "_build" / "pdf_report.json"

if not PDF.exists():
    if os.environ.get("PDF_REQUIRED"):
        raise FileNotFoundError(f"{PDF} is missing: run `make pdf`")
    pytest.skip(f"no PDF at {PDF}: run `make pdf`", allow_module_level=True)

pypdf = pytest.importorskip("pypdf")
CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")


@pytest.fixture(scope="module")
def reader():
    return pypdf.PdfReader(str(PDF))


@pytest.fixture(scope="module")
def report():
    return json.loads(REPORT.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def texts(reader):
    # NFKC folds the ligatures Chromium prints (U+FB01 "fi" in "Specification") into letters
    return [unicodedata.normalize("NFKC", p.extract_text() or "") for p in reader.pages]


def _fonts(page):
    """(BaseFont names, whether a Type 3 font is used) of a page's fonts."""
    names, type3 = set(), False
    res = page.get("/Resources")
    fonts = res.get_object().get("/Font") if res is not None else None
    if fonts is not None:
        for ref in fonts.get_object().values():
            font = ref.get_object()
            type3 |= font.get("/Subtype") == "/Type3"
            names.add(str(font.get("/BaseFont", "")))
    return names, type3


def _toc_titles():
    import yaml

    toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
    files = [toc["root"]] + [c["file"] for part in toc["parts"] for c in part["chapters"]]
    titles = []
    for f in files:
        path = ROOT / f"{f}.ipynb"
        if path.exists():
            nb = json.loads(path.read_text(encoding="utf-8"))
            md = next("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown")
        else:
            md = (ROOT / f"{f}.md").read_text(encoding="utf-8")
        title = next(line for line in md.splitlines() if line.startswith("# "))[2:].strip()
        titles.append(re.sub(r"[`*_]", "", title))
    return titles


def test_every_chapter_is_in_the_pdf(texts):
    # each chapter's title (from its first heading) is printed somewhere in the PDF, in order
    flat = re.sub(r"\s+", " ", " ".join(texts))
    pos = 0
    for title in _toc_titles():
        words = " ".join(title.split()[:4])   # the start of the title: long titles wrap in the PDF
        i = flat.find(words, pos)
        assert i >= 0, f"chapter {title!r} is not in the PDF (after position {pos})"
        pos = i


def test_page_count_is_a_book(reader):
    assert 200 <= len(reader.pages) <= 2000, len(reader.pages)


def test_every_figure_is_in_the_pdf(reader, report):
    # every <img> of the single page loaded before printing, and the PDF holds at least one
    # image object per distinct picture (pypdf counts each XObject where a page draws it)
    assert report["images"] > 50 and report["images_loaded"] == report["images"], report
    drawn = sum(len(p.images) for p in reader.pages)
    assert drawn >= report["image_sources"], (drawn, report["image_sources"])


def test_formulas_are_typeset(report, texts):
    # MathJax ran (hundreds of formulas); none is left as raw TeX delimiters in the text
    assert report["formulas"] > 100, report
    raw = [i for i, t in enumerate(texts) if "\\(" in t or "\\[" in t or "$$" in t]
    assert not raw, f"raw TeX on pages {raw[:10]}"


def test_no_missing_glyph(reader, texts):
    # no replacement character, and every page with Chinese text embeds a CJK font (Chromium
    # would otherwise draw empty boxes: the glyphs a Latin font lacks). Chromium prints
    # synthetic-bold CJK (the glossary's bold terms) as Type 3 glyph outlines, which carry no
    # font name: those pages pass on a Type 3 font.
    bad = [i for i, t in enumerate(texts) if "\ufffd" in t]
    assert not bad, f"U+FFFD on pages {bad[:10]}"
    cjk_pages = [i for i, t in enumerate(texts) if CJK.search(t)]
    assert cjk_pages, "the preface's Chinese title of the seed article should be in the PDF"
    for i in cjk_pages:
        fonts, type3 = _fonts(reader.pages[i])
        assert type3 or any(re.search(r"WenQuanYi|CJK|Hei|Song|Ming|Kai|Noto.*(SC|TC|JP)", f) for f in fonts), \
            f"page {i + 1} has Chinese text but no CJK font: {sorted(fonts)}"
