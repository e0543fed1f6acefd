"""The lecture slides (tools/slides.py): one chapter's deck holds its figures and key
equations, and loads every script and style sheet from local files (no CDN, no network)."""

import json
import pathlib
import re
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))

pytest.importorskip("sphinx_revealjs")
import slides  # noqa: E402

CHAPTER = ROOT / "book/parallel/data_parallel.ipynb"


@pytest.fixture(scope="module")
def deck(tmp_path_factory):
    out = tmp_path_factory.mktemp("slides")
    return slides.write_deck(CHAPTER, out)


def test_the_deck_holds_the_chapters_figures_and_equations(deck):
    page = deck.read_text(encoding="utf-8")
    nb = json.loads(CHAPTER.read_text())
    figures = sum(1 for c in nb["cells"] if c["cell_type"] == "code"
                  for o in c.get("outputs", []) if "image/png" in o.get("data", {}))
    assert figures >= 2
    imgs = [tag for tag in re.findall(r"<img\b[^>]*>", page) if 'src="data:image/png;base64,' in tag]
    assert len(imgs) == figures
    assert all(re.search(r'\balt="[^"]{20,}"', tag) for tag in imgs)  # the figures' alt text
    markdown = "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown")
    equations = [e for e in slides.DISPLAY_MATH.findall(markdown) if "{glue" not in e]
    assert equations
    for e in equations[:5]:
        assert e.strip()[:30] in page
    assert '<aside class="notes">' in page  # the figures' alt text, as speaker notes


def test_the_deck_loads_nothing_from_the_network(deck):
    page = deck.read_text(encoding="utf-8")
    refs = re.findall(r"<(?:script|link|img|iframe)\b[^>]*?(?:src|href)\s*=\s*[\"']([^\"']+)", page, re.I)
    refs += re.findall(r"@import\s+(?:url\()?[\"']?([^\"');]+)", page)
    refs += re.findall(r"import\s+[\w{}\s,*]+\s+from\s+[\"']([^\"']+)", page)
    assert refs
    remote = [r for r in refs if re.match(r"(https?:)?//", r)]
    assert not remote, remote
    # every local script and style sheet is there, beside the deck
    for r in refs:
        if not r.startswith(("data:", "#")):
            assert (deck.parent / r).is_file(), r
    assert not re.search(r"url\(\s*[\"']?(https?:)?//", page)
