"""What the consumer multi-GPU links carried: bytes per frame, link demand, copy times.

Part of :mod:`interconnect.rendering` (which re-exports every name here; its docstring
describes the rendering modes and the sources). SI units: bytes, seconds, bytes/s per
direction.
"""

from __future__ import annotations

import numpy as np

from .._validate import as_count, as_fraction, as_positive, choice
from ..links import Link, get_link

__all__ = [
    "RESOLUTIONS", "MODES", "resolution_size", "frame_bytes", "transfer_fraction",
    "transfer_bytes_per_frame", "transfer_demand", "link_utilisation", "max_fps_over_link",
    "frame_copy_time", "scaled_render_time", "temporal_copy_bytes_per_s",
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
