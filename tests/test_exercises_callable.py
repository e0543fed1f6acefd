"""Coding exercises (interconnect.exercises.coding): the answer is a function, graded by calling it.

What these tests pin down: (1) every coding exercise is in its chapter with its check call, a
level and the kind ``coding``; (2) a right implementation (the chapter's own solution, and
the library wrapped) passes for the book and for every student's seed; (3) each known wrong
implementation gets its own diagnosis, and a generic slip (a factor of 8, of 1000 ...) its
generic one; (4) exceptions, wrong types and NaN are caught and reported, a missing
``ValueError`` on invalid input is reported, a ``ValueError`` on valid input too; (5) no
verdict holds an expected value or an argument; (6) the sealed key grades as the open
checker does and holds no expected value; (7) the verdict speaks Chinese.
"""

import json
import math
import pathlib
import re

import numpy as np
import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from interconnect import collectives as C
from interconnect import exercises as E
from interconnect import links, parallel
from interconnect import serving as S
from interconnect.catalog import models
from interconnect.exercises import AnswerError, check, coding
from interconnect.exercises import messages_zh as ZH

ROOT = pathlib.Path(__file__).resolve().parents[1]
CODING = E.coding_labels()


def _validate(*counts):
    for x in counts:
        if x != int(x) or x < 1:
            raise ValueError(f"{x!r} is not a whole number >= 1")


# ---- right implementations, written as a student would (numpy and the formulas only) --------------

def ring_time(n, p, alpha, bandwidth):
    if not n > 0 or not bandwidth > 0 or not alpha >= 0:
        raise ValueError("bad input")
    _validate(p)
    return 2 * (p - 1) * alpha + 2 * (p - 1) / p * n / bandwidth


_RATE = {1: 2.5e9, 2: 5e9, 3: 8e9, 4: 16e9, 5: 32e9}


def pcie_bw(generation, lanes):
    if generation not in _RATE or lanes not in (1, 2, 4, 8, 16):
        raise ValueError("bad input")
    return lanes * _RATE[generation] * (0.8 if generation < 3 else 128 / 130) / 8


def bubble(p, m, v=1):
    _validate(p, m, v)
    if v > 1 and m % p:
        raise ValueError("m is not a multiple of p")
    return (p - 1) / (v * m)


def rabenseifner(n, p, alpha, bandwidth):
    if not n > 0 or not bandwidth > 0 or not alpha >= 0:
        raise ValueError("bad input")
    _validate(p)
    if int(p) & (int(p) - 1):
        raise ValueError("p is not a power of two")
    return 2 * math.log2(p) * alpha + 2 * (p - 1) / p * n / bandwidth


def kv(layers, heads, kv_heads, head_dim, tp, kv_bytes):
    return 2 * layers * kv_heads * head_dim * kv_bytes / min(tp, kv_heads)


RIGHT = {"primer-ex-code": ring_time, "pcie-ex-code": pcie_bw, "pp-ex-code": bubble, "srv-ex-code": kv,
         "coll-ex-code": rabenseifner}

# the library itself, wrapped: the reference the checker compares with
LIBRARY = {
    "primer-ex-code": lambda n, p, a, bw: C.collective_time("allreduce", n, p, bw, a),
    "pp-ex-code": lambda p, m, v=1: parallel.pipeline_bubble_fraction(p, m, v),
    "coll-ex-code": lambda n, p, a, bw: C.collective_time("allreduce", n, p, bw, a, algorithm="rabenseifner"),
}

