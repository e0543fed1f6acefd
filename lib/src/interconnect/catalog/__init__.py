"""Named, sourced presets the chapters share, so that no chapter or checker writes them out again.

* :mod:`~interconnect.catalog.models`: transformer models (GPT-3 175B/13B/6.7B/1.3B, a
  Llama-class 70B, the book's MoE model) as :class:`interconnect.parallel.ModelConfig`.

GPUs live in :mod:`interconnect.devices` and links in :mod:`interconnect.links`; a machine is
built from their names with :meth:`interconnect.parallel.Cluster.from_links`.
"""

from . import models

__all__ = ["models"]
