"""Tests for interconnect.rendering: link demand, frame-timing model, dual-GPU boards."""

import doctest
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import interconnect.catalog.boards as boards_mod
import interconnect.rendering as rendering
from interconnect.links import get_link
from interconnect.rendering import (
    MODES,
    RESOLUTIONS,
    afr_latency_penalty,
    dual_board_table,
    dual_gpu_board,
    dual_gpu_boards,
    frame_bytes,
    frame_copy_time,
    link_utilisation,
    max_fps_over_link,
    resolution_size,
    simulate_frames,
    temporal_copy_bytes_per_s,
    transfer_bytes_per_frame,
    transfer_demand,
    transfer_fraction,
)

R = 0.030   # 30 ms per frame on one GPU: a 33 fps card, used throughout


@pytest.mark.parametrize("mod", [rendering, rendering.bandwidth, rendering.frames, boards_mod])
def test_doctests(mod):
    # the examples in the docstrings are part of the documentation
    result = doctest.testmod(mod)
    assert result.attempted >= 1 and result.failed == 0


def test_face_reexports_the_package_modules_and_the_board_catalog():
    assert rendering.simulate_frames is rendering.frames.simulate_frames
    assert rendering.transfer_demand is rendering.bandwidth.transfer_demand
    assert rendering.dual_gpu_board is boards_mod.dual_gpu_board


# --------------------------------------------------------------------------- frame sizes
def test_frame_bytes_closed_forms():
    # width x height x bytes/pixel: 1920*1080*4 = 8,294,400 B; 3840*2160*4 = 33,177,600 B
    assert frame_bytes(1920, 1080) == 8_294_400
    assert frame_bytes(*RESOLUTIONS["4K"]) == 33_177_600
    assert frame_bytes(*RESOLUTIONS["8K"]) == 4 * frame_bytes(*RESOLUTIONS["4K"])
    # Voodoo2 era: 1024x768 at 16-bit colour (2 B/pixel) = 1,572,864 B
    assert frame_bytes(1024, 768, 2) == 1_572_864


def test_frame_bytes_vectorised():
    out = frame_bytes(np.array([1920, 3840]), np.array([1080, 2160]), 4)
    np.testing.assert_array_equal(out, [8_294_400, 33_177_600])


def test_resolutions_table():
    # named resolutions, pixel counts from their definitions
    assert RESOLUTIONS["1080p"] == (1920, 1080)
    assert RESOLUTIONS["1440p"] == (2560, 1440)
    assert RESOLUTIONS["4K"] == (3840, 2160)
    assert RESOLUTIONS["5K"] == (5120, 2880)
    assert RESOLUTIONS["8K"] == (7680, 4320)
    assert RESOLUTIONS["1024x768"] == (1024, 768)   # Voodoo2 SLI maximum (Wikipedia, 3dfx)
    assert resolution_size("4k") == (3840, 2160)
    assert resolution_size((800, 600)) == (800, 600)


# --------------------------------------------------------------------------- demand
@pytest.mark.parametrize("n", [2, 3, 4])
def test_afr_demand_closed_form(n):
    # AFR: (N-1) of every N frames come from another GPU: (N-1)/N x fps x frame bytes
    fb = frame_bytes(2560, 1440)
    assert transfer_demand("afr", n, "1440p", 144) == pytest.approx((n - 1) / n * 144 * fb)


def test_sfr_two_gpus_half_a_frame_per_frame():
    # two-way SFR: the display GPU gets the other half of the screen back each frame
    fb = frame_bytes(1920, 1080)
    assert transfer_bytes_per_frame("sfr", 2, "1080p") == pytest.approx(fb / 2)
    assert transfer_demand("sfr", 2, "1080p", 60) == pytest.approx(30 * fb)
    # uneven split: display GPU renders 70 % itself, 30 % crosses
    assert transfer_fraction("sfr", 2, display_share=0.7) == pytest.approx(0.3)


def test_scanline_voodoo2():
    # 3dfx SLI: the slave's half of the lines, 1024x768 x 2 B at a 60 Hz refresh
    assert transfer_demand("scanline", 2, "1024x768", 60, 2) == pytest.approx(
        0.5 * 1024 * 768 * 2 * 60)


