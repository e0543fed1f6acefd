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
