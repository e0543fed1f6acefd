"""Tests for interconnect.diagrams: the before/after states are the definitions of the
collectives (MPI standard, nccl-tests doc/PERFORMANCE.md), the ring schedule is the one
of Patarasuk and Yuan (2009), and every drawing returns what its docstring promises."""

import doctest

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402

import interconnect.diagrams as D  # noqa: E402
from interconnect.collectives import OPS, cost_terms  # noqa: E402
from interconnect.diagrams import Chunk, collective_state  # noqa: E402

PS = range(2, D.MAX_RANKS + 1)


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def _full(p):
    return tuple(range(p))


# ----------------------------------------------------------------------- states (data)
@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("p", PS)
def test_state_shape(op, p):
    """p rows of p slots, before and after, for every op."""
    before, after = collective_state(op, p)
    for side in (before, after):
        assert len(side) == p
        assert all(len(row) == p for row in side)
        assert all(c is None or (isinstance(c, Chunk) and 0 <= c.index < p) for row in side for c in row)


@pytest.mark.parametrize("p", PS)
def test_allreduce_is_reducescatter_then_allgather(p):
    """AllReduce = ReduceScatter + AllGather: the union of the reduce-scatter pieces, gathered
    to every rank, is the allreduce result (Thakur et al. 2005, sec. 4.6; Rabenseifner)."""
    _, rs_after = collective_state("reducescatter", p)
    _, ar_after = collective_state("allreduce", p)
    pieces = [next(c for c in row if c is not None) for row in rs_after]  # one piece per rank
    assert [c.index for c in pieces] == list(range(p))
    assert all(row == tuple(pieces) for row in ar_after)


@pytest.mark.parametrize("p", PS)
def test_alltoall_is_a_transpose(p):
    """AllToAll: slot j of rank i before is slot i of rank j after (MPI_Alltoall definition)."""
    before, after = collective_state("alltoall", p)
    for i in range(p):
        for j in range(p):
            assert before[i][j].origin == after[j][i].origin == (i,)
            assert before[i][j].index == after[j][i].index == j


@pytest.mark.parametrize("p", PS)
def test_reductions_sum_every_rank(p):
    """Every result chunk of reduce, reducescatter and allreduce sums all p ranks; nothing else does."""
    for op in OPS:
        _, after = collective_state(op, p)
        chunks = [c for row in after for c in row if c is not None]
        summed = op in ("reduce", "reducescatter", "allreduce")
        assert all((c.origin == _full(p)) == summed for c in chunks), op


@pytest.mark.parametrize("p", PS)
def test_result_sizes(p):
    """Result chunk counts: allgather/allreduce/broadcast p per rank, scatter/reducescatter one,
    reduce/gather p at the root only; alltoall keeps p per rank (nccl-tests size convention)."""
    count = {op: [sum(c is not None for c in row) for row in collective_state(op, p)[1]] for op in OPS}
    for op in ("broadcast", "allgather", "allreduce", "alltoall"):
        assert count[op] == [p] * p, op
    for op in ("scatter", "reducescatter"):
        assert count[op] == [1] * p, op
    for op in ("reduce", "gather"):
        assert count[op] == [p] + [0] * (p - 1), op


def test_labels():
    assert Chunk((0,), 2).label(4) == "A2"
    assert Chunk((1, 2), 0).label(4) == "BC0"
    assert Chunk((0, 1, 2, 3), 3).label(4) == "Σ3"


# --------------------------------------------------------------------- ring schedule
@pytest.mark.parametrize("p", PS)
def test_ring_schedule_matches_cost_terms(p):
    """2(p-1) steps, each rank sends one n/p chunk to its right neighbour per step: the
    a = 2(p-1) and b = 2(p-1)/p of the ring allreduce in collectives.cost_terms."""
    steps = D.ring_allreduce_schedule(p)
    a, b, _ = cost_terms("allreduce", p, "ring")
    assert len(steps) - 1 == a
    chunks_sent_per_rank = 0
    for st in steps[1:]:
        senders = [s for s, _, _ in st["sends"]]
        assert sorted(senders) == list(range(p))  # everyone sends exactly once per step
        assert all(dst == (src + 1) % p for src, dst, _ in st["sends"])  # only neighbour links
        chunks_sent_per_rank += 1
    assert chunks_sent_per_rank / p == pytest.approx(b)


