"""Autograded assignments with otter-grader: one or more per part of the book.

Usage::

    python tools/assignments.py OUTDIR [NAME ...]     # every assignment (or the named ones)

For each assignment in :data:`ASSIGNMENTS` this writes ``OUTDIR/NAME/master.ipynb``, the
instructors' master notebook in Otter Assign's format, and runs ``otter assign`` on it,
which writes

* ``OUTDIR/NAME/dist/student/NAME.ipynb``: the student notebook. Each question is the
  exercise's text from its chapter (glued numbers rendered as text, as in the student
  edition), a cell that prints the student's own numbers for an exercise with per-student
  variants, and an answer cell with one variable per part set to ``...``. Its public test
  checks only that every part is answered with a number (or one of the choices).
* ``OUTDIR/NAME/dist/autograder/NAME-autograder_*.zip``: the autograder bundle for
  Gradescope or ``otter run``. Its hidden tests, one point per part, call the library's
  checker, ``interconnect.exercises.check(label, answer, part=..., student=STUDENT_ID)``:
  the same model that grades the book's exercises grades the assignment, for the
  student's own variant, and no number is copied into a test. The grading environment
  needs the ``interconnect`` library (the student edition's, with its sealed key, is
  enough: ``check`` works without the answers).

The master's solutions are computed by ``interconnect.exercises.expected`` (the
instructors' edition of the library), so ``otter assign`` checks, by running the hidden
tests on them, that the key and the checker agree before it writes anything.

An assignment can also hold a from-scratch coding task (:data:`CODING`, named
``"code:<task>"``): the student writes a function whose hidden tests compare it with the
library (the ring AllReduce of ``a3-lab-ring`` against ``collectives.run_collective`` and
the ring schedule's messages). A coding exercise of the book
(``interconnect.exercises.coding_labels()``, e.g. ``srv-ex-code`` in ``a5-serving-code``)
becomes a question whose hidden test is ``check(label, function, student=STUDENT_ID)``;
its solution is the chapter's worked one.

``tests/test_assignments.py`` builds two assignments and grades, with ``otter run`` (local
grading, no Docker), a right, a wrong and a partial submission of one and a right and a
naive (whole arrays sent) solution of the coding lab, and checks the scores.
"""

from __future__ import annotations

import json
import pathlib
import re
import subprocess
import sys

import nbformat

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
from student_edition import EXERCISE, render_glue  # noqa: E402

#: The student id the master notebook is solved for (any id works: each id draws its variant).
MASTER_STUDENT = "master-key"

#: name -> (part of the book as in _toc.yml, title, [exercise labels]). At least one per part.
ASSIGNMENTS = {
    "a1-why": ("Why interconnect", "Moving the bytes: the primer's ring AllReduce",
               ["primer-ex-ring", "primer-ex-bidir"]),
    "a2-history": ("History", "PCIe lanes, encodings and headline figures",
                   ["pcie-ex-lanes", "pcie-ex-headline"]),
    "a3-stack": ("The four-layer stack", "Links and collectives",
                 ["phys-ex-pcie", "coll-ex-bytes"]),
    "a3-lab-ring": ("The four-layer stack", "Lab: a ring AllReduce from scratch",
                    ["code:ring-allreduce"]),
    "a4-parallel": ("Parallelism meets the interconnect", "Pipelines, tensor parallelism and failures",
                    ["pp-ex-share", "tp-ex-bytes", "rel-ex-mtbf"]),
    "a5-practice": ("Practice", "Units, directions and the next links",
                    ["dis-ex-units", "dis-ex-bidir", "out-ex-nvlink6"]),
    "a5-serving-code": ("Practice", "Serving: the KV cache a GPU holds, from scratch", ["srv-ex-code"]),
    "a5-traces": ("Practice", "Reading real tool output: nvidia-smi topo -m, nccl-tests and NCCL logs",
                  ["primer-ex-trace", "pcie-ex-topo-trace", "prot-ex-nccl-trace", "dp-ex-rings-trace",
                   "ops-ex-trace"]),
}

