"""Tests for interconnect.pipeline: simulated GPipe, 1F1B and interleaved 1F1B schedules
against the closed forms of Huang et al. (2019) and Narayanan et al. (2021, sec. 2.2)."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from interconnect import pipeline as P  # noqa: E402
from interconnect.parallel import pipeline_bubble_fraction  # noqa: E402

FAST = settings(max_examples=60, deadline=None, database=None)
stages = st.integers(1, 8)
times = st.floats(0.1, 5.0)


@FAST
@given(p=stages, m=st.integers(1, 24), tf=times, tb=times, kind=st.sampled_from(["gpipe", "1f1b"]))
def test_bubble_equals_closed_form(p, m, tf, tb, kind):
    # Narayanan et al. 2021 sec. 2.2.1: bubble (p-1)(t_f+t_b) over ideal m(t_f+t_b) = (p-1)/m,
    # for GPipe and for 1F1B (PipeDream-Flush) alike
    tasks = P.schedule(kind, p, m, t_forward=tf, t_backward=tb)
    assert P.bubble_fraction_measured(tasks) == pytest.approx(pipeline_bubble_fraction(p, m), abs=1e-9)


@FAST
@given(p=st.integers(1, 6), k=st.integers(1, 4), v=st.integers(1, 4), tf=times, tb=times)
def test_interleaved_bubble(p, k, v, tf, tb):
    # Narayanan et al. 2021 sec. 2.2.2: interleaving v chunks divides the bubble by v: (p-1)/(v m)
    m = k * p
    tasks = P.schedule("interleaved", p, m, chunks=v, t_forward=tf, t_backward=tb)
    assert P.bubble_fraction_measured(tasks) == pytest.approx(pipeline_bubble_fraction(p, m, v), abs=1e-9)


@FAST
@given(p=stages, m=st.integers(1, 24), tf=times, tb=times, kind=st.sampled_from(["gpipe", "1f1b"]))
def test_makespan_closed_form(p, m, tf, tb, kind):
    # Huang et al. 2019 / Narayanan et al. 2021 eq. (1) with b' / b = m: (m + p - 1)(t_f + t_b)
    tasks = P.schedule(kind, p, m, t_forward=tf, t_backward=tb)
    assert P.makespan(tasks) == pytest.approx((m + p - 1) * (tf + tb), rel=1e-9)


@FAST
@given(p=stages, m=st.integers(1, 12), c=st.floats(0.0, 3.0))
def test_gpipe_comm_closed_form(p, m, c):
    # derived: each of the 2(p-1) stage boundaries on the critical path adds one transfer
    tasks = P.schedule("gpipe", p, m, t_comm=c)
    assert P.makespan(tasks) == pytest.approx((m + p - 1) * 3.0 + 2 * (p - 1) * c, rel=1e-9)


@pytest.mark.parametrize("p,m", [(4, 8), (4, 4), (8, 16), (2, 7), (5, 3)])
def test_in_flight_1f1b_vs_gpipe(p, m):
    # Narayanan et al. 2021 sec. 2.2.1: 1F1B keeps at most p microbatches in flight, GPipe all m
    assert P.in_flight(P.schedule("1f1b", p, m)) == min(p, m)
    assert P.in_flight(P.schedule("gpipe", p, m)) == m
    # the first stage holds the most; stage s holds p - s under 1F1B
    tasks = P.schedule("1f1b", p, m)
    assert [P.in_flight(tasks, s) for s in range(p)] == [min(p - s, m) for s in range(p)]


@pytest.mark.parametrize("p,m,v", [(4, 8, 2), (4, 16, 4), (8, 16, 2), (2, 6, 3)])
def test_in_flight_interleaved(p, m, v):
    # derived from the warm-up of 2(p-1) + (v-1)p chunk passes on stage 0: p + (p-1)/v whole-stage
    # microbatches; this is Korthikanti et al. 2022's factor p(1 + (p-1)/(p v)) with v chunks
    assert P.in_flight(P.schedule("interleaved", p, m, v)) == pytest.approx(p + (p - 1) / v)


@FAST
@given(p=st.integers(2, 6), k=st.integers(1, 3), c1=st.floats(0.0, 2.0), dc=st.floats(0.01, 2.0),
       kind=st.sampled_from(P.KINDS))
def test_comm_widens_bubble(p, k, c1, dc, kind):
    # with p > 1 every schedule has stage boundaries on its critical path: a slower link
    # (larger t_comm) strictly widens the bubble
    m, v = k * p, (2 if kind == "interleaved" else 1)
    b1 = P.bubble_fraction_measured(P.schedule(kind, p, m, v, t_comm=c1))
    b2 = P.bubble_fraction_measured(P.schedule(kind, p, m, v, t_comm=c1 + dc))
    assert b2 > b1


@FAST
@given(p=stages, m=st.integers(1, 10), kind=st.sampled_from(["gpipe", "1f1b"]), c=st.floats(0.0, 1.0))
def test_dependencies_respected(p, m, kind, c):
    # every task starts after the ones it depends on, and a stage runs one task at a time
    tasks = P.schedule(kind, p, m, t_comm=c)
    end = {(t.kind, t.stage, t.microbatch): t.end for t in tasks}
    for t in tasks:
        if t.kind == "F" and t.stage > 0:
            assert t.start >= end["F", t.stage - 1, t.microbatch] + c - 1e-12
        if t.kind == "B":
            assert t.start >= end["F", t.stage, t.microbatch] - 1e-12
            if t.stage < p - 1:
                assert t.start >= end["B", t.stage + 1, t.microbatch] + c - 1e-12
    for s in range(p):
        row = [t for t in tasks if t.stage == s]
        assert all(a.end <= b.start + 1e-12 for a, b in zip(row, row[1:]))
    assert len(tasks) == 2 * p * m


def test_1f1b_order():
    # Narayanan et al. 2021 Fig. 4 (top), p = 4, m = 8: stage 0 warms up with 3 forward passes
    order = P.stage_order("1f1b", 4, 8)
    assert [f"{k}{j}" for k, j, _ in order[0][:6]] == ["F0", "F1", "F2", "F3", "B0", "F4"]
    assert [f"{k}{j}" for k, j, _ in order[3][:4]] == ["F0", "B0", "F1", "B1"]


def test_plot_gantt():
    tasks = P.schedule("interleaved", 2, 4, 2)
    ax = P.plot_gantt(tasks)
    assert len(ax.patches) >= len(tasks)
    assert ax.get_xlabel().startswith("time (") and ax.get_ylabel() and ax.get_title()
    plt.close(ax.figure)


@pytest.mark.parametrize("width", [4.0, 6.4, 12.0])
def test_plot_gantt_labels_fit_their_bars(width):
    """A microbatch number is drawn only inside a bar wide enough for it; a wider figure labels more bars."""
    tasks = P.schedule("interleaved", 4, 8, 2)
    counts = []
    for w in (width, 2 * width):
        _, ax = plt.subplots(figsize=(w, 3.0))
        P.plot_gantt(tasks, ax=ax)
        pt_per_unit = ax.get_position().width * w * 72.0 / (P.makespan(tasks) * 1.01)
        bars = {(round(r.get_x() + r.get_width() / 2, 9), round(r.get_y() + r.get_height() / 2)): r.get_width()
                for r in ax.patches[:len(tasks)]}
        for t in ax.texts:
            x, y = t.get_position()
            assert bars[round(x, 9), round(y)] * pt_per_unit >= 4.2 * len(t.get_text()) + 3.0
        counts.append(len(ax.texts))
        plt.close(ax.figure)
    assert 0 < counts[0] <= counts[1] <= len(tasks)


@pytest.mark.parametrize("args,kwargs,name", [
    (("pipedream", 4, 8), {}, "kind"),
    (("gpipe", 0, 8), {}, "stages"),
    (("gpipe", 4, 0), {}, "microbatches"),
    (("gpipe", 4, 8), {"chunks": 2}, "chunks"),
    (("interleaved", 4, 6), {"chunks": 2}, "microbatches"),
    (("gpipe", 4, 8), {"t_forward": 0}, "t_forward"),
    (("1f1b", 4, 8), {"t_backward": -1}, "t_backward"),
    (("1f1b", 4, 8), {"t_comm": -0.1}, "t_comm"),
    (("1f1b", 2.5, 8), {}, "stages"),
])
def test_errors(args, kwargs, name):
    with pytest.raises(ValueError, match=name):
        P.schedule(*args, **kwargs)


def test_errors_on_tasks():
    for f in (P.makespan, P.bubble_fraction_measured, P.in_flight, P.plot_gantt):
        with pytest.raises(ValueError, match="tasks"):
            f([])
    with pytest.raises(ValueError, match="stage"):
        P.in_flight(P.schedule("gpipe", 2, 2), stage=5)
