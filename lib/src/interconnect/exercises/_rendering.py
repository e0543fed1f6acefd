"""Checkers for the chapter "Multi-GPU rendering" (book/history/rendering)."""


from .. import links
from .. import rendering as R
from ..units import ms
from . import Answer, exercise

CHAPTER = "book/history/rendering"


def _distinct(value, mistakes, rtol):
    """Keep only the mistakes that a right answer cannot be confused with (> 2.5 rtol away)."""
    v = float(value)
    return {d: w for d, w in mistakes.items() if abs(float(w) - v) > 2.5 * rtol * abs(v)}


# rend-ex-1440: two-way AFR at 2560x1440 and 144 fps, demand and utilisation of three bridges
_BRIDGES_1440 = (("sli", "sli"), ("sli_hb", "sli-hb"), ("crossfire", "crossfire"))


@exercise("rend-ex-1440", CHAPTER, parts=("demand",) + tuple(f"util_{p}" for p, _ in _BRIDGES_1440),
          doc="(a) bytes/s (per direction) crossing the link for two-way AFR at 1440p and 144 fps, "
              "(b) utilisation (a fraction) of the classic SLI bridge, SLI HB and the CrossFire bridge")
def _rend_ex_1440():
    demand = R.transfer_demand("afr", 2, "1440p", 144)
    whole = R.frame_bytes(*R.resolution_size("1440p")) * 144          # every frame crossing
    rgb = R.transfer_demand("afr", 2, "1440p", 144, bytes_per_pixel=3)
    out = {"demand": Answer(demand, "B/s", mistakes={
        "sent every frame across: in two-way AFR only one frame in two (the other GPU's) crosses": whole,
        "used 3 bytes per pixel: the frames are 8-bit RGBA, 4 bytes per pixel": rgb})}
    for part, name in _BRIDGES_1440:
        u = R.link_utilisation("afr", name, 2, "1440p", 144)
        bw = links.get_link(name).bandwidth
        out[f"util_{part}"] = Answer(u, "1", mistakes=_distinct(u, {
            "inverted the ratio (link bandwidth over demand): utilisation is demand / bandwidth": 1 / u,
            "sent every frame across: in two-way AFR only one frame in two crosses": whole / bw}, 0.02))
    return out


# rend-ex-copy: copy time of one frame over SLI and the RTX 3090 NVLink bridge, 4K and 8K
_COPY = (("sli_4k", "sli", "4K"), ("nvlink3090_4k", "nvlink-bridge-3090", "4K"),
         ("sli_8k", "sli", "8K"), ("nvlink3090_8k", "nvlink-bridge-3090", "8K"))


@exercise("rend-ex-copy", CHAPTER, parts=tuple(p for p, _, _ in _COPY) + ("sli_4k_intervals",),
          doc="time (s) one AFR frame takes to cross the classic SLI bridge and the RTX 3090 NVLink bridge "
              "at 4K and 8K, and the 4K SLI copy in 60 Hz display intervals")
def _rend_ex_copy():
    out = {}
    for part, name, res in _COPY:
        t = R.frame_copy_time("afr", name, 2, res)
        out[part] = Answer(t, "s", mistakes={
            "copied half a frame: in AFR a whole frame crosses (half the frames, each complete)":
                R.transfer_bytes_per_frame("afr", 2, res) / links.get_link(name).bandwidth,
            "used 3 bytes per pixel: the frames are 8-bit RGBA, 4 bytes per pixel":
                R.frame_copy_time("afr", name, 2, res, bytes_per_pixel=3)})
    t = R.frame_copy_time("afr", "sli", 2, "4K")
    interval = 1 / 60
    out["sli_4k_intervals"] = Answer(t / interval, "1", mistakes={
        "inverted the ratio (interval over copy time)": interval / t,
        "copied half a frame: in AFR a whole frame crosses": t / 2 / interval})
    return out


# rend-ex-lockstep: lockstep stutter index for R = 30 ms and c = 2, 5, 10 ms; pacing
_LOCK_C = (2, 5, 10)