#: The test helper of the ring AllReduce task: runs the student's function with a ``send``
#: that records every message.
_RING_RUN = """import numpy as np
from interconnect.collectives import run_collective, schedule
def _run(p, n, seed):
    rng = np.random.default_rng(seed)
    arrays = [rng.integers(-50, 50, n).astype(float) for _ in range(p)]
    log = []
    def send(src, dst, data):
        log.append((src, dst, int(np.asarray(data).size)))
        return np.array(data, dtype=float, copy=True)
    out = ring_allreduce([a.copy() for a in arrays], send)
    return arrays, out, log
"""

_RING_SOLUTION = """import numpy as np


def ring_allreduce(arrays, send):
    # BEGIN SOLUTION
    p = len(arrays)
    bufs = [np.array(a, dtype=float, copy=True) for a in arrays]
    sizes = [len(c) for c in np.array_split(np.arange(bufs[0].size), p)]
    edges = np.concatenate([[0], np.cumsum(sizes)])

    def chunk(i):
        return slice(edges[i % p], edges[i % p + 1])

    # reduce-scatter: at step s rank r sends chunk r - s to rank r + 1, which adds it
    for s in range(p - 1):
        msgs = [send(r, (r + 1) % p, bufs[r][chunk(r - s)]) for r in range(p)]
        for r in range(p):
            bufs[(r + 1) % p][chunk(r - s)] += msgs[r]
    # all-gather: rank r now holds chunk r + 1 summed; at step s it passes on chunk r + 1 - s
    for s in range(p - 1):
        msgs = [send(r, (r + 1) % p, bufs[r][chunk(r + 1 - s)]) for r in range(p)]
        for r in range(p):
            bufs[(r + 1) % p][chunk(r + 1 - s)] = msgs[r]
    return bufs
    # END SOLUTION"""

#: From-scratch coding tasks: the prompt, the master's solution (otter replaces the body
#: between the SOLUTION markers by ``...`` in the student notebook) and the tests
#: ``(points, hidden, code)``, which grade the student's code against the library: here the
#: result against ``collectives.run_collective`` and the messages against the ring schedule
#: of ``collectives.schedule``.
CODING = {
    "ring-allreduce": {
        "chapter": "book/stack/collectives",
        "prompt": (
            "Write `ring_allreduce(arrays, send)` from scratch, with numpy only (not the library). `arrays` holds "
            "one 1-D array per rank, all of length $n$, on $p$ ranks. Split each array into $p$ chunks as "
            "`np.array_split` does. Run the ring algorithm: a reduce-scatter of $p - 1$ steps, in which every rank "
            "sends one chunk to rank $(r + 1) \\bmod p$, which adds it to its own, then an all-gather of $p - 1$ "
            "steps, in which every rank passes a finished chunk on the same way. Every message must go through "
            "`received = send(src, dst, chunk)`, which returns what `dst` receives. Return the list of the $p$ "
            "arrays the ranks hold at the end: each is the sum of all the inputs.\n\n"
            "The grader runs your function for several $p$ and $n$ (also $n$ not a multiple of $p$), compares the "
            "result with the library's `collectives.run_collective(arrays, \"allreduce\", \"ring\")`, and counts "
            "your messages against the library's ring schedule: $2(p - 1)$ messages a rank, each one chunk, each "
            "to the next rank. A function that gets the sum right by sending whole arrays scores half."),
        "solution": _RING_SOLUTION,
        "tests": [
            (0, False, "assert callable(ring_allreduce), 'define ring_allreduce(arrays, send)'"),
            (2, True, _RING_RUN + """for p, n in ((2, 6), (3, 7), (5, 23), (8, 64)):
    arrays, out, log = _run(p, n, 10 * p + n)
    want = run_collective(arrays, "allreduce", "ring")
    assert len(out) == p and all(np.allclose(o, w) for o, w in zip(out, want))"""),
            (2, True, _RING_RUN + """for p, n in ((3, 7), (5, 23), (8, 64)):
    arrays, out, log = _run(p, n, 10 * p + n)
    ref = np.bincount(np.asarray(schedule("allreduce", p, "ring").src), minlength=p)
    assert np.array_equal(np.bincount([s for s, _, _ in log], minlength=p), ref)
    assert all(d == (s + 1) % p for s, d, _ in log)
    assert all(k <= -(-n // p) for _, _, k in log)"""),
        ],
    },
}

