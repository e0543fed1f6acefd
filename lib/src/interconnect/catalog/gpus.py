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
NVIDIA DGX B200 datasheet, 2024 (8 x B200: 72 PFLOPS FP8 training, 1,440 GB HBM3e,
64 TB/s HBM3e bandwidth) and NVIDIA HGX B200 specifications (8 GPUs: 36 PFLOPS FP16/BF16
tensor, with sparsity).
"""

from __future__ import annotations

from dataclasses import dataclass

from .._validate import choice
from ..units import GiB

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
        HBM capacity, bytes. V100, A100 and H100 keep the datasheet's decimal reading
        (80 GB = 80e9 B), which the chapters' figures were computed with; B200 is in
        binary units (180 GiB = 180 * 2**30 B), as HBM stacks are sized; its ``source``
        says why.
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
                "NVIDIA Tesla V100 whitepaper WP-08608-001, Table 1 (SXM2: 125 TFLOPS tensor, 900 GB/s HBM2, "
                "300 W); 32 GB variant from the V100 datasheet"),
    "A100": GPU("A100", 2020, 312e12, 80e9, 2039e9, "nvlink3", "pcie4x16", 400.0,
                "NVIDIA A100 80GB datasheet (SXM: BF16 312 TFLOPS dense, 2,039 GB/s HBM2e, 400 W)"),
    "H100": GPU("H100", 2022, 989.4e12, 80e9, 3.35e12, "nvlink4", "pcie5x16", 700.0,
                "NVIDIA H100 datasheet (SXM5: BF16 1,979 TFLOPS with sparsity = 989.4 dense, 3.35 TB/s HBM3, "
                "700 W)"),
    "B200": GPU("B200", 2024, 2.25e15, 180 * GiB, 8e12, "nvlink5", "pcie5x16", 1000.0,
                "NVIDIA HGX B200 specifications (8 GPUs: FP16/BF16 tensor 36 PFLOPS with sparsity = 2.25 PFLOPS "
                "dense per GPU) and NVIDIA DGX B200 datasheet (2024; 8 x B200: 1,440 GB HBM3e = 180 per GPU, "
                "64 TB/s HBM3e = 8 TB/s per GPU; 72 PFLOPS FP8 training, consistent with 2.25 PFLOPS dense "
                "BF16). Memory: NVIDIA writes 'GB'; the package carries 8 HBM3e stacks of 24 GiB (192 GiB) "
                "of which DGX B200 enables 180, read here as binary GiB - the binary reading is ours, not "
                "the datasheet's. Power: 1,000 W is the HGX B200 per-GPU figure as configured in DGX B200 "
                "(other systems configure less). pcie: DGX B200's host link is PCIe 5.0 (Xeon 8570 hosts, "
                "ConnectX-7); the GPU's own PCIe generation is not given in these documents, UNVERIFIED."),
}

#: The newest GPU :func:`gpus` returns by default: the book's figures and fits end there.
_DEFAULT_THROUGH = "H100"


def get_gpu(name):
    """A :class:`GPU` by name (SXM parts).

    Parameters
    ----------
    name : str
        ``"V100"``, ``"A100"``, ``"H100"`` or ``"B200"`` (case-insensitive).

    Returns
    -------
    GPU

    Raises
    ------
    ValueError
        If ``name`` is not one of the names above.

    Examples
    --------
    >>> get_gpu("H100").peak_flops / 1e12
    989.4
    >>> b200 = get_gpu("B200")
    >>> b200.peak_flops / 1e15, b200.memory / 2**30, b200.memory_bandwidth / 1e12, b200.nvlink
    (2.25, 180.0, 8.0, 'nvlink5')
    """
    key = choice("name", name, list(_GPUS))
    return _GPUS[key]


def gpus(through=_DEFAULT_THROUGH):
    """GPU records, oldest first, up to and including ``through``.

    Parameters
    ----------
    through : str or None, default ``"H100"``
        The newest GPU to include. The default keeps the three GPUs the book's figures
        and fits (:mod:`interconnect.viz.explorers.outlook`) were made with; ``None``
        gives every record, B200 included.

    Returns
    -------
    tuple of GPU

    Examples
    --------
    >>> [g.name for g in gpus()]
    ['V100', 'A100', 'H100']
    >>> [g.name for g in gpus(through=None)]
    ['V100', 'A100', 'H100', 'B200']
    """
    ordered = sorted(_GPUS.values(), key=lambda g: g.year)
    if through is None:
        return tuple(ordered)
    last = get_gpu(through)
    return tuple(ordered[:ordered.index(last) + 1])
