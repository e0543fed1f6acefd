"""The built Chinese edition (``_build/html-zh``, ``make zh``) beside the English one.

* every page of both editions links to the same page in the other edition;
* the Chinese pages say ``lang="zh-CN"``;
* the translated pages (``i18n.COMPLETE``) have no English paragraph left: every ``<p>`` of
  the article holds Chinese, or nothing but code, numbers and names;
* a glued number is the same in both editions;
* every figure's alt text (a notebook figure's, from its page's catalog; an explorer frame's,
  from ``interconnect.plots_zh``) is Chinese.

Skipped where the Chinese edition is not built; ``make zh`` sets I18N_REQUIRED=1 so that a
missing build fails instead.
"""

from __future__ import annotations

import os
import pathlib
import re
import sys
from html.parser import HTMLParser

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import i18n  # noqa: E402

from interconnect.plots import english_words  # noqa: E402

EN = ROOT / "_build" / "html"
ZH = i18n.HTML_ZH

if not (ZH / "book" / "index.html").exists():
    if os.environ.get("I18N_REQUIRED"):
        raise RuntimeError(f"{ZH} is not built: python tools/i18n.py build")
    pytest.skip("the Chinese edition is not built: make zh", allow_module_level=True)

CJK = re.compile(r"[\u4e00-\u9fff]")
SWITCH = re.compile(r'<p class="ic-lang-switch"><a href="([^"]+)" hreflang="([^"]+)"')


def _pages(root):
    return sorted(str(p.relative_to(root)) for p in (root / "book").rglob("*.html"))


def _article(text):
    start = text.find('<article class="bd-article">')
    end = text.find("</article>", start)
    return text[start:end] if start >= 0 else text


class _Prose(HTMLParser):
    """The page's own prose paragraphs, as the translator controls them: what code cells print
    (tables, explorers' readouts, figures: div.cell_output), the library reference's docstrings
    (dl.py, a module section's paragraphs), bibliography entries (div.citation), and inside a
    paragraph the text of links, code, glued values and math are shared with the English edition
    by design and left out."""

    SKIP_BLOCK = ("cell_output", "citation")
    SKIP_INLINE = ("a", "code", "pre")
    SKIP_SPAN = ("pasted-text", "math")

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack, self.skip_at, self.inline, self.para, self.out = [], None, 0, None, []

    def handle_starttag(self, tag, attrs):
        if tag in ("br", "img", "hr", "input", "meta", "link", "wbr"):
            return
        a = dict(attrs)
        cls = (a.get("class") or "").split()
        self.stack.append(tag)
        if self.skip_at is None and (any(c in self.SKIP_BLOCK for c in cls) or (tag == "dl" and "py" in cls)
                                     or (tag == "section" and (a.get("id") or "").startswith("module-"))):
            self.skip_at = len(self.stack)
        elif self.skip_at is None and (a.get("id") or "").startswith("module-"):
            # a module's docstring starts at this paragraph and runs to the end of its section
            self.skip_at = len(self.stack) - 1
        if self.skip_at is not None:
            return
        if tag == "p":
            self.para, self.inline = [], 0
        elif self.para is not None and (tag in self.SKIP_INLINE or self.inline
                                        or (tag == "span" and any(c in self.SKIP_SPAN for c in cls))):
            self.inline += 1

    def handle_endtag(self, tag):
        if tag not in self.stack:
            return
        while self.stack:
            top = self.stack.pop()
            if self.skip_at is not None and len(self.stack) < self.skip_at:
                self.skip_at = None
                if top == tag:
                    return
                continue
            if self.skip_at is None:
                if top == "p" and self.para is not None:
                    self.out.append(" ".join("".join(self.para).split()))
                    self.para = None
                elif self.inline:
                    self.inline -= 1
            if top == tag:
                return

    def handle_data(self, data):
        if self.skip_at is None and self.para is not None and not self.inline:
            self.para.append(data)


def _paragraphs(text):
    parser = _Prose()
    parser.feed(_article(text))
    yield from (p for p in parser.out if p)


def test_both_editions_have_the_same_pages():
    assert _pages(ZH) == _pages(EN) if EN.exists() else _pages(ZH)


@pytest.mark.parametrize("rel", _pages(ZH))
def test_language_switch_on_every_page(rel):
    for here, there, lang in ((ZH, EN, "en"), (EN, ZH, "zh-CN")):
        if not (here / rel).exists():
            continue
        m = SWITCH.search((here / rel).read_text(encoding="utf-8"))
        assert m, f"{here / rel}: no language switch (tools/sphinx_i18n.py, ic_other_edition)"
        assert m.group(2) == lang
        target = (here / rel).parent / m.group(1)
        assert target.resolve() == (there / rel).resolve(), f"{here / rel}: the switch points at {m.group(1)}"


@pytest.mark.parametrize("page", i18n.required_complete())
def test_translated_pages_are_chinese(page):
    text = (ZH / f"{page}.html").read_text(encoding="utf-8")
    assert '<html lang="zh-CN"' in text, f"{page}: not marked lang=zh-CN"
    english = [p for p in _paragraphs(text)
               if not CJK.search(p) and len(re.findall(r"\b[a-z]{3,}\b", p)) >= 4]
    assert not english, f"{page}: English paragraphs left in the Chinese edition: {english[:3]}"


