"""Make the student edition of the book (a handout) and the instructors' answer key.

Usage::

    python tools/student_edition.py OUTDIR                  # the student edition's book source
    python tools/student_edition.py --archive OUTDIR ZIP    # after `jupyter-book build OUTDIR`: the handout
    python tools/student_edition.py --instructor DIR [--students FILE]   # the answer key

``OUTDIR`` receives a copy of the book's source (``_config.yml``, ``_toc.yml``, ``book/``,
``tools/``) in which

* every notebook has lost its solutions: the Markdown from each ``{solution-start}``
  through its ``{solution-end}``, and every code cell in between;
* every ``{glue}`` and ``{glue:text}`` role is replaced by the text it shows in the
  reader's edition, taken from the notebook's committed outputs (the same formatting as
  myst-nb's), so a notebook opened in plain Jupyter shows the numbers;
* under every exercise there is an answer cell: for an exercise with a checker a code
  cell with each part as ``...`` and the ``check`` call (for an exercise with per-student
  variants, ``describe`` prints the student's own numbers first); for the others a
  Markdown cell to write in;
* the instructors' page (``book/classroom/``) is gone, with its entry in the table of
  contents, the preface's link to it and the cells tagged ``instructors-only`` (the landing
  page's reading path for instructors), and the preface no longer promises solutions;
* ``_config.yml`` turns on sphinx-exercise's ``hide_solutions`` (a second guard) and does
  not re-execute the notebooks: they keep the outputs committed with them.

``--archive`` then writes one zip, the handout: ``book/`` (the notebooks above),
``html/`` (the built site), ``lib/`` (the library without the chapters' answer checkers and
without ``expected()``: its ``exercises`` package holds only the sealed key that
``interconnect.exercises.seal`` writes, salted hashes that verify an answer within its
tolerance), ``requirements.txt`` and a README. ``--instructor`` writes the answer key
(``answer_key.json`` and ``answer_key.html``: every part's value, unit, tolerance and
diagnosed mistakes, and per listed student id the variant numbers and answers), which
belongs to the instructor build only.

``tests/test_student_edition.py`` checks each step on small inputs and the student
library; ``tests/test_student_build.py`` checks the built site and the archive.
"""

from __future__ import annotations

import html
import json
import pathlib
import re
import shutil
import sys
import tempfile
import zipfile

import numpy as np
import yaml

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import myst_text  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[1]
START = re.compile(r"^```\{solution-start\}.*?$", re.M)
END = re.compile(r"^```\{solution-end\}[ \t]*\n```[ \t]*$", re.M)
GLUE = re.compile(r"\{glue(?::(any|text|md))?\}`([^`]+)`")
EXERCISE = re.compile(r"^```\{exercise\}[^\n]*\n(?::[^\n]*\n)*?:label:[ \t]*(\S+)[^\n]*\n", re.M)
INSTRUCTORS = "book/classroom"


_src = myst_text._source  # a cell's source as one string


def strip_solutions(nb):
    """Return (notebook without solutions, list of removed solution texts).

    ``nb`` is a notebook as a dict (nbformat 4). Solutions span from a Markdown line
    ```` ```{solution-start} label ```` to ```` ```{solution-end} ```` plus its closing fence,
    possibly across cells; everything between goes, code cells included. A notebook
    whose solution is never closed raises ``ValueError``.
    """
    cells, removed = [], []
    inside = False
    for cell in nb["cells"]:
        src = _src(cell)
        if cell["cell_type"] != "markdown":
            if inside:
                removed.append(src)
            else:
                cells.append(cell)
            continue
        kept, pos = [], 0
        while True:
            if not inside:
                m = START.search(src, pos)
                if not m:
                    kept.append(src[pos:])
                    break
                kept.append(src[pos:m.start()])
                inside, pos = True, m.start()
            m = END.search(src, pos)
            if not m:
                removed.append(src[pos:])
                break
            removed.append(src[pos:m.end()])
            inside, pos = False, m.end()
        text = re.sub(r"\n{3,}", "\n\n", "".join(kept)).strip("\n")
        if text.strip():
            new = dict(cell)
            new["source"] = text
            cells.append(new)
    if inside:
        raise ValueError("notebook has a {solution-start} without its {solution-end}")
    out = dict(nb)
    out["cells"] = cells
    return out, removed


