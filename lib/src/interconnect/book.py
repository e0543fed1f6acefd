"""Helpers for the book's notebooks: glue computed values into the prose.

``glue("ar_time", fmt_time(t))`` makes ``{glue}`ar_time``` in a Markdown cell show the
text (e.g. ``3.96 ms``) without quotes; numbers may be glued as they are and formatted
in the prose with ``{glue:text}`key:.1f```.

Glued floats are stored with ``GLUE_DIGITS`` (6) significant digits
(:func:`stable`), so the committed outputs do not depend on the last
bits of a float and strict nbval passes on any CPU and BLAS.
"""

from __future__ import annotations

from ._stable import stable

__all__ = ["glue", "table", "stable", "show_source", "source_of"]


def glue(name, value, display=False):
    """Glue ``value`` under ``name`` for myst-nb; strings are glued as inline Markdown.

    Parameters
    ----------
    name : str
        Key used in the prose, ``{glue}`name```.
    value : object
        A number (format it in the prose) or a string (shown as it is).
    display : bool
        Also show the value in the cell's output (default False).

    Returns None, so a glue call at the end of a cell prints nothing.
    """
    from myst_nb import glue as _glue

    if isinstance(value, str):
        from IPython.display import Markdown

        value = Markdown(value)
    elif hasattr(value, "item") and getattr(value, "shape", None) == ():
        value = value.item()  # numpy scalar: myst-nb formats Python numbers only
    if isinstance(value, float):
        value = stable(value)
    _glue(name, value, display=display)


def table(rows, headers, align=None):
    """A Markdown table (``IPython.display.Markdown``) from rows of already formatted cells.

    Parameters
    ----------
    rows : sequence of sequence
        Cell values; each is turned into text with ``str``.
    headers : sequence of str
    align : sequence of {"l", "r", "c"}, optional
        Column alignment; default left for the first column, right for the others.
    """
    from IPython.display import Markdown

    headers = list(headers)
    if align is None:
        align = ["l"] + ["r"] * (len(headers) - 1)
    if len(align) != len(headers):
        raise ValueError(f"align has {len(align)} entries; expected one per header ({len(headers)})")
    rule = {"l": ":---", "r": "---:", "c": ":---:"}
    lines = ["| " + " | ".join(headers) + " |", "| " + " | ".join(rule[a] for a in align) + " |"]
    for row in rows:
        row = [str(c).replace("|", "\\|") for c in row]
        if len(row) != len(headers):
            raise ValueError(f"row {row} has {len(row)} cells; expected {len(headers)}")
        lines.append("| " + " | ".join(row) + " |")
    return Markdown("\n".join(lines))


def source_of(obj):
    """Where ``obj`` is defined: ``(qualified name, path relative to lib/src, first line, source text)``.

    Raises ValueError for an object that has no Python source (a builtin, a C function).
    """
    import inspect
    import pathlib

    obj = inspect.unwrap(obj)
    try:
        lines, start = inspect.getsourcelines(obj)
        path = pathlib.Path(inspect.getsourcefile(obj)).resolve()
    except (TypeError, OSError):
        raise ValueError(f"obj={obj!r} has no Python source to show; expected a function, class or module "
                         "of the interconnect library") from None
    parts = path.parts
    rel = "/".join(parts[parts.index("interconnect"):]) if "interconnect" in parts else path.name
    name = getattr(obj, "__qualname__", getattr(obj, "__name__", repr(obj)))
    module = getattr(obj, "__module__", None) or getattr(obj, "__name__", "")
    qualname = name if name == module else f"{module}.{name}"
    return qualname, rel, start if start else 1, "".join(lines)


def show_source(obj, open=False):  # noqa: A002 - the HTML attribute's name
    """Show the library code a chapter calls, as a collapsed dropdown (d2l's "defined in").

    The summary line names the function and the file it lives in (under ``lib/src/``;
    no line number, so an edit elsewhere in the file leaves the stored output alone);
    opening it shows the code with the book's syntax colours, in both the light and the
    dark theme. The chapter calls the model; the reader can still read it.

    Parameters
    ----------
    obj : function, class or module
        Something defined in the ``interconnect`` library.
    open : bool
        Show the code unfolded (default: folded).

    Returns
    -------
    IPython.display.HTML
        Displayed when it is the last expression of a cell.
    """
    import html

    from IPython.display import HTML
    from pygments import highlight
    from pygments.formatters import HtmlFormatter
    from pygments.lexers import PythonLexer

    qualname, rel, start, text = source_of(obj)
    code = highlight(text, PythonLexer(), HtmlFormatter(cssclass="highlight", linenos=False))
    attr = " open" if open else ""
    return HTML(f'<details class="ic-source"{attr}><summary>Source: <code>{html.escape(qualname)}</code>, '
                f"defined in <code>lib/src/{html.escape(rel)}</code></summary>"
                f'<div class="highlight-python notranslate">{code}</div></details>')
