"""tools/student_edition.py on small inputs: solutions stripped (the parser the student
edition and its leak test share), glue rendered as myst-nb renders it, answer cells under
the exercises, the instructors' page dropped; and the student library, built and imported
in a fresh interpreter: it checks answers without holding them."""

import ast
import json
import os
import pathlib
import re
import subprocess
import sys

import numpy as np
import pytest
import yaml
from value_search import value_forms, written_in

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import student_edition as S  # noqa: E402
from student_edition import strip_solutions  # noqa: E402


def md(text):
    return {"cell_type": "markdown", "metadata": {}, "source": text}


def code(text):
    return {"cell_type": "code", "metadata": {}, "source": text, "outputs": [], "execution_count": None}


EX = "```{exercise}\n:label: a-ex-b\nHow fast?\n```\n\n"
START = "```{solution-start} a-ex-b\n:class: dropdown\n```\n"
END = "```{solution-end}\n```"


def test_solution_across_cells_goes_code_and_all():
    nb = {"cells": [md("intro"), md(EX + START + "Secret prose."), code("secret = 1"),
                    md("More secret.\n" + END + "\n\nAfter."), code("kept = 2")],
          "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    out, removed = strip_solutions(nb)
    text = "\n".join(c["source"] for c in out["cells"])
    assert "secret" not in text.lower() and "solution" not in text
    assert "How fast?" in text and "After." in text and "kept = 2" in text and "intro" in text
    assert any("secret = 1" in r for r in removed)


def test_two_solutions_in_one_cell():
    cell = md(EX + START + "one" + "\n" + END + "\n\nbetween\n\n" + START + "two\n" + END + "\nend")
    out, removed = strip_solutions({"cells": [cell]})
    assert out["cells"][0]["source"].split() == EX.split() + ["between", "end"]
    assert len(removed) == 2


def test_a_cell_that_is_all_solution_disappears():
    nb = {"cells": [md(START + "only solution\n" + END), code("x = 1")]}
    out, _ = strip_solutions(nb)
    assert [c["source"] for c in out["cells"]] == ["x = 1"]


def test_unclosed_solution_raises():
    with pytest.raises(ValueError, match="solution-end"):
        strip_solutions({"cells": [md(START + "forgot to close")]})


def test_source_as_list_of_lines():
    nb = {"cells": [{"cell_type": "markdown", "metadata": {}, "source": [START, "gone\n", END]}, md("stays")]}
    out, _ = strip_solutions(nb)
    assert [c["source"] for c in out["cells"]] == ["stays"]


# ---- glue ------------------------------------------------------------------------------

def glue_out(name, plain=None, markdown=None):
    pre = "application/papermill.record/"
    data = {}
    if plain is not None:
        data[pre + "text/plain"] = plain
    if markdown is not None:
        data[pre + "text/markdown"] = markdown
        data.setdefault(pre + "text/plain", "<IPython.core.display.Markdown object>")
    return {"output_type": "display_data", "data": data,
            "metadata": {"scrapbook": {"mime_prefix": pre, "name": name}}}


def test_glue_is_rendered_as_the_readers_edition_shows_it():
    cell = code("glue(...)")
    cell["outputs"] = [glue_out("n", plain="12345.678"), glue_out("bw", markdown="23.4 GB/s per direction"),
                       glue_out("k", plain="3")]
    nb = {"cells": [cell, md("{glue}`n` and {glue:text}`n:,.0f` at {glue}`bw`; {glue:text}`k:d` and "
                             "{glue:text}`n:.1f`, {glue:text}`k`.")]}
    out = S.render_glue(nb)
    assert out["cells"][1]["source"] == "12345.678 and 12,346 at 23.4 GB/s per direction; 3 and 12345.7, 3."
    assert "{glue" in nb["cells"][1]["source"]  # the input is not modified
    with pytest.raises(ValueError, match="missing.*no glued value"):
        S.render_glue({"cells": [md("{glue}`missing`")]})


@pytest.mark.parametrize("text,spec", [("12345.678", ",.0f"), ("0.5", ".1f"), ("3", "d"), ("2.5e-06", ".3g"),
                                       ("1.99805", ".2f"), ("'word'", ""), ("42", ""), ("0.125", ".1%")])
def test_glue_formatting_is_myst_nbs(text, spec):
    from myst_nb.core.variables import format_plain_text

    assert S._format_plain(text, spec) == format_plain_text(text, spec)


# ---- answer cells ------------------------------------------------------------------------

EX2 = "```{exercise}\n:label: a-ex-c\nHow far?\n```\n"


def test_an_answer_cell_under_each_exercise():
    nb = {"cells": [md("intro\n\n" + EX + "between\n\n" + EX2 + "\nafter"), code("x = 1")]}
    parts = {"a-ex-b": [("time", "seconds"), ("bound", 'one of "latency", "bandwidth"')], "a-ex-c": None}
    out = S.add_answer_cells(nb, parts_of=parts.get, varied={"a-ex-b"})
    kinds = [(c["cell_type"], c["source"].split("\n")[0][:30]) for c in out["cells"]]
    assert [k for k, _ in kinds] == ["markdown", "code", "markdown", "markdown", "markdown", "code"]
    assert out["cells"][0]["source"].endswith("How fast?\n```")
    assert out["cells"][2]["source"].startswith("between") and out["cells"][2]["source"].endswith("How far?\n```")
    answer = out["cells"][1]["source"]
    ast.parse(answer)
    assert 'check("a-ex-b", answer)' in answer and '"time": ...,  # seconds' in answer
    assert 'print(describe("a-ex-b"))' in answer  # a varied exercise prints the student's numbers
    assert "Your answer to a-ex-c" in out["cells"][3]["source"] and out["cells"][3]["cell_type"] == "markdown"
    assert out["cells"][4]["source"] == "after" and out["cells"][5]["source"] == "x = 1"


def test_an_unanswered_cell_runs_and_says_so():
    # a student who runs every cell gets 'no answer yet', not an exception
    cell = S.answer_cell("dp-ex-bytes", S._part_lines("dp-ex-bytes"))
    ns = {}
    exec(compile(cell["source"].replace('check("dp-ex-bytes", answer)', 'result = check("dp-ex-bytes", answer)'),
                 "cell", "exec"), ns)
    assert not ns["result"] and "no answer yet" in str(ns["result"])
    assert S._part_lines("no-such-label") is None


def test_the_instructors_page_is_dropped():
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    preface = (ROOT / "book/preface.md").read_text()
    assert "classroom/instructors" in json.dumps(toc) + preface  # calibration: it is there to drop
    toc2, preface2 = S.drop_instructors(toc, preface)
    assert "classroom" not in json.dumps(toc2) and "classroom/instructors" not in preface2
    assert len([c for p in toc2["parts"] for c in p["chapters"]]) == \
        len([c for p in toc["parts"] for c in p["chapters"]]) - 1


def test_instructors_only_cells_are_dropped():
    # the landing page's reading path for instructors links to their page: it must not reach students
    landing = json.loads((ROOT / "book/index.ipynb").read_text())
    tagged = [c for c in landing["cells"] if S.INSTRUCTORS_ONLY in c.get("metadata", {}).get("tags", [])]
    assert tagged and any("classroom/instructors" in json.dumps(c) for c in tagged)  # calibration
    kept = S.drop_instructor_cells(landing)
    assert len(kept["cells"]) == len(landing["cells"]) - len(tagged)
    assert "classroom/instructors" not in json.dumps(kept)


def test_the_student_preface_promises_no_solutions():
    text = ("a summary and exercises with solutions. The exercises go from easy to hard; their solutions are "
            "in drop-downs that call the library, so a student can check a number. Chapters are independent.")
    out = S.student_preface(text)
    assert "solution" not in out and "answer cell" in out and out.endswith("Chapters are independent.")
    real = S.student_preface((ROOT / "book/preface.md").read_text())
    assert "exercises with solutions" not in real and "solutions are in drop-downs" not in real


@pytest.fixture(scope="module")
def edition(tmp_path_factory):
    out = tmp_path_factory.mktemp("student") / "src"
    S.make(out)
    return out


def test_the_edition_source(edition):
    from interconnect import exercises as E

    assert not (edition / "book/classroom").exists()
    found = {}
    for path in sorted((edition / "book").rglob("*.ipynb")):
        nb = json.loads(path.read_text())
        text = "\n".join(S._src(c) for c in nb["cells"])
        assert "{glue" not in text and "{solution-" not in text, path
        for c in nb["cells"]:
            if "answer" in c["metadata"].get("tags", []):
                m = re.search(r"Your answer to (\S+?)[:*]", S._src(c))
                found[m.group(1)] = c["cell_type"]
    src = "\n".join(p.read_text() for p in (ROOT / "book").rglob("*.ipynb"))
    book_labels = set(re.findall(r":label:\s*(\S+?)(?:\\n|\s)", src))
    exercises = {lb for lb in book_labels if "-ex-" in lb}
    assert exercises and set(found) == exercises
    assert all(found[lb] == "code" for lb in E.labels())
    assert all(found[lb] == "markdown" for lb in E.non_numeric())


# ---- the student library -----------------------------------------------------------------

PROBE = r"""
import json, sys
import numpy as np
import interconnect.exercises as E
cases = json.loads(sys.stdin.read())
out = {"has_expected": hasattr(E, "expected"), "has_key": hasattr(E, "answer_key") or hasattr(E, "seal"),
       "labels": E.labels(), "right": {}, "wrong": {}, "partial": {}, "variant": {}}
for label, ans in cases["right"].items():
    out["right"][label] = bool(E.check(label, ans))
    first = next(iter(ans)) if isinstance(ans, dict) else None
    if first is not None and len(ans) > 1:
        out["partial"][label] = bool(E.check(label, {first: ans[first]}))
for label, ans in cases["wrong"].items():
    out["wrong"][label] = str(E.check(label, ans))
for label, (student, ans) in cases["variant"].items():
    out["variant"][label] = [bool(E.check(label, ans, student=student)), E.numbers(label, student=student)]
out["coding_labels"], out["coding"] = E.coding_labels(), {}
for label, (name, src) in cases["coding"].items():
    ns = {}
    exec(src, ns)
    fn = ns[name]
    out["coding"][label] = [bool(E.check(label, fn)), bool(E.check(label, fn, student="s042")),
                            bool(E.check(label, lambda *a, _f=fn: 2 * _f(*a)))]
print(json.dumps(out))
"""


def _plain(v):
    return v if isinstance(v, str) else np.asarray(v, dtype=float).tolist()


@pytest.fixture(scope="module")
def student_lib(tmp_path_factory):
    return S.student_lib(tmp_path_factory.mktemp("lib") / "lib", salt="fixed")


def test_the_student_library_checks_without_the_answers(student_lib):
    from interconnect import exercises as E

    ex_dir = student_lib / "src/interconnect/exercises"
    # design.py is the design tasks' grading rule (no answers: the chapter modules call it)
    assert sorted(p.name for p in ex_dir.glob("*.py")) == ["__init__.py", "answers.py", "coding.py", "design.py",
                                                         "messages_zh.py", "sealed_key.py", "targets.py", "verdicts.py"]
    right, wrong, variant = {}, {}, {}
    for label in E.labels():
        e = E.expected(label)
        right[label] = {k: _plain(v) for k, v in e.items()} if isinstance(e, dict) else _plain(e)
    for label in ("dp-ex-bytes", "phys-ex-pcie", "rel-ex-mtbf"):
        e = E.expected(label)
        wrong[label] = {k: (1.0 if not isinstance(v, str) else v) for k, v in e.items()}
    for label in (lb for lb in E.labels() if E._REGISTRY[lb].variants):
        e = E.expected(label, student="s042")
        variant[label] = ["s042", {k: _plain(v) for k, v in e.items()} if isinstance(e, dict) else _plain(e)]
    # the coding exercises: the chapters' worked functions, graded by the sealed key
    sys.path.insert(0, str(ROOT / "tools"))
    import assignments as A

    coding = {label: [E._CODING[label].signature.split("(")[0], A.book_solution(label)] for label in E.coding_labels()}
    env = {**os.environ, "PYTHONPATH": str(student_lib / "src")}
    env.pop("INTERCONNECT_STUDENT", None)
    res = subprocess.run([sys.executable, "-c", PROBE], input=json.dumps(
        {"right": right, "wrong": wrong, "variant": variant, "coding": coding}), capture_output=True, text=True,
        env=env, cwd=student_lib, check=True)
    out = json.loads(res.stdout)
    assert not out["has_expected"] and not out["has_key"]
    assert out["labels"] == E.labels()
    assert all(out["right"].values()), [k for k, v in out["right"].items() if not v]
    assert not any(out["partial"].values()), [k for k, v in out["partial"].items() if v]
    for text in out["wrong"].values():
        assert "✗" in text and "matches none of the mistakes" in text
    assert variant and all(ok for ok, _ in out["variant"].values())
    for label, (_, nums) in out["variant"].items():
        assert nums == E.numbers(label, student="s042")
    assert out["coding_labels"] == E.coding_labels()
    assert coding and all(ok == [True, True, False] for ok in out["coding"].values()), out["coding"]


def test_the_student_library_holds_no_expected_value(student_lib, tmp_path):
    from interconnect import exercises as E

    text = "\n".join(p.read_text() for p in (student_lib / "src/interconnect/exercises").glob("*.py"))
    key = json.dumps(E.answer_key())
    checked = found_in_key = 0
    for label in E.labels():
        for part, a in E._answers(E._REGISTRY[label]).items():
            if a.is_choice:
                continue
            for x in np.atleast_1d(np.asarray(a.value, dtype=float)).ravel():
                if abs(x) < 10 or float(x).is_integer() and abs(x) < 1e4:
                    continue
                forms = value_forms(x)
                checked += 1
                assert not written_in(forms, text), f"{label} [{part}]: {x} in the student library"
                found_in_key += written_in(forms, key)
    assert checked >= 100 and found_in_key >= 0.9 * checked
    # the instructors' key is written by --instructor, never into the student library
    S.instructor_key(tmp_path / "instructor", students=["s001"])
    data = json.loads((tmp_path / "instructor/answer_key.json").read_text())
    assert set(data) == set(E.labels())
    assert "s001" in data["rel-ex-mtbf"]["students"]
    assert "answer_key" not in " ".join(p.name for p in student_lib.rglob("*"))


CHOICE_PROBE = r"""
import json, sys
import interconnect.exercises as E
cases = json.loads(sys.stdin.read())
print(json.dumps([[E.check(label, word, part=part, lang=lang).message for lang in ("en", "zh")]
                  for label, part, word in cases]))
"""


def test_the_student_library_explains_wrong_choices_sealed_in_both_languages(student_lib):
    # a wrong choice's explanation says which choices are wrong: the student library holds it, in
    # English and Chinese, only encrypted with that choice, and shows it in the language asked for
    from interconnect import exercises as E
    from interconnect.exercises import _choices_zh

    cases, want = [], []
    for label in E.labels():
        for part, a in E._answers(E._REGISTRY[label]).items():
            for word, why in a.mistakes.items() if a.is_choice else ():
                cases.append([label, part, word])
                want.append([why, _choices_zh.why_zh(why)])
    assert len(cases) >= 50 and all(zh for _, zh in want)
    env = {**os.environ, "PYTHONPATH": str(student_lib / "src")}
    env.pop("INTERCONNECT_STUDENT", None)
    res = subprocess.run([sys.executable, "-c", CHOICE_PROBE], input=json.dumps(cases), capture_output=True,
                         text=True, env=env, cwd=student_lib, check=True)
    for (label, part, word), (en, zh), (msg_en, msg_zh) in zip(cases, want, json.loads(res.stdout)):
        assert f"Likely mistake: {en}." in msg_en, (label, part, word, msg_en)
        assert f"可能的错误：{zh}。" in msg_zh, (label, part, word, msg_zh)
    assert not (student_lib / "src/interconnect/exercises/_choices_zh.py").exists()
    text = "\n".join(p.read_text() for p in (student_lib / "src").rglob("*.py"))
    leaks = [t for pair in want for t in pair if t in text]
    assert not leaks, f"plain explanations of wrong choices in the student library: {leaks[:3]}"