_ROLE_MATH = re.compile(r"\{math\}`([^`]*)`")
_ROLE_CITE = re.compile(r"\{cite(?::[a-z]+)?\}`([^`]*)`")
_ROLE_REF = re.compile(r"\{(?:ref|numref|doc|eq|term)\}`([^`<]*?)\s*(?:<[^`]*>)?`")


def plain_markdown(text):
    """MyST roles as plain Markdown a notebook shows: math in dollars, citations by key,
    cross-references by their text."""
    text = _ROLE_MATH.sub(lambda m: f"${m.group(1)}$", text)
    text = _ROLE_CITE.sub(lambda m: f"[{m.group(1)}]", text)
    return _ROLE_REF.sub(lambda m: m.group(1).strip() or "(see the book)", text)


def exercise_text(label):
    """``(chapter path, text)`` of exercise ``label``: its directive's body from the chapter
    notebook, the glued numbers rendered as the reader's edition shows them."""
    from interconnect import exercises as E

    chapter = E._get(label).chapter
    nb = render_glue(json.loads((ROOT / f"{chapter}.ipynb").read_text()), chapter)
    for cell in nb["cells"]:
        if cell["cell_type"] != "markdown":
            continue
        src = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
        for m in EXERCISE.finditer(src):
            if m.group(1) != label:
                continue
            end = src.find("\n```", m.end() - 1)
            body = src[m.end():end].strip()
            # the book's "Check: check(...)" line: here the answer cell and the grader replace it
            body = "\n".join(ln for ln in body.splitlines() if not ln.startswith("Check:")).strip()
            return chapter, plain_markdown(body)
    raise ValueError(f"exercise {label!r} is not in {chapter}.ipynb")


def _parts(label):
    """``[(part, answer)]`` of the exercise (the book's numbers: units and choices)."""
    from interconnect import exercises as E

    ex = E._get(label)
    answers = E._answers(ex)
    return [(p, answers[p]) for p in ex.parts]


def _what(a):
    from interconnect import exercises as E

    if a.is_choice:
        return "one of " + ", ".join(json.dumps(c) for c in a.choices)
    return "a plain number (no unit; a share as 0.85, not 85)" if a.unit == "1" else E._unit_text(a.unit)


def _var(q, part):
    return f"{q}_{part}"


def _raw(text):
    return nbformat.v4.new_raw_cell(text)


def _coding_question(i, q, name):
    """The cells of a from-scratch coding question (:data:`CODING`)."""
    task = CODING[name]
    tests = task["tests"]
    cells = [_raw(f"# BEGIN QUESTION\nname: {q}\npoints: {[pts for pts, _h, _c in tests]}"),
             nbformat.v4.new_markdown_cell(f"**Question {i}** (coding, from `{task['chapter']}`)\n\n{task['prompt']}"),
             _raw("# BEGIN SOLUTION"), nbformat.v4.new_code_cell(task["solution"]), _raw("# END SOLUTION"),
             _raw("# BEGIN TESTS")]
    for _pts, hidden, code in tests:
        config = '""" # BEGIN TEST CONFIG\nhidden: true\n""" # END TEST CONFIG\n' if hidden else ""
        cells.append(nbformat.v4.new_code_cell(config + code))
    return cells + [_raw("# END TESTS"), _raw("# END QUESTION")]


