"""Browser test of the built book: every page offline, in Debian's Chromium.

Serves ``_build/html`` on 127.0.0.1 and opens every page with Playwright driving
``/usr/bin/chromium`` (never a downloaded browser). Fails on any request to another
host, any console error or uncaught exception, any image that does not load, any
empty widget or output area; moves each static explorer's slider and checks that the
figure changes; saves a screenshot of each chapter under ``_build/screenshots/``.

Run after ``jupyter-book build .`` (``make test`` does both).
"""

from __future__ import annotations

import functools
import http.server
import os
import pathlib
import threading

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
HTML = pathlib.Path(os.environ.get("BOOK_HTML", ROOT / "_build" / "html"))  # BOOK_HTML: test another build
SHOTS = HTML.parent / "screenshots"
CHROMIUM = "/usr/bin/chromium"
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
         "--disable-sync", "--no-first-run", "--disable-quic"]

pytestmark = pytest.mark.skipif(not (HTML / "index.html").exists(), reason="build the book first: make build-strict")


def pages():
    if not HTML.exists():
        return []
    out = []
    for p in sorted(HTML.rglob("*.html")):
        rel = p.relative_to(HTML)
        if rel.parts[0].startswith("_"):
            continue  # _static, _sources, _images: assets, not pages
        out.append(str(rel))
    return out


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def server():
    handler = functools.partial(_Quiet, directory=str(HTML))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()


@pytest.fixture(scope="module")
def browser():
    sync_api = pytest.importorskip("playwright.sync_api")
    if not pathlib.Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} not found: install Debian's chromium (apt-get install chromium); .ci/run does")
    with sync_api.sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
        yield b
        b.close()


def _open(browser, server, rel):
    """Open a page with the network closed to everything but the local server."""
    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    problems = []

    def route(r):
        if r.request.url.startswith(server) or r.request.url.startswith("data:"):
            r.continue_()
        else:
            problems.append(f"request to another host: {r.request.url}")
            r.abort()

    ctx.route("**/*", route)
    page = ctx.new_page()
    page.on("console", lambda m: problems.append(f"console {m.type}: {m.text}") if m.type == "error" else None)
    page.on("pageerror", lambda e: problems.append(f"page error: {e}"))
    page.on("requestfailed", lambda r: problems.append(f"failed request: {r.url}")
            if r.url.startswith(server) else None)
    page.goto(f"{server}/{rel}", wait_until="load")
    # index.html is a redirect: wait until the target has loaded and the network is quiet,
    # so that MathJax and the inline scripts have run before we look at the page
    page.wait_for_load_state("networkidle")
    page.wait_for_timeout(200)
    return ctx, page, problems


def test_there_are_pages():
    assert "index.html" in pages()
    assert any("collectives" in p for p in pages()), pages()


@pytest.mark.parametrize("rel", pages())
def test_page_offline_and_complete(browser, server, rel):
    ctx, page, problems = _open(browser, server, rel)
    try:
        broken = page.evaluate("""() => Array.from(document.images)
            .filter(i => !(i.complete && i.naturalWidth > 0)).map(i => i.src.slice(0, 80))""")
        assert not broken, f"{rel}: images that did not load: {broken}"
        empty = page.evaluate("""() => Array.from(document.querySelectorAll(
              '.cell_output, .output, .widget-subarea, .jupyter-widgets, .ic-explorer'))
            .filter(e => e.offsetParent !== null || e.classList.contains('ic-explorer'))
            .filter(e => e.innerText.trim() === '' && e.querySelectorAll('img, svg, canvas, iframe').length === 0)
            .map(e => e.className)""")
        assert not empty, f"{rel}: empty output or widget areas: {empty}"
        leftover = page.evaluate("""() => document.querySelectorAll(
            'script[type="application/vnd.jupyter.widget-view+json"]').length""")
        assert leftover == 0, f"{rel}: {leftover} ipywidgets views that need a kernel or a CDN"
        text = page.inner_text("body")
        for bad in ("<function ", "object at 0x", " at 0x", "Traceback (most recent call last)"):
            assert bad not in text, f"{rel}: page shows {bad!r}"
        if rel.startswith("book/") and rel.count("/") >= 2:
            SHOTS.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(SHOTS / (rel.replace("/", "__").removesuffix(".html") + ".png")), full_page=True)
        assert not problems, f"{rel}: " + "; ".join(problems)
    finally:
        ctx.close()


@pytest.mark.parametrize("rel", [p for p in pages() if p.startswith("book/")])
def test_static_explorers_respond(browser, server, rel):
    ctx, page, problems = _open(browser, server, rel)
    try:
        explorers = page.query_selector_all(".ic-explorer")
        for ex in explorers:
            img = ex.query_selector("img.ic-explorer-frame")
            sliders = ex.query_selector_all("input[type=range]")
            assert img and sliders, f"{rel}: explorer without image or sliders"
            for slider in sliders:
                before = img.get_attribute("src")
                top = int(slider.get_attribute("max"))
                cur = int(slider.get_attribute("value"))
                new = 0 if cur != 0 else top
                slider.evaluate("(el, v) => { el.value = v; el.dispatchEvent(new Event('input')); }", str(new))
                after = img.get_attribute("src")
                assert after != before, (f"{rel}: moving slider {slider.get_attribute('data-param')} "
                                         "did not change the figure")
                slider.evaluate("(el, v) => { el.value = v; el.dispatchEvent(new Event('input')); }", str(cur))
                assert img.get_attribute("src") == before
        assert not problems, f"{rel}: " + "; ".join(problems)
    finally:
        ctx.close()


def test_chapters_have_explorers(browser, server):
    """Each chapter notebook ships at least one static explorer (appendices and the instructors' page need none)."""
    chapters = [p for p in pages()
                if p.startswith("book/") and p.count("/") >= 2
                and not p.startswith(("book/appendix/", "book/classroom/"))]
    assert chapters
    for rel in chapters:
        ctx, page, _ = _open(browser, server, rel)
        try:
            assert page.query_selector(".ic-explorer"), f"{rel}: no explorer"
        finally:
            ctx.close()
