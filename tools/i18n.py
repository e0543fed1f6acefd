"""The Chinese edition: message catalogs, their check, and the zh_CN build.

One source, two languages. The English pages are the source; the Chinese edition is built
from them with Sphinx's gettext catalogs, one per page, under ``locales/zh_CN/LC_MESSAGES/``
(``book/preface.po`` for ``book/preface.md``). Only prose is in a catalog: code, what code
cells print and the library reference's docstrings are shared by both editions
(``tools/sphinx_i18n.py`` says exactly what), so every computed number is the same in both.

Usage (from the repository root, with the venv's Python)::

    python tools/i18n.py pot        # the English messages: _build/gettext/**/*.pot (25-40 s)
    python tools/i18n.py update     # pot, then sphinx-intl update: new messages into every .po,
                                    # changed ones marked fuzzy (old translation kept as a
                                    # draft), removed ones dropped
    python tools/i18n.py --check    # per catalog: translated, untranslated, fuzzy, obsolete;
                                    # exits 1 if a page in COMPLETE is not 100 % translated
    python tools/i18n.py build      # the Chinese HTML into _build/html-zh (the notebooks
                                    # executed in Chinese; see README for the time)
    python tools/i18n.py complete-k # the pages in COMPLETE as a pytest -k expression

``make po`` runs ``update``, ``make zh`` builds the Chinese edition and tests it.

COMPLETE lists the pages whose catalogs must be 100 % translated with no fuzzy entry
(``tests/test_i18n.py`` enforces it). When the whole book is translated, set
``ALL_PAGES_COMPLETE = True``: every catalog is then held to that rule.

Figures: ``build`` executes the notebooks again with ``INTERCONNECT_LANG=zh`` (the kernels
inherit it), so the Chinese edition's figures and explorers are drawn in Chinese from
``interconnect.plots_zh.MESSAGES`` (translated when drawn: ``plots.translate_figure``); every
computed number is the same, and the committed English outputs are untouched. A figure text
drawn in English is listed in ``_build/zh-missing-figure-text.txt`` (:data:`MISSING_LOG`), printed
by ``build`` and failed by ``tests/test_zh_build.py``.
"""

from __future__ import annotations

import json
import os
import pathlib
import shutil
import subprocess
import sys

import yaml

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
from committed_outputs_config import committed_config  # noqa: E402

LANG = "zh_CN"
LOCALES = ROOT / "locales"
CATALOGS = LOCALES / LANG / "LC_MESSAGES"
POT = ROOT / "_build" / "gettext"
HTML_ZH = ROOT / "_build" / "html-zh"
WORK = ROOT / "_build" / "zh"          # the zh build's own doctrees (another language, another env)
WORK_POT = ROOT / "_build" / "pot"     # the message extraction's own doctrees
#: The figure texts the zh build drew in English, one JSON object a line (plots.translate_text)
MISSING_LOG = ROOT / "_build" / "zh-missing-figure-text.txt"

# Pages translated in full: their catalogs must have no untranslated and no fuzzy message.
COMPLETE = ["book/index", "book/preface",
            # Parts I-III: why, history, the four-layer stack
            "book/why/three_walls", "book/why/primer",
            "book/history/rendering", "book/history/pcie", "book/history/nvlink", "book/history/rdma_clusters",
            "book/stack/physical_links", "book/stack/topology", "book/stack/protocols",
            "book/stack/collectives", "book/stack/other_fabrics",
            "book/cheatsheet", "book/appendix/glossary", "book/appendix/spec_tables", "book/appendix/api",
            "book/classroom/instructors", "book/bibliography"]
# The later session that translates every chapter flips this: then every catalog must be complete.
ALL_PAGES_COMPLETE = True

TITLE_ZH = "GPU 互联"


def _bin(name):
    """A console script of the running Python's environment (the venv's sphinx-intl, jupyter-book)."""
    here = pathlib.Path(sys.executable).parent / name
    return str(here) if here.exists() else name


