"""interconnect.book: glue's stored digits and show_source's dropdown."""

from __future__ import annotations

import pytest

from interconnect import book, collectives, units


def test_source_of_names_the_file_and_holds_the_code():
    qualname, rel, start, text = book.source_of(units.fmt_time)
    assert qualname == "interconnect.units.fmt_time"
    assert rel == "interconnect/units.py"
    assert start > 1
    assert text.startswith("def fmt_time(")


def test_show_source_is_a_folded_dropdown_with_highlighted_code():
    html = book.show_source(collectives.collective_time).data
    assert html.startswith('<details class="ic-source">')
    assert "interconnect.collectives" in html and "collective_time" in html
    assert '<div class="highlight">' in html and "</details>" in html
    assert ' open>' in book.show_source(units.fmt_time, open=True).data


def test_show_source_rejects_what_has_no_source():
    with pytest.raises(ValueError, match="obj=<built-in function len>"):
        book.show_source(len)


def test_no_docstring_example_shows_a_traceback():
    # the library reference renders every docstring, and the browser test rejects a page that
    # shows a traceback (the sign of a failed cell): show errors with try/except and print
    import pathlib

    lib = pathlib.Path(book.__file__).parent
    offenders = [str(p.relative_to(lib)) for p in lib.rglob("*.py")
                 if "Traceback (most recent call last)" in p.read_text(encoding="utf-8")]
    assert not offenders
