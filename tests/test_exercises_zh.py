"""The checkers answer in Chinese: ``check(..., lang="zh")``.

Every verdict message the checkers can emit is produced here: each part of every exercise
answered right, with each of its diagnosed mistakes, with each generic mistake its unit
allows (a factor of 2, 8, 1.07, a unit prefix ...), with an unrelated number, left as ``...``
and left out. Then:

* every Chinese verdict is made of Chinese templates only (no English sentence left);
* every generic mistake and unit has Chinese text;
* every exercise-specific mistake of a numeric part, in every chapter, has Chinese text, and so has
  every explanation of a wrong choice (``_choices_zh``: the student edition seals it).
  New exercises and mistakes show up here by themselves.
"""

from __future__ import annotations

import collections
import re

import numpy as np
import pytest

from interconnect import exercises
from interconnect.exercises import _choices_zh, answers, messages_zh, verdicts

ENGLISH = ("is right", "is not right", "Likely mistake", "no answer", "Try again", "matches none", "a number in",
           "plain number", "per direction", "bidirectional")


def _targets():
    """``{label: (chapter, {part: target})}`` for the book's numbers, each computed once."""
    out = {}
    for label in exercises.labels():
        ex = exercises._get(label)
        out[label] = (ex.chapter, exercises._targets(ex, "book"))
    return out


TARGETS = _targets()


def _tries(t):
    """Answers to one part that reach every kind of verdict it can give."""
    a = t.a
    if a.is_choice:
        yield from a.choices
        return
    value = np.asarray(a.value, dtype=float)
    yield value
    for wrong in a.mistakes.values():
        yield np.asarray(wrong, dtype=float)
    for name in t.generic:
        for f in answers.GENERIC_MISTAKES[name][0]:
            yield value * f
    yield value * 1.37 + 0.11   # matches nothing
    yield ...


def _verdicts():
    out = []
    for label, (chapter, targets) in TARGETS.items():
        for part, t in targets.items():
            for ans in _tries(t):
                if isinstance(ans, np.ndarray) and ans.ndim == 0:
                    ans = float(ans)
                out.append((label, chapter, exercises._check_part(label, part, t, ans, "zh")))
            out.append((label, chapter, exercises._unanswered(label, part, t, missing=True, lang="zh")))
    return out


VERDICTS = _verdicts()


def _without_mistake(v):
    """The message less its head (label and part name) and its mistake's text."""
    text = v.message.replace(exercises._head(v.label, v.part), "")
    if isinstance(v.given, str):
        text = text.replace(repr(v.given), "")   # a choice is a word of the exercise's own
    target = TARGETS[v.label][1][v.part]
    if target.is_choice:
        text = text.replace(repr(list(target.choices)), "")
        if isinstance(v.mistake, str):
            text = text.replace(_choices_zh.why_zh(v.mistake) or v.mistake, "")
    return text.replace(v.mistake, "") if isinstance(v.mistake, str) else text


def test_verdicts_are_in_chinese():
    bad = [(label, v.message) for label, _, v in VERDICTS if any(w in _without_mistake(v) for w in ENGLISH)]
    assert not bad, f"English left in {len(bad)} Chinese verdicts, e.g. {bad[:3]}"


def test_templates_units_and_generic_mistakes_are_translated():
    assert set(messages_zh.TEMPLATES) == set(verdicts.TEMPLATES)
    assert set(verdicts._UNIT_TEXT) <= set(messages_zh.UNITS)
    assert set(answers.GENERIC_MISTAKES) <= set(messages_zh.GENERIC)
    units = {t.unit for _, targets in TARGETS.values() for t in targets.values()}
    assert units <= set(messages_zh.UNITS), f"units without Chinese text: {units - set(messages_zh.UNITS)}"


def _missing():
    by_chapter = collections.defaultdict(set)
    for label, chapter, v in VERDICTS:
        if not v.mistake or v.mistake == "no answer":
            continue
        if TARGETS[label][1][v.part].is_choice:
            # a wrong choice's explanation: _choices_zh (sealed in the student edition)
            if _choices_zh.why_zh(v.mistake) is None or _choices_zh.why_zh(v.mistake) not in v.message:
                by_chapter[chapter].add(v.mistake)
        elif verdicts.mistake_text(v.mistake, "zh") == v.mistake:
            by_chapter[chapter].add(v.mistake)
    return by_chapter


MISSING = _missing()


def test_every_diagnosed_mistake_was_reached():
    # the enumeration above reaches every mistake the answer key lists (else this test proves little)
    listed = {(d if not t.a.is_choice else w) for _, targets in TARGETS.values() for t in targets.values()
              for d, w in t.a.mistakes.items()}
    reached = {v.mistake for _, _, v in VERDICTS if v.mistake}
    assert listed <= reached | {None}, f"never reached: {sorted(listed - reached)[:5]}"