def config(lang="en"):
    """The book's configuration for one edition, built from the committed notebook outputs."""
    cfg = committed_config()
    local = cfg["sphinx"].setdefault("local_extensions", {})
    local["sphinx_i18n"] = str(ROOT / "tools")
    sphinx = cfg["sphinx"]["config"]
    sphinx["locale_dirs"] = [str(LOCALES)]
    if lang == LANG:
        # executed in Chinese (build() sets INTERCONNECT_LANG=zh): the figures' text in Chinese
        cfg["execute"]["execute_notebooks"] = "force"
        cfg["title"] = TITLE_ZH
        sphinx["language"] = LANG
        sphinx["ic_other_edition"] = {"label": "English", "title": "English edition", "root": "../html/",
                                      "lang": "en"}
    return cfg


#: The gettext builder's mime priorities (myst-nb: builder, mime type, priority; lower wins):
#: a figure's image before the ``text/plain`` myst-nb's gettext defaults pick, so the image
#: node, and with it the alt text of the cell's ``mystnb.image.alt``, reaches the catalog.
GETTEXT_MIME_PRIORITY = [["gettext", "image/svg+xml", 1], ["gettext", "image/png", 2]]


def _write_config(lang, name, gettext=False):
    cfg = config(lang)
    if gettext:
        sphinx = cfg["sphinx"]["config"]
        overrides = list(sphinx.get("nb_mime_priority_overrides", []))
        sphinx["nb_mime_priority_overrides"] = overrides + GETTEXT_MIME_PRIORITY
    out = ROOT / "_build" / name
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("# Generated by tools/i18n.py from _config.yml; do not edit.\n"
                   + yaml.safe_dump(cfg, sort_keys=False, allow_unicode=True), encoding="utf-8")
    return out


def pot():
    """Extract the English messages into ``_build/gettext`` (one .pot per page)."""
    cfg = _write_config("en", "config-gettext.yml", gettext=True)
    # a doctree folder of its own: Sphinx refuses to share one between the html and gettext builders
    subprocess.run([_bin("jupyter-book"), "build", str(ROOT), "--config", str(cfg), "--builder", "custom",
                    "--custom-builder", "gettext", "--path-output", str(WORK_POT), "-W", "-n", "--keep-going"],
                   check=True, cwd=ROOT)
    shutil.rmtree(POT, ignore_errors=True)
    shutil.move(str(WORK_POT / "_build" / "gettext"), str(POT))


def update():
    """``pot``, then merge every .pot into its .po (sphinx-intl: new messages added, a changed one
    marked fuzzy with the old translation kept as a draft), then drop what is obsolete: a
    removed message's translation has been offered to its successor by then."""
    pot()
    subprocess.run([_bin("sphinx-intl"), "update", "-p", str(POT), "-d", str(LOCALES), "-l", LANG, "-w", "0"],
                   check=True, cwd=ROOT)
    from babel.messages.pofile import write_po

    for path in catalogs().values():
        cat = read_catalog(path)
        if cat.obsolete:
            cat.obsolete.clear()
            with open(path, "wb") as f:
                write_po(f, cat, width=0)


def build():
    """The Chinese edition into ``_build/html-zh``, beside the English ``_build/html``.

    The notebooks are executed again, in Chinese (``INTERCONNECT_LANG=zh``, inherited by the
    kernels), so figures and explorers are drawn in Chinese; every computed number is the
    same. A figure text left in English is listed in :data:`MISSING_LOG` (printed here;
    ``tests/test_zh_build.py`` fails on it).
    """
    cfg = _write_config(LANG, "config-zh.yml")
    MISSING_LOG.parent.mkdir(parents=True, exist_ok=True)
    MISSING_LOG.write_text("", encoding="utf-8")
    env = dict(os.environ, INTERCONNECT_LANG="zh", INTERCONNECT_STATIC_FRAMES="1",
               INTERCONNECT_MISSING_LOG=str(MISSING_LOG),
               # the kernels import the library of this tree
               PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT / "lib" / "src"), os.environ.get("PYTHONPATH")])))
    subprocess.run([_bin("jupyter-book"), "build", str(ROOT), "--config", str(cfg), "--builder", "html",
                    "--path-output", str(WORK), "-W", "-n", "--keep-going"], check=True, cwd=ROOT, env=env)
    shutil.rmtree(HTML_ZH, ignore_errors=True)
    shutil.move(str(WORK / "_build" / "html"), str(HTML_ZH))
    left = missing_figure_text()
    if left:
        print(f"{len(left)} figure text(s) left in English ({MISSING_LOG}; add them to "
              "lib/src/interconnect/plots_zh.py MESSAGES):")
        for text, where in left:
            print(f"  {text!r}  [{where}]")


