"""The exercise checkers (interconnect.exercises): coverage of the book, right answers,
every diagnosed mistake, and bad input.

The expected answers come from the library itself (that is the checkers' design); what
these tests pin down is that (1) every exercise in the book is either checked or declared
non-numeric, (2) each checker accepts its own answer and the exercise text shows how to
call it, (3) every mistake a checker claims to diagnose is diagnosed, with its own
explanation, and is not confusable with the right answer, (4) bad input raises, (5) no
wrong answer's verdict gives the answer away (no ratio, difference, direction or digit of
it), (6) every part is required, (7) each part's tolerance is the one it declares, (8) the
student edition's sealed key verifies answers exactly as the open checker does while
holding no value, and (9) per-student variants compute each student's own answer.
"""

import json
import pathlib
import re
import zlib
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from value_search import value_forms, written_in

from interconnect import exercises as exm
from interconnect.exercises import GENERIC_MISTAKES, Answer, check, describe, expected

ROOT = pathlib.Path(__file__).resolve().parents[1]
LABEL_RE = re.compile(r"```\{exercise\}[^\n]*\n:label:\s*(\S+)")


def _book_exercises():
    """{label: (chapter, markdown of the exercise)} for every {exercise} in book/."""
    found = {}
    for nb_path in sorted((ROOT / "book").rglob("*.ipynb")):
        if ".ipynb_checkpoints" in nb_path.parts:
            continue
        nb = json.loads(nb_path.read_text())
        text = "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown")
        chapter = str(nb_path.relative_to(ROOT).with_suffix(""))
        for m in LABEL_RE.finditer(text):
            body = text[m.start(): text.find("\n```", m.end()) + 4]
            assert m.group(1) not in found, f"exercise label {m.group(1)} appears twice"
            found[m.group(1)] = (chapter, body)
    return found


BOOK = _book_exercises()
LABELS = exm.labels()
PARTS = [(label, part) for label in LABELS for part in exm._REGISTRY[label].parts]


def test_the_book_has_exercises():
    assert len(BOOK) >= 90


def test_every_exercise_in_the_book_is_checked_or_declared_non_numeric():
    missing = sorted(set(BOOK) - set(LABELS) - set(exm.non_numeric()) - set(exm.coding_labels()))
    assert not missing, f"exercises without a checker or a non-numeric declaration: {missing}"


def test_every_checker_belongs_to_an_exercise_in_its_chapter():
    for label in LABELS + sorted(exm.non_numeric()) + exm.coding_labels():
        assert label in BOOK, f"checker {label!r} has no exercise in the book"
        chapter = (exm._REGISTRY[label].chapter if label in exm._REGISTRY else exm._CODING[label].chapter
                   if label in exm._CODING else exm.non_numeric()[label][0])
        assert chapter == BOOK[label][0], f"{label!r} is registered for {chapter}, but it is in {BOOK[label][0]}"


def test_most_exercises_have_checkers():
    # the book is quantitative: a non-numeric declaration is the exception
    covered = list(BOOK)
    assert len(covered) >= 90
    assert len([label for label in covered if label in LABELS]) >= 0.75 * len(covered)


@pytest.mark.parametrize("label", LABELS)
def test_exercise_text_shows_the_check_call(label):
    assert f'check("{label}"' in BOOK[label][1], f"exercise {label!r} does not show how to call its checker"


@pytest.mark.parametrize("label", LABELS)
def test_describe_names_every_part(label):
    text = describe(label)
    for part in exm._REGISTRY[label].parts:
        assert f"{part}:" in text


@pytest.mark.parametrize("label,part", PARTS)
def test_the_expected_answer_is_right(label, part):
    a = exm._answers(exm._REGISTRY[label])[part]
    v = check(label, a.value, part=part if part != "answer" else None)
    assert v and v.correct and v.mistake is None, v.message
    assert v.message.startswith("✓")
    if not a.is_choice:
        assert np.all(np.isfinite(np.asarray(a.value, dtype=float))), f"{label} [{part}] expects a non-finite value"