# wrong implementations -> the diagnosis they must get (a substring of the mistake's text)
WRONG = {
    "primer-ex-code": [
        (lambda n, p, a, bw: ring_time(n, p, a, bw) / 2, "ReduceScatter half only"),
        (lambda n, p, a, bw: (ring_time(n, p, a, bw), 2 * (p - 1) * a + 2 * n / bw)[1], "dropped the (p - 1)/p"),
        (lambda n, p, a, bw: (ring_time(n, p, a, bw), 2 * p * a + 2 * (p - 1) / p * n / bw)[1], "2p steps"),
        (lambda n, p, a, bw: ring_time(n, p, a, bw) * 1e6, "a power of 1000"),
    ],
    "coll-ex-code": [
        (lambda n, p, a, bw: (rabenseifner(n, p, a, bw), math.log2(p) * a + 2 * (p - 1) / p * n / bw)[1],
         "lg p latencies in all"),
        (lambda n, p, a, bw: (rabenseifner(n, p, a, bw), math.log2(p) * (a + n / bw))[1],
         "whole message in every step"),
        (lambda n, p, a, bw: (rabenseifner(n, p, a, bw), 2 * (p - 1) * a + 2 * (p - 1) / p * n / bw)[1],
         "the ring's 2(p - 1) latencies"),
        (lambda n, p, a, bw: (rabenseifner(n, p, a, bw), 2 * math.log2(p) * a + (p - 1) / p * n / bw)[1],
         "halved the bytes"),
    ],
    "pcie-ex-code": [
        (lambda g, n: pcie_bw(g, n) * 2, "per direction against both directions"),
        (lambda g, n: pcie_bw(g, n) * 8, "bits against bytes"),
        (lambda g, n: pcie_bw(g, n) / (0.8 if g < 3 else 128 / 130), "forgot the encoding"),
        (lambda g, n: (pcie_bw(g, n), n * _RATE[g] * 128 / 130 / 8)[1], "128b/130b for every generation"),
        (lambda g, n: (pcie_bw(g, n), n * _RATE[g] * 0.8 / 8)[1], "8b/10b for every generation"),
    ],
    "pp-ex-code": [
        (lambda p, m, v=1: (bubble(p, m, v), (p - 1) / (v * m + p - 1))[1], "fraction of the whole step"),
        (lambda p, m, v=1: bubble(p, m, v) * 0 + (p - 1) / m, "ignored the chunks"),
        (lambda p, m, v=1: bubble(p, m, v) * 0 + p / (v * m), "p bubbles per stage"),
        (lambda p, m, v=1: bubble(p, m, v) * 100, "a percentage"),
    ],
    "srv-ex-code": [
        (lambda l, a, g, d, tp, b: kv(l, a, g, d, tp, b) / 2, "forgot the factor 2"),
        (lambda l, a, g, d, tp, b: 2 * l * a * d * b / min(tp, a), "used the query heads"),
        (lambda l, a, g, d, tp, b: 2 * l * g * d * b / tp, "replicated"),
        (lambda l, a, g, d, tp, b: 2 * l * g * d * b, "whole token's cache"),
        (lambda l, a, g, d, tp, b: kv(l, a, g, d, tp, b) * 8, "bits against bytes"),
    ],
}


def _numbers_in(text):
    return [float(x) for x in re.findall(r"(?<![\w.])\d+(?:\.\d+)?(?:e[-+]?\d+)?", text)]


def _chapter_cells():
    out = {}
    for label in CODING:
        chapter = E._CODING[label].chapter
        nb = json.loads((ROOT / f"{chapter}.ipynb").read_text())
        out[label] = {c["id"]: c for c in nb["cells"]}
    return out


CELLS = _chapter_cells()


def test_there_is_a_coding_exercise_in_each_part_the_task_named():
    assert set(CODING) >= {"primer-ex-code", "pcie-ex-code", "pp-ex-code", "srv-ex-code"}
    assert not set(CODING) & set(E.labels())


@pytest.mark.parametrize("label", CODING)
def test_the_exercise_is_in_its_chapter_with_level_kind_and_check_call(label):
    ex = E._CODING[label]
    q = "".join(CELLS[label][f"{label}-q"]["source"])
    assert f":label: {label}" in q and f'check("{label}", ' in q
    assert ex.signature.split("(")[0] in q and "ValueError" in q or label == "srv-ex-code"
    data = yaml.safe_load((ROOT / "book/_data/chapters.yml").read_text())["chapters"]
    entry = data[ex.chapter.removeprefix("book/")]
    assert entry["exercises"][label] in ("warm-up", "core", "challenge")
    assert entry["kinds"][label] == "coding"


@pytest.mark.parametrize("label", CODING)
def test_the_chapters_solution_passes_and_shows_the_tick(label):
    sol = CELLS[label][f"{label}-sol"]
    text = "".join("".join(o.get("text", "")) + "".join(o.get("data", {}).get("text/plain", ""))
                   for o in sol.get("outputs", []))
    assert f"✓ {label}: your function is right on all" in text
    ns = {}
    code = "".join(sol["source"]).split("\nprint(")[0]   # the definitions, without the print and the check
    header = "from interconnect import links\nfrom interconnect.units import fmt_bandwidth, fmt_bytes, fmt_time\n"
    exec(header + code, ns)  # noqa: S102 - the book's own solution
    fn = ns[E._CODING[label].signature.split("(")[0]]
    assert check(label, fn)


@pytest.mark.parametrize("label", CODING)
def test_a_right_function_passes_for_the_book_and_every_variant(label):
    assert check(label, RIGHT[label]).correct
    for i in range(E.N_VARIANTS):
        cases = E._cases(E._CODING[label], str(i))
        targets = [None if c.raises else coding._OpenCase(c.answer) for c in cases]
        v = coding.judge(label, RIGHT[label], cases, targets, E._CODING[label].kinds, 1e-6)
        assert v.correct, (i, v.message)


