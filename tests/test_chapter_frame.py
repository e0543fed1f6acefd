"""The reader aids' one data file (book/_data/chapters.yml) and tools/chapter_frame.py.

A reader who starts at the landing page must reach every chapter with what it needs already
taught: every prerequisite comes earlier in the table of contents than the chapter that
needs it, every page of the toc has an entry, every reading path holds the prerequisites of
its chapters, and the script that writes the boxes into the chapters is idempotent.
"""

from __future__ import annotations

import copy
import json
import pathlib
import shutil
import sys

import nbformat
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import chapter_frame as F  # noqa: E402

DATA = F.load()
ROOT_PAGE, PAGES = F.toc_pages()


def _nb(page):
    return nbformat.read(F.source_path(page), as_version=4)


def test_the_data_file_has_no_problems():
    assert F.problems(DATA) == []


def test_every_page_of_the_toc_has_an_entry_and_nothing_else_does():
    listed = set(DATA["chapters"]) | set(DATA["reference"])
    assert set(PAGES) == listed, (set(PAGES) - listed, listed - set(PAGES))
    assert not set(DATA["chapters"]) & set(DATA["reference"])
    assert ROOT_PAGE == "index"


def test_every_prerequisite_comes_earlier_in_the_toc():
    order = {p: i for i, p in enumerate(PAGES)}
    for chapter, entry in DATA["chapters"].items():
        for pre in entry["prerequisites"]:
            assert order[pre] < order[chapter], f"{chapter} needs {pre}, which comes after it"
    # and so, by induction, everything a chapter needs through its prerequisites
    for chapter in DATA["chapters"]:
        assert all(order[p] < order[chapter] for p in F.closure(DATA, chapter))


def test_reading_paths_hold_their_prerequisites():
    assert {p["role"] for p in DATA["paths"]} == {"student", "engineer", "instructor"}
    for path in DATA["paths"]:
        for i, chapter in enumerate(path["chapters"]):
            assert F.closure(DATA, chapter) <= set(path["chapters"][:i]), (path["role"], chapter)


def test_problems_finds_what_is_wrong():
    # calibration: each kind of mistake is reported
    bad = copy.deepcopy(DATA)
    bad["chapters"]["why/primer"]["prerequisites"] = ["history/pcie"]           # a later chapter
    bad["chapters"]["history/nvlink"]["takeaways"] = ["one", "two"]            # too few
    bad["chapters"]["history/pcie"]["takeaways"][0] += " It is 31.5 GB/s."    # a typed number
    bad["chapters"]["stack/topology"]["takeaways"][0] += " {glue}`no_such_name`"
    bad["chapters"]["stack/topology"]["level"] = "easy"
    del bad["chapters"]["practice/outlook"]                                    # a toc page without entry
    bad["paths"][1]["chapters"].remove("why/primer")                           # a path without a prerequisite
    del bad["chapters"]["why/three_walls"]["exercises"]["walls-ex-mfu"]       # an exercise without a level
    bad["chapters"]["history/pcie"]["exercises"]["pcie-ex-lanes"] = "easy"      # not on the scale
    bad["chapters"]["history/pcie"]["exercises"]["pcie-ex-gone"] = "core"       # not in the chapter
    found = "\n".join(F.problems(bad))
    for needle in ("why/three_walls: exercise walls-ex-mfu has no level",
                   "exercise pcie-ex-lanes has level 'easy'",
                   "history/pcie: exercises lists pcie-ex-gone, which the chapter does not have",
                   "why/primer: prerequisite history/pcie does not come earlier",
                   "history/nvlink: 2 takeaways", "typed numbers ['31.5']", "'no_such_name'",
                   "level 'easy'", "practice/outlook is in the toc but has no entry",
                   "path engineer: stack/collectives comes before its prerequisite why/primer"):
        assert needle in found, found


def test_every_exercise_shows_its_level_in_its_title():
    """The level is in the directive's title ("```{exercise} ★★ core"), as the data file says."""
    import re

    seen = 0
    for page, entry in DATA["chapters"].items():
        nb = json.loads(F.source_path(page).read_text(encoding="utf-8"))
        for cell in nb["cells"]:
            for m in F._EXERCISE.finditer(F._src(cell)) if cell["cell_type"] == "markdown" else ():
                seen += 1
                assert m.group(2).strip() == F.level_title(DATA, entry["exercises"][m.group(4)]), (page, m.group(0))
        # nothing else opens an exercise: every fence has a label the pattern sees
        text = "\n".join(F._src(c) for c in nb["cells"] if c["cell_type"] == "markdown")
        assert len(re.findall(r"^```\{exercise\}", text, re.M)) == len(entry.get("exercises") or {}), page
    assert seen >= 140
    counts = {lv: sum(v == lv for e in DATA["chapters"].values() for v in (e.get("exercises") or {}).values())
              for lv in F.EXERCISE_LEVELS}
    assert all(counts.values()), counts  # the scale is used, not one level for everything