@pytest.mark.parametrize("label,part", PARTS)
def test_every_declared_mistake_is_diagnosed(label, part):
    a = exm._answers(exm._REGISTRY[label])[part]
    p = part if part != "answer" else None
    for desc, wrong in a.mistakes.items():
        if a.is_choice:
            assert wrong and desc in a.choices, f"{label}: mistake {desc!r} is not one of the choices"
            v = check(label, desc, part=p)
            assert not v and v.mistake == wrong, v.message
        else:
            w, e = np.asarray(wrong, dtype=float), np.asarray(a.value, dtype=float)
            assert w.shape == e.shape
            assert not np.allclose(w, e, rtol=2 * a.rtol, atol=0), (
                f"{label} [{part}]: mistake {desc!r} gives {wrong}, too close to the answer {a.value}")
            v = check(label, wrong, part=p)
            assert not v and v.mistake == desc, v.message


@pytest.mark.parametrize("label,part", PARTS)
def test_generic_mistakes_are_diagnosed(label, part):
    a = exm._answers(exm._REGISTRY[label])[part]
    if a.is_choice or np.all(np.asarray(a.value, dtype=float) == 0):
        return
    p = part if part != "answer" else None
    generic = a.generic if a.generic is not None else exm.answers._DEFAULT_GENERIC.get(a.unit, ("prefix",))
    own = [np.asarray(w, dtype=float) for w in a.mistakes.values()]
    for name in generic:
        factors, desc = GENERIC_MISTAKES[name]
        wrong = np.asarray(a.value, dtype=float) * factors[0]
        if any(np.allclose(wrong, o, rtol=a.rtol) for o in own):
            continue  # an exercise's own diagnosis of the same number takes precedence
        v = check(label, wrong, part=p)
        assert not v and v.mistake == desc, v.message


def test_answers_are_computed_fresh_and_match_expected():
    for label in LABELS:
        e = expected(label)
        if len(exm._REGISTRY[label].parts) > 1:
            assert set(e) == set(exm._REGISTRY[label].parts)
            assert bool(check(label, e))


# ---- bad input ---------------------------------------------------------------------

def test_unknown_label_suggests_close_ones():
    with pytest.raises(ValueError, match="did you mean 'phys-ex-pcie'"):
        check("phys-ex-pci", 1.0)


def test_label_must_be_a_string():
    with pytest.raises(ValueError, match="label=3 is not a string"):
        check(3, 1.0)


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), "fast", None, [], True, {"x": 1}.keys()])
def test_bad_numeric_answers_raise(bad):
    with pytest.raises(ValueError, match=r"^answer=.* for 'phys-ex-pcie' part 'pcie4x8' is "):
        check("phys-ex-pcie", bad, part="pcie4x8")


def test_wrong_type_is_also_a_type_error():
    with pytest.raises(TypeError):
        check("phys-ex-pcie", "fast", part="pcie4x8")


def test_parts_must_be_named_when_there_are_several():
    with pytest.raises(ValueError, match="has parts"):
        check("phys-ex-pcie", 15.75e9)
    with pytest.raises(ValueError, match="is not a part"):
        check("phys-ex-pcie", 15.75e9, part="pcie9x16")
    with pytest.raises(ValueError, match="does not have"):
        check("phys-ex-pcie", {"pcie9x16": 1.0})
    with pytest.raises(ValueError, match="empty dict"):
        check("phys-ex-pcie", {})


def test_choice_answers():
    # PCIe 4.0 x8 and 3.0 x16: 8 x 16 GT/s = 16 x 8 GT/s, both 128b/130b (PCI-SIG base specs)
    assert check("phys-ex-pcie", "Tie", part="faster_4x8_or_3x16")
    v = check("phys-ex-pcie", "pcie3x16", part="faster_4x8_or_3x16")
    assert not v and "twice the rate" in v.mistake
    with pytest.raises(ValueError, match="not one of"):
        check("phys-ex-pcie", "nvlink", part="faster_4x8_or_3x16")
    with pytest.raises(TypeError):
        check("phys-ex-pcie", 1.0, part="faster_4x8_or_3x16")