def test_sli_bridge_at_4k60_derived_from_catalog():
    # classic SLI bridge: the catalog's 1 GB/s (Tom's Hardware, links.py 'sli'). Two-way
    # AFR at 4K/60 needs 33.18 MB x 30 = 0.995 GB/s: saturated (>= 99 %), no headroom;
    # three-way, 4K at 120 Hz, or 5K at 60 Hz exceed it outright.
    sli, hb = get_link("sli").bandwidth, get_link("sli-hb").bandwidth
    need = transfer_demand("afr", 2, "4K", 60)
    assert need == pytest.approx(0.5 * 60 * frame_bytes(3840, 2160))
    assert link_utilisation("afr", "sli", 2, "4K", 60) == pytest.approx(need / sli)
    assert link_utilisation("afr", "sli", 2, "4K", 60) > 0.99
    assert link_utilisation("afr", "sli", 3, "4K", 60) > 1
    assert link_utilisation("afr", "sli", 2, "4K", 120) > 1
    assert link_utilisation("afr", "sli", 2, "5K", 60) > 1
    # ... while the HB bridge and PCIe 3.0 x16 (XDMA's path) carry it with room to spare
    assert link_utilisation("afr", "sli-hb", 2, "4K", 60) == pytest.approx(need / hb)
    assert link_utilisation("afr", "sli-hb", 2, "4K", 60) < 1
    assert link_utilisation("afr", "pcie3x16", 2, "4K", 60) < 0.1
    assert link_utilisation("afr", "crossfire-xdma", 2, "4K", 60) < 0.1
    # the 900 MB/s CrossFire bridge (AnandTech) cannot
    assert link_utilisation("afr", "crossfire", 2, "4K", 60) > 1


def test_max_fps_over_link_inverts_utilisation():
    # definition: the rate at which utilisation reaches exactly 1
    for link in ("sli", "sli-hb", "pcie3x16", "nvlink-bridge-2080ti"):
        f = max_fps_over_link("afr", link, 2, "4K")
        assert link_utilisation("afr", link, 2, "4K", f) == pytest.approx(1.0)
    assert max_fps_over_link("afr", get_link("sli"), 2, "4K") == pytest.approx(
        1e9 / (0.5 * 33_177_600))


def test_frame_copy_time():
    # AFR moves a whole frame; SFR (N-1)/N of one; both at the link's per-direction rate
    bw = get_link("sli-hb").bandwidth
    assert frame_copy_time("afr", "sli-hb", 2, "4K") == pytest.approx(33_177_600 / bw)
    assert frame_copy_time("sfr", "sli-hb", 2, "4K") == pytest.approx(0.5 * 33_177_600 / bw)


def test_temporal_copy_every_frame():
    # AFR with a history buffer: frame k-1 always lives on another GPU, so one history
    # surface per frame crosses regardless of N (NVIDIA GameWorks, inter-frame deps)
    fb8 = frame_bytes(3840, 2160, 8)   # FP16 RGBA history
    for n in (2, 3, 4):
        assert temporal_copy_bytes_per_s(n, "4K", 60, 8) == pytest.approx(60 * fb8)
    # at 4K/60 that alone (3.98 GB/s) exceeds the SLI HB bridge
    assert temporal_copy_bytes_per_s(2, "4K", 60, 8) > get_link("sli-hb").bandwidth


@settings(max_examples=60, deadline=None)
@given(mode=st.sampled_from(MODES), n=st.integers(2, 8),
       fps=st.floats(1, 500), scale=st.floats(1.01, 4))
def test_demand_monotone_in_fps_resolution_and_gpus(mode, n, fps, scale):
    # property: more frames, more pixels or more GPUs never need less bandwidth
    base = transfer_demand(mode, n, (1920, 1080), fps)
    assert transfer_demand(mode, n, (1920, 1080), fps * scale) > base
    assert transfer_demand(mode, n, (int(1920 * scale), 1080), fps) > base
    assert transfer_demand(mode, n + 1, (1920, 1080), fps) > base


# --------------------------------------------------------------------------- simulation
@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_afr_scales_n_times_with_zero_jitter_and_fast_cpu(n):
    # GPU-bound, no jitter, CPU far faster than the GPUs: N GPUs show N / R frames/s
    one = simulate_frames("afr", 1, render_time=R, cpu_time=1e-4)
    many = simulate_frames("afr", n, render_time=R, cpu_time=1e-4)
    assert one.mean_fps == pytest.approx(1 / R, rel=1e-6)
    assert many.mean_fps == pytest.approx(n / R, rel=0.01)