def test_the_preface_states_the_exercise_scale():
    """The scale is defined once, in the data file; the preface must say the same."""
    preface = (F.BOOK / "preface.md").read_text(encoding="utf-8")
    for level, d in DATA["exercise_levels"].items():
        assert f"{d['stars']} {level}, {d['meaning']}" in preface, level


def test_names_and_formulas_are_not_typed_numbers():
    ok = "NVLink 4 and PCIe 5.0 on H100, ZeRO-3, 1F1B, $2(p-1)$, {glue:text}`x:.1f` and `nvidia-smi topo -m`"
    assert F._digits_outside_markup(ok) == []
    assert F._digits_outside_markup("about 450 GB/s, 7 % more") == ["450", "7"]


@pytest.mark.parametrize("page", list(DATA["chapters"]))
def test_frame_is_idempotent_and_changes_only_its_cells(page):
    nb = _nb(page)
    once = F.frame(nb, page, DATA)
    twice = F.frame(once, page, DATA)
    assert nbformat.writes(nbformat.from_dict(twice)) == nbformat.writes(nbformat.from_dict(once))
    mine = [c for c in once["cells"] if F.TAG in c["metadata"].get("tags", [])]
    assert [c["id"] for c in mine] == [F.BEFORE_ID, F.TAKEAWAYS_ID]
    cells = once["cells"]
    ids = [c.get("id") for c in cells]
    assert len(set(ids)) == len(ids), "duplicate cell ids"
    # the boxes sit under the title and right before the Exercises heading
    b = ids.index(F.BEFORE_ID)
    assert F._src(cells[b - 1]).lstrip("\n").startswith("# ") or "\n# " in F._src(cells[b - 1])
    t = ids.index(F.TAKEAWAYS_ID)
    after = F._src(cells[t + 1]).lstrip("\n").split("\n")
    before = F._src(cells[t - 1]).rstrip().split("\n")[-1]
    summaries = [c for c in cells if c["cell_type"] == "markdown"
                 and any(F._SUMMARY.match(ln) for ln in F._src(c).split("\n"))]
    assert len(summaries) <= 1, "more than one Summary"
    if summaries:  # one summary, which opens with the takeaways
        assert F._SUMMARY.match(before), before
    else:
        assert any(line.startswith("## Exercises") for line in after[:2]), after[:2]
    # every other cell's text is the chapter's, only split: the same words in the same order
    def words(cs):
        return " ".join(F._src(c) for c in cs if F.TAG not in c["metadata"].get("tags", [])).split()

    assert words(once["cells"]) == words(nb["cells"])
    assert len([c for c in once["cells"] if c["cell_type"] == "code"]) == \
        len([c for c in nb["cells"] if c["cell_type"] == "code"])


def test_run_twice_changes_nothing(tmp_path):
    book = tmp_path / "book"
    for page in DATA["chapters"]:
        dest = book / f"{page}.ipynb"
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(F.source_path(page), dest)
    F.run(data=DATA, book=book)
    before = {p: (book / f"{p}.ipynb").read_text() for p in DATA["chapters"]}
    assert F.run(data=DATA, book=book) == []
    assert F.run(check_only=True, data=DATA, book=book) == []
    assert {p: (book / f"{p}.ipynb").read_text() for p in DATA["chapters"]} == before
    # the boxes link to chapters that exist, relative to the chapter
    for page in DATA["chapters"]:
        nb = json.loads(before[page])
        box = next(F._src(c) for c in nb["cells"] if c.get("id") == F.BEFORE_ID)
        for target in __import__("re").findall(r"\]\(([^)]+)\)", box):
            resolved = (F.BOOK / page).parent / target
            assert resolved.resolve().exists(), (page, target)


def test_the_committed_chapters_are_framed():
    """Rerun `python tools/chapter_frame.py` after editing book/_data/chapters.yml or a chapter's title."""
    assert F.run(check_only=True) == []


def test_the_landing_page_lists_every_chapter_from_the_data_file():
    nb = json.loads((ROOT / "book/index.ipynb").read_text())
    shown = json.dumps([o for c in nb["cells"] for o in c.get("outputs", [])])
    for page in DATA["chapters"]:
        assert f"]({F.source_path(page).relative_to(F.BOOK).as_posix()})" in shown, page