def test_glued_numbers_shared():
    # the landing page's glued-free; three_walls glues numbers in its first paragraphs
    en = (EN / "book/why/three_walls.html") if EN.exists() else None
    zh = ZH / "book/why/three_walls.html"
    pasted = re.compile(r'<span class="pasted-text">([^<]*)</span>')
    if en is None or not en.exists():
        pytest.skip("English edition not built")
    assert sorted(pasted.findall(zh.read_text(encoding="utf-8"))) == sorted(
        pasted.findall(en.read_text(encoding="utf-8")))


def test_prose_parser_keeps_prose_and_leaves_out_shared_text():
    page = ('<article class="bd-article"><p>Untranslated words stay here, <a href="#x">a link text</a> '
            '<code>not this code</code> and <span class="pasted-text">64 years</span>.</p>'
            '<div class="cell_output docutils container"><p>printed by code, shared</p></div>'
            '<dl class="py function"><dd><p>a docstring line</p></dd></dl>'
            '<div class="citation"><p>An author. A title.</p></div><p>中文段落</p>'
            '<section><p>本节介绍</p><p id="module-interconnect.x">A module docstring.</p><p>Its second line.</p>'
            '</section><p>Back to prose words here.</p></article>')
    assert list(_paragraphs(page)) == ["Untranslated words stay here, and .", "中文段落", "本节介绍",
                                       "Back to prose words here."]


def test_figures_have_no_english_left():
    """The zh build executes the notebooks in Chinese (``INTERCONNECT_LANG=zh``); every figure text
    drawn in English is appended to ``i18n.MISSING_LOG`` (``plots.translate_text``). Add each one
    to ``lib/src/interconnect/plots_zh.py`` MESSAGES (a ``{field}`` template for formatted text)."""
    if not i18n.MISSING_LOG.exists():
        pytest.skip(f"{i18n.MISSING_LOG} not written: build the Chinese edition with tools/i18n.py build")
    left = i18n.missing_figure_text()
    shown = "\n".join(f"  {text!r}  [{where}]" for text, where in left[:40])
    assert not left, f"{len(left)} figure text(s) drawn in English in the Chinese edition:\n{shown}"


def test_figures_are_drawn_in_chinese():
    """A chapter's figure and an explorer's frame say Chinese in the Chinese edition (alt text aside)."""
    text = (ZH / "book/why/three_walls.html").read_text(encoding="utf-8")
    assert "数据并行效率探索器" in text   # the explorer's title and its static view
    assert "（运行此单元格即可使用实时滑块）" in text


def test_figures_have_every_glyph():
    """No Chinese figure fell back to a font without the glyph (matplotlib warns on stderr: tofu)."""
    bad = [rel for rel in _pages(ZH) if "UserWarning: Glyph" in (ZH / rel).read_text(encoding="utf-8")]
    assert not bad, f"figures drawn with missing glyphs (tofu) on: {bad}"


_IMG = re.compile(r"<img\b[^>]*>")
_ALT = re.compile(r'\salt="([^"]*)"')
_EXPLORER_DATA = re.compile(r'<script type="application/json" class="ic-explorer-data">(.*?)</script>', re.S)


def _alt_texts(text):
    """The alt texts of a page's article: every ``<img alt>`` (figures, explorers' default frames)
    and every frame's alt in an explorer's JSON payload (shown when a slider moves)."""
    import html
    import json

    article = _article(text)
    out = []
    for img in _IMG.findall(article):
        m = _ALT.search(img)
        if m and m.group(1).strip():
            out.append(html.unescape(m.group(1)))
    for payload in _EXPLORER_DATA.findall(article):
        out += list(json.loads(payload.replace("<\\/", "</")).get("alts", {}).values())
    return out


def test_alt_text_reader():
    page = ('<p>x</p><article class="bd-article"><img src="a.png" alt="左图：单向 450 GB/s" class="x">'
            '<img src="b.png" alt=""><img alt="Two panels &amp; a table">'
            '<script type="application/json" class="ic-explorer-data">{"frames": {}, '
            '"alts": {"0": "Ring of 4 ranks", "1": "4 个 rank 组成的环"}}</script></article>')
    assert _alt_texts(page) == ["左图：单向 450 GB/s", "Two panels & a table", "Ring of 4 ranks", "4 个 rank 组成的环"]
    assert [a for a in _alt_texts(page) if english_words(a)] == ["Two panels & a table", "Ring of 4 ranks"]


def test_alt_text_is_chinese():
    """A screen reader reads the Chinese edition's figures in Chinese: a notebook figure's alt text
    (``mystnb.image.alt``) comes from its page's catalog (``tools/i18n.py`` extracts it: the gettext
    builder renders the image, not its text/plain), an explorer frame's from ``plots_zh.MESSAGES``
    (``widgets.Explorer._alt``). An alt with an English word (``plots.english_words``) fails."""
    seen, images, bad = 0, 0, []
    for rel in _pages(ZH):
        text = (ZH / rel).read_text(encoding="utf-8")
        images += sum(1 for img in _IMG.findall(_article(text)) if (m := _ALT.search(img)) and m.group(1).strip())
        for alt in _alt_texts(text):
            seen += 1
            if english_words(alt):
                bad.append(f"  {rel}: {alt[:100]!r} ({', '.join(english_words(alt)[:5])})")
    # the book has 83 notebook figures with alt text and 26 explorers of several frames each (109
    # images with alt, 722 alts in all when this test was written)
    assert images >= 100 and seen >= 300, f"only {images} images with alt, {seen} alts in {ZH}: is the build complete?"
    assert not bad, f"{len(bad)} alt text(s) with English words in the Chinese edition:\n" + "\n".join(bad[:40])