@pytest.mark.parametrize("n", [2, 3, 4])
def test_afr_latency_is_n_intervals_with_minimal_queue(n):
    # model statement: with render_ahead = N (the fewest frames in flight that keep N
    # GPUs busy) each frame takes R + cpu_time from input to display = N mean intervals
    c = 1e-4
    t = simulate_frames("afr", n, render_time=R, cpu_time=c, render_ahead=n)
    assert t.mean_interval == pytest.approx((R + c) / n, rel=1e-3)
    assert t.mean_latency == pytest.approx(R + c, rel=1e-6)
    assert t.latency_in_intervals == pytest.approx(n, rel=1e-2)
    # and the closed form agrees (up to cpu_time)
    closed = afr_latency_penalty(n, R)
    assert closed.afr_latency == pytest.approx(t.mean_latency, rel=0.01)
    assert closed.latency_frames == n


def test_afr_latency_penalty_closed_form():
    # R / N interval, N intervals of latency; a single GPU at the same fps needs one;
    # latency equals one card alone: more frames, not fresher frames
    p = afr_latency_penalty(2, R)
    assert p.frame_interval == pytest.approx(R / 2)
    assert p.afr_latency == pytest.approx(R)
    assert p.single_same_fps_latency == pytest.approx(R / 2)
    assert p.penalty == pytest.approx(2)
    assert p.afr_latency == pytest.approx(p.single_same_card_latency)
    # a deep queue hides the difference: both sides pay q intervals
    deep = afr_latency_penalty(2, R, render_ahead=3)
    assert deep.afr_latency == pytest.approx(3 * R / 2) and deep.penalty == pytest.approx(1)


def test_afr_default_queue_latency_equals_queue_depth():
    # with the DXGI default of 3 queued frames the model gives 3 intervals for N = 2
    t = simulate_frames("afr", 2, render_time=R, cpu_time=1e-4)
    assert t.latency_in_intervals == pytest.approx(3, rel=0.01)


def test_afr_lockstep_microstutter_closed_form():
    # zero jitter, fast CPU: the GPUs start cpu_time apart and stay so; intervals
    # alternate c and R - c, so std = (R - 2c)/2 and stutter index = 2 (R - 2c) / R
    c = 0.002
    t = simulate_frames("afr", 2, render_time=R, cpu_time=c, n_frames=601, warmup=60)
    np.testing.assert_allclose(np.sort(np.unique(np.round(t.steady_intervals, 9))), [c, R - c])
    assert t.interval_std == pytest.approx((R - 2 * c) / 2, rel=1e-6)
    assert t.stutter_index == pytest.approx(2 * (R - 2 * c) / R, rel=1e-6)
    assert t.interval_p99 == pytest.approx(R - c)


def test_single_gpu_and_scanline_do_not_stutter():
    # without jitter a single GPU and scan-line interleave deliver evenly spaced frames
    for t in (simulate_frames("afr", 1, render_time=R),
              simulate_frames("scanline", 2, render_time=R)):
        assert t.stutter_index < 1e-9
        assert t.interval_std < 1e-9
    # scan-line interleave: perfect 50/50 split, speedup exactly 2
    assert simulate_frames("scanline", 2, render_time=R).mean_fps == pytest.approx(2 / R)


def test_sfr_fixed_imbalance_closed_form():
    # density 1 + a cos(pi y), even split: heavier band = 1/2 + a/pi of the work, so
    # speedup = 1 / (1/2 + a/pi) < 2 (model statement in simulate_frames)
    for a in (0.1, 0.3, 0.6):
        t = simulate_frames("sfr", 2, render_time=R, imbalance=a)
        speedup = t.mean_fps * R
        assert speedup == pytest.approx(1 / (0.5 + a / math.pi), rel=1e-6)
        assert speedup < 2


def test_sfr_composite_and_geometry_overheads():
    # fixed costs: composite time adds to each frame; repeated geometry work does not split
    t = simulate_frames("sfr", 2, render_time=R, composite_time=0.002)
    assert t.mean_interval == pytest.approx(R / 2 + 0.002, rel=1e-6)
    g = simulate_frames("sfr", 2, render_time=R, geometry_fraction=0.2)
    assert g.mean_interval == pytest.approx(R * (0.2 + 0.8 / 2), rel=1e-6)


def test_sfr_adaptive_split_beats_static_and_lag_hurts():
    # a drifting load: a split that adapts with a short lag nearly restores 2x, a long
    # lag less so, a static split least (mean over seeds)
    def speed(**kw):
        return np.mean([simulate_frames("sfr", 2, render_time=R, imbalance=0.3,
                                        imbalance_change=0.05, n_frames=300, seed=s,
                                        **kw).mean_fps * R for s in range(3)])
    lag1, lag16, static = speed(split_lag=1), speed(split_lag=16), speed()
    assert static < lag16 < lag1 < 2


