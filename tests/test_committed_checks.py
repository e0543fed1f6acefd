"""Every ``check(...)`` a chapter runs is committed with a right verdict.

The checkers compute their expected answers from the library; the chapters' solution cells
compute the answer their own way and call ``check``. If a chapter or a model changes and the
two drift apart, re-executing the notebook turns a ✓ into a ✗, and strict nbval would only
compare the ✗ with the ✗ once someone commits it. This test reads the committed outputs.
"""

from __future__ import annotations

import json
import pathlib
import re

import pytest

BOOK = pathlib.Path(__file__).resolve().parent.parent / "book"
NOTEBOOKS = sorted(p for p in BOOK.rglob("*.ipynb") if ".ipynb_checkpoints" not in p.parts)
CALL = re.compile(r"^\s*(?:[\w.]+\s*=\s*)?check\(", re.MULTILINE)


def _check_cells(nb):
    for index, cell in enumerate(nb["cells"]):
        if cell["cell_type"] == "code" and CALL.search("".join(cell["source"])):
            yield index, cell


def _verdict_lines(cell):
    for out in cell.get("outputs", []):
        if out["output_type"] in ("execute_result", "display_data"):
            text = out.get("data", {}).get("text/plain", "")
            text = "".join(text) if isinstance(text, list) else text
            yield from (line for line in text.splitlines() if line.strip())


def _wrong(lines):
    return [line for line in lines if line.startswith("✗") or not line.startswith(("✓", " "))]


def test_a_wrong_verdict_would_be_found():
    cell = {"source": ["x = 1\n", "check('a', x)"],
            "outputs": [{"output_type": "execute_result",
                         "data": {"text/plain": "✓ a [p]: right\n✗ a [q]: not right"}}]}
    assert CALL.search("".join(cell["source"]))
    assert _wrong(_verdict_lines(cell)) == ["✗ a [q]: not right"]


def test_the_book_runs_checks():
    count = sum(1 for p in NOTEBOOKS for _ in _check_cells(json.loads(p.read_text(encoding="utf-8"))))
    assert count >= 100


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: str(p.relative_to(BOOK)))
def test_every_committed_check_is_right(path):
    nb = json.loads(path.read_text(encoding="utf-8"))
    for index, cell in _check_cells(nb):
        lines = list(_verdict_lines(cell))
        assert lines, f"{path.name} cell {index} calls check() but stores no verdict (end the cell with the call)"
        wrong = _wrong(lines)
        assert not wrong, f"{path.name} cell {index}: committed verdicts that are not ✓: {wrong[:3]}"
