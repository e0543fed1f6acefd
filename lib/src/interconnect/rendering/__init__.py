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
  (:func:`simulate_frames`, its inputs validated once in a :class:`FrameScenario`),
  which reproduces the AFR scaling, the AFR micro-stutter and the AFR latency penalty
  (:func:`afr_latency_penalty`), and why temporal effects fight AFR
  (:func:`temporal_copy_bytes_per_s`).
* **What two GPUs on one board cost.** Cited power and clock figures for four
  dual-GPU boards next to the single cards they doubled (:func:`dual_gpu_boards`,
  :func:`dual_gpu_board`).

The package's modules: :mod:`~interconnect.rendering.bandwidth` (what the link carries),
:mod:`~interconnect.rendering.frames` (frame timing); the board catalog lives in
:mod:`interconnect.catalog.boards` and the figure in :mod:`interconnect.viz.frames`
(``plot_frame_intervals`` is loaded on first use, so importing this package never imports
matplotlib). Every name is re-exported here.

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

Examples
--------
>>> transfer_demand("afr", 2, "4K", 60) / 1e9        # GB/s a 2-way AFR pair sends at 4K60
0.995328
>>> round(simulate_frames("afr", 2, render_time=0.030, cpu_time=0.002).mean_fps, 2)
66.67
>>> dual_gpu_board("r9-295x2").exceeds_spec
True
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..catalog.boards import DualGPUBoard, dual_board_table, dual_gpu_board, dual_gpu_boards
from .bandwidth import (
    MODES,
    RESOLUTIONS,
    frame_bytes,
    frame_copy_time,
    link_utilisation,
    max_fps_over_link,
    resolution_size,
    scaled_render_time,
    temporal_copy_bytes_per_s,
    transfer_bytes_per_frame,
    transfer_demand,
    transfer_fraction,
)
from .frames import AFRLatency, FrameScenario, FrameTimeline, afr_latency_penalty, simulate_frames

if TYPE_CHECKING:  # a lazy attribute, see __getattr__
    from ..viz.frames import plot_frame_intervals

__all__ = [
    "RESOLUTIONS", "MODES", "resolution_size", "frame_bytes", "transfer_fraction",
    "transfer_bytes_per_frame", "transfer_demand", "link_utilisation",
    "max_fps_over_link", "frame_copy_time", "scaled_render_time", "FrameTimeline", "simulate_frames",
    "FrameScenario",
    "AFRLatency", "afr_latency_penalty", "temporal_copy_bytes_per_s",
    "DualGPUBoard", "dual_gpu_boards", "dual_gpu_board", "dual_board_table",
    "plot_frame_intervals",
]


def __getattr__(name):
    # the figure lives in the presentation layer; import it (and matplotlib) on first use
    if name == "plot_frame_intervals":
        from ..viz.frames import plot_frame_intervals

        return plot_frame_intervals
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
