"""The exercise checkers (interconnect.exercises): coverage of the book, right answers,
every diagnosed mistake, and bad input.

The expected answers come from the library itself (that is the checkers' design); what
these tests pin down is that (1) every exercise in the book is either checked or declared
non-numeric, (2) each checker accepts its own answer and the exercise text shows how to
call it, (3) every mistake a checker claims to diagnose is diagnosed, with its own
explanation, and is not confusable with the right answer, and (4) bad input raises.
"""

import json
import pathlib
import re

import numpy as np
import pytest

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
    missing = sorted(set(BOOK) - set(LABELS) - set(exm.non_numeric()))
    assert not missing, f"exercises without a checker or a non-numeric declaration: {missing}"


def test_every_checker_belongs_to_an_exercise_in_its_chapter():
    for label in LABELS + sorted(exm.non_numeric()):
        assert label in BOOK, f"checker {label!r} has no exercise in the book"
        chapter = exm._REGISTRY[label].chapter if label in exm._REGISTRY else exm.non_numeric()[label][0]
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
    generic = a.generic if a.generic is not None else exm._DEFAULT_GENERIC.get(a.unit, ("prefix",))
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
    assert not v and v.mistake is None and "1.3×" in v.message
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