@pytest.mark.parametrize("p", PS)
def test_ring_schedule_computes_allreduce(p):
    """After reduce-scatter rank r holds the full sum of chunk r+1; at the end every rank holds
    the allreduce result (Patarasuk and Yuan 2009)."""
    steps = D.ring_allreduce_schedule(p)
    after_rs = steps[p - 1]["state"]
    for r in range(p):
        assert after_rs[r][(r + 1) % p].origin == _full(p)
    _, ar_after = collective_state("allreduce", p)
    assert steps[-1]["state"] == ar_after


# --------------------------------------------------------------------------- drawing
@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("p", [2, 4, 8])
def test_collective_diagram_draws_p_rank_rows(op, p):
    ax = D.collective_diagram(op, p=p)
    assert isinstance(ax, matplotlib.axes.Axes)
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert labels == [f"rank {r}" for r in range(p)]
    assert ax.get_title() == D.NAMES[op]
    assert len(ax.patches) > 2 * p  # at least one slot per rank on each side


def test_collective_diagram_draws_on_given_axes():
    fig, ax = plt.subplots()
    assert D.collective_diagram("allreduce", 4, ax=ax) is ax
    assert ax.figure is fig


def test_all_collectives_figure():
    fig = D.all_collectives_figure(p=4)
    assert [ax.get_title() for ax in fig.axes] == [D.NAMES[op] for op in OPS]
    fig3 = D.all_collectives_figure(p=3, ncols=3)
    assert len(fig3.axes) == len(OPS)  # the unused ninth axes is removed


@pytest.mark.parametrize("p", [2, 4, 8])
def test_ring_allreduce_steps_rows(p):
    fig = D.ring_allreduce_steps(p)
    (ax,) = fig.axes
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert len(labels) == 2 * (p - 1) + 1
    assert labels[0] == "start" and labels[1] == "reduce-scatter 1" and labels[-1] == f"allgather {p - 1}"


# ------------------------------------------------------------------------ validation
@pytest.mark.parametrize("bad", ["allsum", "", 3, None])
def test_rejects_unknown_op(bad):
    with pytest.raises(ValueError, match="op="):
        D.collective_diagram(bad)
    with pytest.raises(ValueError, match="op="):
        collective_state(bad)


@pytest.mark.parametrize("bad", [1, 0, -4, 2.5, 9, 64, "4", True])
def test_rejects_bad_p(bad):
    for fn in (lambda: D.collective_diagram("allreduce", p=bad), lambda: collective_state("allreduce", bad),
               lambda: D.ring_allreduce_schedule(bad), lambda: D.ring_allreduce_steps(bad),
               lambda: D.all_collectives_figure(bad)):
        with pytest.raises(ValueError, match="p="):
            fn()


def test_accepts_integral_float_p():
    assert len(collective_state("broadcast", 4.0)[0]) == 4
    assert len(D.collective_diagram("broadcast", 4.0).get_yticklabels()) == 4


def test_rejects_bad_ax_and_ncols():
    with pytest.raises(ValueError, match="ax="):
        D.collective_diagram("allreduce", 4, ax="not an axes")
    with pytest.raises(ValueError, match="ncols="):
        D.all_collectives_figure(4, ncols=0)
    with pytest.raises(ValueError, match="ncols="):
        D.all_collectives_figure(4, ncols=9)


def test_doctests():
    failures, _ = doctest.testmod(D, verbose=False)
    assert failures == 0
