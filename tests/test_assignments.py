"""The otter-grader assignments (tools/assignments.py): a right, a wrong and a partial
submission graded locally with ``otter run`` (no Docker) get the scores they should, and
neither the student notebook nor the autograder's tests hold an answer.

``make assignments`` builds every assignment into ``_build/assignments`` and runs this file
with ``ASSIGNMENTS_DIR`` set: the grading tests then use the built bundle of
:data:`GRADED`. Without it (e.g. in a plain ``pytest tests``) they build that one
assignment into a temporary directory first.
"""

import json
import os
import pathlib
import re
import subprocess
import sys

import nbformat
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import assignments as A  # noqa: E402

from interconnect import exercises as E  # noqa: E402

pytest.importorskip("otter")

#: The assignment graded here: per-student variants, several parts, a choice.
GRADED = "a4-parallel"
STUDENT = "s-2026-0042"
#: The from-scratch coding lab, graded against collectives.run_collective and the ring schedule.
LAB = "a3-lab-ring"


def test_every_part_of_the_book_has_an_assignment():
    import yaml

    captions = [p["caption"] for p in yaml.safe_load((ROOT / "_toc.yml").read_text())["parts"]]
    book_parts = [c for c in captions[:captions.index("Appendices")] if c != "Start here"]  # the preface
    assert sorted({p for p, _t, _l in A.ASSIGNMENTS.values()}) == sorted(book_parts)
    for name, (_p, _t, labels) in A.ASSIGNMENTS.items():
        assert labels, name
        for label in labels:
            if label.startswith("code:"):
                assert label[len("code:"):] in A.CODING, (name, label)
            else:
                assert label in E.labels() or label in E.coding_labels(), (name, label)


def test_master_solves_with_the_key_and_tests_call_the_checker():
    nb = A.master(GRADED)
    code = "\n".join(c.source for c in nb.cells if c.cell_type == "code")
    labels = A.ASSIGNMENTS[GRADED][2]
    for label in labels:
        assert f'expected("{label}", student=STUDENT_ID)' in code
        for part in E._get(label).parts:
            assert f'_check("{label}", ' in code and f'part="{part}"' in code


def test_a_coding_exercise_of_the_book_is_a_question_graded_by_calling_the_function():
    nb = A.master("a5-serving-code")
    code = [c.source for c in nb.cells if c.cell_type == "code"]
    sol = next(c for c in code if c.startswith("def kv_bytes_per_gpu("))
    assert "    # BEGIN SOLUTION\n" in sol and sol.rstrip().endswith("# END SOLUTION")
    hidden = next(c for c in code if "hidden: true" in c)
    assert 'check as _check' in hidden and '_check("srv-ex-code", kv_bytes_per_gpu, student=STUDENT_ID)' in hidden
    # the master's solution passes its hidden test, and a wrong function fails it
    ns = {"STUDENT_ID": STUDENT}
    exec(sol, ns)  # noqa: S102 - the book's own solution
    exec(hidden, ns)  # noqa: S102
    ns["kv_bytes_per_gpu"] = lambda *a, _f=ns["kv_bytes_per_gpu"]: _f(*a) / 2
    with pytest.raises(AssertionError):
        exec(hidden, ns)  # noqa: S102


@pytest.fixture(scope="module")
def all_built(tmp_path_factory):
    where = os.environ.get("ASSIGNMENTS_DIR")
    if where:
        out = {}
        for name in (GRADED, LAB):
            dist = pathlib.Path(where).resolve() / name / "dist"
            out[name] = dist / "student" / f"{name}.ipynb", sorted((dist / "autograder").glob("*.zip"))[-1]
        return out
    return A.build(tmp_path_factory.mktemp("assignments"), [GRADED, LAB])


@pytest.fixture(scope="module")
def built(all_built):
    return all_built[GRADED]


def _questions(nb):
    out = {}
    for c in nb.cells:
        m = re.search(r"\*\*Question (\d+)\*\* \(([a-z0-9-]+),", c.source) if c.cell_type == "markdown" else None
        if m:
            out[f"q{m.group(1)}"] = m.group(2)
    return out


