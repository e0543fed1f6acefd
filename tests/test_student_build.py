"""The student edition contains no solutions (issue 6's classroom edition).

Run by ``make student`` after it builds the edition; ``STUDENT_HTML`` names the build
(default ``_build/student_src/_build/html``) and ``BOOK_HTML`` the reader's edition
(default ``_build/html``), which must show the same fragments: that proves the search
below finds solution text where there is some, so its silence on the student edition
means something.

The solution text is taken from the source notebooks with the same parser the edition
uses (``tools/student_edition.strip_solutions``), cut into fragments that cannot occur
outside a solution: runs of eight words of its prose and whole lines of its code that
appear nowhere else in the book's source. Every page, downloadable notebook, source
file and the search index of the student build is searched for them, with tags removed
and whitespace collapsed.
"""

import html
import json
import os
import pathlib
import re
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
from student_edition import strip_solutions  # noqa: E402

STUDENT = pathlib.Path(os.environ.get("STUDENT_HTML", ROOT / "_build/student_src/_build/html"))
READER = pathlib.Path(os.environ.get("BOOK_HTML", ROOT / "_build/html"))
WORD = re.compile(r"^[A-Za-z][A-Za-z,.;'’-]*$")


def _norm(text):
    return " ".join(text.split())


def _fragments():
    outside, solutions = [], []
    for path in sorted((ROOT / "book").rglob("*.ipynb")):
        nb = json.loads(path.read_text())
        kept, removed = strip_solutions(nb)
        outside.extend("".join(c["source"]) for c in kept["cells"])
        solutions.extend(removed)
    # the library reference (book/appendix/api.md) renders the library's docstrings in both
    # editions, so text the library itself holds is not a solution's
    outside.extend(p.read_text(encoding="utf-8") for p in sorted((ROOT / "lib/src/interconnect").rglob("*.py")))
    outside_text = _norm("\n".join(outside))
    frags = set()
    for sol in solutions:
        for line in sol.splitlines():
            line = line.strip()
            if line.startswith("```") or not line:
                continue
            words = line.split()
            # prose: runs of 8 plain words (no markup, so the HTML shows them verbatim)
            run = []
            for w in words + [""]:
                if WORD.match(w):
                    run.append(w)
                    continue
                for i in range(0, len(run) - 7, 8):
                    frags.add(" ".join(run[i:i + 8]))
                run = []
            # code: whole lines long enough to be specific
            if len(line) >= 30 and not WORD.match(words[0]):
                frags.add(_norm(line))
    return sorted(f for f in frags if f not in outside_text)


def _texts(build):
    for path in sorted(build.rglob("*")):
        if path.suffix not in (".html", ".ipynb", ".txt", ".md", ".js", ".json") or not path.is_file():
            continue
        if "_static" in path.parts and path.name != "searchindex.js":
            continue
        raw = path.read_text(errors="replace")
        if path.suffix == ".ipynb":
            nb = json.loads(raw)
            raw = "\n".join("".join(c["source"]) for c in nb["cells"])
        text = html.unescape(re.sub(r"<[^>]+>", "", raw)) if path.suffix == ".html" else raw
        yield path, _norm(text)


FRAGMENTS = _fragments()


def test_there_is_solution_text_to_look_for():
    assert len(FRAGMENTS) >= 200, f"only {len(FRAGMENTS)} solution fragments found in book/"


def test_the_student_build_exists():
    assert (STUDENT / "index.html").is_file(), f"no student build at {STUDENT}; run `make student`"
    pages = list(STUDENT.rglob("*.html"))
    assert len(pages) >= 15
    # every chapter can be downloaded as a notebook, like in the reader's edition
    assert len(list((STUDENT / "_sources").rglob("*.ipynb"))) >= 15


def test_the_reader_edition_shows_the_solutions():
    if not (READER / "index.html").is_file():
        pytest.skip(f"no reader's build at {READER} to calibrate against")
    found = set()
    for _, text in _texts(READER):
        found.update(f for f in FRAGMENTS if f in text)
    # most fragments render verbatim in the reader's edition: the search works
    assert len(found) >= 0.9 * len(FRAGMENTS), f"only {len(found)} of {len(FRAGMENTS)} fragments found in {READER}"


def test_no_solution_text_in_the_student_build():
    leaks = []
    for path, text in _texts(STUDENT):
        for f in FRAGMENTS:
            if f in text:
                leaks.append(f"{path.relative_to(STUDENT)}: {f[:80]}")
    assert not leaks, "solution text in the student edition:\n" + "\n".join(leaks[:20])


def test_no_solution_markup_in_the_student_build():
    for path in STUDENT.rglob("*.html"):
        page = path.read_text(errors="replace")
        assert 'class="solution' not in page and "solution-start" not in page, path
    for path in (STUDENT / "_sources").rglob("*.ipynb"):
        assert "{solution-" not in path.read_text(), path


def test_the_exercises_are_still_there():
    pages = "\n".join(p.read_text(errors="replace") for p in STUDENT.rglob("*.html"))
    assert pages.count('class="exercise') >= 90
