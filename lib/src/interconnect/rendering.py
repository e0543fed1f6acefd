"""Rendering: what the consumer multi-GPU links carried, and what it did to frame timing.

Before GPUs were joined to train models they were joined to draw games. This module
models that era, from 3dfx's Scan-Line Interleave (1998) through NVIDIA SLI and
ATI/AMD CrossFire (2004-2005) to AMD's bridgeless XDMA CrossFire (2013):

* **What crosses the bridge.** Finished pixels, not geometry. Every GPU receives the
  whole command stream from the CPU over its own PCIe/PCI slot; the bridge (or, for
  XDMA, the PCIe bus) carries rendered scan lines, screen portions or whole frames
  from the GPUs that do not drive the monitor to the one that does
  (:func:`frame_bytes`, :func:`transfer_demand`, :func:`link_utilisation`,
  :func:`max_fps_over_link`, :func:`frame_copy_time`).
* **What it does to frame timing.** A small discrete-event model of CPU submission,
  per-GPU rendering, in-order presentation and optional frame metering
  (:func:`simulate_frames`), which reproduces the AFR scaling, the AFR micro-stutter
  and the AFR latency penalty (:func:`afr_latency_penalty`), and why temporal effects
  fight AFR (:func:`temporal_copy_bytes_per_s`).
* **What two GPUs on one board cost.** Cited power and clock figures for four
  dual-GPU boards next to the single cards they doubled (:func:`dual_gpu_boards`,
  :func:`dual_gpu_board`).

Rendering modes
---------------
``"scanline"``
    3dfx Scan-Line Interleave (Voodoo2, 1998): two boards joined by a ribbon cable,
    each drawing alternate horizontal scan lines; SLI raised the maximum resolution to
    1024x768 (Wikipedia "3dfx Interactive", section SLI, mirrored at
    liquisearch.com/3dfx_interactive/sli; "Scan-Line Interleave", mirrored at
    friendlywiki.com). Load balance is essentially perfect because every board gets
    every N-th line of every screen region.
``"sfr"``
    Split-frame rendering: "every frame is split horizontally into two portions ...
    The actual division of the frame is dynamically adjusted according to the load of
    the two GPUs" (NVIDIA Quadro SLI Frame Rendering note, June 2011, compucon.co.nz;
    NVIDIA Quadro/ForceWare User's Guide 2005-2006, ch. "Using NVIDIA SLI"). The
    display GPU gets the other N-1 portions back over the link and composites.
``"afr"``
    Alternate-frame rendering: "each frame is exclusively and sequentially processed
    by alternating GPUs" (same NVIDIA sources); frame k goes to GPU k mod N and N-1 of
    every N finished frames come from another GPU.

Units are SI throughout: bytes, seconds, bytes/s (per direction, as in
:mod:`interconnect.links`), watts, hertz.

References
----------
NVIDIA, "SLI" (GDC 2005 presentation, http.download.nvidia.com/developer/presentations/
2005/GDC/Audio_and_Slides/SLI.zip): AFR pipeline, "increase frames buffered to 2",
SFR load balancing, "don't reuse data across frames".
NVIDIA GameWorks documentation, "SLI: Avoiding Common Causes of Inter-frame
Dependencies" (docs.nvidia.com/gameworks/content/technologies/desktop/
sli_avoiding_dependencies.htm).
NVIDIA GeForce SLI FAQ (geforce.co.uk/hardware/technology/sli/faq): the SLI connector
"transmits synchronization, display, and pixel data ... up to 1GB/s".
AnandTech, "AMD Catalyst 13.8 frame pacing" (anandtech.com/show/7195, p.4): the
"delta percentage" frame-pacing metric.
Tom's Hardware, "Challenging FPS: Testing SLI And CrossFire Using Video Capture" (2013,
reviews/graphics-card-benchmarking-frame-rate,3466-13) and "AMD's Catalyst 13.8 Beta
Driver Introduces Frame Pacing" (reviews/catalyst-13.8-frame-pacing-crossfire,3595).
Microsoft, IDXGIDevice1::SetMaximumFrameLatency (default 3 queued frames).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ._validate import as_count, as_fraction, as_nonnegative, as_positive, choice
from .links import Link, get_link

__all__ = [
    "RESOLUTIONS", "MODES", "resolution_size", "frame_bytes", "transfer_fraction",
    "transfer_bytes_per_frame", "transfer_demand", "link_utilisation",
    "max_fps_over_link", "frame_copy_time", "scaled_render_time", "FrameTimeline", "simulate_frames",
    "AFRLatency", "afr_latency_penalty", "temporal_copy_bytes_per_s",
    "DualGPUBoard", "dual_gpu_boards", "dual_gpu_board", "dual_board_table",
    "plot_frame_intervals",
]

#: Named resolutions, (width, height) in pixels. "1024x768" is the Voodoo2 SLI maximum.
RESOLUTIONS = {
    "1024x768": (1024, 768),
    "1080p": (1920, 1080),
    "1440p": (2560, 1440),
    "4K": (3840, 2160),
    "5K": (5120, 2880),
    "8K": (7680, 4320),
}

#: Rendering modes understood by the functions here (see the module docstring).
MODES = ("scanline", "sfr", "afr")

_RES_KEYS = {k.lower(): k for k in RESOLUTIONS}


# ----------------------------------------------------------------------------------
# Frame sizes and link demand
# ----------------------------------------------------------------------------------
def resolution_size(resolution):
    """(width, height) in pixels of a named resolution or a ``(width, height)`` pair.

    Parameters
    ----------
    resolution : str or (int, int)
        A key of :data:`RESOLUTIONS` (case-insensitive, e.g. ``"4K"``, ``"1080p"``) or
        an explicit pair of positive integers.

    Returns
    -------
    (int, int)

    Raises
    ------
    ValueError
        For an unknown name or a pair that is not two positive integers.
    """
    if isinstance(resolution, str):
        key = resolution.strip().lower()
        if key not in _RES_KEYS:
            raise ValueError(f"resolution={resolution!r} is unknown; allowed: "
                             f"{', '.join(RESOLUTIONS)} or a (width, height) pair")
        return RESOLUTIONS[_RES_KEYS[key]]
    try:
        width, height = resolution
    except (TypeError, ValueError):
        raise ValueError(f"resolution={resolution!r} is neither a name "
                         f"({', '.join(RESOLUTIONS)}) nor a (width, height) pair") from None
    return as_count("width", width, 1), as_count("height", height, 1)


def frame_bytes(width, height, bytes_per_pixel=4):
    """Size of one finished colour frame buffer, bytes.

    ``width * height * bytes_per_pixel``: what has to cross a bridge when a whole
    frame rendered on one GPU is shown by another.

    Parameters
    ----------
    width, height : int or array of int
        Pixels, >= 1.
    bytes_per_pixel : float or array, default 4
        Bytes per pixel of the displayed surface: 4 for 8-bit RGBA, 2 for the 16-bit
        (RGB565) colour of the Voodoo2, whose pipeline had "pure 16-bit output"
        (Wikipedia "Voodoo3", Architecture and Performance, mirrored at
        liquisearch.com), 8 for an FP16 RGBA surface.

    Returns
    -------
    float or ndarray
        Bytes per frame.

    Examples
    --------
    >>> frame_bytes(1920, 1080)
    8294400.0
    >>> frame_bytes(*RESOLUTIONS["4K"]) / 1e6
    33.1776
    """
    w = as_count("width", width, 1)
    h = as_count("height", height, 1)
    bpp = as_positive("bytes_per_pixel", bytes_per_pixel, "bytes")
    out = np.multiply(np.multiply(w, h, dtype=float), bpp)
    return float(out) if np.ndim(out) == 0 else out


def _bytes_for(resolution, bytes_per_pixel):
    w, h = resolution_size(resolution)
    return frame_bytes(w, h, bytes_per_pixel)


def transfer_fraction(mode, n_gpus, display_share=None):
    """Fraction of each displayed frame that crosses the inter-GPU link.

    Parameters
    ----------
    mode : {"scanline", "sfr", "afr"}
    n_gpus : int or array of int
        GPUs (boards) sharing the work, >= 2.
    display_share : float, optional
        SFR only: fraction of the screen the display GPU renders itself, in (0, 1).
        Default ``1 / n_gpus`` (even split).

    Returns
    -------
    float or ndarray
        ``(n_gpus - 1) / n_gpus`` for all three modes with an even split, or
        ``1 - display_share`` for SFR with an uneven one.

        * scan-line interleave: the other boards' lines reach the board that drives
          the monitor (2 boards: half the lines);
        * SFR: N-1 of N screen portions come back to the display GPU;
        * AFR: N-1 of every N whole frames were rendered elsewhere.

        The average is the same; what differs is the granularity (lines, strips,
        whole frames) and therefore how bursty the traffic is and how much latency
        one transfer adds (see :func:`frame_copy_time`).
    """
    mode = choice("mode", mode, MODES)
    n = as_count("n_gpus", n_gpus, 2)
    if display_share is not None:
        if mode != "sfr":
            raise ValueError(f"display_share={display_share!r} is only meaningful for "
                             f"mode='sfr', not mode={mode!r}")
        share = as_fraction("display_share", display_share, 0.0, 1.0)
        if np.any(np.asarray(share) >= 1.0):
            raise ValueError(f"display_share={display_share!r} is out of range; allowed "
                             "(0, 1): at 1 nothing is split")
        return 1.0 - share
    out = (np.asarray(n, dtype=float) - 1.0) / np.asarray(n, dtype=float)
    return float(out) if np.ndim(out) == 0 else out


def transfer_bytes_per_frame(mode, n_gpus, resolution, bytes_per_pixel=4, display_share=None):
    """Bytes that cross the link per displayed frame: ``transfer_fraction * frame_bytes``.

    Parameters are as in :func:`transfer_fraction` and :func:`frame_bytes`;
    ``resolution`` is a name from :data:`RESOLUTIONS` or a ``(width, height)`` pair.

    Returns
    -------
    float or ndarray
        Bytes per displayed frame.
    """
    return (transfer_fraction(mode, n_gpus, display_share)
            * _bytes_for(resolution, bytes_per_pixel))


def transfer_demand(mode, n_gpus, resolution, fps, bytes_per_pixel=4, display_share=None):
    """Inter-GPU bandwidth a rendering mode needs, bytes/s into the display GPU.

    ``transfer_fraction(mode, n_gpus) * frame_bytes * fps``. For AFR with N GPUs
    this is ``(N - 1) / N * fps * frame_bytes``; for two-way SFR or scan-line
    interleave it is half a frame per displayed frame.

    What crosses the link is finished colour pixels only: "The SLI connector is a
    proprietary link between GPUs that transmits synchronization, display, and pixel
    data" (NVIDIA GeForce SLI FAQ); in AFR "completed frames are sent ... to the
    master card for final output", and with XDMA the same frames travel GPU-to-GPU
    over PCIe through a DMA engine in the display block (Tom's Hardware, R9 290X
    review p.2, "CrossFire: Farewell Bridge Connector; Hello DMA"; AnandTech R9 290X
    review p.4). Geometry and textures are not sent across: each GPU receives the
    full command stream over its own slot and keeps its own copy of every resource
    (which is also why memory does not add up in SLI/CrossFire). Render targets that
    survive from one frame to the next are the exception: see
    :func:`temporal_copy_bytes_per_s`.

    Parameters
    ----------
    mode : {"scanline", "sfr", "afr"}
    n_gpus : int or array of int
        >= 2.
    resolution : str or (int, int)
        Name in :data:`RESOLUTIONS` or ``(width, height)``.
    fps : float or array
        Displayed frames per second, > 0. For 3dfx scan-line interleave pass the
        monitor refresh rate: the slave's lines were merged during scan-out, every
        refresh (model assumption; the Voodoo2 cable protocol is not documented in
        the sources used here).
    bytes_per_pixel : float, default 4
    display_share : float, optional
        SFR only, see :func:`transfer_fraction`.

    Returns
    -------
    float or ndarray
        Bytes/s, per direction (the traffic is one-way, towards the display GPU).

    Examples
    --------
    >>> transfer_demand("afr", 2, "4K", 60) / 1e9    # 33.2 MB x 60 / 2
    0.995328
    """
    rate = as_positive("fps", fps, "frames/s")
    return transfer_bytes_per_frame(mode, n_gpus, resolution, bytes_per_pixel,
                                    display_share) * rate


def _as_link(link):
    if isinstance(link, Link):
        return link
    if isinstance(link, str):
        return get_link(link)
    raise ValueError(f"link={link!r} is neither a Link nor a link name such as 'sli', "
                     "'sli-hb', 'crossfire-xdma' or 'pcie3x16'")


def link_utilisation(mode, link, n_gpus, resolution, fps, bytes_per_pixel=4):
    """Fraction of a link's per-direction bandwidth a rendering mode needs.

    ``transfer_demand(...) / link.bandwidth``. Above 1 the link cannot carry the
    frames at that rate; near 1 every transfer is long enough to add visible latency.

    Parameters
    ----------
    mode : {"scanline", "sfr", "afr"}
    link : str or Link
        A catalog name from :mod:`interconnect.links` (``"sli"``, ``"sli-hb"``,
        ``"crossfire"``, ``"crossfire-xdma"``, ``"pcie3x16"``, ``"nvlink-bridge-2080ti"``
        ...) or a :class:`~interconnect.links.Link`. The SLI and CrossFire bandwidths
        are uncertain (factor ~2; read ``get_link("sli").notes``).
    n_gpus : int
        >= 2.
    resolution : str or (int, int)
    fps : float or array
        Displayed frames per second.
    bytes_per_pixel : float, default 4

    Returns
    -------
    float or ndarray
        Dimensionless utilisation.

    Examples
    --------
    >>> round(link_utilisation("afr", "sli", 3, "4K", 60), 3)   # 3-way SLI at 4K/60
    1.327
    """
    lk = _as_link(link)
    return transfer_demand(mode, n_gpus, resolution, fps, bytes_per_pixel) / lk.bandwidth


def max_fps_over_link(mode, link, n_gpus, resolution, bytes_per_pixel=4):
    """Highest displayed frame rate the link can feed, frames/s.

    ``link.bandwidth / transfer_bytes_per_frame(...)``: the rate at which
    :func:`link_utilisation` reaches 1. A bound from the link alone; the GPUs may be
    slower.

    Parameters
    ----------
    mode, link, n_gpus, resolution, bytes_per_pixel
        As in :func:`link_utilisation`.

    Returns
    -------
    float or ndarray
        Frames per second.
    """
    lk = _as_link(link)
    return lk.bandwidth / transfer_bytes_per_frame(mode, n_gpus, resolution, bytes_per_pixel)


def frame_copy_time(mode, link, n_gpus, resolution, bytes_per_pixel=4):
    """Time one transfer occupies the link, s: the latency a copy adds to a frame.

    * AFR: one whole frame, ``frame_bytes / bandwidth``, for every frame not rendered
      on the display GPU;
    * SFR and scan-line interleave: the N-1 foreign portions of one frame, all
      arriving over the display GPU's link, ``(N - 1) / N * frame_bytes / bandwidth``.

    Pass the result as ``transfer_time`` to :func:`simulate_frames`. It ignores the
    link's latency (microseconds, negligible next to milliseconds of payload) and
    assumes the link is otherwise idle.

    Returns
    -------
    float
        Seconds.

    Examples
    --------
    >>> round(frame_copy_time("afr", "sli", 2, "4K") * 1e3, 1)   # ms, at 1 GB/s
    33.2
    """
    mode = choice("mode", mode, MODES)
    lk = _as_link(link)
    nbytes = _bytes_for(resolution, bytes_per_pixel)
    if mode == "afr":
        as_count("n_gpus", n_gpus, 2)
        return nbytes / lk.bandwidth
    return transfer_fraction(mode, n_gpus) * nbytes / lk.bandwidth


def scaled_render_time(resolution, base_time=10e-3, base_resolution="1080p"):
    """Render time of one frame on one GPU, scaled with the pixel count, s.

    The simplest fill-rate-bound model: a frame that takes ``base_time`` at
    ``base_resolution`` takes ``base_time * pixels / base_pixels`` at ``resolution``
    (4K has four times the pixels of 1080p, so four times the time). Geometry and
    other per-frame costs that do not scale with pixels are ignored.

    Parameters
    ----------
    resolution, base_resolution : str or (int, int)
        Named resolutions (:data:`RESOLUTIONS`) or ``(width, height)`` pairs.
    base_time : float
        Seconds for one frame at ``base_resolution`` (default 10 ms at 1080p, the
        chapter's assumption).

    Returns
    -------
    float
        Seconds.

    Examples
    --------
    >>> round(scaled_render_time("4K") * 1e3, 6)   # ms: 4 x the pixels of 1080p
    40.0
    """
    if not base_time > 0:
        raise ValueError(f"base_time={base_time!r} must be a positive number of seconds")
    w, h = resolution_size(resolution)
    bw, bh = resolution_size(base_resolution)
    return base_time * (w * h) / (bw * bh)


def temporal_copy_bytes_per_s(n_gpus, resolution, fps, bytes_per_pixel=4, history_buffers=1):
    """Extra AFR traffic for effects that read the previous frame, bytes/s.

    Temporal anti-aliasing, motion blur that uses the last frame, temporal upscaling
    and reprojection read a "history" surface written by frame k-1 while drawing
    frame k. In AFR frame k-1 was drawn on a *different* GPU (k mod N != (k-1) mod N
    for every N >= 2), so every frame needs the history copied across, whatever N
    is: ``history_buffers * frame_bytes * fps``, on top of
    :func:`transfer_demand`. NVIDIA's guidance is the same in words: render targets
    that are not cleared each frame must be preserved, "the driver's only option ...
    is to copy the RT contents to all the other GPUs", causing "large data transfers
    between GPUs" and stalls (NVIDIA GameWorks, "SLI: Avoiding Common Causes of
    Inter-frame Dependencies"); "Don't reuse data across frames - make frames self
    sufficient" (NVIDIA, GDC 2005 SLI talk).

    The copy also serialises the GPUs: frame k's resolve cannot finish before frame
    k-1 is done and copied, which caps AFR at one frame per (copy + dependent pass);
    model it with ``history_copy_time`` in :func:`simulate_frames`.

    Parameters
    ----------
    n_gpus : int
        >= 2 (with one GPU nothing is copied).
    resolution : str or (int, int)
    fps : float or array
        Displayed frames per second.
    bytes_per_pixel : float, default 4
        Of the history surface (8 for an FP16 RGBA history, common for TAA; 4 for
        8-bit colour). The format is engine-specific; no single value is cited.
    history_buffers : float, default 1
        Surfaces carried across frames (colour history, plus e.g. depth or motion
        vectors if they are reused).

    Returns
    -------
    float or ndarray
        Bytes/s, per direction, into each GPU in turn.
    """
    as_count("n_gpus", n_gpus, 2)
    rate = as_positive("fps", fps, "frames/s")
    nbuf = as_positive("history_buffers", history_buffers)
    return _bytes_for(resolution, bytes_per_pixel) * rate * nbuf


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
        """Micro-stutter index: mean |interval_k - interval_{k-1}| / mean interval.

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


def simulate_frames(mode, n_gpus, render_time=None, render_jitter=0.0, cpu_time=1e-3,
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
    mode : {"scanline", "sfr", "afr"}
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
        clipped to |a| <= 0.95), >= 0.
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
    mode = choice("mode", mode, MODES)
    n = as_count("n_gpus", n_gpus, 1)
    nf = as_count("n_frames", n_frames, 20)
    jitter = float(as_nonnegative("render_jitter", render_jitter))
    cpu = float(as_nonnegative("cpu_time", cpu_time, "s"))
    comp = float(as_nonnegative("composite_time", composite_time, "s"))
    xfer = float(as_nonnegative("transfer_time", transfer_time, "s"))
    hist = float(as_nonnegative("history_copy_time", history_copy_time, "s"))
    imb0 = float(as_nonnegative("imbalance", imbalance))
    if imb0 >= 1.0:
        raise ValueError(f"imbalance={imbalance!r} is out of range; allowed [0, 1) "
                         "(at 1 the light band would need no work at all)")
    dimb = float(as_nonnegative("imbalance_change", imbalance_change))
    geo = float(as_nonnegative("geometry_fraction", geometry_fraction))
    if geo >= 1.0:
        raise ValueError(f"geometry_fraction={geometry_fraction!r} is out of range; "
                         "allowed [0, 1)")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed={seed!r} is not allowed; seed must be an integer >= 0")
    if not isinstance(pacing, (bool, np.bool_)):
        raise ValueError(f"pacing={pacing!r} is not allowed; pacing must be True or False")
    lag = None if split_lag is None else as_count("split_lag", split_lag, 1)
    if mode != "sfr" and (imb0 > 0 or dimb > 0 or lag is not None):
        raise ValueError(f"imbalance/imbalance_change/split_lag apply to mode='sfr' only, "
                         f"not mode={mode!r}")
    if mode != "afr" and hist > 0:
        raise ValueError(f"history_copy_time={history_copy_time!r} applies to mode='afr' "
                         f"only, not mode={mode!r}")

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

    if render_ahead is None:
        q = max(3, n + 1) if (mode == "afr" and n >= 3) else 3
    else:
        q = as_count("render_ahead", render_ahead, 1)
    wu = nf // 10 if warmup is None else as_count("warmup", warmup, 0)
    if wu > nf - 10:
        raise ValueError(f"warmup={warmup!r} leaves fewer than 10 frames; allowed "
                         f"0..{nf - 10} for n_frames={nf}")

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


# ----------------------------------------------------------------------------------
# Dual-GPU boards: power, heat, clocks
# ----------------------------------------------------------------------------------
_PCIE_SLOT_W = 75.0
_CONNECTOR_W = {"6-pin": 75.0, "8-pin": 150.0}
_PCPER_295X2 = ("PC Perspective, 'The AMD Radeon R9 295X2 8GB Graphics Card Review' p.2 "
                "(pcper.com/2014/04/the-amd-radeon-r9-295x2-8gb-graphics-card-review/2/): "
                "two 8-pin connectors are 'supposed to be limited to just 375 watts ... "
                "75 watts from the PCIe slot, 150 watts from each power connection'")


@dataclass(frozen=True)
class DualGPUBoard:
    """A dual-GPU board next to the single card whose GPU it carries twice.

    Attributes
    ----------
    name : str
        Catalog key, e.g. ``"gtx690"``.
    label, single_label : str
        The dual board and the single card compared with it.
    year : int
        Launch year of the dual board.
    gpu : str
        GPU chip (two per board).
    board_power : float
        Rated board power of the dual board, W (TDP / typical board power as stated).
    single_power : float
        Rated board power of one single card, W.
    dual_clock, single_clock : float
        GPU clocks compared, Hz (``clock_kind`` says which clock).
    clock_kind : str
        "base", "boost" or "maximum" (the clock the vendor quoted for both).
    connectors, single_connectors : tuple of str
        Auxiliary power connectors ("6-pin"/"8-pin") of each board.
    cooling : str
    source : str
        Where each figure comes from.
    notes : str
        Conflicts and unverified items.
    """

    name: str
    label: str
    single_label: str
    year: int
    gpu: str
    board_power: float
    single_power: float
    dual_clock: float
    single_clock: float
    clock_kind: str
    connectors: tuple
    single_connectors: tuple
    cooling: str
    source: str
    notes: str = ""

    @property
    def two_cards_power(self) -> float:
        """Power of two single cards, W."""
        return 2.0 * self.single_power

    @property
    def power_per_gpu(self) -> float:
        """Board power per GPU on the dual board, W."""
        return self.board_power / 2.0

    @property
    def power_saving(self) -> float:
        """Fraction of two single cards' rated power the dual board saves (negative: uses more)."""
        return 1.0 - self.board_power / self.two_cards_power

    @property
    def power_per_slot(self) -> float:
        """W through one PCIe x16 slot position for the dual board (one board, one slot)."""
        return self.board_power

    @property
    def single_power_per_slot(self) -> float:
        """W per PCIe x16 slot position with two single cards (one card per slot)."""
        return self.single_power

    @property
    def heat_ratio(self) -> float:
        """Heat one board must shed, dual / single (W per board over W per board)."""
        return self.board_power / self.single_power

    @property
    def clock_reduction(self) -> float:
        """1 - dual_clock / single_clock: how much the dual board's GPUs were slowed (negative: faster)."""
        return 1.0 - self.dual_clock / self.single_clock

    @property
    def spec_power_limit(self) -> float:
        """PCIe CEM ceiling for the board's connectors, W: 75 (slot) + 75 per 6-pin + 150 per 8-pin."""
        return _PCIE_SLOT_W + sum(_CONNECTOR_W[c] for c in self.connectors)

    @property
    def exceeds_spec(self) -> bool:
        """True if the rated board power is above :attr:`spec_power_limit`."""
        return self.board_power > self.spec_power_limit


_MHZ = 1e6
_DUAL_BOARDS = (
    DualGPUBoard(
        name="gtx590", label="NVIDIA GeForce GTX 590", single_label="GeForce GTX 580",
        year=2011, gpu="GF110 (Fermi, 40 nm)", board_power=365.0, single_power=244.0,
        dual_clock=607 * _MHZ, single_clock=772 * _MHZ, clock_kind="base",
        connectors=("8-pin", "8-pin"), single_connectors=("6-pin", "8-pin"),
        cooling="air, dual vapour chambers, one central fan",
        source=("HotHardware, 'NVIDIA GeForce GTX 590: Dual GF110s, One PCB' p.2 "
                "(hothardware.com/reviews/nvidia-geforce-gtx-590-dual-gf110s-one-pcb?page=2): "
                "GTX 580 at 772 MHz, GTX 590 at 607 MHz, 'TDP of 365W', 'a pair of 8-pin' "
                "feeds; The Tech Report GTX 590 review (core clock 'just 607MHz'); GTX 580 "
                "244 W TDP: gamegpu.com GTX 680 page ('the GeForce GTX 580 has 244 W') and "
                "Softpedia 2011-03-11 ('244 Watt TDP of a single GTX 580'); GTX 580 6+8-pin: "
                "game-debate.com"),
        notes=("CONFLICT: Guru3D lists the GTX 580 at 243 W; pre-launch reports (Softpedia "
               "citing SweClockers) said 375 W for the GTX 590, the launch figure is 365 W. "
               "HT4U via Softpedia: hand-picked low-leakage GF110 at 0.96 V vs 1.06 V on the "
               "GTX 580. amdarea51.de measured 431 W under load (not a rating).")),
    DualGPUBoard(
        name="gtx690", label="NVIDIA GeForce GTX 690", single_label="GeForce GTX 680",
        year=2012, gpu="GK104 (Kepler, 28 nm)", board_power=300.0, single_power=195.0,
        dual_clock=915 * _MHZ, single_clock=1006 * _MHZ, clock_kind="base",
        connectors=("8-pin", "8-pin"), single_connectors=("6-pin", "6-pin"),
        cooling="air, two vapour chambers, one central fan",
        source=("Guru3D, 'GeForce GTX 690 review' p.2 (guru3d.com/review/geforce-gtx-690-"
                "review/page-2): 'maximum board power of around 300W with a typical draw of "
                "260~265 Watts', 915 MHz base, 1019 MHz boost; AlienBabelTech GTX 690 p.2 "
                "(base 915 MHz, boost 1019 MHz); GTX 680: Overclock3D review (base 1006 MHz, "
                "boost 1058 MHz), amdarea51.de/ComputerBase (2x 6-pin, 'maximal 195 Watt'), "
                "Hardwareluxx ('100 Prozent, was 195 Watt'); GTX 690 two 8-pin: pcreview.co.uk "
                "launch report"),
        notes=("Boost clocks: 1019 vs 1058 MHz, a 3.7 % reduction (base: 9.0 %). X-bit labs "
               "puts the HD 7990's 375 W '25 % ... higher than specified for the GeForce GTX "
               "690', consistent with 300 W. Both GPUs sit behind a PLX PCIe 3.0 switch on "
               "the board.")),
    DualGPUBoard(
        name="hd7990", label="AMD Radeon HD 7990", single_label="Radeon HD 7970 GHz Edition",
        year=2013, gpu="Tahiti XT2 (GCN, 28 nm)", board_power=375.0, single_power=250.0,
        dual_clock=1000 * _MHZ, single_clock=1050 * _MHZ, clock_kind="boost",
        connectors=("8-pin", "8-pin"), single_connectors=("8-pin", "6-pin"),
        cooling="air, three fans over two heatsinks",
        source=("X-bit labs HD 7990 vs GTX 690 vs Titan p.2 ('specified to consume 375 watts "
                "in 3D applications'); Tom's Hardware news 'Final AMD Radeon HD 7990 "
                "Specifications' (two 8-pin, 'maximum total power consumption of 375 watts'); "
                "Legit Reviews HD 7990 review (Tahiti XT2 at 1000 MHz, 'AMD had to reduce the "
                "core clock by 50MHz versus the single GPU card'); HD 7970 GHz Edition: "
                "HotHardware review (engine 1000 MHz, boost 1050 MHz), Hexus table (TDP 250 W, "
                "8+6-pin); HD 7970 250 W maximum board power: AMD table quoted by Legit Reviews"),
        notes=("The 7990 uses the GHz Edition's Tahiti XT2 bin, so it is compared with the "
               "7970 GHz Edition (boost 1050 MHz). Against the original HD 7970 (925 MHz, "
               "also 250 W) the 7990 is clocked higher. AnandTech's own spec table (base "
               "950 MHz?) was not readable in stored copies: the 7990 base clock is "
               "UNVERIFIED. TechSpot measured its power as 'virtually identical to that of "
               "two 7970 GHz Edition cards' and found it throttles after its thermal limit "
               "(Tom's Hardware R9 295X2 review p.14).")),
    DualGPUBoard(
        name="r9-295x2", label="AMD Radeon R9 295X2", single_label="Radeon R9 290X",
        year=2014, gpu="Hawaii XT (GCN 1.1, 28 nm)", board_power=500.0, single_power=300.0,
        dual_clock=1018 * _MHZ, single_clock=1000 * _MHZ, clock_kind="maximum",
        connectors=("8-pin", "8-pin"), single_connectors=("8-pin", "6-pin"),
        cooling="Asetek closed-loop liquid cooler, 120 mm radiator, plus a fan for VRM/memory",
        source=("HotHardware, 'AMD Radeon R9 295X2 Review: Hawaii x 2' p.2 (GPUs 'up to "
                "1018MHz', 'TDP of 500 watts', closed-loop liquid cooling, dual 8-pin); "
                "AnandTech R9 295X2 review p.2 ('the first 500W card for the company', first "
                "reference card with a closed loop liquid cooler); " + _PCPER_295X2 + "; "
                "R9 290X 'up to 1000 MHz': DigitalVersus R9 290X test and pcmasters.de (AMD "
                "slide: 8+6-pin, 'Boardpower maximal 300 Watt'); Tom's Hardware R9 295X2 p.14 "
                "(specially binned GPUs)"),
        notes=("UNVERIFIED: AMD did not publish a typical board power for the R9 290X in the "
               "sources found ('AMD doesn't say exactly where that lies', DigitalVersus); "
               "300 W is the slide figure reported by pcmasters.de and equals the 8+6-pin "
               "connector ceiling. The 295X2 is the exception that proves the rule: liquid "
               "cooling let it run 1.8 % *faster* than a single air-cooled 290X, at 500 W, "
               "125 W above the 375 W its two 8-pin connectors are specified for (AMD asks "
               "for 28 A per 8-pin rail).")),
)
_BOARDS_BY_NAME = {b.name: b for b in _DUAL_BOARDS}


def dual_gpu_boards():
    """All dual-GPU boards in the table, oldest first.

    Returns
    -------
    tuple of DualGPUBoard
        GeForce GTX 590 (2011), GTX 690 (2012), Radeon HD 7990 (2013), R9 295X2 (2014),
        each with its single-card counterpart, cited figures and derived ratios
        (``power_saving``, ``clock_reduction``, ``heat_ratio``, ``exceeds_spec``).
    """
    return _DUAL_BOARDS


def dual_gpu_board(name):
    """One dual-GPU board by key: ``"gtx590"``, ``"gtx690"``, ``"hd7990"``, ``"r9-295x2"``.

    Raises
    ------
    ValueError
        For an unknown key; the message lists the keys.
    """
    if not isinstance(name, str) or name.strip().lower() not in _BOARDS_BY_NAME:
        raise ValueError(f"name={name!r} is not a known dual-GPU board; allowed: "
                         f"{', '.join(_BOARDS_BY_NAME)}")
    return _BOARDS_BY_NAME[name.strip().lower()]


def dual_board_table():
    """The comparison as a list of dicts (one per board), in SI units and ratios.

    Keys: ``name``, ``board``, ``versus``, ``year``, ``board_power_W``,
    ``two_cards_W``, ``power_per_gpu_W``, ``power_saving``, ``heat_ratio``,
    ``clock_kind``, ``dual_clock_Hz``, ``single_clock_Hz``, ``clock_reduction``,
    ``spec_limit_W``, ``exceeds_spec``, ``cooling``.
    """
    return [{"name": b.name, "board": b.label, "versus": b.single_label, "year": b.year,
             "board_power_W": b.board_power, "two_cards_W": b.two_cards_power,
             "power_per_gpu_W": b.power_per_gpu, "power_saving": b.power_saving,
             "heat_ratio": b.heat_ratio, "clock_kind": b.clock_kind,
             "dual_clock_Hz": b.dual_clock, "single_clock_Hz": b.single_clock,
             "clock_reduction": b.clock_reduction, "spec_limit_W": b.spec_power_limit,
             "exceeds_spec": b.exceeds_spec, "cooling": b.cooling}
            for b in _DUAL_BOARDS]


# ----------------------------------------------------------------------------------
# Figure
# ----------------------------------------------------------------------------------
def plot_frame_intervals(timelines, labels=None, n_show=60, title="Frame intervals on screen"):
    """Plot displayed frame intervals (ms) of one or more :class:`FrameTimeline` runs.

    Parameters
    ----------
    timelines : FrameTimeline or sequence of FrameTimeline
    labels : sequence of str, optional
        Legend entries; default "<mode>, N GPUs".
    n_show : int, default 60
        Intervals shown, starting after the warm-up.
    title : str

    Returns
    -------
    (Figure, Axes)
        Styled by :mod:`interconnect.plots`; the alt text is set as the figure label.
    """
    from .plots import LINESTYLES, PALETTE, new_figure

    runs = [timelines] if isinstance(timelines, FrameTimeline) else list(timelines)
    if not runs or not all(isinstance(r, FrameTimeline) for r in runs):
        raise ValueError("timelines must be a FrameTimeline or a non-empty sequence of them")
    count = as_count("n_show", n_show, 2)
    if labels is None:
        labels = [f"{r.mode}, {r.n_gpus} GPU{'s' if r.n_gpus > 1 else ''}" for r in runs]
    elif len(labels) != len(runs):
        raise ValueError(f"labels has {len(labels)} entries; expected {len(runs)}")
    fig, ax = new_figure(title, "displayed frame number", "frame interval (ms)")
    for i, (r, lab) in enumerate(zip(runs, labels)):
        iv = r.steady_intervals[:count] * 1e3
        ax.plot(np.arange(iv.size), iv, color=PALETTE[i % len(PALETTE)],
                linestyle=LINESTYLES[i % len(LINESTYLES)], marker=".",
                label=f"{lab}: {r.mean_fps:.0f} fps, stutter {r.stutter_index:.2f}")
    ax.legend()
    fig.set_label("Line chart of the time between consecutive displayed frames for "
                  + "; ".join(labels))
    return fig, ax
