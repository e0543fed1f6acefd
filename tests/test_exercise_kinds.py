"""The grid of exercise kinds (issue 17): every teaching part has at least one derivation, one
design task, one trace-reading task and one from-scratch coding task.

book/_data/chapters.yml tags those exercises per chapter under ``kinds`` ({label: kind}; its
header comment defines the four kinds). Checked here: every tagged label is an exercise of
its chapter (listed under the chapter's ``exercises``, with a checker or a non-numeric
declaration), every kind is one of the four, every design task is graded as one (a choice
that accepts every configuration within its margin of the best, and names a violated
constraint in words), and each of the five teaching parts of _toc.yml has every kind.
"""

import pathlib

import pytest
import yaml

from interconnect import exercises as exm

ROOT = pathlib.Path(__file__).resolve().parents[1]
KINDS = ("derivation", "design", "trace", "coding")

#: Parts (captions of _toc.yml) allowed to lack a from-scratch coding exercise for now: none.
CODING_PENDING = ()

DATA = yaml.safe_load((ROOT / "book" / "_data" / "chapters.yml").read_text(encoding="utf-8"))
TOC = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
#: {caption: [chapter, ...]} of the five numbered (teaching) parts, chapters as in chapters.yml
PARTS = {p["caption"]: [c["file"].removeprefix("book/") for c in p["chapters"]]
         for p in TOC["parts"] if p.get("numbered")}
TAGGED = [(chapter, label, kind) for chapter, entry in DATA["chapters"].items()
          for label, kind in (entry.get("kinds") or {}).items()]


def test_the_teaching_parts_are_five():
    assert len(PARTS) == 5 and sum(map(len, PARTS.values())) >= 20


def test_coding_pending_names_parts():
    assert set(CODING_PENDING) <= set(PARTS)


@pytest.mark.parametrize("chapter,label,kind", TAGGED)
def test_a_tagged_exercise_is_one_of_its_chapter(chapter, label, kind):
    assert kind in KINDS, f"{chapter}: {label} has kind {kind!r}; the kinds are {KINDS}"
    assert label in (DATA["chapters"][chapter].get("exercises") or {}), (
        f"{chapter}: kinds lists {label}, which is not under the chapter's exercises")
    registered = (exm._get(label).chapter if label in exm.labels() or label in exm.coding_labels()
                  else exm.non_numeric().get(label, (None,))[0])
    assert registered == f"book/{chapter}", f"{label} is registered for {registered}, tagged in {chapter}"


@pytest.mark.parametrize("label", [label for _, label, kind in TAGGED if kind == "design"])
def test_a_design_task_is_graded_as_one(label):
    ex = exm._get(label)
    answers = exm._answers(ex)
    designs = [a for a in answers.values() if a.is_choice and len(a.choices) >= 3]
    assert designs, f"{label}: a design task chooses among configurations (a choice of at least three)"
    for a in designs:
        # every configuration that is not right is told why, in words without a number of the optimum
        wrong = set(a.choices) - {a.value, *a.accept}
        assert wrong and wrong <= set(a.mistakes), f"{label}: some wrong configurations get no reason"
        for c in {a.value, *a.accept}:
            assert exm.check(label, c, part=None if len(answers) == 1 else next(k for k, v in answers.items()
                                                                                 if v is a))


@pytest.mark.parametrize("part", sorted(PARTS))
@pytest.mark.parametrize("kind", KINDS)
def test_every_part_has_every_kind(part, kind):
    have = [label for chapter, label, k in TAGGED if k == kind and chapter in PARTS[part]]
    if kind == "coding" and part in CODING_PENDING:
        assert not have, f"{part} has coding exercise(s) {have}: remove it from CODING_PENDING"
        return
    assert have, f"part {part!r} has no {kind} exercise tagged in book/_data/chapters.yml"
