"""The README's bottom-up validation table is the library's, not a stale copy."""

import importlib.util
import pathlib

ROOT = pathlib.Path(__file__).resolve().parent.parent


def _tool():
    spec = importlib.util.spec_from_file_location("validation_readme", ROOT / "tools" / "validation_readme.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_readme_bottom_up_table_is_current():
    tool = _tool()
    assert (ROOT / "README.md").read_text(encoding="utf-8") == tool.render(), (
        "README.md's bottom-up validation table is stale: run .venv/bin/python tools/validation_readme.py")


def test_readme_table_has_every_row():
    from interconnect.parallel.validation import VALIDATION_ROWS, validation_rows_2024

    table, summary = _tool().table_markdown()
    n = len(VALIDATION_ROWS) + len(validation_rows_2024())
    assert len(table.splitlines()) == n + 2
    assert summary.startswith(f"{n} rows:")