def _submission(student_nb, path, mode):
    """Fill the student notebook: ``right`` (the key), ``wrong`` (every number 8x, every
    choice another one) or ``partial`` (the first part of each question only, right)."""
    nb = nbformat.read(student_nb, as_version=4)
    questions = _questions(nb)
    for c in nb.cells:
        if c.cell_type != "code":
            continue
        c.source = c.source.replace('STUDENT_ID = ""', f'STUDENT_ID = "{STUDENT}"')
        first = {}

        def fill(m, first=first):
            q, part = m.group(1), m.group(2)
            label = questions[q]
            value = E.expected(label, part=None if part == "answer" else part, student=STUDENT)
            if mode == "partial" and first.setdefault(q, part) != part:
                return m.group(0)
            if isinstance(value, str):
                if mode == "wrong":
                    a = E._answers(E._get(label))[part]
                    value = next(ch for ch in a.choices if ch != value and ch not in a.accept)
                return f"{q}_{part} = {json.dumps(value)}"
            return f"{q}_{part} = {float(value) * (8 if mode == 'wrong' else 1)!r}"

        c.source = re.sub(r"^(q\d+)_(\w+) = \.\.\.", fill, c.source, flags=re.M)
    nbformat.write(nb, path)
    return path


def _grade(zip_path, submission, out):
    out.mkdir()
    subprocess.run([sys.executable, "-m", "otter", "run", "--no-logo", "-a", str(zip_path), "-o", str(out),
                    str(submission)], check=True, capture_output=True, cwd=submission.parent)
    tests = json.loads((out / "results.json").read_text())["tests"]
    return {t["name"]: (t["score"], t["max_score"]) for t in tests if "score" in t}


def _n_parts():
    return {f"q{i}": len(E._get(label).parts) for i, label in enumerate(A.ASSIGNMENTS[GRADED][2], 1)}


def test_student_notebook_and_bundle_hold_no_answer(built):
    student_nb, zip_path = built
    nb = nbformat.read(student_nb, as_version=4)
    text = "\n".join(c.source for c in nb.cells) + json.dumps(nb.metadata)
    assert "expected(" not in text and "_check(" not in text and A.MASTER_STUDENT not in text
    assert 'STUDENT_ID = ""' in text
    import zipfile

    with zipfile.ZipFile(zip_path) as z:
        tests = {n: z.read(n).decode() for n in z.namelist() if n.startswith("tests/")}
    assert tests
    for label in A.ASSIGNMENTS[GRADED][2]:
        for which in ("book", A.MASTER_STUDENT, STUDENT):
            values = E.expected(label, student=None if which == "book" else which)
            values = values if isinstance(values, dict) else {"answer": values}
            for v in values.values():
                if isinstance(v, str):
                    continue
                for shown in (f"{v:.3g}", repr(float(v))):
                    assert not any(shown in body for body in tests.values()), (label, shown)
    assert all("_check(" in body for body in tests.values())


@pytest.mark.parametrize("mode", ["right", "wrong", "partial"])
def test_otter_grades_locally(built, tmp_path, mode):
    student_nb, zip_path = built
    sub = _submission(student_nb, tmp_path / f"{GRADED}.ipynb", mode)
    scores = _grade(zip_path, sub, tmp_path / "out")
    parts = _n_parts()
    assert set(scores) == set(parts)
    for q, n in parts.items():
        want = {"right": n, "wrong": 0, "partial": 1}[mode]
        assert scores[q] == (want, n), (mode, q, scores[q])


NAIVE_RING = """    p = len(arrays)
    total = sum(np.asarray(a, dtype=float) for a in arrays)
    for r in range(p):
        for d in range(p):
            if d != r:
                send(r, d, arrays[r])
    return [total.copy() for _ in range(p)]"""


def _solution_body():
    src = A.CODING["ring-allreduce"]["solution"]
    body = src.split("# BEGIN SOLUTION\n", 1)[1].split("    # END SOLUTION", 1)[0]
    return body.rstrip("\n")


@pytest.mark.parametrize("mode", ["right", "naive"])
def test_the_coding_lab_is_graded_against_the_library(all_built, tmp_path, mode):
    student_nb, zip_path = all_built[LAB]
    nb = nbformat.read(student_nb, as_version=4)
    body = _solution_body() if mode == "right" else NAIVE_RING
    n = 0
    for c in nb.cells:
        if c.cell_type == "code" and "def ring_allreduce(arrays, send):\n    ..." in c.source:
            c.source = c.source.replace("def ring_allreduce(arrays, send):\n    ...",
                                        "def ring_allreduce(arrays, send):\n" + body)
            n += 1
        c.source = c.source.replace('STUDENT_ID = ""', f'STUDENT_ID = "{STUDENT}"')
    assert n == 1  # the student gets the signature, not the body
    sub = tmp_path / f"{LAB}.ipynb"
    nbformat.write(nb, sub)
    scores = _grade(zip_path, sub, tmp_path / "out")
    # right: the sum and the messages; naive: the sum (2 of 4 points), not the ring's traffic
    assert scores == {"q1": ((4, 4) if mode == "right" else (2, 4))}, scores