# ---- glue ------------------------------------------------------------------------------

def glued_values(nb):
    """``{name: {mime: data}}`` of every value the notebook's outputs glue (myst-nb's scrapbook)."""
    out = {}
    for cell in nb["cells"]:
        for o in cell.get("outputs", []) if cell["cell_type"] == "code" else []:
            meta = o.get("metadata", {}).get("scrapbook")
            if not meta:
                continue
            prefix = meta.get("mime_prefix", "")
            out[meta["name"]] = {k[len(prefix):]: ("".join(v) if isinstance(v, list) else v)
                                 for k, v in o.get("data", {}).items() if k.startswith(prefix)}
    return out


def _format_plain(text, spec):
    """myst-nb's ``{glue:text}`` formatting (``myst_nb.core.variables.format_plain_text``)."""
    from ast import literal_eval

    try:
        value = literal_eval(text)
    except (SyntaxError, ValueError):
        value = text
    if spec == "":
        return str(value)
    kind = spec[-1]
    if kind == "s":
        value = str(value)
    elif kind in "bcdoxX":
        value = int(value)
    elif kind in "eEfFgGn%":
        value = float(value)
    return format(value, spec)


def render_glue(nb, where="notebook"):
    """Replace every glue role in the notebook's Markdown by the text the reader's edition shows.

    ``{glue}`name``` shows the value's Markdown if it was glued as Markdown, else its plain
    text; ``{glue:text}`name:spec``` formats the plain text with ``spec``. A name the
    notebook does not glue raises ``ValueError`` (re-execute the notebook).
    """
    values = glued_values(nb)

    def paste(m):
        kind, body = m.group(1) or "any", m.group(2)
        if kind == "text":
            name, _, spec = body.partition(":")
        else:
            name, spec = body, ""
        if name not in values:
            raise ValueError(f"{where}: {{glue}}`{name}` has no glued value in the notebook's outputs; "
                             "re-execute the notebook")
        data = values[name]
        if kind != "text" and "text/markdown" in data:
            return data["text/markdown"].strip()
        if "text/plain" not in data:
            raise ValueError(f"{where}: glued value {name!r} has no text/plain to show")
        return _format_plain(data["text/plain"], spec) if kind == "text" else data["text/plain"]

    out = dict(nb)
    cells = []
    for cell in nb["cells"]:
        if cell["cell_type"] == "markdown" and "{glue" in _src(cell):
            cell = dict(cell)
            cell["source"] = GLUE.sub(paste, _src(cell))
        cells.append(cell)
    out["cells"] = cells
    return out


# ---- answer cells ------------------------------------------------------------------------

def _part_lines(label):
    """``[(part, comment)]`` of an exercise with a checker (from the library), or None."""
    from interconnect import exercises as E

    if label in E.coding_labels():  # the answer is a function: its header, as the exercise states it
        return [("function", E._CODING[label].signature)]
    if label not in E.labels():
        return None
    ex = E._REGISTRY[label]
    answers = E._answers(ex)
    out = []
    for part in ex.parts:
        a = answers[part]
        if a.is_choice:
            what = "one of " + ", ".join(json.dumps(c) for c in a.choices)
        else:
            what = "a plain number (no unit; a fraction, not a percentage)" if a.unit == "1" else E._unit_text(a.unit)
            if np.ndim(a.value):
                what = f"a list of {np.size(a.value)} numbers in {what}"
        out.append((part, what))
    return out


