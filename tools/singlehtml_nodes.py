"""Sphinx extension for the single-page build behind the PDF (tools/build_pdf.py).

myst-nb registers the HTML of its "hide input" wrapper (``HideCodeCellNode``, a folded
``<details>``) for the ``html`` builder only, so the ``singlehtml`` builder stops on a chapter
that hides a cell's source. This registers the same visitors for ``singlehtml``.
"""

from myst_nb.sphinx_ import HideCodeCellNode, depart_HideCellInput, visit_HideCellInput


def setup(app):
    app.add_node(HideCodeCellNode, override=True, html=(visit_HideCellInput, depart_HideCellInput),
                 singlehtml=(visit_HideCellInput, depart_HideCellInput))
    return {"parallel_read_safe": True, "parallel_write_safe": True}
