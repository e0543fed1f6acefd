"""Build the whole book as one PDF, offline: a single-page HTML build printed by Chromium.

1. Sphinx's ``singlehtml`` builder makes one page of every chapter, from the notebooks'
   committed outputs (the same outputs strict nbval has just checked), into
   ``_build/pdf_src``.
2. Debian's Chromium, driven by Playwright (never a downloaded browser), opens that page from
   disk, loads every image (the theme marks them ``loading="lazy"``, which a print would skip),
   waits for MathJax to typeset every formula, and prints it to A4 with the print stylesheet.
3. The PDF goes to ``_build/html/gpu-interconnects.pdf``, beside the HTML book that links to
   it, with a report (``_build/pdf_report.json``: pages, images and formulas on the page) that
   ``tests/test_pdf.py`` checks the PDF against.

Usage: python tools/build_pdf.py [OUT.pdf]
"""

from __future__ import annotations

import json
import pathlib
import shutil
import subprocess
import sys
import time

import yaml

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from committed_outputs_config import committed_config  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parent.parent
BUILD = ROOT / "_build"
SRC = BUILD / "pdf_src"
PDF = BUILD / "html" / "gpu-interconnects.pdf"
REPORT = BUILD / "pdf_report.json"
CHROMIUM = "/usr/bin/chromium"
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
         "--disable-sync", "--no-first-run"]

# Running heads and page numbers; the chapters' own stylesheet hides the navigation in print.
PRINT_CSS = """
@page { size: A4; margin: 16mm 14mm 18mm 14mm; }
@media print {
  .bd-sidebar-primary, .bd-sidebar-secondary, .bd-header, .bd-footer, .bd-footer-content,
  .prev-next-area, .headerlink, .header-article, .ic-source summary::after { display: none !important; }
  .bd-main .bd-content .bd-article-container { max-width: 100% !important; }
  img { max-width: 100% !important; page-break-inside: avoid; break-inside: avoid; }
  figure, table, .admonition, div.cell_output { break-inside: avoid; }
  pre { white-space: pre-wrap !important; word-break: break-word; }
}
"""


def singlehtml():
    """Build the single page from the committed outputs; return the path of its index.html."""
    config = committed_config()
    config["sphinx"]["local_extensions"]["singlehtml_nodes"] = str(ROOT / "tools")
    cfg = BUILD / "config-pdf.yml"
    cfg.parent.mkdir(parents=True, exist_ok=True)
    cfg.write_text(yaml.safe_dump(config, sort_keys=False, allow_unicode=True), encoding="utf-8")
    shutil.rmtree(SRC, ignore_errors=True)
    jb = pathlib.Path(sys.executable).with_name("jupyter-book")
    subprocess.run([str(jb), "build", str(ROOT), "--config", str(cfg), "--builder", "custom",
                    "--custom-builder", "singlehtml", "--path-output", str(SRC), "--keep-going"],
                   check=True, stdout=subprocess.DEVNULL)
    out = SRC / "_build" / "singlehtml"
    root = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))["root"]
    # singlehtml writes the page under the root document's own path (book/preface.html) with
    # links relative to the build folder; it belongs at the top, where its links resolve
    page = out / f"{root}.html"
    index = out / "index.html"
    index.write_text(page.read_text(encoding="utf-8"), encoding="utf-8")
    return index


def print_pdf(index, pdf):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        page = browser.new_page()
        page.goto(index.as_uri(), wait_until="load", timeout=900_000)
        page.add_style_tag(content=PRINT_CSS)
        page.evaluate("() => document.querySelectorAll('img[loading]').forEach(i => i.removeAttribute('loading'))")
        page.evaluate("""async () => { await Promise.all([...document.images].map(i => i.complete ? 0 :
                         new Promise(r => { i.onload = r; i.onerror = r; }))); }""")
        page.wait_for_function("() => window.MathJax && window.MathJax.startup && window.MathJax.startup.promise",
                               timeout=300_000)
        page.evaluate("async () => { await window.MathJax.startup.promise; }")
        report = page.evaluate("""() => ({
            images: document.images.length,
            images_loaded: [...document.images].filter(i => i.complete && i.naturalWidth > 0).length,
            image_sources: new Set([...document.images].map(i => i.currentSrc || i.src)).size,
            formulas: document.querySelectorAll('mjx-container').length,
        })""")
        page.emulate_media(media="print")
        pdf.parent.mkdir(parents=True, exist_ok=True)
        page.pdf(path=str(pdf), format="A4", print_background=True, prefer_css_page_size=True,
                 display_header_footer=True, header_template="<span></span>",
                 footer_template='<div style="font-size:8px;width:100%;text-align:center;color:#555">'
                                 'GPU Interconnects &middot; <span class="pageNumber"></span></div>')
        browser.close()
    return report


def main(argv):
    pdf = pathlib.Path(argv[0]).resolve() if argv else PDF
    t0 = time.time()
    index = singlehtml()
    t1 = time.time()
    report = print_pdf(index, pdf)
    report.update(pdf=str(pdf), seconds_html=round(t1 - t0, 1), seconds_print=round(time.time() - t1, 1))
    REPORT.write_text(json.dumps(report, indent=1), encoding="utf-8")
    print(f"PDF written: {pdf} ({pdf.stat().st_size / 2**20:.1f} MiB); single page built in "
          f"{report['seconds_html']} s, printed in {report['seconds_print']} s")


if __name__ == "__main__":
    main(sys.argv[1:])