def book_solution(label):
    """The definitions of a coding exercise's worked solution (the chapter's ``<label>-sol`` cell
    up to its first ``print``/``check``), with each function's body after its docstring marked
    as the solution, which Otter Assign replaces by ``...`` in the student notebook."""
    from interconnect import exercises as E

    chapter = E._get(label).chapter
    nb = json.loads((ROOT / f"{chapter}.ipynb").read_text())
    cell = next(c for c in nb["cells"] if c.get("id") == f"{label}-sol")
    src = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
    src = re.split(r"\n(?:print|check)\(", src)[0].rstrip()
    out, in_body, seen_def = [], False, False
    for line in src.splitlines():
        if line and not line.startswith(" ") and not re.match(r"def |[A-Z_][A-Z0-9_]* = ", line) and seen_def:
            break  # the worked example's own use of the function
        if in_body and line and not line.startswith(" "):
            while out and not out[-1].strip():
                out.pop()
            out += ["    # END SOLUTION", "", ""]
            in_body = False
        seen_def = seen_def or line.startswith("def ")
        out.append(line)
        if line.startswith('    """') and out[-2].startswith("def "):
            out.append("    # BEGIN SOLUTION")
            in_body = True
    while out and not out[-1].strip():
        out.pop()
    if in_body:
        out.append("    # END SOLUTION")
    return "\n".join(out)


def _book_coding_question(i, q, label):
    """The cells of a coding exercise of the book (the answer is a function, graded by ``check``)."""
    from interconnect import exercises as E

    chapter, text = exercise_text(label)
    name = E._CODING[label].signature.split("(")[0]
    cells = [_raw(f"# BEGIN QUESTION\nname: {q}\npoints: [0, 1]"),
             nbformat.v4.new_markdown_cell(
                 f"**Question {i}** ({label}, from `{chapter}`)\n\n{text}\n\n"
                 f"Write `{name}` in the next cell; the grader calls it on hidden cases, some drawn from your "
                 "student id."),
             _raw("# BEGIN SOLUTION"), nbformat.v4.new_code_cell(book_solution(label)), _raw("# END SOLUTION"),
             _raw("# BEGIN TESTS"),
             nbformat.v4.new_code_cell(f"assert callable({name}), 'define {E._CODING[label].signature}'"),
             nbformat.v4.new_code_cell(
                 '""" # BEGIN TEST CONFIG\nhidden: true\n""" # END TEST CONFIG\n'
                 "from interconnect.exercises import check as _check\n"
                 f'assert bool(_check("{label}", {name}, student=STUDENT_ID))'),
             _raw("# END TESTS"), _raw("# END QUESTION")]
    return cells


