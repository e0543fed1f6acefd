"""Shown code is code that teaches: setup and table-building cells are hidden.

In the built book a reader sees a code cell's source unless the cell is tagged
``hide-input`` (source behind a "show code" toggle), ``remove-input`` or ``remove-cell``.
Two kinds of cell teach nothing by their source and must carry one of those tags:

* **setup**: every statement imports, sets the plot style, or binds a name to a constant or to
  a catalog look-up (``get_gpu``, ``get_link``, ``models.get``, ...);
* **table-building**: the cell's only visible output is a Markdown table, built over four or
  more lines of source (the rows, their formatting). One-line calls that make a table
  (``family_table("PCIe")``) show the call that teaches, and stay.

Explorers, ``show_source`` listings and figures are not affected.
"""

from __future__ import annotations

import ast
import json
import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
HIDDEN = {"hide-input", "remove-input", "remove-cell", "hide-cell"}
TABLE_LINES = 4
_LOOKUPS = re.compile(r"(get_gpu|get_link|get_fabric|models\.get|machine|get)$")
_TABLE = re.compile(r"^\|.*\|\s*$\n^\|\s*:?-{3,}", re.M)


def _src(cell):
    return "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]


def _constant(node):
    """A literal, a name, an attribute, arithmetic of those, or a catalog look-up call."""
    if isinstance(node, (ast.Constant, ast.Name, ast.Attribute)):
        return True
    if isinstance(node, (ast.Tuple, ast.List)):
        return all(_constant(e) for e in node.elts)
    if isinstance(node, ast.BinOp):
        return _constant(node.left) and _constant(node.right)
    if isinstance(node, ast.UnaryOp):
        return _constant(node.operand)
    if isinstance(node, ast.Call):
        f = ast.unparse(node.func)
        return bool(_LOOKUPS.search(f)) and all(_constant(a) for a in node.args)
    return False


def is_setup(source):
    """Every statement imports, styles the plots, or binds names to constants or look-ups."""
    try:
        body = ast.parse(source).body
    except SyntaxError:
        return False
    if not body:
        return False
    for st in body:
        if isinstance(st, (ast.Import, ast.ImportFrom)):
            continue
        if isinstance(st, ast.Expr) and isinstance(st.value, ast.Call) and \
                ast.unparse(st.value.func).endswith(("use_style", "filterwarnings")):
            continue
        if isinstance(st, ast.Assign) and _constant(st.value):
            continue
        return False
    return True


def is_table_building(cell):
    """Only a Markdown table shows (streams aside), made by four or more lines of source."""
    shown = [o for o in cell.get("outputs", []) if o["output_type"] in ("display_data", "execute_result")
             and "scrapbook" not in o.get("metadata", {})]
    if not shown or not all(set(o["data"]) <= {"text/markdown", "text/plain"} for o in shown):
        return False
    def markdown(o):
        md = o["data"].get("text/markdown", "")
        return md if isinstance(md, str) else "".join(md)

    if not all(_TABLE.search(markdown(o)) for o in shown):
        return False
    return len([ln for ln in _src(cell).split("\n") if ln.strip()]) >= TABLE_LINES


def problems(nb):
    out = []
    for c in nb["cells"]:
        if c["cell_type"] != "code" or HIDDEN & set(c.get("metadata", {}).get("tags", [])):
            continue
        if is_setup(_src(c)):
            out.append(f"cell {c.get('id')}: setup code shown (tag it remove-input, or hide-input if it prints)")
        elif is_table_building(c):
            out.append(f"cell {c.get('id')}: table-building code shown (tag it hide-input)")
    return out


NOTEBOOKS = sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "book").rglob("*.ipynb")
                   if ".ipynb_checkpoints" not in p.parts)


@pytest.mark.parametrize("path", NOTEBOOKS)
def test_setup_and_table_building_code_is_hidden(path):
    bad = problems(json.loads((ROOT / path).read_text(encoding="utf-8")))
    assert not bad, f"{path}: {bad}"


def test_the_check_can_fail():
    def code(src, outputs=(), tags=()):
        return {"cell_type": "code", "id": "x", "source": src, "outputs": list(outputs),
                "metadata": {"tags": list(tags)}}

    table = {"output_type": "display_data", "metadata": {},
             "data": {"text/markdown": "| a | b |\n| --- | --- |\n| 1 | 2 |", "text/plain": "<Markdown>"}}
    setup = ('import numpy as np\nfrom interconnect import links\nplots.use_style()\n'
             'H100 = devices.get_gpu("H100")\nN = 7e9')
    rows = "rows = []\nfor n in names:\n    rows.append((n, f(n)))\ntable(rows, ['name', 'value'])"
    assert is_setup(setup) and not is_setup("t = collective_time('allreduce', n, 8, B, a)\nprint(t)")
    assert problems({"cells": [code(setup)]}) and not problems({"cells": [code(setup, tags=["remove-input"])]})
    assert problems({"cells": [code(rows, [table])]})
    assert not problems({"cells": [code(rows, [table], ["hide-input"])]})
    assert not problems({"cells": [code('family_table("PCIe")', [table])]})  # a one-line call teaches