@pytest.mark.parametrize("label", sorted(LIBRARY))
def test_the_library_itself_passes(label):
    assert check(label, LIBRARY[label])


@pytest.mark.parametrize("label", CODING)
def test_each_known_wrong_implementation_gets_its_diagnosis(label):
    for fn, why in WRONG[label]:
        v = check(label, fn)
        assert not v and v.mistake and why in v.mistake, v.message
        assert "Likely mistake" in v.message


@pytest.mark.parametrize("label", CODING)
def test_every_declared_mistake_differs_from_the_right_answer_somewhere(label):
    cases = E._cases(E._CODING[label])
    descs = {d for c in cases if not c.raises for d in c.answer.mistakes}
    declared = {"primer-ex-code": 3, "pcie-ex-code": 4, "pp-ex-code": 3, "srv-ex-code": 4, "coll-ex-code": 4}[label]
    assert len(descs) == declared
    for kind in E._CODING[label].kinds:
        assert any(c.kind == kind for c in cases), f"{label}: kind {kind!r} has no case"


def test_exceptions_types_and_missing_value_errors_are_reported():
    v = check("primer-ex-code", lambda *a: 1 / 0)
    assert not v and "Raises ZeroDivisionError when" in v.message
    v = check("primer-ex-code", lambda *a: "fast")
    assert not v and "Returns str, not a number" in v.message
    v = check("primer-ex-code", lambda *a: float("nan"))
    assert not v and "NaN or infinity" in v.message
    v = check("primer-ex-code", lambda n, p, a, bw: 2 * (p - 1) * a + 2 * (p - 1) / p * n / bw)
    assert not v and "it should raise ValueError" in v.message
    v = check("primer-ex-code", lambda n, p, a, bw: ring_time(n, p, a, bw) if p > 2 else ring_time(-1, p, a, bw))
    assert not v and "Raises ValueError when there are two GPUs, a valid input" in v.message
    v = check("pcie-ex-code", lambda g, n: np.array([pcie_bw(g, n)] * 2))
    assert not v and "not a number" in v.message
    v = check("pp-ex-code", lambda p, m: bubble(p, m))  # a partial function: no v
    assert not v and "TypeError" in v.message


def test_a_function_that_is_right_only_on_some_cases_names_the_failing_kinds_only():
    v = check("srv-ex-code", lambda l, a, g, d, tp, b: 2 * l * g * d * b / tp)
    assert not v
    assert "exceeds the number of KV heads" in v.message and "runs on one GPU" not in v.message


def test_bad_answers_and_parts_raise():
    with pytest.raises(AnswerError, match="not a function"):
        check("primer-ex-code", 1.0)
    with pytest.raises(AnswerError, match="not a function"):
        check("primer-ex-code", float)
    with pytest.raises(AnswerError, match="is a function"):
        check("primer-ex-ring", ring_time, part="time_pcie")
    with pytest.raises(AnswerError, match="part="):
        check("primer-ex-code", ring_time, part="time")
    assert isinstance(AnswerError("x"), ValueError)


def _fixed_texts(label):
    """Every fixed sentence part a verdict of ``label`` may hold: its kinds and mistakes, in both languages."""
    ex = E._CODING[label]
    texts = list(ex.kinds.values()) + [ZH.KINDS.get(k, k) for k in ex.kinds.values()]
    for c in E._cases(ex):
        texts += [] if c.raises else [d for d in c.answer.mistakes] + [ZH.MISTAKES.get(d, d) for d in c.answer.mistakes]
    texts += [t for _, t in E.GENERIC_MISTAKES.values()] + list(ZH.GENERIC.values())
    return sorted(set(texts), key=len, reverse=True)


@pytest.mark.parametrize("label", CODING)
def test_a_wrong_verdict_holds_no_number_but_the_case_counts(label):
    """Without its label, fixed texts and the counts of failed cases, a wrong verdict holds no digit: no
    expected value, no argument, no ratio."""
    fixed = _fixed_texts(label)
    fns = [f for f, _ in WRONG[label]] + [lambda *a: 1.0, lambda *a: -3.7e9, lambda *a: 1 / 0, lambda *a: "x"]
    for fn in fns:
        for lang in ("en", "zh"):
            v = check(label, fn, lang=lang)
            assert not v
            text = v.message.replace(label, "")
            for t in fixed:
                text = text.replace(t, "")
            text = re.sub(r"fails \d+ of \d+ test cases|在 \d+ 个测试用例中有 \d+ 个", "", text)
            assert not re.search(r"\d", text), f"{label}: a number in {v.message!r}"


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(student=st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789", min_size=1, max_size=8),
       label=st.sampled_from(["primer-ex-code", "pcie-ex-code", "pp-ex-code", "srv-ex-code"]))
