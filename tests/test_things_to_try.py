"""Every chapter with an explorer asks the reader to try it, and answers from the library.

A chapter that calls an explorer (a code cell that calls ``*_explorer(...)``) has a
"Things to try" block: a Markdown cell that starts with ``**Things to try**`` and holds two
to four numbered prompts, each followed by its answer in a collapsed admonition
(``:class: dropdown``). Every answer shows at least one number computed by the chapter's
notebook: a ``{glue}`` role whose name the notebook glues (its committed outputs), not a
typed figure.
"""

from __future__ import annotations

import json
import pathlib
import re
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import chapter_frame as F  # noqa: E402

EXPLORER_CALL = re.compile(r"^\s*(?:\w+\s*=\s*)?\w+_explorer\(", re.M)
BLOCK = "**Things to try**"
ANSWER = re.compile(r"^```\{admonition\} Answer\n:class: dropdown[^\n]*\n(.*?)^```", re.M | re.S)
PROMPT = re.compile(r"^\d+\. \S", re.M)
GLUE = re.compile(r"\{glue(?::\w+)?\}`([^`:]+)")


def _src(cell):
    return "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]


def has_explorer(nb):
    return any(c["cell_type"] == "code" and EXPLORER_CALL.search(_src(c)) for c in nb["cells"])


def problems(nb, glued):
    """What is wrong with a notebook's "Things to try" blocks; empty when all is well."""
    blocks = [_src(c) for c in nb["cells"] if c["cell_type"] == "markdown" and _src(c).lstrip().startswith(BLOCK)]
    if not blocks:
        return ["no 'Things to try' block"]
    out = []
    for text in blocks:
        answers, prompts = ANSWER.findall(text), PROMPT.findall(text)
        if not 2 <= len(answers) <= 4:
            out.append(f"{len(answers)} dropdown answers; want 2 to 4")
        if len(prompts) != len(answers):
            out.append(f"{len(prompts)} numbered prompts for {len(answers)} answers")
        for a in answers:
            names = GLUE.findall(a)
            if not names:
                out.append(f"an answer with no computed number: {a[:60]!r}")
            out += [f"answer glues {n!r}, which the notebook does not glue" for n in names if n not in glued]
    return out


CHAPTERS = [p for p in F.load()["chapters"] if F.source_path(p).suffix == ".ipynb"]


@pytest.mark.parametrize("page", CHAPTERS)
def test_every_explorer_chapter_has_things_to_try(page):
    path = F.source_path(page)
    nb = json.loads(path.read_text(encoding="utf-8"))
    if not has_explorer(nb):
        pytest.skip(f"{page} has no explorer")
    bad = problems(nb, F.glued_names(path))
    assert not bad, f"{page}: {bad}"


def test_the_explorer_chapters_are_found():
    found = [p for p in CHAPTERS if has_explorer(json.loads(F.source_path(p).read_text(encoding="utf-8")))]
    assert len(found) >= 20, found


def test_the_check_can_fail():
    def nb(md):
        return {"cells": [{"cell_type": "code", "source": "x = dp_explorer()"},
                          {"cell_type": "markdown", "source": md}]}

    answer = "```{admonition} Answer\n:class: dropdown\nIt is {glue}`a`.\n```\n"
    good = f"{BLOCK} with the explorer.\n\n1. Why?\n\n{answer}\n2. And?\n\n{answer}"
    assert has_explorer(nb(good)) and problems(nb(good), {"a"}) == []
    assert problems(nb("Things to try: move the slider."), {"a"})             # no block
    assert problems(nb(good.replace("{glue}`a`", "42 GB/s")), {"a"})           # a typed answer
    assert problems(nb(good), set())                                           # a name never glued
    assert problems(nb(f"{BLOCK}\n\n1. Why?\n\n{answer}"), {"a"})              # one prompt only
    assert problems(nb(good.replace(":class: dropdown", ":class: tip")), {"a"})  # not collapsed