def test_mixed_cards_afr_bounded_by_slowest():
    # frames alternate, so AFR runs at most N x the slowest card's rate; Tom's Hardware:
    # a CrossFire pair "is at best only twice as fast as its weakest card"
    t = simulate_frames("afr", 2, render_time_per_gpu=[0.020, 0.040], cpu_time=1e-4)
    assert t.mean_fps <= 2 / 0.040 * (1 + 1e-9)
    assert t.mean_fps == pytest.approx(2 / 0.040, rel=0.01)


def test_mixed_cards_sfr_adaptive_uses_both():
    # an adaptive split gives each card work in proportion to its speed: 1/0.02 + 1/0.04
    static = simulate_frames("sfr", 2, render_time_per_gpu=[0.020, 0.040])
    adapt = simulate_frames("sfr", 2, render_time_per_gpu=[0.020, 0.040], split_lag=1)
    assert static.mean_fps == pytest.approx(1 / (0.040 / 2), rel=1e-6)
    assert adapt.mean_fps == pytest.approx(1 / 0.020 + 1 / 0.040, rel=1e-3)


def test_transfer_time_and_history_dependency():
    # a slow copy lengthens AFR latency of the foreign frames; a history dependency of
    # h seconds serialises AFR to at most 1/h frames/s (NVIDIA inter-frame dependencies)
    base = simulate_frames("afr", 2, render_time=R, render_ahead=2)
    slow = simulate_frames("afr", 2, render_time=R, render_ahead=2, transfer_time=0.005)
    assert slow.mean_latency > base.mean_latency
    h = simulate_frames("afr", 2, render_time=R, history_copy_time=0.020)
    assert h.mean_fps == pytest.approx(1 / 0.020, rel=1e-6)


@pytest.mark.parametrize("jitter", [0.0, 0.1, 0.3])
def test_pacing_evens_intervals_and_costs_latency(jitter):
    # frame metering (NVIDIA SLI; AMD Catalyst 13.8): lower interval std and stutter,
    # higher mean latency, essentially unchanged mean fps
    raw = simulate_frames("afr", 2, render_time=R, render_jitter=jitter, cpu_time=0.002)
    paced = simulate_frames("afr", 2, render_time=R, render_jitter=jitter, cpu_time=0.002,
                            pacing=True)
    assert paced.interval_std < raw.interval_std
    assert paced.stutter_index < raw.stutter_index
    assert paced.mean_latency > raw.mean_latency
    assert paced.mean_fps == pytest.approx(raw.mean_fps, rel=0.02)
    # pacing only delays presentation: GPU completion is untouched, no frame is earlier
    np.testing.assert_array_equal(paced.ready_times, raw.ready_times)
    assert np.all(paced.display_times >= raw.display_times - 1e-12)


def test_determinism_with_seed():
    kw = dict(render_time=R, render_jitter=0.2, cpu_time=0.003, n_frames=200)
    a = simulate_frames("afr", 2, seed=7, **kw)
    b = simulate_frames("afr", 2, seed=7, **kw)
    c = simulate_frames("afr", 2, seed=8, **kw)
    np.testing.assert_array_equal(a.display_times, b.display_times)
    assert not np.array_equal(a.display_times, c.display_times)


def test_timeline_shapes_and_summary():
    t = simulate_frames("sfr", 3, render_time=R, n_frames=100)
    assert t.display_times.shape == (100,) and t.intervals.shape == (99,)
    assert np.all(np.diff(t.display_times) >= 0)          # in-order presentation
    assert np.all(t.display_times >= t.ready_times)
    assert np.all(t.submit_times >= t.input_times)
    s = t.summary()
    assert s["mean_fps"] == pytest.approx(t.mean_fps)
    assert all(np.isfinite(v) for k, v in s.items() if k not in ("mode",))


@settings(max_examples=40, deadline=None)
@given(mode=st.sampled_from(MODES), n=st.integers(1, 4),
       times=st.lists(st.floats(0.005, 0.05), min_size=4, max_size=4),
       cpu=st.floats(0.0, 0.02), pacing=st.booleans())