@exercise("rend-ex-lockstep", CHAPTER,
          parts=tuple(f"stutter_{c}ms" for c in _LOCK_C) + ("paced_stutter_2ms", "paced_latency_2ms"),
          doc="stutter index (a fraction) of two-way lockstep AFR with R = 30 ms and c = 2, 5, 10 ms "
              "(simulate_frames); with pacing at c = 2 ms, the stutter index and the mean latency (s)")
def _rend_ex_lockstep():
    rt = 30 * ms
    out = {}
    for c in _LOCK_C:
        raw = R.simulate_frames("afr", 2, render_time=rt, cpu_time=c * ms)
        s = raw.stutter_index
        out[f"stutter_{c}ms"] = Answer(s, "1", mistakes=_distinct(s, {
            "divided by R instead of the mean interval R/2": (rt - 2 * c * ms) / rt,
            "took the change of interval as R - c instead of |(R - c) - c| = R - 2c": 2 * (rt - c * ms) / rt}, 0.02))
    raw = R.simulate_frames("afr", 2, render_time=rt, cpu_time=2 * ms)
    paced = R.simulate_frames("afr", 2, render_time=rt, cpu_time=2 * ms, pacing=True)
    out["paced_stutter_2ms"] = Answer(paced.stutter_index, "1", rtol=0.05, mistakes={
        "took the unpaced index: pacing evens out the intervals": raw.stutter_index})
    out["paced_latency_2ms"] = Answer(paced.mean_latency, "s", mistakes=_distinct(paced.mean_latency, {
        "took the unpaced latency: holding frames back to even them out adds latency": raw.mean_latency,
        "took the mean frame interval, not the input-to-display latency": paced.mean_interval}, 0.02))
    return out


# rend-ex-mixed: a 30 ms and a 45 ms card in AFR, even interleave and adaptive SFR
_MIXED_MODES = (("afr", {}), ("scanline", {}), ("sfr", {"split_lag": 1}))


@exercise("rend-ex-mixed", CHAPTER, parts=tuple(f"fps_{m}" for m, _ in _MIXED_MODES) + ("best",),
          doc="mean displayed frames per second of a 30 ms + 45 ms card pair (cpu_time 2 ms, 400 frames) in AFR, "
              "scan-line interleave and adaptive SFR (split_lag=1), and which mode uses the slow card best")
def _rend_ex_mixed():
    pair = dict(render_time_per_gpu=[30 * ms, 45 * ms], cpu_time=2 * ms, n_frames=400)
    fps = {m: R.simulate_frames(m, 2, **pair, **extra).mean_fps for m, extra in _MIXED_MODES}
    summed = 1 / (30 * ms) + 1 / (45 * ms)     # both cards fully used
    slow2 = 2 / (45 * ms)                      # twice the slower card
    out = {}
    for m, _ in _MIXED_MODES:
        out[f"fps_{m}"] = Answer(fps[m], "frames/s", mistakes=_distinct(fps[m], {
            "added the two cards' frame rates: that needs a split weighted by speed; AFR and even "
            "interleave give both cards the same share and run at twice the slower card's rate": summed,
            "took twice the slower card's rate: the adaptive split gives the fast card a larger share": slow2,
            "took twice the fast card's rate: the slow card holds the pair back": 2 / (30 * ms)}, 0.02))
    best = max(fps, key=fps.get)
    assert sorted(fps.values())[-1] > 1.05 * sorted(fps.values())[-2]
    why = {"afr": "AFR gives both cards the same number of frames, so it runs at twice the slower card's rate",
           "scanline": "even interleave gives both cards the same number of lines: the slow card sets the pace",
           "sfr": "the adaptive split gives the fast card a larger share"}
    out["best"] = Answer(best, choices=tuple(fps), mistakes={m: why[m] for m in fps if m != best})
    return out


# rend-ex-latency: input latency of 4 GPUs in AFR, 2 faster GPUs in AFR, one 4x faster GPU
_LAT = (("four_afr", 4, 33), ("two_afr", 2, 16.5), ("one_fast", 1, 8.25))


@exercise("rend-ex-latency", CHAPTER, parts=tuple(f"latency_{p}" for p, _, _ in _LAT) + ("recommend",),
          doc="input latency (s, afr_latency_penalty with a minimal queue) of four 33 ms GPUs in AFR, two 16.5 ms "
              "GPUs in AFR and one 8.25 ms GPU, and which to recommend")
