"""GPU Interconnects: the models behind the book.

``import interconnect as ic`` gives the layers of the stack as submodules:

* :mod:`~interconnect.units`: SI constants and formatting (per direction vs bidirectional).
* :mod:`~interconnect.links`: layer 1, a catalog of real links with sources.
* :mod:`~interconnect.signalling`: layer 1 in detail: NRZ/PAM4, encodings, FEC, reach, energy per bit.
* :mod:`~interconnect.topology`: layer 2, graphs of GPUs, switches and NICs; paths, bisection, ``topo_matrix``.
* :mod:`~interconnect.transfer`: layer 3, how bytes move (P2P, host staging, GPUDirect RDMA).
* :mod:`~interconnect.collectives`: layer 4, collective algorithms under the alpha-beta model.
* :mod:`~interconnect.netsim`: a flow-level simulator (max-min sharing) for schedules on a topology.
* :mod:`~interconnect.devices`: GPUs (peak FLOP/s, memory, power).
* :mod:`~interconnect.memory`: the memory wall (model states, ZeRO, KV cache).
* :mod:`~interconnect.parallel`: FLOPs, MFU and the efficiency model.
* :mod:`~interconnect.catalog`: the data, each row with its source: links, GPUs, media, dual-GPU
  boards and model presets (``links``, ``devices`` and ``signalling`` are its public faces).
* :mod:`~interconnect.scenarios`: each chapter's setup (models, machines), shared with its checker (imported on demand).
* :mod:`~interconnect.pipeline`: pipeline schedules (GPipe, 1F1B, interleaved) as data.
* :mod:`~interconnect.moe`: mixture-of-experts routing and AllToAll traffic.
* :mod:`~interconnect.reliability`: cluster MTBF, Young's and Daly's checkpoint intervals, goodput.
* :mod:`~interconnect.rendering`: multi-GPU rendering (scan-line interleave, SFR, AFR, frame pacing).

The systems chapters' models (:mod:`~interconnect.applications`, :mod:`~interconnect.serving`,
:mod:`~interconnect.operations`, :mod:`~interconnect.trends`), the classroom (:mod:`~interconnect.scenarios`,
:mod:`~interconnect.exercises`, :mod:`~interconnect.book`) and the presentation layer
(:mod:`~interconnect.viz`, :mod:`~interconnect.plots`, :mod:`~interconnect.widgets`,
:mod:`~interconnect.diagrams`, :mod:`~interconnect.explorers`) are imported on first use, so
``import interconnect`` stays light (no matplotlib) while ``ic.applications`` still works.
"""

from . import (
    catalog,
    collectives,
    devices,
    links,
    memory,
    moe,
    netsim,
    parallel,
    pipeline,
    reliability,
    rendering,
    signalling,
    topology,
    transfer,
    units,
)

__version__ = "0.1.0"
__all__ = ["units", "links", "catalog", "signalling", "topology", "transfer", "collectives", "netsim", "devices",
           "memory", "parallel", "pipeline", "moe", "reliability", "rendering"]

# imported on first use: ``ic.applications`` works without importing matplotlib up front
_ON_DEMAND = ("applications", "serving", "operations", "trends", "scenarios", "exercises", "book", "calculators",
              "viz", "plots", "widgets", "diagrams", "explorers", "pcie_servers", "nvlink_machines")


def __getattr__(name):
    if name in _ON_DEMAND:
        import importlib

        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_ON_DEMAND))
