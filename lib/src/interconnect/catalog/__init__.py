"""Named, sourced data the chapters share: data with sources, no models and no plots.

* :mod:`~interconnect.catalog.models`: transformer models (GPT-3 175B/13B/6.7B/1.3B, a
  Llama-class 70B, the book's MoE model; Llama 2 and 3, Mixtral 8x7B, DeepSeek-V3) as
  :class:`interconnect.parallel.ModelConfig`.
* :mod:`~interconnect.catalog.links`: the link catalog (:class:`~interconnect.catalog.links.Link`,
  ``get_link``), its rows in :mod:`~interconnect.catalog.link_specs` and its table views in
  :mod:`~interconnect.catalog.link_tables`; public face :mod:`interconnect.links`.
* :mod:`~interconnect.catalog.gpus`: GPUs (V100, A100, H100, B200); public face
  :mod:`interconnect.devices`.
* :mod:`~interconnect.catalog.fabrics`: beyond NVIDIA: AMD Infinity Fabric (xGMI), Intel
  Gaudi's on-die RoCE, Google TPU ICI, AWS NeuronLink, UALink 1.0, Ultra Ethernet 1.0
  (``get_fabric``, ``fabrics``), kept out of the link catalog's listings.
* :mod:`~interconnect.catalog.media`: line codes, reach by medium, energy per bit;
  re-exported by :mod:`interconnect.signalling`.
* :mod:`~interconnect.catalog.boards`: dual-GPU boards of the rendering era; re-exported by
  :mod:`interconnect.rendering`.
* :mod:`~interconnect.catalog.measurements`: measured figures (nvbandwidth, nccl-tests
  busbw, p2pBandwidthLatencyTest, ...) with system, tool and source (``get``, ``names``).
* :mod:`~interconnect.catalog.traces`: real tool output (``nvidia-smi topo -m``, nccl-tests,
  ``NCCL_DEBUG=INFO``) with its source, and the parsers the trace-reading exercises use.

A machine is built from GPU and link names with
:meth:`interconnect.parallel.Cluster.from_links`.
"""

from . import boards, fabrics, gpus, link_specs, link_tables, links, measurements, media, models, traces

__all__ = ["models", "links", "link_specs", "link_tables", "gpus", "media", "boards", "measurements", "fabrics",
           "traces"]