def answer_cell(label, parts=None, varied=False):
    """The answer cell for exercise ``label``: code with ``check`` for a checked exercise
    (``parts``: ``[(part, what)]``), Markdown to write in for the others."""
    if parts is None:
        return {"cell_type": "markdown", "metadata": {"tags": ["answer"]},
                "source": f"**Your answer to {label}** (write it here; there is no checker for this one):\n\n"}
    lines = [f"# Your answer to {label}: replace each ... and run the cell.",
             "from interconnect.exercises import check, describe, set_student"]
    if varied:
        lines += ["# set_student(\"your id\")  # if your instructor gives each student their own numbers",
                  f"print(describe(\"{label}\"))  # with a student id: your numbers replace the exercise's"]
    if parts[0][0] == "function":  # a coding exercise: write the function, the checker calls it
        sig = parts[0][1]
        lines += [f"def {sig}:", "    ...  # your code: return the result, raise ValueError where the exercise says",
                  f"check(\"{label}\", {sig.split('(')[0]})"]
        return {"cell_type": "code", "metadata": {"tags": ["answer"]}, "execution_count": None, "outputs": [],
                "source": "\n".join(lines)}
    if parts == [("answer", parts[0][1])] and parts[0][0] == "answer":
        lines += [f"answer = ...  # {parts[0][1]}"]
    else:
        lines += ["answer = {"] + [f"    \"{p}\": ...,  # {what}" for p, what in parts] + ["}"]
    lines += [f"check(\"{label}\", answer)"]
    return {"cell_type": "code", "metadata": {"tags": ["answer"]}, "execution_count": None, "outputs": [],
            "source": "\n".join(lines)}


def add_answer_cells(nb, parts_of=None, varied=()):
    """Put an answer cell right under each ``{exercise}`` block (splitting its Markdown cell).

    ``parts_of(label)`` gives the checked parts (default: from the library); ``varied`` the
    labels with per-student variants.
    """
    parts_of = parts_of or _part_lines
    cells = []

    def piece(cell, source, n):
        # a split cell keeps its id on its first piece; nbformat 4.5 ids must stay unique
        new = {**cell, "source": source}
        if "id" in cell and n:
            new["id"] = f"{cell['id']}-{n}"[:64]
        return new

    for cell in nb["cells"]:
        if cell["cell_type"] != "markdown" or "{exercise}" not in _src(cell):
            cells.append(cell)
            continue
        text, pos, n = _src(cell), 0, 0
        for m in EXERCISE.finditer(text):
            end = text.find("\n```", m.end() - 1)
            if end < 0:
                raise ValueError(f"exercise {m.group(1)} is not closed")
            end = text.find("\n", end + 1)
            end = len(text) if end < 0 else end
            chunk = text[pos:end].strip("\n")
            if chunk.strip():
                cells.append(piece(cell, chunk, n))
                n += 1
            label = m.group(1)
            answer = answer_cell(label, parts_of(label), label in varied)
            if "id" in cell:
                answer["id"] = f"answer-{label}"[:64]
            cells.append(answer)
            pos = end
        rest = text[pos:].strip("\n")
        if rest.strip():
            cells.append(piece(cell, rest, n))
    out = dict(nb)
    out["cells"] = cells
    return out


# ---- the edition -----------------------------------------------------------------------

#: Cells with this tag are for the reader's edition only: the student edition drops them (the
#: landing page's reading path for instructors, which links to the instructors' page).
INSTRUCTORS_ONLY = "instructors-only"


def drop_instructor_cells(nb):
    """``nb`` without the cells tagged :data:`INSTRUCTORS_ONLY`."""
    return {**nb, "cells": [c for c in nb["cells"] if INSTRUCTORS_ONLY not in c.get("metadata", {}).get("tags", [])]}


def drop_instructors(toc, preface):
    """The table of contents and the preface without the instructors' page."""
    parts = []
    for part in toc.get("parts", []):
        chapters = [c for c in part.get("chapters", []) if not c.get("file", "").startswith(INSTRUCTORS)]
        if chapters:
            parts.append({**part, "chapters": chapters})
    toc = {**toc, "parts": parts}
    lines = [ln for ln in preface.splitlines() if "classroom/instructors" not in ln]
    preface = "\n".join(lines) + ("\n" if preface.endswith("\n") else "")
    preface = preface.replace(", a page for instructors and the appendices", " and the appendices")
    return toc, preface


