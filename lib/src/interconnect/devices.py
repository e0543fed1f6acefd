"""GPUs as the other chapters need them: peak dense tensor throughput, memory, links, power.

The public face of :mod:`interconnect.catalog.gpus`, where the records and their sources
live.

Examples
--------
>>> get_gpu("A100").memory_bandwidth / 1e9
2039.0
>>> get_gpu("A100").memory / 2**30          # HBM capacity is binary: "80 GB" is 80 GiB
80.0
"""

from __future__ import annotations

from .catalog.gpus import GPU, VENDORS, get_gpu, gpus

__all__ = ["GPU", "VENDORS", "get_gpu", "gpus"]
