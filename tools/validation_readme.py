"""Write the bottom-up validation table into README.md (between the two markers).

The table is :func:`interconnect.parallel.validation.bottom_up_table`: every published training
row priced on its machine preset with component-measured efficiencies and one fitted constant per
GPU generation (``machines.SUSTAINED_FRACTION``), each fitted on one named row (marked "fit" in the
table); every other row is held out. ``tests/test_readme_tables.py`` fails when the README's copy is
stale.

Run: .venv/bin/python tools/validation_readme.py [--check]   (--check: exit 1 if README.md is stale,
write nothing)
"""

from __future__ import annotations

import pathlib
import sys

START = "<!-- bottom-up-table:start (tools/validation_readme.py writes this) -->"
END = "<!-- bottom-up-table:end -->"
README = pathlib.Path(__file__).resolve().parent.parent / "README.md"

_UNITS = {"iteration_s": "s / iteration", "tflops_per_gpu": "TFLOP/s / GPU", "model_tflops_per_gpu":
          "model TFLOP/s / GPU", "tokens_per_s_per_gpu": "tokens/s / GPU"}


def table_markdown():
    """The README table (markdown) and its one-line summary."""
    from interconnect.parallel.validation import (
        VALIDATION_ROWS,
        bottom_up_summary,
        bottom_up_table,
        short_source,
        throughput_error_pct,
        validation_rows_2024,
    )

    rows = VALIDATION_ROWS + validation_rows_2024()
    out = ["| source | run | machine | layout | quantity | measured | predicted | error | throughput error |",
           "| --- | --- | --- | --- | --- | ---: | ---: | ---: | ---: |"]
    table = bottom_up_table(rows)
    for row, r in zip(rows, table):
        name = r["name"].split(" t=")[0] + (" (fit)" if r["fitted"] else "")
        out.append(f"| {short_source(r['source'])} | {name} | {row.machine or 'dgx-a100'} | {row.layout.label()} | "
                   f"{_UNITS[r['quantity']]} | {r['measured']:.2f} | {r['predicted']:.2f} | "
                   f"{r['error_pct']:+.1f} % | {throughput_error_pct(r):+.1f} % |")
    s = bottom_up_summary(table)
    h = s["held_out"]
    pure = bottom_up_summary(bottom_up_table(rows, fitted=False))
    summary = (f"{s['rows']} rows: mean absolute throughput error {s['mean_abs_pct']:.1f} %, {s['within_10']} within "
               f"10 %, worst {s['worst_pct']:.1f} %; the {h['rows']} held-out rows (all but the 3 marked fit): mean "
               f"{h['mean_abs_pct']:.1f} %, {h['within_10']} within 10 %. Without the fitted constants (pure "
               f"bottom-up): mean {pure['mean_abs_pct']:.1f} %, {pure['within_10']} within 10 %.")
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
    argv = sys.argv[1:] if argv is None else argv
    new = render()
    if "--check" in argv:
        stale = README.read_text(encoding="utf-8") != new
        print("README.md: bottom-up table is stale; run tools/validation_readme.py" if stale
              else "README.md: bottom-up table current")
        return 1 if stale else 0
    if README.read_text(encoding="utf-8") != new:
        README.write_text(new, encoding="utf-8")
        print("README.md: bottom-up table updated")
    else:
        print("README.md: bottom-up table already current")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