def test_diagnoses_on_a_known_value():
    # PCIe 4.0 x8: 8 lanes x 16 GT/s x 128/130 / 8 = 15.75 GB/s per direction (PCIe 4.0 base spec)
    right = 8 * 16e9 * 128 / 130 / 8
    assert check("phys-ex-pcie", right * 1.003, part="pcie4x8")
    assert "both directions" in check("phys-ex-pcie", 2 * right, part="pcie4x8").mistake
    assert "bits against bytes" in check("phys-ex-pcie", 8 * right, part="pcie4x8").mistake
    assert "binary units" in check("phys-ex-pcie", right / 2**30 * 1e9, part="pcie4x8").mistake
    assert "unit prefix" in check("phys-ex-pcie", right / 1e9, part="pcie4x8").mistake
    assert "line code" in check("phys-ex-pcie", 16e9, part="pcie4x8").mistake
    v = check("phys-ex-pcie", 1.3 * right, part="pcie4x8")
    assert not v and v.mistake is None and "1.3" not in v.message and "15.7" not in v.message
    rep = check("phys-ex-pcie", {"pcie4x8": right, "pcie3x8": right})
    assert not rep and rep["pcie4x8"] and not rep["pcie3x8"]


def test_answer_array_shape_must_match():
    with pytest.raises(ValueError, match="shape"):
        check("phys-ex-pcie", [1.0, 2.0], part="pcie4x8")


def test_registering_twice_is_refused():
    with pytest.raises(ValueError, match="twice"):
        exm.exercise("phys-ex-pcie", "book/stack/physical_links")(lambda: Answer(1.0))


def test_a_percentage_is_diagnosed_for_fractions():
    a = Answer(0.85)
    v = exm._check_part("x-ex-y", "answer", a, 85)
    assert not v and "percentage" in v.mistake


# ---- no leaks: a wrong answer's verdict gives nothing of the answer away ----------------

ANSWERS = {label: exm._answers(exm._REGISTRY[label]) for label in LABELS}
NUMERIC = [(label, part) for label, part in PARTS if not ANSWERS[label][part].is_choice]
ALL_DESCS = {d for _, (_, d) in GENERIC_MISTAKES.items()}
NUMBER = re.compile(r"\d+(?:[.,]\d+)*(?:e[-+]?\d+)?")
NO_MATCH = ("is not right, and it matches none of the mistakes this checker knows. Answers are in {unit}; "
            "check the exercise's parameters and try again.")


def _chk(label, part, g):
    """check(label, g, part=part) on the answers computed once for this module."""
    return exm._check_part(label, part, ANSWERS[label][part], g)


def _wrong_text(label, part, a, given, mistake):
    head = exm._head(label, part)
    shown = exm._show(given, a.unit)
    if mistake is None:
        return f"✗ {head}: {shown} " + NO_MATCH.format(unit=exm._unit_text(a.unit))
    return f"✗ {head}: {shown} is not right. Likely mistake: {mistake}."


def _digits_of(value):
    """The ways a reader could see ``value``: 2 to 4 significant digits of each element."""
    out = set()
    for x in np.atleast_1d(np.asarray(value, dtype=float)).ravel():
        if x == 0:
            continue
        for d in (3, 4):
            mant = f"{abs(x):.{d - 1}e}".split("e")[0].replace(".", "")
            out.add(mant)
    return out


def _numbers_in(text):
    return {n.replace(",", "").replace(".", "").lstrip("0") for n in NUMBER.findall(text)}


@pytest.mark.parametrize("label,part", NUMERIC)
def test_wrong_verdicts_hold_only_the_given_answer_and_a_diagnosis(label, part):
    """Every wrong verdict is one of two templates: the given answer with a named mistake
    (an exercise's own, or a generic one), or the given answer with the same no-match text
    for every exercise. Neither holds a ratio, a difference or a digit of the answer."""
    a = ANSWERS[label][part]
    value = np.asarray(a.value, dtype=float)
    rng = np.random.default_rng(zlib.crc32(f"{label}/{part}".encode()))
    tries = [np.asarray(w, dtype=float) for w in a.mistakes.values()]
    tries += [value * f for name in exm._generic_names(a.unit, a.generic) for f in GENERIC_MISTAKES[name][0]]
    tries += [value * rng.uniform(1.3, 9.0, size=value.shape), value * rng.uniform(0.11, 0.75, size=value.shape),
              value + 7.0, np.full(value.shape, 1.0), np.full(value.shape, 12345.0)]
    own = set(a.mistakes)
    for g in tries:
        given = g if g.ndim else float(g)
        v = _chk(label, part, given)
        if v:
            continue
        assert v.message == _wrong_text(label, part, a, given, v.mistake), v.message
        assert v.mistake is None or v.mistake in own | ALL_DESCS
        # the text around the given answer holds no digits of the expected value
        rest = v.message.replace(exm._show(given, a.unit), "").replace(exm._head(label, part), "")
        leaked = _numbers_in(rest) & {d.lstrip("0") for d in _digits_of(a.value)} - _numbers_in(
            exm._show(given, a.unit)) - {"2", "8", "100", "107", "105", "110", "1000", "60", "3600", "25", "450"}
        leaked = {d for d in leaked if len(d) >= 3}
        assert not leaked, f"{label} [{part}]: wrong verdict {v.message!r} shows digits {leaked} of the answer"