def test_fps_bounds_property(mode, n, times, cpu, pacing):
    # invariants without jitter: over any window, frames shown <= rate bound x window
    # + N (a start-up phase offset can be borrowed once, never repeatedly). The bounds:
    # all GPUs' combined rate, N / the fastest card, the CPU, and for AFR N / the
    # slowest card (frames alternate)
    per_gpu = times[:n]
    t = simulate_frames(mode, n, render_time_per_gpu=per_gpu, cpu_time=cpu,
                        n_frames=240, warmup=60, pacing=pacing)
    iv = t.steady_intervals
    frames, span = iv.size, iv.sum()
    bounds = [n / min(per_gpu), sum(1 / x for x in per_gpu)]
    if cpu > 0:
        bounds.append(1 / cpu)
    if mode == "afr":
        bounds.append(n / max(per_gpu))
    for rate in bounds:
        assert frames <= rate * span + n + 1e-6
    assert np.all(np.isfinite(t.latency)) and np.all(t.latency > 0)


@settings(max_examples=30, deadline=None)
@given(n=st.integers(1, 4), jitter=st.floats(0, 0.5), seed=st.integers(0, 2**31))
def test_latency_at_least_own_render_time(n, jitter, seed):
    # property: a frame cannot reach the screen before it is built and rendered
    t = simulate_frames("afr", n, render_time=R, render_jitter=jitter, cpu_time=0.001,
                        n_frames=80, seed=seed)
    sigma2 = math.log1p(jitter ** 2)
    work = np.random.default_rng(seed).lognormal(-0.5 * sigma2, math.sqrt(sigma2), 80) \
        if jitter > 0 else np.ones(80)
    assert np.all(t.latency >= 0.001 + R * work - 1e-12)


# --------------------------------------------------------------------------- dual boards
def test_dual_board_figures():
    # cited figures (see each entry's source): GTX 690 300 W vs GTX 680 195 W, 915 vs
    # 1006 MHz base; HD 7990 375 W vs 250 W, 1000 vs 1050 MHz; GTX 590 365 W vs GTX 580
    # 244 W, 607 vs 772 MHz; R9 295X2 500 W, 1018 MHz vs 290X up to 1000 MHz
    g690 = dual_gpu_board("gtx690")
    assert (g690.board_power, g690.single_power) == (300, 195)
    assert g690.clock_reduction == pytest.approx(1 - 915 / 1006)
    assert g690.power_saving == pytest.approx(1 - 300 / 390)
    assert g690.power_per_gpu == 150
    h = dual_gpu_board("hd7990")
    assert (h.board_power, h.two_cards_power) == (375, 500)
    assert h.clock_reduction == pytest.approx(50 / 1050)
    g590 = dual_gpu_board("GTX590")
    assert g590.clock_reduction == pytest.approx(1 - 607 / 772)   # ~21 %
    r = dual_gpu_board("r9-295x2")
    assert r.board_power == 500 and r.clock_reduction < 0          # liquid-cooled: faster
    # PCIe CEM: slot 75 W + 150 W per 8-pin = 375 W; only the 295X2 exceeds it (PC Perspective)
    assert [b.name for b in dual_gpu_boards() if b.exceeds_spec] == ["r9-295x2"]
    assert r.spec_power_limit == 375


def test_dual_boards_properties():
    # every dual board draws less than two singles but more heat per board than one
    for b in dual_gpu_boards():
        assert b.board_power < b.two_cards_power
        assert 1 < b.heat_ratio < 2
        assert b.power_per_slot > b.single_power_per_slot
        assert b.source and b.notes
    table = dual_board_table()
    assert [row["year"] for row in table] == [2011, 2012, 2013, 2014]


