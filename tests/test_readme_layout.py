"""The README's table of the library's layout names every module there is (issue 12: the
README is the design's home, so it must not fall behind the code)."""

from __future__ import annotations

import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[1]
SRC = ROOT / "lib" / "src" / "interconnect"


def _layout_table():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    start = text.index("| module | layer | what it holds |")
    rows = []
    for line in text[start:].splitlines()[2:]:
        if not line.startswith("|"):
            break
        rows.append(line)
    return "\n".join(rows)


def _modules():
    """Top-level modules and packages, and the modules inside each package (private ones too,
    but not ``__init__``), as (package or None, name)."""
    out = []
    for p in sorted(SRC.iterdir()):
        if p.name.startswith("__") or p.name.endswith(".egg-info"):
            continue
        if p.is_dir() and (p / "__init__.py").exists():
            out.append((None, p.name))
            for q in sorted(p.glob("*.py")):
                if q.stem != "__init__" and not q.stem.startswith("_"):
                    out.append((p.name, q.stem))
        elif p.suffix == ".py" and not p.stem.startswith("_"):
            out.append((None, p.stem))
    return out


def _words(text):
    return set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", text))


def test_every_module_is_in_the_readme_layout_table():
    """A top-level module or package is named in the first column; a package's module in its row."""
    rows = [line.split("|")[1:-1] for line in _layout_table().splitlines()]
    first = set().union(*(_words(r[0]) for r in rows))
    missing = []
    for pkg, name in _modules():
        if pkg is None:
            ok = name in first
        else:
            row = [r for r in rows if f"`{pkg}/`" in r[0] or f"`{pkg}`" in r[0]]
            ok = bool(row) and name in _words("|".join(row[0]))
        if not ok:
            missing.append(f"{pkg + '/' if pkg else ''}{name}")
    assert not missing, f"README's layout table does not name: {missing}"
