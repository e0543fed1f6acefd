"""The book's map in interconnect.diagrams: the four-layer stack and the chapter-dependency graph."""

from __future__ import annotations

import itertools

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from interconnect import diagrams as D  # noqa: E402


def test_stack_figure_names_the_four_layers_bottom_up():
    fig = D.stack_figure()
    try:
        bold = [t for t in fig.axes[0].texts if t.get_fontweight() == "bold"]
        assert [t.get_text() for t in bold] == [f"{k + 1}  {name}" for k, (name, _, _) in enumerate(D.STACK)]
        ys = [t.get_position()[1] for t in bold]
        assert ys == sorted(ys), "layer 1 (the wire) must be at the bottom"
        # legible on a phone: no text under 11.5 pt in a 5-inch figure (9.5 px at 310 px wide);
        # tests/test_browser.py checks the scale the landing page shows it at
        assert min(t.get_fontsize() for t in fig.axes[0].texts) >= 11.5
        assert fig.get_size_inches()[0] == pytest.approx(5.0)
    finally:
        plt.close(fig)


@pytest.mark.parametrize("bad", [(), [("a", "b")], [("a", "b", 3)]])
def test_stack_figure_rejects_bad_layers(bad):
    with pytest.raises(ValueError, match="layers"):
        D.stack_figure(bad)
    with pytest.raises(ValueError, match="width=2"):
        D.stack_figure(width=2)


def _reachable(pre, i):
    seen, todo = set(), list(pre[i])
    while todo:
        j = todo.pop()
        if j not in seen:
            seen.add(j)
            todo.extend(pre[j])
    return seen


@st.composite
def dags(draw):
    n = draw(st.integers(1, 9))
    return [sorted(draw(st.sets(st.integers(0, i - 1), max_size=i)) if i else []) for i in range(n)]


@settings(max_examples=60, deadline=None)
@given(dags())
def test_transitive_reduction_keeps_reachability_and_is_minimal(pre):
    red = D.transitive_reduction(pre)
    for i in range(len(pre)):
        assert _reachable(red, i) == _reachable(pre, i)
        assert set(red[i]) <= set(pre[i])
        for j in red[i]:   # dropping any kept edge loses reachability
            fewer = [list(r) for r in red]
            fewer[i].remove(j)
            assert _reachable(fewer, i) != _reachable(pre, i)
    assert D.transitive_reduction(red) == red


def test_transitive_reduction_rejects_a_later_prerequisite():
    with pytest.raises(ValueError, match=r"prerequisites\[1\]"):
        D.transitive_reduction([[], [1]])


def test_dependency_figure_draws_one_arc_per_reduced_edge_pointing_down():
    pre = [[], [0], [0, 1], [1], [2, 3, 0]]
    fig = D.dependency_figure(list("ABCDE"), pre, ["x", "x", "y", "y", "z"],
                              ["introductory", "intermediate", "advanced", "advanced", "introductory"])
    try:
        ax = fig.axes[0]
        arcs = ax.patches
        assert len(arcs) == sum(len(r) for r in D.transitive_reduction(pre)) == 5
        labels = {t.get_text(): t.get_position()[1] for t in ax.texts}
        assert all(labels[a] > labels[b] for a, b in itertools.pairwise("ABCDE"))   # reading order, top down
        assert {"x", "y", "z"} <= set(labels)                                      # the group headings
        assert min(t.get_fontsize() for t in ax.texts) >= 11.5 and fig.get_size_inches()[0] == pytest.approx(5.0)
    finally:
        plt.close(fig)


def test_dependency_figure_rejects_bad_input():
    with pytest.raises(ValueError, match="same length"):
        D.dependency_figure(["A", "B"], [[]], ["x", "x"])
    with pytest.raises(ValueError, match="consecutive"):
        D.dependency_figure(list("ABC"), [[], [], []], ["x", "y", "x"])
    with pytest.raises(ValueError, match="level"):
        D.dependency_figure(["A"], [[]], ["x"], ["easy"])