# --------------------------------------------------------------------------- errors
@pytest.mark.parametrize("call, word", [
    (lambda: frame_bytes(0, 1080), "width"),
    (lambda: frame_bytes(1920, 1080.5), "height"),
    (lambda: frame_bytes(1920, 1080, -1), "bytes_per_pixel"),
    (lambda: frame_bytes(1920, 1080, float("nan")), "bytes_per_pixel"),
    (lambda: resolution_size("16K"), "resolution"),
    (lambda: resolution_size((1920,)), "resolution"),
    (lambda: transfer_demand("tiled", 2, "4K", 60), "mode"),
    (lambda: transfer_demand("afr", 1, "4K", 60), "n_gpus"),
    (lambda: transfer_demand("afr", 2, "4K", 0), "fps"),
    (lambda: transfer_fraction("afr", 2, display_share=0.5), "display_share"),
    (lambda: transfer_fraction("sfr", 2, display_share=1.0), "display_share"),
    (lambda: link_utilisation("afr", "sli-xl", 2, "4K", 60), "name"),
    (lambda: link_utilisation("afr", 1e9, 2, "4K", 60), "link"),
    (lambda: temporal_copy_bytes_per_s(1, "4K", 60), "n_gpus"),
    (lambda: simulate_frames("afr", 2), "render_time"),
    (lambda: simulate_frames("afr", 2, render_time=-R), "render_time"),
    (lambda: simulate_frames("afr", 0, render_time=R), "n_gpus"),
    (lambda: simulate_frames("afr", 2, render_time=R, render_time_per_gpu=[R, R]), "not both"),
    (lambda: simulate_frames("afr", 2, render_time_per_gpu=[R]), "render_time_per_gpu"),
    (lambda: simulate_frames("afr", 2, render_time=R, render_jitter=-0.1), "render_jitter"),
    (lambda: simulate_frames("sfr", 2, render_time=R, imbalance=1.0), "imbalance"),
    (lambda: simulate_frames("afr", 2, render_time=R, imbalance=0.2), "imbalance"),
    (lambda: simulate_frames("sfr", 2, render_time=R, split_lag=0), "split_lag"),
    (lambda: simulate_frames("sfr", 2, render_time=R, history_copy_time=0.01), "history_copy_time"),
    (lambda: simulate_frames("afr", 2, render_time=R, n_frames=5), "n_frames"),
    (lambda: simulate_frames("afr", 2, render_time=R, seed=-1), "seed"),
    (lambda: simulate_frames("afr", 2, render_time=R, pacing="yes"), "pacing"),
    (lambda: simulate_frames("afr", 2, render_time=R, render_ahead=0), "render_ahead"),
    (lambda: simulate_frames("afr", 2, render_time=R, n_frames=50, warmup=45), "warmup"),
    (lambda: simulate_frames("sfr", 2, render_time=R, geometry_fraction=1.0), "geometry_fraction"),
    (lambda: afr_latency_penalty(2, 0), "render_time"),
    (lambda: dual_gpu_board("gtx 9999"), "name"),
])
def test_errors_name_the_parameter(call, word):
    with pytest.raises(ValueError, match=word):
        call()


def test_plot_frame_intervals():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    runs = [simulate_frames("afr", 2, render_time=R, cpu_time=0.002),
            simulate_frames("afr", 2, render_time=R, cpu_time=0.002, pacing=True)]
    fig, ax = rendering.plot_frame_intervals(runs, labels=["AFR", "AFR + metering"])
    assert ax.get_ylabel() == "frame interval (ms)" and fig.get_label()
    plt.close(fig)
    with pytest.raises(ValueError, match="labels"):
        rendering.plot_frame_intervals(runs, labels=["one"])


# --------------------------------------------------------------------------- FrameScenario
def test_frame_scenario_runs_exactly_as_the_keyword_call():
    import dataclasses

    from interconnect.rendering import FrameScenario

    kw = dict(render_time=R, render_jitter=0.2, imbalance=0.3, imbalance_change=0.02, split_lag=2, seed=3)
    sc = FrameScenario("SFR", 2, **kw)
    a, b = simulate_frames("sfr", 2, **kw), simulate_frames(sc)
    for f in ("input_times", "submit_times", "ready_times", "display_times"):
        np.testing.assert_array_equal(getattr(a, f), getattr(b, f))
    assert sc.mode == "sfr" and sc.render_ahead == 3 and sc.warmup == 60
    assert FrameScenario(**dataclasses.asdict(sc)) == sc          # normalised fields validate again
    faster = dataclasses.replace(sc, render_time=R / 2)
    assert simulate_frames(faster).mean_fps > b.mean_fps


def test_frame_scenario_validates_and_is_given_alone():
    from interconnect.rendering import FrameScenario

    with pytest.raises(ValueError, match="imbalance=1.2"):
        FrameScenario("sfr", 2, render_time=R, imbalance=1.2)
    with pytest.raises(ValueError, match="history_copy_time"):
        FrameScenario("sfr", 2, render_time=R, history_copy_time=0.01)
    with pytest.raises(ValueError, match="n_gpus"):
        simulate_frames("afr", render_time=R)
    with pytest.raises(ValueError, match="cpu_time"):
        simulate_frames(FrameScenario("afr", 2, render_time=R), cpu_time=0.002)