@given(idx=st.integers(0, 10**6), logg=st.floats(-15, 16), sign=st.sampled_from((1.0, -1.0)),
       logk=st.floats(0.15, 3.0), up=st.booleans())
@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_an_undiagnosed_verdict_does_not_depend_on_the_expected_value(idx, logg, sign, logk, up):
    """Move the expected value (and every mistake with it) by a factor k: a wrong answer that
    matches nothing in either case gets the very same words. So the words carry no
    information about the answer: no ratio, no difference, no 'too high' or 'too low'."""
    label, part = NUMERIC[idx % len(NUMERIC)]
    a = ANSWERS[label][part]
    k = 10 ** (logk if up else -logk)
    b = replace(a, value=np.asarray(a.value, dtype=float) * k,
                mistakes={d: np.asarray(w, dtype=float) * k for d, w in a.mistakes.items()})
    value = np.asarray(a.value, dtype=float)
    g = np.full(value.shape, sign * 10**logg) if value.ndim else sign * 10**logg
    va, vb = exm._check_part(label, part, a, g), exm._check_part(label, part, b, g)
    if va.mistake is None and vb.mistake is None and not va and not vb:
        assert va.message == vb.message


@pytest.mark.parametrize("label,part", NUMERIC)
def test_mistake_descriptions_hold_no_number_of_the_answer(label, part):
    a = ANSWERS[label][part]
    answer_digits = {d.lstrip("0") for d in _digits_of(a.value) if len(d.lstrip("0")) >= 3}
    for desc in a.mistakes:
        found = {n for n in _numbers_in(desc) if len(n) >= 3} & answer_digits
        assert not found, f"{label} [{part}]: mistake {desc!r} shows digits {found} of the answer"


# ---- every part is required -----------------------------------------------------------

MULTI = [label for label in LABELS if len(exm._REGISTRY[label].parts) > 1]


@pytest.fixture
def cached(monkeypatch):
    """check() on the answers computed once for this module (the book's numbers)."""
    compute = exm._answers
    monkeypatch.setattr(exm, "_answers", lambda ex, which="book": ANSWERS[ex.label] if which == "book"
                        else compute(ex, which))


@pytest.mark.parametrize("label", MULTI)
def test_a_partial_answer_fails_and_names_the_missing_parts(label, cached):
    ex = exm._REGISTRY[label]
    full = {k: a.value for k, a in ANSWERS[label].items()}
    assert check(label, full).score == 1.0
    for missing in ex.parts:
        partial = {k: v for k, v in full.items() if k != missing}
        rep = check(label, partial)
        assert not rep, f"{label}: an answer without part {missing!r} passes"
        assert rep.score == (len(ex.parts) - 1) / len(ex.parts)
        assert not rep[missing] and rep[missing].mistake == "no answer"
        assert f"[{missing}]: no answer given; every part is required" in str(rep)
        # ... (the answer cells' placeholder) is not an answer either
        rep = check(label, {**partial, missing: ...})
        assert not rep and "no answer yet" in str(rep[missing])


def test_the_reviewers_partial_answers_fail():
    # issue 17: one part of three passed as a whole
    assert not check("dp-ex-bytes", {"p64": expected("dp-ex-bytes", "p64")})
    assert not check("dp-ex-zero", {"stage": expected("dp-ex-zero", "stage")})
    # one part alone can still be practised with part=...
    assert check("dp-ex-bytes", expected("dp-ex-bytes", "p64"), part="p64")


