"""book/references.bib parses, every entry is closed, and no key is defined twice.

A broken entry (for example a closing brace lost in a merge) otherwise surfaces only in the
``-W`` book build, minutes into ``make test``."""

import collections
import pathlib
import re

from pybtex.database import parse_string

BIB = pathlib.Path(__file__).resolve().parent.parent / "book" / "references.bib"


def test_references_parse_with_one_entry_per_key():
    text = BIB.read_text(encoding="utf-8")
    keys = re.findall(r"^@\w+\{([^,\s]+),", text, flags=re.M)
    dupes = [k for k, n in collections.Counter(keys).items() if n > 1]
    assert not dupes, f"keys defined more than once in references.bib: {dupes}"
    db = parse_string(text, "bibtex")
    assert len(db.entries) == len(keys)


def test_every_entry_is_closed_before_the_next_begins():
    depth, line_of_entry = 0, None
    for n, line in enumerate(BIB.read_text(encoding="utf-8").splitlines(), 1):
        if line.startswith("@"):
            assert depth == 0, f"references.bib line {n}: a new entry begins inside the one of line {line_of_entry}"
            line_of_entry = n
        depth += line.count("{") - line.count("}") - line.count("\\{") + line.count("\\}")
    assert depth == 0, f"references.bib ends inside the entry of line {line_of_entry}"
