"""The live edition (tools/live_edition.py, ``make live``): chapters that read well in JupyterLab.

Every page of the table of contents (but the generated library reference and bibliography)
is written with no MyST left in its Markdown, the glued numbers in the text, citations
author-year, and links that lead to notebooks of the copy; a notebook of the copy still runs.
"""

from __future__ import annotations

import json
import pathlib
import re
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))

import live_edition  # noqa: E402
import myst_text  # noqa: E402


@pytest.fixture(scope="module")
def live(tmp_path_factory):
    out = tmp_path_factory.mktemp("live")
    written = live_edition.make(out)
    return out, written


def _markdown(path):
    if path.suffix == ".md":
        return path.read_text(encoding="utf-8")
    nb = json.loads(path.read_text(encoding="utf-8"))
    return "\n\n".join(myst_text._source(c) for c in nb["cells"] if c["cell_type"] == "markdown")


def test_every_page_is_written(live):
    out, written = live
    expected = [d for d in live_edition.toc_docs() if d not in live_edition.SKIP]
    assert len(written) == len(expected)
    for doc in expected:
        assert (out / f"{doc}.ipynb").exists() or (out / f"{doc}.md").exists(), doc


def test_no_myst_left_and_links_resolve(live):
    out, written = live
    for path in written:
        text = _markdown(path)
        assert "{glue" not in text, path
        assert not myst_text.leftovers(text), (path, myst_text.leftovers(text)[:5])
        for target in re.findall(r"\]\(([^)#\s]+\.(?:ipynb|md))\)", text):
            assert (path.parent / target).resolve().exists(), (path, target)


def test_numbers_and_citations_are_in_the_text(live):
    out, _ = live
    text = _markdown(out / "book/parallel/data_parallel.ipynb")
    assert "(Kaplan et al., 2020)" in text
    assert "[Collective communication](../stack/collectives.ipynb)" in text
    assert "> **Exercise** (`dp-ex-bytes`)" in text and "**Solution** (`dp-ex-bytes`)" in text
    # a number the book glues: the source has the placeholder, the copy the value
    src = json.loads((ROOT / "book/parallel/data_parallel.ipynb").read_text(encoding="utf-8"))
    source_text = "\n".join(myst_text._source(c) for c in src["cells"] if c["cell_type"] == "markdown")
    assert source_text.count("{glue") > 20


def test_roles_render_as_the_book_does():
    index = myst_text.BookIndex()
    doc = "book/stack/topology"
    assert myst_text.render_roles("{cite}`thakur2005`", doc, index) == "(Thakur et al., 2005)"
    assert myst_text.render_roles("{cite:t}`thakur2005`", doc, index) == "Thakur et al. (2005)"
    assert myst_text.render_roles("{cite}`wulf1995memorywall`", doc, index) == "(Wulf and McKee, 1995)"
    assert myst_text.render_roles("{doc}`collectives`", doc, index) == \
        "[Collective communication](collectives.ipynb)"
    assert myst_text.render_roles("{doc}`../why/primer`", doc, index).endswith("(../why/primer.ipynb)")
    assert myst_text.render_roles("{term}`busbw <Bus bandwidth, busbw>`", doc, index) == "*busbw*"
    assert myst_text.render_roles("{ref}`the primer <primer-alpha-beta>`", doc, index) == \
        "[the primer](../why/primer.ipynb)"
    assert myst_text.render_roles("(x-label)=\n## Head", doc, index) == "## Head"
    fig = myst_text.render_roles("{numref}`fig-topo-two-shapes`", doc, index)
    assert fig.startswith("the figure “") and "{" not in fig
    text = "```{exercise}\n:label: a-b\nWhat is it?\n```\n```{solution-start} a-b\n:class: dropdown\n```\nIt.\n" \
           "```{solution-end}\n```\n"
    out = myst_text.render_directives(text)
    assert out.startswith("> **Exercise** (`a-b`)\n>\n> What is it?") and "**Solution** (`a-b`)" in out
    assert not myst_text.leftovers(out)


def test_a_live_notebook_runs(live):
    """The copy of the primer runs top to bottom with a fresh kernel, as the chapter does."""
    from nbclient import NotebookClient

    out, _ = live
    path = out / "book/why/primer.ipynb"
    import nbformat

    nb = nbformat.read(path, as_version=4)
    NotebookClient(nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}).execute()
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", []) if o.output_type == "error"]
    assert not errors
