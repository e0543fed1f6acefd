"""tools/student_edition.strip_solutions on small notebooks (the parser the student
edition and its leak test share)."""

import pathlib
import sys

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "tools"))
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
