"""The student edition contains no solutions (issue 6's classroom edition), and its
handout no key or expected value (issue 17).

Run by ``make student`` after it builds the edition; ``STUDENT_HTML`` names the build
(default ``_build/student_src/_build/html``), ``STUDENT_ZIP`` the handout (default
``_build/interconnect-student.zip``), ``INSTRUCTOR_DIR`` the instructors' build with the
answer key (default ``_build/instructor``) and ``BOOK_HTML`` the reader's edition
(default ``_build/html``). The reader's edition must show the same fragments, and the
instructors' key the same numbers: that proves the searches below find solution text and
answers where there are some, so their silence on the student edition means something.

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
import zipfile

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
from student_edition import strip_solutions  # noqa: E402

STUDENT = pathlib.Path(os.environ.get("STUDENT_HTML", ROOT / "_build/student_src/_build/html"))
READER = pathlib.Path(os.environ.get("BOOK_HTML", ROOT / "_build/html"))
ZIP = pathlib.Path(os.environ.get("STUDENT_ZIP", ROOT / "_build/interconnect-student.zip"))
INSTRUCTOR = pathlib.Path(os.environ.get("INSTRUCTOR_DIR", ROOT / "_build/instructor"))
WORD = re.compile(r"^[A-Za-z][A-Za-z,.;'’-]*$")
ANSWER_LINE = re.compile(r'check\("[a-z0-9-]+", answer\)')


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
    # the answer cells' own `check("label", answer)` line, which some solutions also use, is the
    # student edition's by design
    return sorted(f for f in frags if f not in outside_text and not ANSWER_LINE.fullmatch(f))


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


# ---- a handout: numbers in the notebooks, answer cells, no instructors' material --------

def test_the_downloadable_notebooks_show_numbers_and_have_answer_cells():
    answers = 0
    for path in (STUDENT / "_sources").rglob("*.ipynb"):
        nb = json.loads(path.read_text())
        text = "\n".join("".join(c["source"]) for c in nb["cells"])
        assert "{glue" not in text, f"{path}: raw glue roles"
        answers += sum(1 for c in nb["cells"] if "answer" in c.get("metadata", {}).get("tags", []))
    assert answers >= 100


def test_no_instructors_page_in_the_student_build():
    assert not list(STUDENT.rglob("instructors*")), "the instructors' page is in the student edition"
    for path in STUDENT.rglob("*.html"):
        assert "classroom/instructors" not in path.read_text(errors="replace"), path
    if (READER / "index.html").is_file():
        assert list(READER.rglob("instructors.html")), "calibration: the reader's edition has the page"


def _zip():
    assert ZIP.is_file(), f"no handout at {ZIP}; run `make student`"
    return zipfile.ZipFile(ZIP)


def test_the_handout_holds_the_book_the_site_and_the_library():
    names = _zip().namelist()
    top = "interconnect-student/"
    assert top + "html/index.html" in names and top + "README.md" in names and top + "requirements.txt" in names
    assert len([n for n in names if n.startswith(top + "book/") and n.endswith(".ipynb")]) >= 15
    assert top + "lib/src/interconnect/exercises/sealed_key.py" in names
    assert top + "lib/pyproject.toml" in names


def test_the_handouts_notebooks_have_no_myst_markup():
    """JupyterLab renders no MyST: the handout's pages carry citations, links and exercises as plain Markdown."""
    sys.path.insert(0, str(ROOT / "tools"))
    import myst_text

    z = _zip()
    pages = [n for n in z.namelist() if n.startswith("interconnect-student/book/") and n.endswith(".ipynb")]
    assert pages
    for n in pages:
        nb = json.loads(z.read(n))
        text = "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown")
        assert not myst_text.leftovers(text), (n, myst_text.leftovers(text)[:5])


def test_the_handout_holds_no_solution_key_or_instructors_material():
    z = _zip()
    names = z.namelist()
    checkers = [n for n in names if re.search(r"/exercises/_[^/]*\.py$", n) and not n.endswith("__init__.py")]
    assert not checkers, f"answer checkers in the handout: {checkers[:5]}"
    assert not [n for n in names if "classroom" in n or "instructor" in n.lower() or "answer_key" in n]
    leaks = []
    for n in names:
        if n.endswith(".ipynb"):
            nb = json.loads(z.read(n))
            text = _norm("\n".join("".join(c["source"]) for c in nb["cells"]))
            leaks += [f"{n}: {f[:60]}" for f in FRAGMENTS if f in text]
    assert not leaks, "solution text in the handout:\n" + "\n".join(leaks[:20])


def _values(part):
    v = part["value"]
    if isinstance(v, str):
        return []
    return [x for x in (v if isinstance(v, list) else [v]) if isinstance(x, float)]


def test_the_handouts_library_holds_no_expected_value():
    key_path = INSTRUCTOR / "answer_key.json"
    assert key_path.is_file(), f"no instructors' key at {key_path}; run `make instructor`"
    key_text = key_path.read_text()
    key = json.loads(key_text)
    z = _zip()
    # the checkers' package: the rest of the library is the models, whose docstring examples
    # may show a number an exercise also asks for (as the chapters' text may)
    lib = "\n".join(z.read(n).decode() for n in z.namelist()
                    if "/lib/src/interconnect/exercises/" in n and n.endswith(".py"))
    checked = 0
    for label, e in key.items():
        for part, a in e["parts"].items():
            for x in _values(a):
                if abs(x) < 10 or x.is_integer() and abs(x) < 1e4:
                    continue
                pats = [re.compile(r"(?<![0-9a-f.])" + re.escape(f) + r"(?![0-9a-f])")
                        for f in {repr(x), f"{x:.6g}", f"{x:.5g}"}]
                assert any(p.search(key_text) for p in pats)  # calibration: the key shows it
                assert not any(p.search(lib) for p in pats), f"{label} [{part}]: {x} is in the handout's library"
                checked += 1
    assert checked >= 100


def test_the_handout_holds_no_exam_question_bank():
    """The exam bank (tools/question_bank.py) and its keys are in the instructors' build only."""
    bank_path = INSTRUCTOR / "question_bank.json"
    assert bank_path.is_file(), f"no question bank at {bank_path}; run `make instructor`"
    bank = json.loads(bank_path.read_text())
    assert len(bank) >= 40
    z = _zip()
    names = z.namelist()
    assert not [n for n in names if "question_bank" in n or "slides" in n.lower()]
    text = _norm("\n".join(z.read(n).decode(errors="replace") for n in names
                           if n.endswith((".ipynb", ".html", ".py", ".md", ".json", ".js", ".txt"))))
    keys = [_norm(q["key"]) for q in bank if isinstance(q["key"], str) and len(q["key"]) >= 40]
    # calibration: the same search finds every key in the instructors' page of the bank
    shown = _norm(html.unescape(re.sub(r"<[^>]+>", "", (INSTRUCTOR / "question_bank.html").read_text())))
    assert len(keys) >= 20 and all(k in shown for k in keys)
    leaks = [k[:60] for k in keys if k in text]
    assert not leaks, f"exam keys in the handout: {leaks[:5]}"