def test_every_diagnosed_mistake_is_in_chinese():
    missing = {c: sorted(m) for c, m in sorted(MISSING.items())}
    assert not missing, (f"{sum(map(len, missing.values()))} diagnosed mistake(s) without Chinese text; add them to "
                         "MISTAKES in lib/src/interconnect/exercises/messages_zh.py:\n"
                         + "\n".join(f"  {c}: {m!r}" for c, ms in missing.items() for m in ms))


def _variant_targets():
    """Every per-student variant's targets, exercise by exercise, computed as they are asked for
    (the book's own numbers are TARGETS)."""
    for label in exercises.labels():
        ex = exercises._get(label)
        if ex.variants is not None:
            for i in range(exercises.N_VARIANTS):
                yield from exercises._targets(ex, str(i)).values()


def test_every_translated_mistake_is_one_a_checker_gives():
    # a mistake reworded in English leaves its old translation behind: this finds it
    numeric = {d for _, targets in TARGETS.values() for t in targets.values() if not t.a.is_choice
               for d in t.a.mistakes}
    # and the coding exercises' known wrong implementations (interconnect.exercises.coding)
    numeric |= {d for label in exercises.coding_labels() for c in exercises._cases(exercises._get(label))
                if not c.raises for d in c.answer.mistakes}
    stale = set(messages_zh.MISTAKES) - numeric
    for t in _variant_targets():   # a mistake that only some students' numbers give
        if not stale:
            break
        if not t.a.is_choice:
            stale -= set(t.a.mistakes)
    stale = sorted(stale)
    assert not stale, f"{len(stale)} translated mistake(s) no checker gives: {stale[:5]}"
    choices = {w for _, targets in TARGETS.values() for t in targets.values() if t.a.is_choice
               for w in t.a.mistakes.values()}
    # a design task joins the constraints a configuration violates with "; " (exercises.design)
    parts = choices | {p for w in choices for p in w.split("; ")}
    # the design tasks' whole vocabulary: the planner's rules in words and the margin verdict, each reachable
    # by some configuration even where this book's options do not reach it
    from interconnect.exercises import _planning, design
    parts |= {w for _, w in _planning.RULE_WORDS} | {design.TOO_COSTLY}
    stale = set(_choices_zh.WHY) - parts
    for t in _variant_targets():   # explanations that only some students' numbers give
        if not stale:
            break
        if t.a.is_choice:
            stale -= {p for w in t.a.mistakes.values() for p in [w, *w.split("; ")]}
    stale = sorted(stale)
    assert not stale, f"{len(stale)} translated choice explanation(s) no checker gives: {stale[:5]}"
    unused = [p for p, _ in _choices_zh.PATTERNS if not any(re.fullmatch(p, w) for w in choices)]
    assert not unused, f"patterns no checker's explanation matches: {unused}"


def test_choice_patterns_keep_every_number():
    for pattern, zh in _choices_zh.PATTERNS:
        groups = re.compile(pattern).groups
        assert sorted(re.findall(r"\\(\d)", zh)) == [str(i) for i in range(1, groups + 1)], pattern
        assert set(re.findall(r"\d+", re.sub(r"\\\d", "", zh))) <= set(re.findall(r"\d+", pattern)), pattern


def test_unknown_language_is_a_value_error():
    label = "phys-ex-pcie"
    with pytest.raises(ValueError, match="lang='fr'"):
        exercises.check(label, 15.75e9, part="pcie4x8", lang="fr")


def test_check_speaks_chinese():
    right = exercises.check("phys-ex-pcie", 15.75e9, part="pcie4x8", lang="zh")
    wrong = exercises.check("phys-ex-pcie", 31.5e9, part="pcie4x8", lang="zh")
    assert right and "正确" in right.message and "单向" in right.message
    assert not wrong and "单向与双向" in wrong.message and wrong.mistake == answers.GENERIC_MISTAKES["direction"][1]
    report = exercises.check("primer-ex-busbw", {"better": "16"}, lang="zh")
    assert [bool(v) for v in report] == [False, False, True] and "每一小题都必须作答" in str(report)


def test_kinds_of_input_are_spaced_before_chinese():
    # the coding verdict reads "{kind}时...": a kind ending in a Latin word gets a space first
    from interconnect.exercises.coding import kind_text
    from interconnect.exercises.messages_zh import KINDS

    assert kind_text("there are two GPUs", "zh") + "时" == "有两块 GPU 时"
    for english, chinese in KINDS.items():
        out = kind_text(english, "zh")
        assert out.rstrip() == chinese and (out.endswith(" ") == chinese[-1].isascii()), (english, out)
