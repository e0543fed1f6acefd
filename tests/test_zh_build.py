"""The built Chinese edition (``_build/html-zh``, ``make zh``) beside the English one.

* every page of both editions links to the same page in the other edition;
* the Chinese pages say ``lang="zh-CN"``;
* the translated pages (``i18n.COMPLETE``) have no English paragraph left: every ``<p>`` of
  the article holds Chinese, or nothing but code, numbers and names;
* a glued number is the same in both editions.

Skipped where the Chinese edition is not built; ``make zh`` sets I18N_REQUIRED=1 so that a
missing build fails instead.
"""

from __future__ import annotations

import html
import os
import pathlib
import re
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import i18n  # noqa: E402

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


def _paragraphs(text):
    for p in re.findall(r"<p\b[^>]*>(.*?)</p>", _article(text), flags=re.S):
        yield html.unescape(re.sub(r"<[^>]+>", "", p)).strip()


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
