"""Tests for the split-backward schedules of interconnect.pipeline: zero-bubble ZB-H1
(Qi et al. 2024) and DualPipe (DeepSeek-AI 2024, sec. 3.2.1, Table 2), against the
papers' closed forms for the bubble and the activation memory."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from interconnect import pipeline as P  # noqa: E402

FAST = settings(max_examples=60, deadline=None, database=None)
times = st.floats(0.1, 3.0)


def test_kinds_unchanged():
    # the chapter and its exercises iterate over KINDS: the classic three only
    assert P.KINDS == ("gpipe", "1f1b", "interleaved")
    assert P.SPLIT_KINDS == ("zb-h1", "dualpipe")


@FAST
@given(p=st.integers(1, 8), extra=st.integers(0, 16), tf=times, bi=times, frac=st.floats(0.05, 1.0))
def test_zb_h1_bubble_closed_form(p, extra, tf, bi, frac):
    # DeepSeek-AI 2024 Table 2, ZB1P: (p-1)(F + B - 2W), B the whole backward; = Qi et al.'s
    # (p-1)(T_F + T_B - T_W) with T_B the activation gradient. Holds for W <= F and W <= T_B.
    tw = frac * min(tf, bi)
    tasks = P.schedule("zb-h1", p, p + extra, t_forward=tf, t_backward=bi + tw, t_weight=tw)
    cf = P.bubble_closed_form("zb-h1", p, t_forward=tf, t_backward=bi + tw, t_weight=tw)
    assert cf == pytest.approx((p - 1) * (tf + bi - tw))
    assert P.makespan(tasks) - P.busy_time(tasks) == pytest.approx(cf, abs=1e-9)
    assert P.bubble_time(tasks) == pytest.approx(cf, abs=1e-9)


@pytest.mark.parametrize("p,m", [(2, 4), (4, 8), (4, 16), (8, 8), (8, 32)])
def test_zb_h1_third_of_1f1b(p, m):
    # Qi et al. 2024 sec. 2.1: with T_F = T_B = T_W the ZB-H1 bubble is a third of 1F1B's
    zb, one = P.schedule("zb-h1", p, m), P.schedule("1f1b", p, m)
    assert 3 * P.bubble_time(zb) == pytest.approx(P.bubble_time(one))
    assert P.busy_time(zb) == pytest.approx(P.busy_time(one)) == m * 3.0


@pytest.mark.parametrize("p", [2, 4, 6, 8])
@pytest.mark.parametrize("k", [0, 1, 3])
@pytest.mark.parametrize("gain", [0.0, 0.5, 1.0])
def test_dualpipe_bubble_table2(p, k, gain):
    # DeepSeek-AI 2024 Table 2: (PP/2 - 1)(F&B + B - 3W), B the whole backward, for the stages
    # that idle longest; with F = B - W = W (the paper's figure), for any F&B from F + B (no
    # overlap gain) to max(F, B) (perfect overlap)
    m = 2 * p + 2 * k
    tfb = 3.0 - gain
    tasks = P.schedule("dualpipe", p, m, t_overlap=tfb)
    cf = P.bubble_closed_form("dualpipe", p, t_overlap=tfb)
    assert cf == pytest.approx((p // 2 - 1) * (tfb + 2.0 - 3.0))
    assert P.bubble_time(tasks) == pytest.approx(cf, abs=1e-9)


@FAST
@given(half=st.integers(1, 4), k=st.integers(0, 6), x=times, frac=st.floats(0.0, 1.0))
def test_dualpipe_bubble_property(half, k, x, frac):
    # Table 2 with F = B_input = W = x and F&B anywhere in [max(F, B), F + B]
    p, m = 2 * half, 4 * half + 2 * k
    tfb = 2 * x + frac * x
    tasks = P.schedule("dualpipe", p, m, t_forward=x, t_backward=2 * x, t_overlap=tfb)
    assert P.bubble_time(tasks) == pytest.approx((half - 1) * (tfb + 2 * x - 3 * x), abs=1e-9)


@pytest.mark.parametrize("p,m", [(2, 4), (4, 8), (4, 12), (6, 12), (8, 16), (8, 20)])
def test_dualpipe_no_overlap_gain_busy(p, m):
    # with F&B = F + B every stage does the work of 1F1B: m (F + B)
    tasks = P.schedule("dualpipe", p, m)
    assert P.busy_time(tasks) == pytest.approx(m * 3.0)
    assert {P.bubble_time(tasks, s) for s in range(p)} == {P.bubble_time(tasks)}


@pytest.mark.parametrize("p,m", [(1, 1), (2, 2), (2, 5), (4, 4), (4, 9), (8, 8), (8, 24)])
def test_zb_h1_in_flight(p, m):
    # Qi et al. 2024 sec. 2.1: ZB-H1 keeps 1F1B's peak, p microbatches, and every stage holds p
    # (activations are held until the W pass)
    tasks = P.schedule("zb-h1", p, m)
    assert P.in_flight(tasks) == P.in_flight(P.schedule("1f1b", p, m)) == p
    assert [P.in_flight(tasks, s) for s in range(p)] == [p] * p


@pytest.mark.parametrize("p,m", [(2, 4), (2, 10), (4, 8), (4, 14), (6, 12), (8, 16), (8, 30)])
def test_dualpipe_in_flight_and_chunks(p, m):
    # DeepSeek-AI 2024 Table 2: activations PP + 1 per device, parameters 2x (two chunks)
    tasks = P.schedule("dualpipe", p, m)
    assert [P.in_flight(tasks, s) for s in range(p)] == [p + 1] * p
    for s in range(p):
        assert {t.chunk for t in tasks if t.stage == s} == {0, 1}
    # each direction carries half of the microbatches
    assert {t.microbatch for t in tasks if t.chunk == 0} == set(range(m // 2))
    assert {t.microbatch for t in tasks if t.chunk == 1} == set(range(m // 2, m))


def _check_dependencies(kind, tasks, p, m, c):
    eps = 1e-9
    by = {}
    for t in tasks:
        assert (t.kind, t.stage, t.microbatch, t.chunk) not in by
        by[t.kind, t.stage, t.microbatch, t.chunk] = t
    for j in range(m):
        d = (j >= m // 2) if kind == "dualpipe" else 0
        path = list(range(p)) if d == 0 else list(range(p - 1, -1, -1))
        for i, s in enumerate(path):
            f, b = by["F", s, j, d], by["B", s, j, d]
            if i > 0:  # a stage never runs F of a microbatch before it has received it
                assert f.start >= by["F", path[i - 1], j, d].end + c - eps
            assert b.start >= f.end - eps
            if i < p - 1:
                assert b.start >= by["B", path[i + 1], j, d].end + c - eps
            w = by.get(("W", s, j, d))
            if w is not None:  # B before W for the same microbatch
                assert w.start >= b.end - eps
    assert len(by) == len(tasks)
    for s in range(p):  # one task at a time, except an overlapped F&B pair (same start and end)
        row = sorted((t for t in tasks if t.stage == s), key=lambda t: (t.start, t.end))
        for a, b in zip(row, row[1:]):
            if a.start == b.start and a.end == b.end:
                assert kind == "dualpipe" and {a.kind, b.kind} == {"F", "B"}
            else:
                assert a.end <= b.start + eps


@FAST
@given(p=st.integers(1, 6), extra=st.integers(0, 8), c=st.floats(0.0, 1.5), tf=times, tb=times,
       frac=st.floats(0.05, 0.95))
def test_zb_h1_dependencies(p, extra, c, tf, tb, frac):
    m = p + extra
    tasks = P.schedule("zb-h1", p, m, t_forward=tf, t_backward=tb, t_weight=frac * tb, t_comm=c)
    assert len(tasks) == 3 * p * m
    _check_dependencies("zb-h1", tasks, p, m, c)


@FAST
@given(half=st.integers(1, 4), k=st.integers(0, 5), c=st.floats(0.0, 1.5), tf=times, tb=times,
       frac=st.floats(0.05, 0.95), ov=st.floats(0.0, 1.0))
def test_dualpipe_dependencies(half, k, c, tf, tb, frac, ov):
    p, m = 2 * half, 4 * half + 2 * k
    tfb = max(tf, tb) + ov * (tf + tb - max(tf, tb))
    tasks = P.schedule("dualpipe", p, m, t_forward=tf, t_backward=tb, t_weight=frac * tb,
                       t_overlap=tfb, t_comm=c)
    _check_dependencies("dualpipe", tasks, p, m, c)


def test_w_is_deferred():
    # ZB-H1: stage s defers the W of its first s microbatches to the end of the step
    tasks = P.schedule("zb-h1", 4, 8)
    for s in range(4):
        tail = [t for t in tasks if t.stage == s][-s - 1:]
        assert [(t.kind, t.microbatch) for t in tail[1:]] == [("W", j) for j in range(s)]
        b0 = next(t for t in tasks if t.stage == s and t.kind == "B" and t.microbatch == 0)
        w0 = next(t for t in tasks if t.stage == s and t.kind == "W" and t.microbatch == 0)
        assert (w0.start > b0.end) == (s > 0)


def test_default_split_and_durations():
    # default t_weight = t_backward / 2; a whole backward in DualPipe is one B task of t_backward
    zb = P.schedule("zb-h1", 2, 2, t_forward=1.0, t_backward=3.0)
    assert {(t.kind, t.duration) for t in zb} == {("F", 1.0), ("B", 1.5), ("W", 1.5)}
    dp = P.schedule("dualpipe", 2, 4, t_backward=2.0, t_weight=0.5)
    assert {t.duration for t in dp if t.kind == "W"} == {0.5}
    assert {t.duration for t in dp if t.kind == "B"} <= {1.5, 2.0, 3.0}


def test_order_follows_reference_steps():
    # deepseek-ai/DualPipe DualPipe.step, rank 0 of 4 with 8 microbatches: step 1 runs
    # 2 (PP/2 - 1) = 2 forward passes of its own direction, step 2 one of each direction
    order = P.stage_order("dualpipe", 4, 8)
    assert order[0][:4] == [("F", 0, 0), ("F", 1, 0), ("F", 2, 0), ("F", 4, 1)]
    # the middle ranks do not overlap their first F and B (the reference's NOTE)
    assert order[1][5:7] == [("BW", 4, 1), ("F&B", (6, 0), (1, 0))]
    assert all(k == "W" for k, _, _ in order[0][-1:])


@pytest.mark.parametrize("args,kwargs,name", [
    (("dualpipe", 3, 12), {}, "stages"),
    (("dualpipe", 4, 6), {}, "microbatches"),
    (("dualpipe", 4, 9), {}, "microbatches"),
    (("zb-h1", 4, 3), {}, "microbatches"),
    (("zb-h1", 4, 8), {"chunks": 2}, "chunks"),
    (("zb-h1", 4, 8), {"t_weight": 2.0}, "t_weight"),
    (("zb-h1", 4, 8), {"t_weight": 0}, "t_weight"),
    (("dualpipe", 4, 8), {"t_overlap": 1.5}, "t_overlap"),
    (("dualpipe", 4, 8), {"t_overlap": 3.5}, "t_overlap"),
])
def test_errors(args, kwargs, name):
    with pytest.raises(ValueError, match=name):
        P.schedule(*args, **kwargs)


def test_errors_closed_form_and_bubble_time():
    with pytest.raises(ValueError, match="stages"):
        P.bubble_closed_form("dualpipe", 3)
    with pytest.raises(ValueError, match="kind"):
        P.bubble_closed_form("zb-h2", 4)
    with pytest.raises(ValueError, match="stage"):
        P.bubble_time(P.schedule("zb-h1", 2, 2), stage=2)
    with pytest.raises(ValueError, match="tasks"):
        P.bubble_time([])


def test_plot_gantt_split_kinds():
    from interconnect.viz.timelines import KIND_COLOURS

    tasks = P.schedule("dualpipe", 4, 8)
    ax = P.plot_gantt(tasks)
    pairs = sum(1 for t in tasks if t.kind == "F" and any(
        u.kind == "B" and u.stage == t.stage and u.start == t.start for u in tasks))
    assert len(ax.patches) == len(tasks) + pairs
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert "weight gradient (W)" in labels and "F and B overlapped" in labels
    colours = {matplotlib.colors.to_hex(ax.patches[i].get_facecolor()[:3]) for i, t in enumerate(tasks)
               if t.kind == "W"}
    assert colours == {KIND_COLOURS["W"].lower()}
    assert ax.get_xlabel().startswith("time (") and ax.get_title()
    plt.close(ax.figure)
    ax = P.plot_gantt(P.schedule("1f1b", 2, 4))   # the classic legend: two entries
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["forward (F)", "backward (B)"]
    plt.close(ax.figure)
    with pytest.raises(ValueError, match="color_by"):
        P.plot_gantt(tasks, color_by="stage")