# ---- tolerances -----------------------------------------------------------------------

@pytest.mark.parametrize("label,part", NUMERIC)
def test_tolerance_is_honoured(label, part):
    a = ANSWERS[label][part]
    value = np.asarray(a.value, dtype=float)
    assert 0 <= a.rtol < 0.5
    if not np.any(value):
        return
    if a.rtol > 0:
        for f in (1 + 0.95 * a.rtol, 1 - 0.95 * a.rtol):
            g = value * f
            assert _chk(label, part, g if g.ndim else float(g)), f"{label} [{part}] rejects {f} x the answer"
        for f in (1 + 1.05 * a.rtol, 1 - 1.05 * a.rtol):
            g = value * f
            assert not _chk(label, part, g if g.ndim else float(g)), f"{label} [{part}] accepts {f} x the answer"
    else:
        g = value + np.where(value == 0, 1.0, np.abs(value) * 1e-6)
        assert not _chk(label, part, g if g.ndim else float(g)), f"{label} [{part}] is exact but accepts {g}"


def test_rtol_on_the_registration_is_the_default_of_its_parts():
    try:
        exm.exercise("zz-ex-rtol", "book/nowhere", parts=("loose", "own"), rtol=0.1)(
            lambda: {"loose": Answer(1.0), "own": Answer(1.0, rtol=0.001)})
        assert check("zz-ex-rtol", 1.08, part="loose")
        assert not check("zz-ex-rtol", 1.08, part="own")
        assert check("zz-ex-rtol", 1.0009, part="own")
    finally:
        exm._REGISTRY.pop("zz-ex-rtol", None)
    with pytest.raises(ValueError, match="rtol=0.7"):
        exm.exercise("zz-ex-bad", "book/nowhere", rtol=0.7)


def test_the_chapters_first_order_goodput_passes():
    # reliability: waste = delta/tau + tau/2M, to first order (issue 17: 0.1 % rejected it)
    from interconnect import reliability as R
    d, M = 120.0, 4 * 3600.0
    first = {}
    for name, tau in (("young", R.young_interval(d, M)), ("daly", R.daly_interval(d, M))):
        first[f"goodput_{name}"] = 1 - d / tau - tau / (2 * M)
    rep = check("rel-ex-young-daly", {"young": R.young_interval(d, M), "daly": R.daly_interval(d, M), **first})
    assert rep, str(rep)
    # minutes instead of seconds is now a diagnosed slip
    assert "minutes" in check("rel-ex-young-daly", R.young_interval(d, M) / 60, part="young").mistake


# ---- the sealed key of the student edition ------------------------------------------

SEALED = exm._sealed_key(salt="test-salt")


def _in_the_sealed_band(a, g):
    """Whether ``g`` lies just outside a tolerance, where the sealed key (binned at rtol/4)
    may still accept it: between rtol and 1.3 rtol of the answer, or of a mistake."""
    value = np.asarray(a.value, dtype=float)
    r = a.rtol if a.rtol > 0 else 1e-9
    cands = [value * f for name in exm._generic_names(a.unit, a.generic) for f in GENERIC_MISTAKES[name][0]]
    cands += [value] + [np.asarray(w, dtype=float) for w in a.mistakes.values()]
    for c in cands:
        with np.errstate(divide="ignore", invalid="ignore"):
            d = np.abs(np.log(np.abs(g) / np.abs(c)))
        if np.any((d > 0.99 * r) & (d < 1.35 * r)):
            return True
    return False


def _sealed_target(label, part, which="book"):
    spec = SEALED["exercises"][label]["answers"][which][part]
    return exm._SealedTarget(SEALED["salt"], label, which, part, spec)