def test_every_seed_grades_the_right_function_right_and_a_wrong_one_wrong(student, label):
    assert check(label, RIGHT[label], student=student)
    fn, why = WRONG[label][0]
    v = check(label, fn, student=student)
    assert not v and why in v.mistake


def test_students_get_different_cases():
    ex = E._CODING["primer-ex-code"]
    args = {tuple(c.args for c in E._cases(ex, str(i))) for i in range(8)}
    assert len(args) >= 6
    assert E.numbers("primer-ex-code", student="s1") != E.numbers("primer-ex-code")
    assert "ring_allreduce_time(n, p, alpha, bandwidth)" in E.describe("primer-ex-code")


def test_expected_lists_the_cases_for_instructors():
    ex = E.expected("pcie-ex-code")
    assert ((4, 8), links.get_link("pcie4x8").bandwidth) in ex
    assert any(v is ValueError for _, v in ex)


def test_the_chapter_values_are_the_librarys():
    m = models.get("llama3-70b")
    assert kv(80, 64, 8, 128, 8, 2) == S.kv_bytes_per_token(m, tp=8)
    assert pcie_bw(3, 16) == links.get_link("pcie3x16").bandwidth


# ---- the sealed key ------------------------------------------------------------------------------------

SEALED = E._sealed_key(salt="test-salt")


def _sealed_judge(label, fn, which="book"):
    specs = SEALED["coding"][label]["cases"][which]
    cases = [coding.Case(d["kind"], tuple(d["args"]), None, d["raises"]) for d in specs]
    targets = [None if d["raises"] else
               coding._SealedCase(E._SealedTarget("test-salt", label, which, f"case{i}", d["spec"]), d["spec"])
               for i, d in enumerate(specs)]
    return coding.judge(label, fn, cases, targets, SEALED["coding"][label]["kinds"], SEALED["coding"][label]["rtol"])


@pytest.mark.parametrize("label", CODING)
def test_the_sealed_key_grades_as_the_open_checker(label):
    for fn in [RIGHT[label]] + [f for f, _ in WRONG[label]] + [lambda *a: 1.0]:
        vo, vs = check(label, fn), _sealed_judge(label, fn)
        assert (bool(vo), vo.mistake, vo.message.split("(")[0]) == (bool(vs), vs.mistake, vs.message.split("(")[0])
    which = E._which(E._CODING[label], "s5")
    assert _sealed_judge(label, RIGHT[label], which)


def test_the_sealed_key_holds_no_expected_value():
    text = json.dumps(SEALED["coding"])
    args = {float(x) for label in CODING for c in E._cases(E._CODING[label]) for x in c.args}
    for label in CODING:
        for c in E._cases(E._CODING[label]):
            v = float(0 if c.raises else c.answer.value)
            if c.raises or abs(v) < 10 or v.is_integer() and abs(v) < 1e4 or v in args:
                continue  # small numbers occur anywhere; an input is not a secret
            x = float(c.answer.value)
            for f in {repr(x), f"{x:.6g}", f"{x:.5g}"}:
                assert not re.search(r"(?<![0-9a-f.])" + re.escape(f) + r"(?![0-9a-f])", text), (label, x)


# ---- Chinese --------------------------------------------------------------------------------------------

def test_kinds_and_mistakes_are_in_chinese():
    for label in CODING:
        ex = E._CODING[label]
        for text in ex.kinds.values():
            assert text in ZH.KINDS, f"{label}: kind {text!r} has no Chinese text"
        for c in E._cases(ex):
            for d in ([] if c.raises else c.answer.mistakes):
                assert d in ZH.MISTAKES, f"{label}: mistake {d!r} has no Chinese text"


def test_the_verdict_speaks_chinese():
    assert "你的函数在全部" in check("pp-ex-code", bubble, lang="zh").message
    v = check("pcie-ex-code", lambda g, n: pcie_bw(g, n) * 2, lang="zh")
    assert "未通过" in v.message and "单向与双向" in v.message and "generation" not in v.message


def test_the_student_editions_answer_cell_is_a_function_stub_that_runs():
    import sys

    sys.path.insert(0, str(ROOT / "tools"))
    import student_edition as SE

    cell = SE.answer_cell("pp-ex-code", SE._part_lines("pp-ex-code"), varied=True)
    assert "def bubble_fraction(p, m, v=1):" in cell["source"]
    ns = {}
    exec(compile(cell["source"].replace('check("pp-ex-code", bubble_fraction)',  # noqa: S102
                                        'result = check("pp-ex-code", bubble_fraction)'), "cell", "exec"), ns)
    assert not ns["result"] and "not a number" in str(ns["result"])