#: The preface's promises of solutions, and what the student edition has instead.
PREFACE_SOLUTIONS = (
    (re.compile(r"exercises with solutions\."), "exercises, each with an answer cell."),
    (re.compile(r"their solutions are in drop-downs[^.]*\."),
     "under each is an answer cell whose checker says whether a number is right and, if it is not, "
     "the likely mistake."),
    # the whole-book PDF is printed from the reader's edition (tools/build_pdf.py), not built here
    (re.compile(r"\n\nTo read offline or on paper, the whole book is also one <a href=[^\n]*"), ""),
)


def student_preface(preface):
    """The preface without its promises of solutions (the student edition has none)."""
    for pattern, text in PREFACE_SOLUTIONS:
        preface = pattern.sub(text, preface)
    return preface


def make(outdir):
    """Write the student edition's book source to ``outdir``; return the number of solutions removed."""
    from interconnect import exercises as E

    outdir = pathlib.Path(outdir).resolve()
    if outdir.exists():
        shutil.rmtree(outdir)
    outdir.mkdir(parents=True)
    shutil.copytree(ROOT / "book", outdir / "book", ignore=shutil.ignore_patterns(".ipynb_checkpoints"))
    shutil.rmtree(outdir / INSTRUCTORS, ignore_errors=True)
    shutil.copytree(ROOT / "tools", outdir / "tools", ignore=shutil.ignore_patterns("__pycache__"))
    toc, preface = drop_instructors(yaml.safe_load((ROOT / "_toc.yml").read_text()),
                                    (outdir / "book/preface.md").read_text())
    (outdir / "_toc.yml").write_text("# Generated by tools/student_edition.py; edit the book's _toc.yml instead.\n"
                                     + yaml.safe_dump(toc, sort_keys=False, allow_unicode=True))
    (outdir / "book/preface.md").write_text(student_preface(preface))
    varied = {label for label in E.labels() if E._REGISTRY[label].variants} | set(E.coding_labels())
    n_sol = 0
    for path in sorted((outdir / "book").rglob("*.ipynb")):
        nb = json.loads(path.read_text())
        stripped, removed = strip_solutions(drop_instructor_cells(nb))
        n_sol += sum(1 for r in removed if r.lstrip().startswith("```{solution-start}"))
        out = add_answer_cells(render_glue(stripped, str(path.relative_to(outdir))), varied=varied)
        path.write_text(json.dumps(out, indent=1, ensure_ascii=False) + "\n")
    for path in sorted((outdir / "book").rglob("*")):
        if path.suffix in (".md", ".ipynb") and re.search(r"classroom/instructors|\{ref\}`instructors`",
                                                          path.read_text()):
            raise ValueError(f"{path.relative_to(outdir)} still links to the instructors' page")
    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    config["title"] = config["title"] + " (student edition)"
    config["execute"]["execute_notebooks"] = "off"
    config["sphinx"]["config"]["hide_solutions"] = True
    config["sphinx"]["config"]["ic_other_edition"] = {}   # no Chinese edition beside the handout
    (outdir / "_config.yml").write_text(
        "# Generated by tools/student_edition.py; edit the book's _config.yml instead.\n"
        + yaml.safe_dump(config, sort_keys=False, allow_unicode=True))
    print(f"student edition source in {outdir}: {n_sol} solutions removed")
    return n_sol


