"""GPUs as the other chapters need them: peak dense tensor throughput, memory, power.

Only what the models use, each from the vendor's datasheet. Peak throughput is the
*dense* tensor-core figure for 16-bit floating point (BF16/FP16 with FP32 accumulate);
datasheets often print the 2:4-sparsity figure, which is twice as large: that is the
first pitfall of any MFU calculation.

References
----------
NVIDIA Tesla V100 GPU Architecture whitepaper (WP-08608-001_v1.1), 2017.
NVIDIA A100 Tensor Core GPU datasheet (80GB SXM), 2021.
NVIDIA H100 Tensor Core GPU datasheet (SXM5), 2023: "BF16 Tensor Core 1,979 teraFLOPS*,
* with sparsity".
"""

from __future__ import annotations

from dataclasses import dataclass

from ._validate import choice

__all__ = ["GPU", "get_gpu", "gpus"]


@dataclass(frozen=True)
class GPU:
    """One GPU model.

    Attributes
    ----------
    name : str
    year : int
    peak_flops : float
        Dense 16-bit tensor-core peak, FLOP/s (no sparsity).
    memory : float
        HBM capacity, bytes (decimal GB as the datasheet says; 80 GB = 80e9 B).
    memory_bandwidth : float
        HBM bandwidth, bytes/s.
    nvlink : str
        Name of the per-GPU NVLink entry in :mod:`interconnect.links`.
    pcie : str
        Name of the host link entry in :mod:`interconnect.links`.
    power : float
        Board power (TDP), watts.
    source : str
    """

    name: str
    year: int
    peak_flops: float
    memory: float
    memory_bandwidth: float
    nvlink: str
    pcie: str
    power: float
    source: str


_GPUS = {
    "V100": GPU("V100", 2017, 125e12, 32e9, 900e9, "nvlink2", "pcie3x16", 300.0,
                "NVIDIA Tesla V100 whitepaper WP-08608-001, Table 1 (SXM2: 125 TFLOPS tensor, 900 GB/s HBM2, 300 W); 32 GB variant from the V100 datasheet"),
    "A100": GPU("A100", 2020, 312e12, 80e9, 2039e9, "nvlink3", "pcie4x16", 400.0,
                "NVIDIA A100 80GB datasheet (SXM: BF16 312 TFLOPS dense, 2,039 GB/s HBM2e, 400 W)"),
    "H100": GPU("H100", 2022, 989.4e12, 80e9, 3.35e12, "nvlink4", "pcie5x16", 700.0,
                "NVIDIA H100 datasheet (SXM5: BF16 1,979 TFLOPS with sparsity = 989.4 dense, 3.35 TB/s HBM3, 700 W)"),
}


def get_gpu(name):
    """A :class:`GPU` by name: ``"V100"``, ``"A100"`` or ``"H100"`` (SXM parts)."""
    key = choice("name", name, list(_GPUS))
    return _GPUS[key]


def gpus():
    """All GPU records, oldest first."""
    return tuple(sorted(_GPUS.values(), key=lambda g: g.year))
