"""The book's explorers of the chapters "The three walls", "Collective communication",
"Switching and topology" and "Putting it together: planning a cluster", by their old names.

They live in :mod:`interconnect.viz.explorers` (one module per chapter); this module
re-exports them so that ``from interconnect.explorers import ...`` keeps working. Each
function returns an :class:`interconnect.widgets.Explorer`: displayed in Jupyter it is a live
ipywidgets app, in the HTML book a set of precomputed frames.
"""

from __future__ import annotations

from .viz.explorers.collectives import _ring_states as _ring_states  # used by the tests
from .viz.explorers.collectives import allreduce_explorer, ring_allreduce_animation
from .viz.explorers.planning import memory_calculator_explorer
from .viz.explorers.three_walls import dp_scaling_explorer
from .viz.explorers.topology import topology_load_explorer

__all__ = ["dp_scaling_explorer", "allreduce_explorer", "ring_allreduce_animation", "topology_load_explorer",
           "memory_calculator_explorer"]
