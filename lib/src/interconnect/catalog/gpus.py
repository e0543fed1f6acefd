"""GPUs as the other chapters need them: peak dense tensor throughput, memory, links, power.

Only what the models use, each from the vendor's datasheet or whitepaper, named in each
record's ``source``. Peak throughput is always the *dense* tensor-core (matrix-core) figure.
NVIDIA's datasheets print the 2:4-sparsity figure, twice the dense one, and mark it with an
asterisk: that is the first pitfall of any MFU calculation, so every NVIDIA figure below is
the printed one halved. AMD's datasheets print dense and sparse side by side; the dense one
is taken.

Units. HBM capacity is **binary**: an "80 GB" H100 holds 80 GiB = 80 * 2**30 bytes (HBM
stacks are built of power-of-two DRAM dies; ``nvidia-smi`` shows 81,559 MiB of the 81,920,
the rest reserved by the driver), whatever the datasheet's "GB" says. Bandwidths (HBM and
links) are **decimal**: 3.35 TB/s is 3.35e12 bytes/s. ``scale_up_bandwidth`` is per
direction per GPU, the sum over the GPU's scale-up links (NVLink, AMD Infinity Fabric).

References
----------
NVIDIA Tesla V100 GPU Architecture whitepaper (WP-08608-001_v1.1), 2017.
NVIDIA A100 Tensor Core GPU datasheet, 2021 (40GB and 80GB SXM columns).
NVIDIA H100 Tensor Core GPU datasheet (SXM5), 2023: "BF16 Tensor Core 1,979 teraFLOPS*,
* with sparsity".
NVIDIA H200 Tensor Core GPU datasheet (SXM), 2024.
NVIDIA DGX B200 datasheet, 2024 (8 x B200: 72 PFLOPS FP8 training, 144 PFLOPS FP4
inference, 1,440 GB HBM3e, 64 TB/s HBM3e bandwidth) and NVIDIA HGX B200 specifications
(8 GPUs: 36 PFLOPS FP16/BF16 tensor, with sparsity).
NVIDIA GB200 NVL72 specifications, 2024 (72 GPUs: FP4 1,440 PFLOPS, FP8 720 PFLOPS,
FP16/BF16 360 PFLOPS, all with sparsity; 13.4 TB HBM3e, 576 TB/s; NVLink 130 TB/s).
AMD Instinct MI300X, MI325X and MI355X datasheets (2023, 2024, 2025) and the ROCm
documentation's GPU specifications table (VRAM in GiB).
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass

from .._validate import choice
from ..units import GiB

__all__ = ["GPU", "get_gpu", "gpus", "VENDORS"]

#: The vendors :func:`gpus` can filter on.
VENDORS = ("NVIDIA", "AMD")


@dataclass(frozen=True)
class GPU:
    """One GPU model.

    Attributes
    ----------
    name : str
    year : int
        Year of first shipment (announcement where that is all there is; ``source`` says).
    peak_flops : float
        Dense 16-bit tensor-core peak, FLOP/s (no sparsity): BF16 with FP32 accumulate,
        FP16 for the V100, which has no BF16.
    memory : float
        HBM capacity, bytes, in binary units: 80 GiB = 80 * 2**30 B for an "80 GB" H100.
    memory_bandwidth : float
        HBM bandwidth, bytes/s (decimal).
    nvlink : str or None
        Name of the per-GPU NVLink entry in :mod:`interconnect.links`; None for AMD parts,
        whose Infinity Fabric is not in the link catalog but in
        :mod:`interconnect.catalog.fabrics` (see ``fabric``).
    pcie : str
        Name of the host link entry in :mod:`interconnect.links`.
    power : float
        Board power (TDP / TBP), watts.
    source : str
        Where every number comes from, and which readings are ours.
    peak_flops_fp8 : float or None
        Dense FP8 tensor-core peak, FLOP/s; None where the GPU has no FP8 tensor cores.
    peak_flops_fp4 : float or None
        Dense FP4 tensor-core peak, FLOP/s; None where the GPU has no FP4 tensor cores.
    scale_up_bandwidth : float
        Scale-up (GPU-to-GPU) bandwidth per GPU, bytes/s **per direction**, summed over its
        links: NVLink for NVIDIA (equal to the ``nvlink`` catalog entry), Infinity Fabric
        for AMD.
    vendor : str
        ``"NVIDIA"`` or ``"AMD"``.
    variant_of : str or None
        The record this one is a memory variant of (same chip and compute), or None.
    fabric : str or None
        Name of the per-GPU scale-up entry in :mod:`interconnect.catalog.fabrics` for a
        non-NVIDIA part (``"xgmi-mi300x"``), whose ``bandwidth`` equals
        ``scale_up_bandwidth``; None for NVIDIA parts (see ``nvlink``) and where no fabric
        record could be sourced (MI355X).
    """

    name: str
    year: int
    peak_flops: float
    memory: float
    memory_bandwidth: float
    nvlink: str | None
    pcie: str
    power: float
    source: str
    peak_flops_fp8: float | None = None
    peak_flops_fp4: float | None = None
    scale_up_bandwidth: float = 0.0
    vendor: str = "NVIDIA"
    variant_of: str | None = None
    fabric: str | None = None


# Catalog order: within a year, :func:`gpus` keeps this order.
_RECORDS = (
    GPU("V100", 2017, 125e12, 32 * GiB, 900e9, "nvlink2", "pcie3x16", 300.0,
        "NVIDIA Tesla V100 whitepaper WP-08608-001, Table 1 (SXM2: 125 TFLOPS FP16 tensor, dense - Volta has "
        "no sparsity and no BF16, so peak_flops is the FP16 figure; 900 GB/s HBM2; 300 W; six NVLink 2 links "
        "of 25 GB/s per direction = 150 GB/s per direction, 300 GB/s bidirectional). 32 GB variant from the "
        "V100 datasheet, read as 32 GiB (binary, as for every record); the year is the V100's launch, but the 32 GB "
        "part was announced at GTC in March 2018 and the 2017 launch part had 16 GB (whitepaper Table 1). No FP8, "
        "no FP4.",
        peak_flops_fp8=None, peak_flops_fp4=None, scale_up_bandwidth=150e9),
    GPU("A100-40GB", 2020, 312e12, 40 * GiB, 1555e9, "nvlink3", "pcie4x16", 400.0,
        "NVIDIA A100 datasheet, A100 40GB SXM column (BF16 312 TFLOPS, 624 with sparsity; 40 GB HBM2 at "
        "1,555 GB/s; 400 W; NVLink 600 GB/s bidirectional = 300 GB/s per direction, 12 NVLink 3 links). "
        "Memory read as 40 GiB (binary). No FP8, no FP4 (Ampere).",
        peak_flops_fp8=None, peak_flops_fp4=None, scale_up_bandwidth=300e9, variant_of="A100"),
    GPU("A100", 2020, 312e12, 80 * GiB, 2039e9, "nvlink3", "pcie4x16", 400.0,
        "NVIDIA A100 80GB datasheet (SXM: BF16 312 TFLOPS dense, 624 with sparsity; 80 GB HBM2e at "
        "2,039 GB/s; 400 W; NVLink 600 GB/s bidirectional = 300 GB/s per direction). Memory read as 80 GiB "
        "(binary). No FP8, no FP4 (Ampere).",
        peak_flops_fp8=None, peak_flops_fp4=None, scale_up_bandwidth=300e9),
    GPU("H100", 2022, 989.4e12, 80 * GiB, 3.35e12, "nvlink4", "pcie5x16", 700.0,
        "NVIDIA H100 datasheet (SXM5: BF16 1,979 TFLOPS with sparsity = 989.4 dense; FP8 3,958 with "
        "sparsity = 1,978.9 dense; 80 GB HBM3 at 3.35 TB/s; 700 W; NVLink 900 GB/s bidirectional = "
        "450 GB/s per direction, 18 NVLink 4 links). Memory: 80 GiB, binary - nvidia-smi shows 81,559 MiB "
        "of the 81,920 MiB = 80 GiB. No FP4 (Hopper).",
        peak_flops_fp8=1978.9e12, peak_flops_fp4=None, scale_up_bandwidth=450e9),
    GPU("MI300X", 2023, 1307.4e12, 192 * GiB, 5.3e12, None, "pcie5x16", 750.0,
        "AMD Instinct MI300X datasheet (peak BF16 1,307.4 TFLOPS dense, 2,614.9 with sparsity; FP8 2,614.9 "
        "dense, 5,229.8 with sparsity; 192 GB HBM3 at 5.3 TB/s; 750 W TBP; PCIe 5.0 x16 host interface; "
        "7 Infinity Fabric links of 128 GB/s bidirectional, 896 GB/s aggregate peer bandwidth). FLOPS check: "
        "304 CUs x 2.1 GHz x 4,096 FP8 FLOP per CU per clock = 2,614.9 TFLOPS. Memory: 192 GiB, binary "
        "(8 HBM3 stacks of 24 GiB; ROCm's GPU specifications table lists VRAM 192 GiB). scale_up_bandwidth: "
        "7 x 64 GB/s per direction = 448 GB/s per direction, the sum over links to 7 different peers in an "
        "8-GPU mesh - one peer pair gets 64 GB/s per direction, unlike NVLink through NVSwitch. "
        "No FP4 (CDNA 3). nvlink=None: no catalog entry for Infinity Fabric.",
        peak_flops_fp8=2614.9e12, peak_flops_fp4=None, scale_up_bandwidth=448e9, vendor="AMD",
        fabric="xgmi-mi300x"),
    GPU("H200", 2024, 989.4e12, 141 * GiB, 4.8e12, "nvlink4", "pcie5x16", 700.0,
        "NVIDIA H200 datasheet (SXM: the H100's compute, BF16 1,979 and FP8 3,958 TFLOPS with sparsity = "
        "989.4 and 1,978.9 dense; 141 GB HBM3e at 4.8 TB/s; up to 700 W; NVLink 900 GB/s bidirectional = "
        "450 GB/s per direction). Announced November 2023, shipped 2024. Memory: NVIDIA writes 141 GB; "
        "nvidia-smi on an H200 SXM shows 143,771 MiB = 140.4 GiB, more than 141e9 B (134,466 MiB) could "
        "hold, so the binary reading, 141 GiB (144,384 MiB, 613 MiB reserved), is ours. No FP4 (Hopper).",
        peak_flops_fp8=1978.9e12, peak_flops_fp4=None, scale_up_bandwidth=450e9),
    GPU("B200", 2024, 2.25e15, 180 * GiB, 8e12, "nvlink5", "pcie5x16", 1000.0,
        "NVIDIA HGX B200 specifications (8 GPUs: FP16/BF16 tensor 36 PFLOPS with sparsity = 2.25 PFLOPS "
        "dense per GPU) and NVIDIA DGX B200 datasheet (2024; 8 x B200: 1,440 GB HBM3e = 180 per GPU, "
        "64 TB/s HBM3e = 8 TB/s per GPU; 72 PFLOPS FP8 training and 144 PFLOPS FP4 inference, with "
        "sparsity = 4.5 and 9 PFLOPS dense per GPU; NVLink 5 1.8 TB/s bidirectional = 900 GB/s per "
        "direction). Memory: NVIDIA writes 'GB'; the package carries 8 HBM3e stacks of 24 GiB (192 GiB) "
        "of which DGX B200 enables 180, read here as binary GiB - the binary reading is ours, not "
        "the datasheet's. Power: 1,000 W is the HGX B200 per-GPU figure as configured in DGX B200 "
        "(other systems configure less). pcie: DGX B200's host link is PCIe 5.0 (Xeon 8570 hosts, "
        "ConnectX-7); the GPU's own PCIe generation is not given in these documents (not confirmed).",
        peak_flops_fp8=4.5e15, peak_flops_fp4=9e15, scale_up_bandwidth=900e9),
    GPU("GB200", 2024, 2.5e15, 186 * GiB, 8e12, "nvlink5", "pcie5x16", 1200.0,
        "One Blackwell GPU of a GB200 NVL72 rack. NVIDIA GB200 NVL72 specifications (72 GPUs: FP16/BF16 "
        "360, FP8 720, FP4 1,440 PFLOPS, all with sparsity = 2.5, 5 and 10 PFLOPS dense per GPU; 13.4 TB "
        "HBM3e at 576 TB/s = 186 GB and 8 TB/s per GPU (a GB200 superchip: 372 GB, 16 TB/s for 2 GPUs); "
        "NVLink 130 TB/s for 72 GPUs = 1.8 TB/s bidirectional = 900 GB/s per direction per GPU). Memory: "
        "nvidia-smi on a GB200 shows 189,471 MiB = 185.0 GiB, more than 186e9 B (177,383 MiB) could hold, "
        "so the binary reading, 186 GiB, is ours. Power: 1,200 W per GPU, the power cap nvidia-smi shows "
        "on GB200 and the NVIDIA Blackwell datasheet's configurable maximum; the superchip's Grace CPU is "
        "not included. pcie: the GPU reaches its Grace CPU over NVLink-C2C, not PCIe; pcie5x16 is kept "
        "only as the nearest catalog host link (an assumption). Year: announced March 2024 with B200.",
        peak_flops_fp8=5e15, peak_flops_fp4=10e15, scale_up_bandwidth=900e9),
    GPU("MI325X", 2024, 1307.4e12, 256 * GiB, 6e12, None, "pcie5x16", 1000.0,
        "AMD Instinct MI325X datasheet (the MI300X's compute: peak BF16 1,307.4 TFLOPS dense, 2,614.9 with "
        "sparsity; FP8 2,614.9 dense, 5,229.8 with sparsity; 256 GB HBM3E at 6 TB/s; 1,000 W TBP; PCIe 5.0 "
        "x16; 7 Infinity Fabric links, 896 GB/s aggregate peer bandwidth bidirectional). Memory: 256 GiB, "
        "binary (ROCm's GPU specifications table lists VRAM 256 GiB). scale_up_bandwidth: 7 x 64 GB/s = "
        "448 GB/s per direction, summed over 7 peers as for the MI300X. No FP4 (CDNA 3).",
        peak_flops_fp8=2614.9e12, peak_flops_fp4=None, scale_up_bandwidth=448e9, vendor="AMD",
        fabric="xgmi-mi300x"),
    GPU("MI355X", 2025, 2516.6e12, 288 * GiB, 8e12, None, "pcie5x16", 1400.0,
        "AMD Instinct MI355X datasheet (2025: peak BF16 2.5 PFLOPS dense, 5.0 with sparsity; FP8 5.0 dense, "
        "10.1 with sparsity; MXFP4 10 PFLOPS dense; 288 GB HBM3E at 8 TB/s; 1,400 W TBP, liquid-cooled; "
        "PCIe 5.0 x16). Exact dense figures from the clock: 256 CUs x 2.4 GHz x 8,192 FP8 FLOP per CU per "
        "clock (AMD, ISSCC 2026: twice CDNA 3's 4,096) = 5,033.2 TFLOPS FP8, half that for BF16 (2,516.6), "
        "twice for MXFP4 (10,066.3). Memory: 288 GiB, binary (ROCm's GPU specifications table lists VRAM "
        "288 GiB). scale_up_bandwidth: 7 Infinity Fabric links of 153.6 GB/s bidirectional (1,075.2 GB/s "
        "aggregate) = 7 x 76.8 = 537.6 GB/s per direction, summed over 7 peers; the per-link 153.6 GB/s "
        "is from AMD's MI355X specifications and only a secondary source confirmed it here (not checked "
        "against a primary source).",
        peak_flops_fp8=5033.2e12, peak_flops_fp4=10066.3e12, scale_up_bandwidth=537.6e9, vendor="AMD"),
)

_GPUS = {g.name: g for g in _RECORDS}


def _key(name):
    return name.strip().lower().replace("_", "-").replace(" ", "-")


_BY_KEY = {_key(n): g for n, g in _GPUS.items()}

#: The newest GPU :func:`gpus` returns by default: the book's figures and fits end there.
_DEFAULT_THROUGH = "H100"


def get_gpu(name):
    """A :class:`GPU` by name (SXM / OAM parts).

    Parameters
    ----------
    name : str
        ``"V100"``, ``"A100-40GB"``, ``"A100"`` (80 GB), ``"H100"``, ``"H200"``, ``"B200"``,
        ``"GB200"``, ``"MI300X"``, ``"MI325X"`` or ``"MI355X"`` (case-insensitive; ``_`` and
        a space count as ``-``).

    Returns
    -------
    GPU

    Raises
    ------
    ValueError
        If ``name`` is not one of the names above; the message names close matches.

    Examples
    --------
    >>> get_gpu("H100").peak_flops / 1e12, get_gpu("H100").memory == 80 * 2**30
    (989.4, True)
    >>> b200 = get_gpu("b200")
    >>> b200.peak_flops / 1e15, b200.memory / 2**30, b200.memory_bandwidth / 1e12, b200.nvlink
    (2.25, 180.0, 8.0, 'nvlink5')
    >>> mi = get_gpu("MI300X")
    >>> mi.vendor, mi.nvlink, mi.scale_up_bandwidth / 1e9, round(mi.peak_flops_fp8 / mi.peak_flops, 3)
    ('AMD', None, 448.0, 2.0)
    >>> try:
    ...     get_gpu("H300")
    ... except ValueError as err:
    ...     for part in str(err).split("; "):
    ...         print(part)
    name='H300' is not a known GPU
    close matches: H200, H100, MI300X
    allowed: V100, A100-40GB, A100, H100, MI300X, H200, B200, GB200, MI325X, MI355X
    """
    if isinstance(name, str) and _key(name) in _BY_KEY:
        return _BY_KEY[_key(name)]
    close = difflib.get_close_matches(_key(name), list(_BY_KEY), n=3) if isinstance(name, str) else []
    maybe = f"close matches: {', '.join(_BY_KEY[k].name for k in close)}; " if close else ""
    raise ValueError(f"name={name!r} is not a known GPU; {maybe}allowed: {', '.join(_GPUS)}")


def gpus(through=_DEFAULT_THROUGH, vendor=None):
    """GPU records, oldest first.

    Order: by ``year``, then the catalog's order within a year (V100, A100-40GB, A100, H100,
    MI300X, H200, B200, GB200, MI325X, MI355X).

    Parameters
    ----------
    through : str or None, default ``"H100"``
        With a name: the book's line of GPUs, one record per chip, up to and including that
        one; memory variants (``variant_of`` set, e.g. A100-40GB) are left out unless named.
        The default keeps the three GPUs the book's figures and fits
        (:mod:`interconnect.viz.explorers.outlook`) were made with: V100, A100, H100.
        ``None`` gives every record, variants included.
    vendor : str or None, default None
        ``"NVIDIA"`` or ``"AMD"`` (case-insensitive) to keep one vendor's records; None
        keeps all.

    Returns
    -------
    tuple of GPU

    Raises
    ------
    ValueError
        For an unknown ``through`` or ``vendor``.

    Examples
    --------
    >>> [g.name for g in gpus()]
    ['V100', 'A100', 'H100']
    >>> [g.name for g in gpus(through=None)]
    ['V100', 'A100-40GB', 'A100', 'H100', 'MI300X', 'H200', 'B200', 'GB200', 'MI325X', 'MI355X']
    >>> [g.name for g in gpus(through=None, vendor="amd")]
    ['MI300X', 'MI325X', 'MI355X']
    >>> [g.name for g in gpus(through="B200", vendor="NVIDIA")]
    ['V100', 'A100', 'H100', 'H200', 'B200']
    """
    order = {g.name: i for i, g in enumerate(_RECORDS)}
    ordered = sorted(_RECORDS, key=lambda g: (g.year, order[g.name]))
    if vendor is not None:
        v = choice("vendor", vendor, VENDORS)
        ordered = [g for g in ordered if g.vendor == v]
    if through is None:
        return tuple(ordered)
    last = get_gpu(through)
    upto = sorted(_RECORDS, key=lambda g: (g.year, order[g.name]))
    stop = upto.index(last)
    return tuple(g for g in ordered if upto.index(g) <= stop and (g.variant_of is None or g is last))