def _rend_ex_latency():
    out, lat = {}, {}
    for part, n, rt in _LAT:
        a = R.afr_latency_penalty(n, rt * ms)
        lat[part] = a.afr_latency
        out[f"latency_{part}"] = Answer(a.afr_latency, "s", mistakes=_distinct(a.afr_latency, {
            "took the frame interval as the latency: AFR keeps N frames in flight, so a frame still takes "
            "one GPU's whole render time": a.frame_interval}, 0.02))
    best = min(lat, key=lat.get)
    out["recommend"] = Answer(best, choices=tuple(lat), mistakes={
        p: "same frame rate, but AFR keeps one GPU's render time as latency" for p in lat if p != best})
    return out


# rend-ex-taa: TAA history (FP16, two surfaces) at 4K/60 in two-way AFR
_TAA_LINKS = (("sli_hb", "sli-hb"), ("nvlink3090", "nvlink-bridge-3090"))


def _taa_fps(name, surfaces=2, bpp=8, dependent_pass=5 * ms):
    copy = surfaces * R.frame_copy_time("afr", name, 2, "4K", bytes_per_pixel=bpp)
    return R.simulate_frames("afr", 2, render_time=30 * ms, cpu_time=2 * ms,
                             history_copy_time=copy + dependent_pass).mean_fps


@exercise("rend-ex-taa", CHAPTER, parts=("total",) + tuple(f"fps_{p}" for p, _ in _TAA_LINKS),
          doc="(a) bytes/s (per direction) of frames plus two FP16 history surfaces at 4K/60 in two-way AFR, "
              "(c) AFR frame rate (frames/s) over SLI HB and the RTX 3090 NVLink bridge with a 5 ms dependent pass")
def _rend_ex_taa():
    frames = R.transfer_demand("afr", 2, "4K", 60)
    history = R.temporal_copy_bytes_per_s(2, "4K", 60, bytes_per_pixel=8, history_buffers=2)
    total = frames + history
    out = {"total": Answer(total, "B/s", mistakes={
        "counted half the history: one surface instead of two (the motion vectors are reused too), "
        "or 4 bytes per pixel instead of FP16 RGBA's 8":
            frames + R.temporal_copy_bytes_per_s(2, "4K", 60, bytes_per_pixel=8, history_buffers=1),
        "left out the frames themselves (history only)": history})}
    for part, name in _TAA_LINKS:
        f = _taa_fps(name)
        out[f"fps_{part}"] = Answer(f, "frames/s", mistakes=_distinct(f, {
            "copied one history surface, not two": _taa_fps(name, surfaces=1),
            "left out the 5 ms pass that reads the history": _taa_fps(name, dependent_pass=0.0),
            "ignored the dependency: two GPUs at 30 ms each give 2 / 30 ms": 2 / (30 * ms)}, 0.02))
    return out


# rend-ex-board: the dual-GPU board above its connectors' ceiling, by how much, and watts per GPU
@exercise("rend-ex-board", CHAPTER,
          parts=("board", "excess") + tuple(f"per_gpu_{b.name.replace('-', '_')}" for b in R.dual_gpu_boards()),
          doc="which dual-GPU board (catalog name) exceeds its PCIe connectors' ceiling, by how many watts, "
              "and the board power per GPU (W) of every board")
def _rend_ex_board():
    boards = R.dual_gpu_boards()
    over = [b for b in boards if b.exceeds_spec]
    assert len(over) == 1
    b = over[0]
    out = {"board": Answer(b.name, choices=tuple(x.name for x in boards), mistakes={
        x.name: f"its {x.board_power:.0f} W is within the {x.spec_power_limit:.0f} W its connectors allow"
        for x in boards if x is not b}),
        "excess": Answer(b.board_power - b.spec_power_limit, "W", mistakes={
            "forgot the 75 W from the PCIe slot (the ceiling is 75 W + 150 W per 8-pin connector)":
                b.board_power - (b.spec_power_limit - 75.0),
            "gave the board power, not the excess over the ceiling": b.board_power})}
    for x in boards:
        out[f"per_gpu_{x.name.replace('-', '_')}"] = Answer(x.power_per_gpu, "W", mistakes={
            "took the whole board's power: it feeds two GPUs": x.board_power})
    return out
