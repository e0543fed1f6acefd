"""Write the bottom-up validation table into README.md (between the two markers).

The table is :func:`interconnect.parallel.validation.bottom_up_table`: every published training
row priced on its machine preset with component-measured efficiencies, nothing fitted.
``tests/test_readme_tables.py`` fails when the README's copy is stale.

Run: .venv/bin/python tools/validation_readme.py
"""

from __future__ import annotations

import pathlib
import sys

START = "<!-- bottom-up-table:start (tools/validation_readme.py writes this) -->"
END = "<!-- bottom-up-table:end -->"
README = pathlib.Path(__file__).resolve().parent.parent / "README.md"

_UNITS = {"iteration_s": "s / iteration", "tflops_per_gpu": "TFLOP/s / GPU", "model_tflops_per_gpu":
          "model TFLOP/s / GPU"}


def table_markdown():
    """The README table (markdown) and its one-line summary."""
    import numpy as np

    from interconnect.parallel.validation import (
        VALIDATION_ROWS,
        bottom_up_table,
        short_source,
        throughput_error_pct,
        validation_rows_2024,
    )

    rows = VALIDATION_ROWS + validation_rows_2024()
    out = ["| source | run | machine | layout | quantity | measured | predicted | error | throughput error |",
           "| --- | --- | --- | --- | --- | ---: | ---: | ---: | ---: |"]
    errs = []
    for row, r in zip(rows, bottom_up_table(rows)):
        errs.append(throughput_error_pct(r))
        name = r["name"].split(" t=")[0]
        out.append(f"| {short_source(r['source'])} | {name} | {row.machine or 'dgx-a100'} | {row.layout.label()} | "
                   f"{_UNITS[r['quantity']]} | {r['measured']:.2f} | {r['predicted']:.2f} | "
                   f"{r['error_pct']:+.1f} % | {errs[-1]:+.1f} % |")
    e = np.abs(np.array(errs))
    summary = (f"{len(e)} rows: mean absolute throughput error {e.mean():.1f} %, {int(np.sum(e <= 10))} within 10 %, "
               f"worst {e.max():.1f} %.")
    return "\n".join(out), summary


def render():
    """README.md's text with the table block replaced by the current one."""
    text = README.read_text(encoding="utf-8")
    if START not in text or END not in text:
        raise ValueError(f"README.md lacks the markers {START!r} ... {END!r}")
    head, rest = text.split(START, 1)
    _, tail = rest.split(END, 1)
    table, summary = table_markdown()
    return f"{head}{START}\n{summary}\n\n{table}\n{END}{tail}"


def main(argv=None):
    new = render()
    if README.read_text(encoding="utf-8") != new:
        README.write_text(new, encoding="utf-8")
        print("README.md: bottom-up table updated")
    else:
        print("README.md: bottom-up table already current")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