def student_lib(dest, salt=None):
    """Copy the library to ``dest`` as the student edition's: no ``exercises/_*.py`` chapter
    checkers, a sealed key instead (``exercises/sealed_key.py``)."""
    from interconnect import exercises as E

    dest = pathlib.Path(dest)
    if dest.exists():
        shutil.rmtree(dest)
    shutil.copytree(ROOT / "lib", dest, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info", "build"))
    ex_dir = dest / "src/interconnect/exercises"
    for path in ex_dir.glob("_*.py"):
        if path.name != "__init__.py":
            path.unlink()
    E.seal(ex_dir / "sealed_key.py", salt=salt)
    return dest


STUDENT_README = """# {title}: the student handout

This archive holds the book without solutions:

* `html/index.html`: the book to read (open it in a browser; it works offline);
* `book/`: the chapters as Jupyter notebooks, with an answer cell under each exercise;
* `lib/`: the book's library `interconnect`. Its checker tells you whether an answer is
  right and, if not, the likely mistake; it does not hold the answers.

Install once (Python 3.10 or later):

    python -m venv .venv
    .venv/bin/pip install -r requirements.txt
    .venv/bin/jupyter lab book/

In a notebook, run the chapter's cells from the top, then write your answers in the answer
cells (answers are in SI base units: bytes, seconds, bytes per second per direction,
fractions) and run them. If your instructor gave you a student id, run
`set_student("your id")` first: exercises with variants then print your own numbers.
"""

STUDENT_REQUIREMENTS = """numpy>=1.26
matplotlib>=3.8
ipywidgets>=8.1
ipykernel>=6.29
networkx>=3.2
scipy>=1.11
jupyterlab>=4
-e ./lib
"""


def _plain_markdown(path, outdir, index):
    """A handout page with its MyST (citations, links, exercise fences) as plain Markdown."""
    doc = path.relative_to(outdir).with_suffix("").as_posix()
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".md":
        return myst_text.render_markdown(text, doc, index)
    nb = myst_text.render_notebook(json.loads(text), doc, index)
    return json.dumps(nb, indent=1, ensure_ascii=False) + "\n"


def archive(outdir, zip_path, salt=None):
    """The handout: one zip of the student notebooks, the built HTML and the student library."""
    outdir, zip_path = pathlib.Path(outdir).resolve(), pathlib.Path(zip_path).resolve()
    html_dir = outdir / "_build/html"
    if not (html_dir / "index.html").is_file():
        raise FileNotFoundError(f"no built student edition at {html_dir}; run jupyter-book build {outdir} first")
    title = yaml.safe_load((outdir / "_config.yml").read_text())["title"]
    top = "interconnect-student"
    zip_path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp, zipfile.ZipFile(zip_path, "w", zipfile.ZIP_DEFLATED) as z:
        lib = student_lib(pathlib.Path(tmp) / "lib", salt=salt)
        trees = ((outdir / "book", f"{top}/book"), (html_dir, f"{top}/html"), (lib, f"{top}/lib"))
        index = myst_text.BookIndex(outdir)
        for src, arc in trees:
            for path in sorted(src.rglob("*")):
                if path.is_file() and "__pycache__" not in path.parts and ".ipynb_checkpoints" not in path.parts:
                    name = f"{arc}/{path.relative_to(src).as_posix()}"
                    if src == outdir / "book" and path.suffix in (".ipynb", ".md"):
                        # the notebooks open in JupyterLab: MyST roles and fences as plain Markdown
                        z.writestr(name, _plain_markdown(path, outdir, index))
                    else:
                        z.write(path, name)
        z.writestr(f"{top}/README.md", STUDENT_README.format(title=title))
        z.writestr(f"{top}/requirements.txt", STUDENT_REQUIREMENTS)
    print(f"student handout: {zip_path} ({zip_path.stat().st_size / 1e6:.1f} MB)")
    return zip_path


def instructor_key(outdir, students=()):
    """Write the instructors' answer key (JSON and HTML) to ``outdir``."""
    from interconnect import exercises as E

    outdir = pathlib.Path(outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    key = E.answer_key(students)
    (outdir / "answer_key.json").write_text(json.dumps(key, indent=1, ensure_ascii=False) + "\n")
    rows = []
    for label, e in key.items():
        for part, a in e["parts"].items():
            rows.append(f"<tr><td>{html.escape(label)}</td><td>{html.escape(part)}</td>"
                        f"<td>{html.escape(json.dumps(a['value']))}</td><td>{html.escape(a['unit'])}</td>"
                        f"<td>{'' if a['choices'] else html.escape(format(a['rtol'], '.3g'))}</td>"
                        f"<td>{html.escape(e['chapter'])}</td></tr>")
        for s, v in e.get("students", {}).items():
            for part, a in v["parts"].items():
                rows.append(f"<tr><td>{html.escape(label)} (student {html.escape(s)}: "
                            f"{html.escape(json.dumps(v['numbers']))})</td><td>{html.escape(part)}</td>"
                            f"<td>{html.escape(json.dumps(a['value']))}</td><td>{html.escape(a['unit'])}</td>"
                            f"<td>{'' if a['choices'] else html.escape(format(a['rtol'], '.3g'))}</td>"
                            f"<td>{html.escape(e['chapter'])}</td></tr>")
    (outdir / "answer_key.html").write_text(
        "<!doctype html><meta charset='utf-8'><title>Answer key (instructors only)</title>"
        "<h1>Answer key (instructors only)</h1><p>SI base units; rtol is the relative tolerance.</p>"
        "<table border='1' cellpadding='3'><tr><th>exercise</th><th>part</th><th>answer</th><th>unit</th>"
        "<th>rtol</th><th>chapter</th></tr>\n" + "\n".join(rows) + "\n</table>\n")
    print(f"answer key: {outdir / 'answer_key.json'}, {outdir / 'answer_key.html'} ({len(key)} exercises)")
    question_bank(outdir)
    return outdir


def question_bank(outdir):
    """Write the exam question bank with its keys (``tools/question_bank.py``, every numeric
    key computed by the library) to ``outdir`` as JSON and HTML: instructors only."""
    sys.path.insert(0, str(ROOT / "tools"))
    import question_bank as QB

    outdir = pathlib.Path(outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    bank = QB.bank()
    (outdir / "question_bank.json").write_text(json.dumps(bank, indent=1, ensure_ascii=False) + "\n")
    from interconnect import exercises as E

    def shown(q):
        if q["kind"] != "numeric":
            return html.escape(q["key"])
        tol = "exactly" if not q["rtol"] else f"within {q['rtol'] * 100:.2g} %"
        return f"{html.escape(E._show(q['key'], q['unit']))} = {q['key']:.6g} {html.escape(q['unit'])} ({tol})"

    rows = [f"<tr><td>{i}</td><td>{html.escape(q['id'])}</td><td>{html.escape(q['chapter'])}</td>"
            f"<td>{q['kind']}</td><td>{html.escape(q['text'])}</td><td>{shown(q)}</td></tr>"
            for i, q in enumerate(bank, 1)]
    (outdir / "question_bank.html").write_text(
        "<!doctype html><meta charset='utf-8'><title>Exam question bank (instructors only)</title>"
        "<h1>Exam question bank (instructors only)</h1><p>Numeric keys are computed by the book's library "
        "(tools/question_bank.py) in SI base units; give students the text only.</p>"
        "<table border='1' cellpadding='3'><tr><th>#</th><th>id</th><th>chapter</th><th>kind</th>"
        "<th>question</th><th>key</th></tr>\n" + "\n".join(rows) + "\n</table>\n")
    print(f"question bank: {outdir / 'question_bank.html'} ({len(bank)} questions)")
    return bank


def main(argv):
    if len(argv) == 1 and not argv[0].startswith("--"):
        return make(argv[0])
    if len(argv) == 3 and argv[0] == "--archive":
        return archive(argv[1], argv[2])
    if len(argv) in (2, 4) and argv[0] == "--instructor":
        students = ()
        if len(argv) == 4 and argv[2] == "--students":
            students = [s.strip() for s in pathlib.Path(argv[3]).read_text().splitlines() if s.strip()]
        return instructor_key(argv[1], students)
    sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
