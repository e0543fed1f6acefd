"""Checks of the built HTML book that need no browser: links and leftovers.

* Every internal link resolves: a relative ``href`` names a file of the build, and its
  ``#fragment``, if any, is an ``id`` on that page (a cross-reference to a renamed
  section or a deleted chapter fails here rather than in a reader's hands).
* No page shows internal markers or raw Python values where a reader expects prose or a
  table: the word ``UNVERIFIED``, a ``dict`` or ``list`` repr printed as a cell's output.

Run after the book is built (``make test`` builds it first); skipped otherwise.
"""

from __future__ import annotations

import functools
import html.parser
import os
import pathlib
import re
import urllib.parse

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
HTML = pathlib.Path(os.environ.get("BOOK_HTML", ROOT / "_build" / "html"))

pytestmark = pytest.mark.skipif(not (HTML / "index.html").exists(), reason="build the book first: make build-strict")


class _Page(html.parser.HTMLParser):
    """The ids, the links and the text of cell outputs of one page."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.ids, self.links, self.outputs = set(), [], []
        self._depth = 0          # >0 while inside a cell output's <pre>
        self._text = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if "id" in a:
            self.ids.add(a["id"])
        if tag == "a" and a.get("name"):
            self.ids.add(a["name"])
        if tag == "a" and a.get("href") and not a.get("hreflang"):
            # (the link to the other language's edition is tested in tests/test_zh_build.py)
            self.links.append(a["href"])
        if tag == "pre" and self._depth == 0 and self._in_output:
            self._depth = 1
            self._text = []
        elif self._depth and tag == "pre":
            self._depth += 1
        if tag == "div" and "cell_output" in (a.get("class") or ""):
            self._outputs_open = getattr(self, "_outputs_open", 0) + 1

    @property
    def _in_output(self):
        return getattr(self, "_outputs_open", 0) > 0

    def handle_endtag(self, tag):
        if tag == "pre" and self._depth:
            self._depth -= 1
            if self._depth == 0:
                self.outputs.append("".join(self._text))

    def handle_data(self, data):
        if self._depth:
            self._text.append(data)


def _pages():
    if not HTML.exists():
        return []
    rels = (p.relative_to(HTML) for p in HTML.rglob("*.html"))
    return sorted(str(r) for r in rels if not r.parts[0].startswith("_"))


@functools.cache
def _parse(rel):
    page = _Page()
    page.feed((HTML / rel).read_text(encoding="utf-8"))
    return page


def _internal(href):
    """The (path, fragment) an internal link points at, or None for external and special links."""
    u = urllib.parse.urlsplit(href)
    if u.scheme or u.netloc or href.startswith(("mailto:", "javascript:", "data:")):
        return None
    return urllib.parse.unquote(u.path), urllib.parse.unquote(u.fragment)


@pytest.mark.parametrize("rel", [p for p in _pages() if p.startswith("book/") or p == "index.html"])
def test_internal_links_resolve(rel):
    page = _parse(rel)
    bad = []
    for href in page.links:
        target = _internal(href)
        if target is None:
            continue
        path, frag = target
        dest = (HTML / rel).parent / path if path else HTML / rel
        dest = dest.resolve()
        if dest.is_dir():
            dest = dest / "index.html"
        if not dest.exists():
            bad.append(f"{href} (no file)")
            continue
        if frag and dest.suffix == ".html" and HTML in dest.parents:
            if frag not in _parse(str(dest.relative_to(HTML))).ids:
                bad.append(f"{href} (no id {frag!r} there)")
    assert not bad, f"{rel}: links that lead nowhere: {sorted(set(bad))[:20]}"


_RAW = re.compile(r"^\s*[\[{]\s*'[^']*'\s*[:,]")   # {'key': ... or ['a', ...: a printed dict or list of str


@pytest.mark.parametrize("rel", [p for p in _pages() if p.startswith("book/")])
def test_no_internal_markers_or_raw_values(rel):
    text = (HTML / rel).read_text(encoding="utf-8")
    body = re.sub(r"<script.*?</script>", "", text, flags=re.S)
    assert "UNVERIFIED" not in body, f"{rel}: shows an internal UNVERIFIED marker"
    if rel.startswith("book/appendix/api"):
        return  # the library reference prints Python values on purpose
    raw = [o.strip()[:80] for o in _parse(rel).outputs if _RAW.match(o)]
    assert not raw, f"{rel}: outputs printed as raw Python dicts or lists: {raw}"


def test_the_checks_can_fail(tmp_path):
    """The parser finds a dict output, a dead link and a missing anchor in a page made to have them."""
    page = _Page()
    page.feed('<div class="cell_output docutils container"><div class="output"><pre>{\'a\': 1}</pre></div></div>'
              '<h2 id="here">x</h2><a href="#here">ok</a><a href="nowhere.html">bad</a>')
    assert page.outputs == ["{'a': 1}"] and _RAW.match(page.outputs[0])
    assert "here" in page.ids and page.links == ["#here", "nowhere.html"]
    assert _internal("https://example.org/x") is None and _internal("a.html#b") == ("a.html", "b")


# ---- exercises: numbered within their chapter, each with its level ----------------------------

_H1_NUMBER = re.compile(r'<h1><span class="section-number">(\d+)\.\s*</span>')
# the Chinese edition (BOOK_HTML=_build/html-zh) says "习题 12.3（★★ 核心）" (tools/sphinx_i18n.py)
_LANDING = HTML / "book" / "index.html"
ZH = _LANDING.exists() and '<html lang="zh-CN"' in _LANDING.read_text(encoding="utf-8")
_EXERCISE_TITLE = re.compile(
    r'<p class="admonition-title"><span class="caption-number">习题 ([\d.]+) </span>\s*（([^）<]*)）</p>' if ZH else
    r'<p class="admonition-title"><span class="caption-number">Exercise ([\d.]+) </span>\s*\(([^)<]*)\)</p>')


def _exercise_data():
    import sys

    import yaml

    data = yaml.safe_load((ROOT / "book" / "_data" / "chapters.yml").read_text(encoding="utf-8"))
    if ZH:
        sys.path.insert(0, str(ROOT / "tools"))
        from sphinx_i18n import EXERCISE_LEVELS_ZH as names
    else:
        names = {name: name for name in data["exercise_levels"]}
    scale = [f"{d['stars']} {names[name]}" for name, d in data["exercise_levels"].items()]
    return data, scale


def exercise_titles(text):
    """``(chapter number or None, [(exercise number, title)])`` of one built page."""
    h1 = _H1_NUMBER.search(text)
    return (int(h1.group(1)) if h1 else None), _EXERCISE_TITLE.findall(text)


def exercise_problems(text, n_expected, scale):
    """What is wrong with a chapter page's exercise headings; empty when every exercise reads
    "Exercise C.k (★★ core)" with C the chapter's number, k = 1, 2, ... and a level of the scale."""
    chapter, found = exercise_titles(text)
    out = []
    if chapter is None:
        out.append("the chapter's title carries no number")
    if len(found) != n_expected:
        out.append(f"{len(found)} numbered exercise titles, want {n_expected}")
    for k, (number, title) in enumerate(found, start=1):
        if number != f"{chapter}.{k}":
            out.append(f"Exercise {number}: want {chapter}.{k} (numbered within chapter {chapter})")
        if title not in scale:
            out.append(f"Exercise {number}: level {title!r} is not one of {scale}")
    return out


