"""GPU Interconnects: the models behind the book.

``import interconnect as ic`` gives the layers of the stack as submodules:

* :mod:`~interconnect.units`: SI constants and formatting (per direction vs bidirectional).
* :mod:`~interconnect.links`: layer 1, a catalog of real links with sources.
* :mod:`~interconnect.collectives`: layer 4, collective algorithms under the alpha-beta model.
* :mod:`~interconnect.devices`: GPUs (peak FLOP/s, memory, power).
* :mod:`~interconnect.memory`: the memory wall (model states, ZeRO, KV cache).
* :mod:`~interconnect.parallel`: FLOPs, MFU and the efficiency model.

Plotting (:mod:`~interconnect.plots`), explorers (:mod:`~interconnect.widgets`) and notebook
helpers (:mod:`~interconnect.book`) are imported on demand.
"""

from . import collectives, devices, links, memory, parallel, units

__version__ = "0.1.0"
__all__ = ["units", "links", "collectives", "devices", "memory", "parallel"]
