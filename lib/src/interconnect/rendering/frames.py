"""What multi-GPU rendering did to frame timing: a discrete-event model of frame delivery.

Part of :mod:`interconnect.rendering` (which re-exports every name here; its docstring
describes the rendering modes and the sources). SI units: seconds.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .._validate import as_count, as_nonnegative, as_positive, choice
from .bandwidth import MODES

__all__ = ["FrameTimeline", "FrameScenario", "simulate_frames", "AFRLatency", "afr_latency_penalty"]

# ----------------------------------------------------------------------------------
# Frame timing simulation
# ----------------------------------------------------------------------------------
_PACING_MARGIN = 0.95   # metered interval = 95 % of the recent throughput interval


@dataclass(frozen=True)
class FrameTimeline:
    """Per-frame times from :func:`simulate_frames` and the statistics reviewers used.

    All times are seconds from the start of the run; frame-level arrays have length
    ``n_frames``, ``intervals`` has ``n_frames - 1``.

    Attributes
    ----------
    mode : str
    n_gpus : int
    input_times : ndarray
        When the CPU began frame k and sampled input.
    submit_times : ndarray
        When the CPU finished building frame k and handed it to the driver.
    ready_times : ndarray
        When frame k was complete on the display GPU (rendered, copied, composited).
    display_times : ndarray
        When frame k was presented (in order; later than ready with pacing).
    gpu : ndarray of int
        AFR: the GPU that rendered frame k; -1 for SFR/scan-line (all GPUs).
    intervals : ndarray
        ``diff(display_times)``: the frame times a capture card (FCAT) sees.
    latency : ndarray
        ``display_times - input_times``: input-to-display latency per frame.
    warmup : int
        Frames at the start left out of the statistics below.
    """

    mode: str
    n_gpus: int
    input_times: np.ndarray
    submit_times: np.ndarray
    ready_times: np.ndarray
    display_times: np.ndarray
    gpu: np.ndarray
    warmup: int
    intervals: np.ndarray = field(init=False)
    latency: np.ndarray = field(init=False)

    def __post_init__(self):
        object.__setattr__(self, "intervals", np.diff(self.display_times))
        object.__setattr__(self, "latency", self.display_times - self.input_times)

    # statistics over the steady part -------------------------------------------
    @property
    def steady_intervals(self) -> np.ndarray:
        """Intervals after the warm-up frames, s, trimmed to whole cycles of ``n_gpus``.

        AFR repeats with period N frames (the lockstep pattern of the micro-stutter),
        so statistics use a multiple of N intervals; otherwise an odd window of a
        short/long alternation would bias the mean.
        """
        iv = self.intervals[self.warmup:]
        return iv[: (iv.size // self.n_gpus) * self.n_gpus]

    @property
    def steady_latency(self) -> np.ndarray:
        """Latencies after the warm-up frames, s."""
        return self.latency[self.warmup:]

    @property
    def mean_interval(self) -> float:
        """Mean displayed frame interval, s."""
        return float(np.mean(self.steady_intervals))

    @property
    def mean_fps(self) -> float:
        """Mean displayed frame rate, frames/s: ``1 / mean_interval``."""
        return 1.0 / self.mean_interval

    @property
    def interval_std(self) -> float:
        """Standard deviation of the displayed frame intervals, s."""
        return float(np.std(self.steady_intervals))

    @property
    def interval_p99(self) -> float:
        """99th-percentile frame interval, s (The Tech Report's '99th percentile frame time')."""
        return float(np.percentile(self.steady_intervals, 99))

    @property
    def stutter_index(self) -> float:
        """Micro-stutter index: mean ``|interval_k - interval_{k-1}|`` / mean interval.

        AnandTech's "delta percentage" (as a fraction, not %): "collecting the deltas
        (differences) between frame times, averaging that out, and then dividing delta
        average by the average frame time"; under 0.03 for a well-behaved single GPU,
        under 0.10 "very good for a multi-GPU setup", 0.15-0.20 the acceptable limit
        (AnandTech, AMD Catalyst 13.8 frame pacing article, p.4).
        """
        iv = self.steady_intervals
        return float(np.mean(np.abs(np.diff(iv))) / np.mean(iv))

    @property
    def mean_latency(self) -> float:
        """Mean input-to-display latency, s."""
        return float(np.mean(self.steady_latency))

    @property
    def latency_in_intervals(self) -> float:
        """Mean latency expressed in mean frame intervals (dimensionless)."""
        return self.mean_latency / self.mean_interval

    def summary(self) -> dict:
        """The headline numbers as a dict (fps, ms), for tables and widgets."""
        return {"mode": self.mode, "n_gpus": self.n_gpus, "mean_fps": self.mean_fps,
                "interval_ms": 1e3 * self.mean_interval,
                "interval_std_ms": 1e3 * self.interval_std,
                "interval_p99_ms": 1e3 * self.interval_p99,
                "stutter_index": self.stutter_index,
                "latency_ms": 1e3 * self.mean_latency}


def _imbalance_cdf(y, a):
    """Cumulative work fraction of screen rows [0, y] under density 1 + a cos(pi y)."""
    return y + a / np.pi * np.sin(np.pi * y)


def _imbalance_split(targets, a):
    """Boundaries y with _imbalance_cdf(y, a) = targets (monotone for |a| < 1): bisection."""
    lo = np.zeros_like(targets)
    hi = np.ones_like(targets)
    for _ in range(48):
        mid = 0.5 * (lo + hi)
        low = _imbalance_cdf(mid, a) < targets
        lo = np.where(low, mid, lo)
        hi = np.where(low, hi, mid)
    return 0.5 * (lo + hi)


@dataclass(frozen=True)
class FrameScenario:
    """The inputs of :func:`simulate_frames`, validated once: one multi-GPU rendering setup.

    The fields are :func:`simulate_frames`'s parameters, with the same meanings, units and
    allowed ranges (see there). Construction checks them (a ``ValueError`` names the
    parameter, its value and what is allowed) and stores them normalised: ``mode`` in
    canonical case, numbers as ``float``/``int``, ``render_time_per_gpu`` as a tuple, and
    the defaults of ``render_ahead`` and ``warmup`` resolved to the values used.
    SFR-only fields (``imbalance``, ``imbalance_change``, ``split_lag``) and the AFR-only
    ``history_copy_time`` are rejected for the other modes.

    Examples
    --------
    >>> sc = FrameScenario("AFR", 3, render_time=0.030)
    >>> sc.mode, sc.render_ahead, sc.warmup            # N + 1 frames queued for 3-way AFR
    ('afr', 4, 60)
    >>> round(simulate_frames(sc).mean_fps)
    100
    """

    mode: str
    n_gpus: int
    render_time: float | None = None
    render_jitter: float = 0.0
    cpu_time: float = 1e-3
    composite_time: float = 0.0
    n_frames: int = 600
    seed: int = 0
    render_time_per_gpu: tuple | None = None
    pacing: bool = False
    render_ahead: int | None = None
    transfer_time: float = 0.0
    imbalance: float = 0.0
    imbalance_change: float = 0.0
    split_lag: int | None = None
    geometry_fraction: float = 0.0
    history_copy_time: float = 0.0
    warmup: int | None = None

    def __post_init__(self):
        mode = choice("mode", self.mode, MODES)
        n = as_count("n_gpus", self.n_gpus, 1)
        nf = as_count("n_frames", self.n_frames, 20)
        jitter = float(as_nonnegative("render_jitter", self.render_jitter))
        cpu = float(as_nonnegative("cpu_time", self.cpu_time, "s"))
        comp = float(as_nonnegative("composite_time", self.composite_time, "s"))
        xfer = float(as_nonnegative("transfer_time", self.transfer_time, "s"))
        hist = float(as_nonnegative("history_copy_time", self.history_copy_time, "s"))
        imb0 = float(as_nonnegative("imbalance", self.imbalance))
        if imb0 >= 1.0:
            raise ValueError(f"imbalance={self.imbalance!r} is out of range; allowed [0, 1) "
                             "(at 1 the light band would need no work at all)")
        dimb = float(as_nonnegative("imbalance_change", self.imbalance_change))
        geo = float(as_nonnegative("geometry_fraction", self.geometry_fraction))
        if geo >= 1.0:
            raise ValueError(f"geometry_fraction={self.geometry_fraction!r} is out of range; "
                             "allowed [0, 1)")
        seed, pacing = self.seed, self.pacing
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
            raise ValueError(f"seed={seed!r} is not allowed; seed must be an integer >= 0")
        if not isinstance(pacing, (bool, np.bool_)):
            raise ValueError(f"pacing={pacing!r} is not allowed; pacing must be True or False")
        lag = None if self.split_lag is None else as_count("split_lag", self.split_lag, 1)
        if mode != "sfr" and (imb0 > 0 or dimb > 0 or lag is not None):
            raise ValueError(f"imbalance/imbalance_change/split_lag apply to mode='sfr' only, "
                             f"not mode={mode!r}")
        if mode != "afr" and hist > 0:
            raise ValueError(f"history_copy_time={self.history_copy_time!r} applies to mode='afr' "
                             f"only, not mode={mode!r}")

        render_time, render_time_per_gpu = self.render_time, self.render_time_per_gpu
        if render_time_per_gpu is not None:
            if render_time is not None:
                raise ValueError("give render_time or render_time_per_gpu, not both")
            per_gpu = np.atleast_1d(as_positive("render_time_per_gpu", render_time_per_gpu, "s"))
            if per_gpu.ndim != 1 or per_gpu.size != n:
                raise ValueError(f"render_time_per_gpu has {per_gpu.size} entries; expected "
                                 f"n_gpus={n}")
        else:
            if render_time is None:
                raise ValueError("render_time=None; give render_time (s, > 0) or "
                                 "render_time_per_gpu")
            rt = as_positive("render_time", render_time, "s")
            if np.ndim(rt) != 0:
                raise ValueError("render_time must be a single number; use "
                                 "render_time_per_gpu for unequal GPUs")
            per_gpu = np.full(n, float(rt))

        if self.render_ahead is None:
            q = max(3, n + 1) if (mode == "afr" and n >= 3) else 3
        else:
            q = as_count("render_ahead", self.render_ahead, 1)
        wu = nf // 10 if self.warmup is None else as_count("warmup", self.warmup, 0)
        if wu > nf - 10:
            raise ValueError(f"warmup={self.warmup!r} leaves fewer than 10 frames; allowed "
                             f"0..{nf - 10} for n_frames={nf}")


        fixed = dict(mode=mode, n_gpus=n, n_frames=nf, render_jitter=jitter, cpu_time=cpu,
                     composite_time=comp, transfer_time=xfer, history_copy_time=hist, imbalance=imb0,
                     imbalance_change=dimb, geometry_fraction=geo, seed=int(seed), pacing=bool(pacing),
                     split_lag=lag, render_ahead=q, warmup=wu,
                     render_time=None if render_time is None else float(per_gpu[0]),
                     render_time_per_gpu=(None if render_time_per_gpu is None
                                          else tuple(float(t) for t in per_gpu)))
        for name, value in fixed.items():
            object.__setattr__(self, name, value)

    @property
    def per_gpu_render_time(self):
        """Whole-frame render time of each GPU, s (``n_gpus`` entries)."""
        if self.render_time_per_gpu is not None:
            return np.array(self.render_time_per_gpu, dtype=float)
        return np.full(self.n_gpus, self.render_time)


def simulate_frames(mode, n_gpus=None, render_time=None, render_jitter=0.0, cpu_time=1e-3,
                    composite_time=0.0, n_frames=600, seed=0, render_time_per_gpu=None,
                    pacing=False, render_ahead=None, transfer_time=0.0, imbalance=0.0,
                    imbalance_change=0.0, split_lag=None, geometry_fraction=0.0,
                    history_copy_time=0.0, warmup=None):
    """Discrete-event model of multi-GPU frame delivery.

    The pipeline, frame by frame (k = 0, 1, ...):

    1. **CPU.** The CPU begins frame k (and samples input) at
       ``input_k = max(submit_{k-1}, ready_{k-q})`` and submits it ``cpu_time`` later:
       it may run at most ``q = render_ahead`` frames ahead of the GPUs, like DXGI's
       maximum frame latency (default 3 queued frames; Microsoft,
       IDXGIDevice1::SetMaximumFrameLatency).
    2. **GPUs.** Frame k's work is ``render_time * j_k`` on one GPU, with ``j_k``
       lognormal of mean 1 and coefficient of variation ``render_jitter``.

       * AFR: GPU ``k mod N`` renders the whole frame, starting when both the frame is
         submitted and that GPU is free; a frame from a GPU other than GPU 0 (the
         display GPU) is ready ``transfer_time`` after it finishes.
       * SFR: every GPU renders one horizontal band. Work is spread over the screen
         with density ``1 + a_k cos(pi y)`` (``a_k = imbalance`` at first, then a
         random walk of step ``imbalance_change``). With ``split_lag=None`` the bands
         are equal (a *fixed* imbalance: the heavier band takes
         ``(1/2 + a/pi) * render_time`` for N = 2); with ``split_lag = L`` the driver
         moves the split so that frame k-L's load would have been balanced, as
         NVIDIA's SFR "is adjusted dynamically as the workload moves between the
         GPUs" (NVIDIA Quadro User's Guide). ``geometry_fraction`` of each frame's
         work is repeated by every GPU (vertex work that clipping to the band does
         not remove: "Avoids both GPUs processing all vertices - but not perfect",
         NVIDIA GDC 2005). The frame is ready when the slowest band is done (plus
         ``transfer_time`` for foreign bands) plus ``composite_time`` on GPU 0.
       * Scan-line interleave: as SFR with a perfect 1/N split of the pixel work.
    3. **Display.** Frames are shown in order: ``display_k = max(ready_k,
       display_{k-1})``. With ``pacing=True`` a frame is held back until
       ``display_{k-1} + 0.95 * T_k``, where ``T_k`` is the mean interval of the
       last max(N, 2) ready times: frame metering, which NVIDIA uses to "deliberately
       display frames in a more consistent manner" (Tom's Hardware, Challenging FPS,
       2013, p.13) and AMD added in Catalyst 13.8 (July/August 2013), "inserting
       small delays where necessary in order to display them at a consistent
       interval" (Tom's Hardware, Catalyst 13.8 article). The delay is latency traded
       for evenness; the 0.95 keeps the hold-back from accumulating.

    Why AFR micro-stutters: the GPUs work independently, so frames are evenly spaced
    on screen only if the GPUs *start* evenly spaced, i.e. only if the CPU hands
    frames over evenly. A fast CPU submits frames k and k+1 almost together, both
    GPUs start almost together and finish almost together: intervals alternate
    ``cpu_time`` and ``render_time - cpu_time`` (for N = 2) at the full mean rate
    of N / render_time. Nothing in the pipeline pulls the two GPUs apart again, so
    the pattern persists; a frame counter reports double the frame rate while the
    eye sees pairs of frames ("runts"). Jitter in render times moves the offset
    randomly, so in this model it can *lower* the AFR stutter index: the zero-jitter,
    fast-CPU lockstep is the worst case, with intervals ``c, R - c`` and index
    ``2 (R - 2c) / R``. SFR and scan-line interleave do not stutter this way (each frame
    uses every GPU) but lose to imbalance and compositing.

    Why AFR adds latency: to keep N GPUs busy N frames must be in flight at once, so
    a frame takes ``render_time`` = N mean intervals from input to display, where a
    single GPU running at the same frame rate would take one (see
    :func:`afr_latency_penalty`).

    Parameters
    ----------
    mode : {"scanline", "sfr", "afr"} or FrameScenario
        The rendering mode; or a whole :class:`FrameScenario`, given alone.
    n_gpus : int
        1 or more; with 1 every mode is the same single-GPU baseline.
    render_time : float, optional
        Seconds one GPU needs for one whole frame. Required unless
        ``render_time_per_gpu`` is given.
    render_jitter : float, default 0
        Coefficient of variation of the per-frame work, >= 0.
    cpu_time : float, default 1e-3
        CPU seconds to build and submit one frame, >= 0.
    composite_time : float, default 0
        SFR/scan-line: seconds on GPU 0 to merge the bands, >= 0.
    n_frames : int, default 600
        Frames to simulate, >= 20.
    seed : int, default 0
        Seed of :func:`numpy.random.default_rng`; same seed, same result.
    render_time_per_gpu : sequence of float, optional
        Whole-frame render time of each GPU, for mixed cards (CrossFire paired
        different models of one family; the seed article and Tom's Hardware,
        "Multi-GPU Setups: The Basics Of CrossFire And SLI", p.6: a CrossFire pair
        "is at best only twice as fast as its weakest card"). Length ``n_gpus``.
    pacing : bool, default False
        Frame metering on/off.
    render_ahead : int, optional
        Frames the CPU may queue ahead, >= 1. Default 3 (DXGI), raised to N + 1 for
        AFR with N >= 3 so that every GPU can be fed (NVIDIA GDC 2005: for AFR
        "increase frames buffered").
    transfer_time : float, default 0
        Seconds to copy a foreign frame (AFR) or the foreign bands (SFR) to GPU 0;
        :func:`frame_copy_time` computes it from a link.
    imbalance : float, default 0
        SFR: initial load asymmetry ``a`` in [0, 1).
    imbalance_change : float, default 0
        SFR: per-frame standard deviation of the change in ``a`` (a random walk
        clipped to ``|a| <= 0.95``), >= 0.
    split_lag : int, optional
        SFR: ``None`` for an even static split, or the number of frames (>= 1) by
        which the adaptive split lags the load.
    geometry_fraction : float, default 0
        SFR/scan-line: fraction of the work every GPU repeats, in [0, 1).
    history_copy_time : float, default 0
        AFR with temporal effects: frame k cannot finish sooner than this after frame
        k-1 is ready (copy of the history surface plus the pass that reads it).
    warmup : int, optional
        Frames excluded from the statistics; default ``n_frames // 10``.

    Returns
    -------
    FrameTimeline
        Per-frame times, intervals, latency, and statistics (``mean_fps``,
        ``interval_std``, ``interval_p99``, ``stutter_index``, ``mean_latency``).

    Examples
    --------
    >>> r = simulate_frames("afr", 2, render_time=0.030, cpu_time=0.002)
    >>> round(r.mean_fps, 2)                    # twice 1 / 30 ms
    66.67
    >>> [round(x * 1e3) for x in r.intervals[100:104]]   # ms: the micro-stutter
    [2, 28, 2, 28]
    """
    if isinstance(mode, FrameScenario):
        given = [k for k, v in zip(_SIM_PARAMS, (n_gpus, render_time, render_jitter, cpu_time, composite_time,
                                                n_frames, seed, render_time_per_gpu, pacing, render_ahead,
                                                transfer_time, imbalance, imbalance_change, split_lag,
                                                geometry_fraction, history_copy_time, warmup))
                 if v is not _SIM_DEFAULTS[k]]
        if given:
            raise ValueError(f"simulate_frames got a FrameScenario and also {', '.join(given)}; "
                             "give the scenario alone (dataclasses.replace changes a field)")
        sc = mode
    else:
        sc = FrameScenario(mode, n_gpus, render_time, render_jitter, cpu_time, composite_time, n_frames,
                           seed, render_time_per_gpu, pacing, render_ahead, transfer_time, imbalance,
                           imbalance_change, split_lag, geometry_fraction, history_copy_time, warmup)
    mode, n, nf, seed, pacing, lag = sc.mode, sc.n_gpus, sc.n_frames, sc.seed, sc.pacing, sc.split_lag
    jitter, cpu, comp, xfer, hist = (sc.render_jitter, sc.cpu_time, sc.composite_time, sc.transfer_time,
                                     sc.history_copy_time)
    imb0, dimb, geo, q, wu = sc.imbalance, sc.imbalance_change, sc.geometry_fraction, sc.render_ahead, sc.warmup
    per_gpu = sc.per_gpu_render_time
    rng = np.random.default_rng(seed)
    if jitter > 0:
        sigma2 = np.log1p(jitter ** 2)
        work = rng.lognormal(-0.5 * sigma2, np.sqrt(sigma2), nf)
    else:
        work = np.ones(nf)
    if mode == "sfr":
        steps = rng.standard_normal(nf) * dimb
        a = np.empty(nf)
        a[0] = imb0
        for k in range(1, nf):
            a[k] = np.clip(a[k - 1] + steps[k], -0.95, 0.95)

    speed = 1.0 / per_gpu
    cum_speed = np.concatenate([[0.0], np.cumsum(speed)]) / speed.sum()
    even = np.arange(n + 1) / n

    inp = np.empty(nf)
    sub = np.empty(nf)
    ready = np.empty(nf)
    disp = np.empty(nf)
    gpu_of = np.full(nf, -1, dtype=np.int64)
    gpu_free = np.zeros(n)
    window = max(n, 2)

    for k in range(nf):
        begin = sub[k - 1] if k else 0.0
        if k >= q:
            begin = max(begin, ready[k - q])
        inp[k] = begin
        sub[k] = begin + cpu

        if mode == "afr" or n == 1:
            g = k % n
            gpu_of[k] = g if mode == "afr" else -1
            start = max(sub[k], gpu_free[g])
            done = start + per_gpu[g] * work[k]
            if mode == "afr" and k and hist > 0:
                done = max(done, ready[k - 1] + hist)
            gpu_free[g] = done
            ready[k] = done + (xfer if (g != 0 and n > 1) else 0.0)
        else:
            if mode == "scanline":
                frac = np.full(n, 1.0 / n)   # every N-th line: balanced, whatever the speeds
            else:
                ak = a[k]
                if lag is None:
                    bounds = even
                else:
                    ref = a[max(k - lag, 0)]
                    bounds = _imbalance_split(cum_speed, ref)
                    bounds[0], bounds[-1] = 0.0, 1.0
                frac = np.diff(_imbalance_cdf(bounds, ak))
            part = per_gpu * work[k] * (geo + (1.0 - geo) * frac)
            starts = np.maximum(sub[k], gpu_free)
            done = starts + part
            arrive = done + np.where(np.arange(n) == 0, 0.0, xfer)
            ready[k] = arrive.max() + comp
            gpu_free = done
            gpu_free[0] = max(done[0], ready[k])   # compositing occupies the display GPU

        shown = ready[k] if k == 0 else max(ready[k], disp[k - 1])
        if pacing and k >= window:
            target = (ready[k] - ready[k - window]) / window
            shown = max(shown, disp[k - 1] + _PACING_MARGIN * target)
        disp[k] = shown

    return FrameTimeline(mode=mode, n_gpus=n, input_times=inp, submit_times=sub,
                         ready_times=ready, display_times=disp, gpu=gpu_of, warmup=wu)



#: simulate_frames's parameters after ``mode``, and their default objects (compared by identity).
_SIM_PARAMS = simulate_frames.__code__.co_varnames[1:simulate_frames.__code__.co_argcount]
_SIM_DEFAULTS = dict(zip(_SIM_PARAMS, simulate_frames.__defaults__))

@dataclass(frozen=True)
class AFRLatency:
    """Steady-state AFR latency next to single-GPU alternatives (:func:`afr_latency_penalty`).

    Attributes
    ----------
    n_gpus : int
    frame_interval : float
        AFR displayed frame interval, s: ``render_time / N``.
    afr_latency : float
        Input-to-display latency of AFR, s: ``max(q, N) * frame_interval``.
    single_same_fps_latency : float
        A single GPU N times faster (same frame rate), same queue: ``q * frame_interval``.
    single_same_card_latency : float
        One of the AFR GPUs alone: ``q * render_time``.
    """

    n_gpus: int
    frame_interval: float
    afr_latency: float
    single_same_fps_latency: float
    single_same_card_latency: float

    @property
    def latency_frames(self) -> float:
        """AFR latency in AFR frame intervals (N with a minimal queue)."""
        return self.afr_latency / self.frame_interval

    @property
    def penalty(self) -> float:
        """AFR latency / single-GPU latency at the same frame rate (N with a minimal queue)."""
        return self.afr_latency / self.single_same_fps_latency


def afr_latency_penalty(n_gpus, render_time, render_ahead=1):
    """Why AFR raises input latency: the closed form behind :func:`simulate_frames`.

    GPU-bound steady state, CPU time negligible, no jitter. With N GPUs each needing
    ``render_time`` R per frame, AFR shows a frame every ``T = R / N``; but each
    frame still takes R to render, and N frames must be in flight to keep N GPUs
    busy, so the CPU queue is effectively at least N deep: latency
    ``max(q, N) * T``, i.e. N frame intervals = R with a minimal queue. A single GPU
    N times faster reaches the same frame rate with ``q * T`` (one interval with
    ``q = 1``). AFR therefore multiplies frame rate but leaves latency where a
    single one of its GPUs had it: more frames, not fresher frames. Hexus, "NVIDIA's
    SLI - An Introduction" (2004), p.3, on AFR's buffering: "there can be a lag
    between player input and render output. That's extra latency and something that
    can't be overcome in AFR mode".

    Parameters
    ----------
    n_gpus : int
        >= 1.
    render_time : float
        Seconds per whole frame on one GPU, > 0.
    render_ahead : int, default 1
        CPU queue depth ``q`` (>= 1) used for the single-GPU comparisons and as the
        floor for AFR.

    Returns
    -------
    AFRLatency
    """
    n = as_count("n_gpus", n_gpus, 1)
    r = float(as_positive("render_time", render_time, "s"))
    q = as_count("render_ahead", render_ahead, 1)
    t = r / n
    return AFRLatency(n_gpus=n, frame_interval=t, afr_latency=max(q, n) * t,
                      single_same_fps_latency=q * t, single_same_card_latency=q * r)