_DATA, _SCALE = _exercise_data()
_WITH_EXERCISES = {page: len(entry["exercises"]) for page, entry in _DATA["chapters"].items() if entry.get("exercises")}


@pytest.mark.parametrize("page", sorted(_WITH_EXERCISES))
def test_exercises_are_numbered_within_the_chapter_with_a_level(page):
    text = (HTML / "book" / f"{page}.html").read_text(encoding="utf-8")
    bad = exercise_problems(text, _WITH_EXERCISES[page], _SCALE)
    assert not bad, f"{page}: {bad[:5]}"


def test_chapter_numbers_run_on_across_the_parts():
    """Chapter numbers are one sequence through the book (Jupyter Book restarts them per part
    unless multitoc numbering is on): the exercise pages' numbers strictly increase in toc order."""
    import sys

    sys.path.insert(0, str(ROOT / "tools"))
    import chapter_frame

    _, pages = chapter_frame.toc_pages()
    numbers = [exercise_titles((HTML / "book" / f"{p}.html").read_text(encoding="utf-8"))[0]
               for p in pages if p in _WITH_EXERCISES]
    assert numbers == sorted(set(numbers)) and numbers[0] == 1, numbers


def test_the_exercise_check_can_fail():
    if ZH:
        good = ('<h1><span class="section-number">12. </span>数据</h1>'
                '<p class="admonition-title"><span class="caption-number">习题 12.1 </span> （★ 入门）</p>'
                '<p class="admonition-title"><span class="caption-number">习题 12.2 </span> （★★★ 挑战）</p>')
        globally = good.replace("习题 12.1", "习题 71").replace("习题 12.2", "习题 72")
        easy = good.replace("（★ 入门）", "（★ warm-up）")
    else:
        good = ('<h1><span class="section-number">12. </span>Data</h1>'
                '<p class="admonition-title"><span class="caption-number">Exercise 12.1 </span> (★ warm-up)</p>'
                '<p class="admonition-title"><span class="caption-number">Exercise 12.2 </span> (★★★ challenge)</p>')
        globally = good.replace("Exercise 12.1", "Exercise 71").replace("Exercise 12.2", "Exercise 72")
        easy = good.replace("(★ warm-up)", "(easy)")
    assert exercise_problems(good, 2, _SCALE) == []
    assert len(exercise_problems(globally, 2, _SCALE)) == 2
    assert exercise_problems(easy, 2, _SCALE)
    assert exercise_problems(good.replace('<span class="section-number">12. </span>', ""), 2, _SCALE)
    assert exercise_problems(good, 3, _SCALE)
