"""GPUs as the other chapters need them: peak dense tensor throughput, memory, power.

The public face of :mod:`interconnect.catalog.gpus`, where the records and their sources
live.

Examples
--------
>>> get_gpu("A100").memory_bandwidth / 1e9
2039.0
"""

from __future__ import annotations

from .catalog.gpus import GPU, get_gpu, gpus

__all__ = ["GPU", "get_gpu", "gpus"]