@pytest.mark.parametrize("label,part", PARTS)
def test_the_sealed_key_gives_the_open_checkers_verdicts(label, part):
    a = ANSWERS[label][part]
    t = _sealed_target(label, part)
    if a.is_choice:
        for c in a.choices:
            vo, vs = exm._check_part(label, part, a, c), exm._check_part(label, part, t, c)
            assert (bool(vo), vo.mistake) == (bool(vs), vs.mistake), (vo, vs)
        return
    value = np.asarray(a.value, dtype=float)
    tries = [value, value * (1 + 0.9 * a.rtol), value * (1 - 0.9 * a.rtol)]
    tries += [np.asarray(w, dtype=float) for w in a.mistakes.values()]
    tries += [value * f for name in exm._generic_names(a.unit, a.generic) for f in GENERIC_MISTAKES[name][0]]
    tries += [value * 1.7 + 1.0, value * 0.3 - 1.0, value * (1 + 1.6 * max(a.rtol, 1e-8))]
    for g in tries:
        if _in_the_sealed_band(a, g):
            continue
        given = g if g.ndim else float(g)
        vo, vs = exm._check_part(label, part, a, given), exm._check_part(label, part, t, given)
        assert bool(vo) == bool(vs) and vo.mistake == vs.mistake, (vo.message, vs.message)
        if not vo:
            assert vo.message == vs.message


def test_the_sealed_key_holds_no_value_the_instructors_key_does():
    import json

    sealed = json.dumps(SEALED)
    key = json.dumps(exm.answer_key())
    shown = 0
    for label in LABELS:
        for part, a in ANSWERS[label].items():
            if a.is_choice:
                continue
            for x in np.atleast_1d(np.asarray(a.value, dtype=float)).ravel():
                if abs(x) < 10 or float(x).is_integer() and abs(x) < 1e4:
                    continue  # small numbers and counts occur anywhere (hash digits, shapes)
                forms = value_forms(x)
                assert not written_in(forms, sealed), f"{label} [{part}]: {x} is in the sealed key"
                shown += written_in(forms, key)
    assert shown >= 100  # the same search finds the answers in the instructors' key


def test_sealed_choice_explanations_are_unreadable_without_the_word():
    a = ANSWERS["phys-ex-pcie"]["faster_4x8_or_3x16"]
    import json

    text = json.dumps(SEALED["exercises"]["phys-ex-pcie"])
    for why in a.mistakes.values():
        assert why not in text
    v = exm._check_part("phys-ex-pcie", "faster_4x8_or_3x16", _sealed_target("phys-ex-pcie", "faster_4x8_or_3x16"),
                        "pcie3x16")
    assert not v and "twice the rate" in v.mistake


# ---- per-student variants -------------------------------------------------------------

VARIED = [label for label in LABELS if exm._REGISTRY[label].variants]


def test_some_exercises_have_variants():
    assert len(VARIED) >= 3


@pytest.mark.parametrize("label", VARIED)
def test_each_student_gets_their_own_numbers_and_answer(label):
    ex = exm._REGISTRY[label]
    book = expected(label)
    seen_numbers, differ = set(), 0
    for s in (f"s{i:03d}" for i in range(12)):
        nums = exm.numbers(label, student=s)
        assert nums == exm.numbers(label, student=s)  # deterministic
        seen_numbers.add(tuple(sorted(nums.items())))
        mine = expected(label, student=s)
        assert check(label, mine, student=s), f"{label}: student {s}'s own answer fails"
        which = exm._which(ex, s)
        # the sealed key verifies the student's variant too
        for part, v in (mine.items() if isinstance(mine, dict) else [("answer", mine)]):
            t = _sealed_target(label, part, which)
            assert exm._check_part(label, part, t, v), f"{label} [{part}] variant {which}"
        if nums != exm.numbers(label):
            differ += 1
            # a design task accepts every configuration within its margin: the book's may be one of them
            design = any(a.accept for a in exm._answers(ex, which).values())
            assert design or not check(label, book, student=s) or mine == book
    assert len(seen_numbers) >= 3 and differ >= 3
    assert exm.numbers(label) == exm._book_params(ex)
    assert "numbers (student s001, replacing the book's)" in describe(label, student="s001")
    assert "numbers (the book's)" in describe(label)


def test_set_student_and_the_environment(monkeypatch):
    label = VARIED[0]
    try:
        exm.set_student("s007")
        assert exm.numbers(label) == exm.numbers(label, student="s007")
        exm.set_student(None)
        monkeypatch.setenv("INTERCONNECT_STUDENT", "s008")
        assert exm.numbers(label) == exm.numbers(label, student="s008")
    finally:
        exm.set_student(None)
    with pytest.raises(ValueError, match="student"):
        check(label, 1.0, part=exm._REGISTRY[label].parts[0], student="  ")