def master(name):
    """The master notebook (Otter Assign format) of assignment ``name``."""
    from interconnect import exercises as E

    part_of_book, title, labels = ASSIGNMENTS[name]
    cells = [_raw("# ASSIGNMENT CONFIG\n"
                  f"name: {name}\n"
                  "init_cell: true\ncheck_all_cell: false\nexport_cell: false\n"
                  "run_tests: true\nsolutions_pdf: false\n"
                  "tests:\n  files: false\n"),
             nbformat.v4.new_markdown_cell(
                 f"# {title}\n\n*Assignment {name}, Part \"{part_of_book}\" of GPU Interconnects.*\n\n"
                 "Answer in SI base units (bytes, seconds, bytes/s per direction unless a question says "
                 "otherwise), fractions as plain numbers (0.85, not 85 %). Put your student id in the next "
                 "cell first: some questions give each student their own numbers, printed under the "
                 "question. Every part is graded; a part left as `...` scores nothing."),
             nbformat.v4.new_code_cell(
                 f'STUDENT_ID = "{MASTER_STUDENT}"\n'
                 "from interconnect.exercises import describe")]
    for i, label in enumerate(labels, 1):
        q = f"q{i}"
        if label.startswith("code:"):
            cells += _coding_question(i, q, label[len("code:"):])
            continue
        if label in E.coding_labels():
            cells += _book_coding_question(i, q, label)
            continue
        chapter, text = exercise_text(label)
        parts = _parts(label)
        varied = bool(E._get(label).variants)
        cells.append(_raw(f"# BEGIN QUESTION\nname: {q}\npoints: {[0] + [1] * len(parts)}"))
        cells.append(nbformat.v4.new_markdown_cell(
            f"**Question {i}** ({label}, from `{chapter}`)\n\n{text}\n\n"
            + ("**Your numbers** replace the book's: run the next cell.\n\n" if varied else "")
            + "Give " + "; ".join(f"`{_var(q, p)}`: {_what(a)}" for p, a in parts) + "."))
        if varied:
            cells.append(nbformat.v4.new_code_cell(f'print(describe("{label}", student=STUDENT_ID))'))
        sol = ["# BEGIN SOLUTION NO PROMPT",
               "from interconnect.exercises import expected",
               f'_key = expected("{label}", student=STUDENT_ID)',
               "# END SOLUTION"]
        for p, _a in parts:
            src = f'_key["{p}"]' if (len(parts) > 1 or p != "answer") else "_key"
            sol.append(f"{_var(q, p)} = {src}  # SOLUTION")
        cells += [_raw("# BEGIN SOLUTION"), nbformat.v4.new_code_cell("\n".join(sol)), _raw("# END SOLUTION")]
        cells.append(_raw("# BEGIN TESTS"))
        form = ["assert isinstance(STUDENT_ID, str) and STUDENT_ID.strip(), 'put your student id in STUDENT_ID'",
                f"for _v in ({', '.join(_var(q, p) for p, _a in parts)},):",
                "    assert _v is not ..., 'every part needs an answer'",
                "    assert isinstance(_v, (int, float, str)) and not isinstance(_v, bool), "
                "'each answer is one number (or one of the choices)'"]
        cells.append(nbformat.v4.new_code_cell("\n".join(form)))
        for p, _a in parts:
            cells.append(nbformat.v4.new_code_cell(
                '""" # BEGIN TEST CONFIG\nhidden: true\n""" # END TEST CONFIG\n'
                "from interconnect.exercises import check as _check\n"
                f'assert bool(_check("{label}", {_var(q, p)}, part="{p}", student=STUDENT_ID))'))
        cells.append(_raw("# END TESTS"))
        cells.append(_raw("# END QUESTION"))
    nb = nbformat.v4.new_notebook(cells=cells)
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    return nb


STUDENT_ID_LINE = 'STUDENT_ID = ""  # your student id, as on the class roster, between the quotes'


def _blank_student_id(path):
    """The student notebook asks for the student's id where the master has its own."""
    nb = nbformat.read(path, as_version=4)
    n = 0
    for cell in nb.cells:
        if cell.cell_type == "code" and f'STUDENT_ID = "{MASTER_STUDENT}"' in cell.source:
            cell.source = re.sub(r'^STUDENT_ID = .*$', STUDENT_ID_LINE, cell.source, count=1, flags=re.M)
            n += 1
    if n != 1:
        raise RuntimeError(f"{path}: expected one STUDENT_ID cell, found {n}")
    nbformat.write(nb, path)


def build(outdir, names=None):
    """Write the master notebook and run ``otter assign`` for each assignment; return the
    ``{name: (student notebook, autograder zip)}`` paths."""
    outdir = pathlib.Path(outdir).resolve()
    out = {}
    for name in names or ASSIGNMENTS:
        if name not in ASSIGNMENTS:
            raise ValueError(f"assignment={name!r} is not one of {sorted(ASSIGNMENTS)}")
        where = outdir / name
        where.mkdir(parents=True, exist_ok=True)
        path = where / f"{name}.ipynb"
        nbformat.write(master(name), path)
        dist = where / "dist"
        subprocess.run([sys.executable, "-m", "otter", "assign", "--no-pdfs", str(path), str(dist)],
                       check=True, cwd=where)
        _blank_student_id(dist / "student" / f"{name}.ipynb")
        zips = sorted((dist / "autograder").glob(f"{name}-autograder_*.zip"))
        if not zips:
            raise RuntimeError(f"otter assign wrote no autograder zip for {name}")
        out[name] = (dist / "student" / f"{name}.ipynb", zips[-1])
        print(f"{name}: {out[name][0].relative_to(outdir)}, {out[name][1].relative_to(outdir)}")
    return out


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    build(sys.argv[1], sys.argv[2:] or None)