def missing_figure_text(path=None):
    """The figure texts the last zh build drew in English, as sorted ``(text, where)`` pairs."""
    path = pathlib.Path(path or MISSING_LOG)
    if not path.exists():
        return []
    rows = set()
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            row = json.loads(line)
            where = row.get("where", "")
            rel = where.split(" | ")[0]
            try:
                rel = str(pathlib.Path(rel).resolve().relative_to(ROOT))
            except ValueError:
                pass
            rows.add((row["text"], " | ".join([rel] + where.split(" | ")[1:])))
    return sorted(rows)


# --- reading the catalogs -------------------------------------------------------------------

def read_catalog(path):
    """A .po or .pot file as a babel Catalog (obsolete messages in ``catalog.obsolete``)."""
    from babel.messages.pofile import read_po

    with open(path, "rb") as f:
        return read_po(f)


def catalogs():
    """``{page: path}`` of every .po file, the page named as Sphinx names it (``book/preface``)."""
    return {str(p.relative_to(CATALOGS).with_suffix("")): p for p in sorted(CATALOGS.rglob("*.po"))}


def counts(path):
    """Translated, untranslated, fuzzy and obsolete messages of one catalog."""
    cat = read_catalog(path)
    out = {"translated": 0, "untranslated": 0, "fuzzy": 0, "obsolete": len(cat.obsolete)}
    for msg in cat:
        if not msg.id:
            continue  # the header
        if msg.fuzzy:
            out["fuzzy"] += 1
        elif msg.string:
            out["translated"] += 1
        else:
            out["untranslated"] += 1
    return out


def required_complete():
    """The pages whose catalogs must be 100 % translated now."""
    return sorted(catalogs()) if ALL_PAGES_COMPLETE else list(COMPLETE)


def out_of_sync(pot_dir=POT):
    """Pages whose .po does not hold exactly the .pot's messages (run ``update``), as ``{page: why}``."""
    pots = {str(p.relative_to(pot_dir).with_suffix("")): p for p in sorted(pot_dir.rglob("*.pot"))}
    pos = catalogs()
    bad = {}
    for page in sorted(set(pots) | set(pos)):
        if page not in pos:
            bad[page] = "no .po (new page)"
            continue
        if page not in pots:
            bad[page] = "no .pot (page removed)"
            continue
        want = {m.id for m in read_catalog(pots[page]) if m.id}
        have_cat = read_catalog(pos[page])
        have = {m.id for m in have_cat if m.id}
        missing, extra = want - have, have - want
        if missing or extra or have_cat.obsolete:
            bad[page] = (f"{len(missing)} new message(s), {len(extra)} removed, "
                         f"{len(have_cat.obsolete)} obsolete")
    return bad


def check():
    """Print every catalog's counts; return the pages that must be complete and are not."""
    rows = []
    failing = []
    must = set(required_complete())
    for page, path in catalogs().items():
        c = counts(path)
        total = c["translated"] + c["untranslated"] + c["fuzzy"]
        share = 100.0 * c["translated"] / total if total else 100.0
        flag = ""
        if page in must and (c["untranslated"] or c["fuzzy"] or c["obsolete"]):
            flag = "  <- must be complete"
            failing.append(page)
        rows.append(f"{page:40s} {c['translated']:5d} {c['untranslated']:5d} {c['fuzzy']:5d} "
                    f"{c['obsolete']:5d} {share:6.1f} %{flag}")
    print(f"{'catalog (' + LANG + ')':40s} {'done':>5s} {'todo':>5s} {'fuzzy':>5s} {'obs.':>5s} {'share':>8s}")
    print("\n".join(rows))
    missing = [p for p in must if p not in catalogs()]
    for page in missing:
        print(f"{page}: no catalog  <- must be complete")
    return failing + missing


def main(argv):
    if argv == ["pot"]:
        pot()
    elif argv == ["update"]:
        update()
    elif argv == ["build"]:
        build()
    elif argv == ["--check"]:
        raise SystemExit(1 if check() else 0)
    elif argv == ["complete-k"]:
        # the translated pages as a pytest -k expression (make zh runs the browser test on them)
        print(" or ".join(page.removeprefix("book/").replace("/", " and ") for page in required_complete()))
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
