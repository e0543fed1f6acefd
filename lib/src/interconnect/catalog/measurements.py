"""Measured figures the chapters quote: one entry per number, with the tool and the source.

The link catalog (:mod:`interconnect.catalog.links`) holds *peaks*: what the line rate and
the line coding allow. The chapters compare those peaks with what real machines reach:
an nvbandwidth host-to-device copy, an nccl-tests AllReduce bus bandwidth, a
``p2pBandwidthLatencyTest`` run, a training run with peer-to-peer switched off. Those
measurements are kept here, once, each with the system it was measured on, the tool that
measured it and the citation, so that a chapter reads ``get("...").value`` instead of
typing the number into a cell.

Conventions
-----------
* **Units.** SI base units, as everywhere in :mod:`interconnect`: ``value`` is in bytes/s
  (``unit="B/s"``), seconds (``unit="s"``) or FLOP/s (``unit="FLOP/s"``); ``GB = 1e9`` bytes. Each value is stored
  exactly as the source prints it, times the unit (``55.43 * GB``).
* **Direction.** ``"per direction"`` for a one-way figure (a one-way copy, or nccl-tests'
  busbw, which is defined to be compared with a link's per-direction bandwidth),
  ``"bidirectional"`` for both directions added, ``"n/a"`` for a time.
* **Source.** ``source`` starts with the key of the entry in ``book/references.bib``
  (``bekman_mlengineering``), then says where in it the number is; ``year`` is that
  entry's year.
* **Catalog notes.** Some link notes in :mod:`interconnect.catalog.link_specs` repeat a
  measurement in words ("H2D 55.4 GB/s"); ``tests/test_measurements.py`` checks that the
  rounded figure in the note equals the entry here.

Examples
--------
>>> get("a100-nvlink3-allreduce-busbw").value / 1e9
234.89
>>> get("h100-nvlink4-p2p-bidir").direction
'bidirectional'
"""

from __future__ import annotations

from dataclasses import dataclass

from .._validate import as_positive, choice, lookup
from ..units import GB

__all__ = ["Measurement", "MEASUREMENTS", "UNITS", "DIRECTIONS", "get", "names"]

#: The units a measurement may have (SI base units).
UNITS = ("B/s", "s", "FLOP/s")
#: The directions a measurement may have.
DIRECTIONS = ("per direction", "bidirectional", "n/a")


@dataclass(frozen=True)
class Measurement:
    """One measured figure with its provenance.

    Attributes
    ----------
    name : str
        Catalog key, lower case, e.g. ``"h200-pcie5-h2d-nvbandwidth"``.
    value : float
        In SI base units (bytes/s or seconds), exactly as the source prints it.
    unit : str
        ``"B/s"``, ``"s"`` or ``"FLOP/s"``.
    direction : str
        ``"per direction"``, ``"bidirectional"`` or ``"n/a"`` (times and FLOP/s).
    what : str
        What was measured (operation, message size, conditions).
    system : str
        The machine it was measured on.
    tool : str
        The benchmark that printed it, e.g. ``"nvbandwidth"``,
        ``"nccl-tests all_reduce_perf busbw"``, ``"p2pBandwidthLatencyTest"``.
    source : str
        The citation: the ``book/references.bib`` key first, then the place in it.
    year : int
        The year of the cited source.
    """

    name: str
    value: float
    unit: str
    direction: str
    what: str
    system: str
    tool: str
    source: str
    year: int

    def __post_init__(self):
        as_positive("value", self.value, self.unit)
        choice("unit", self.unit, UNITS)
        choice("direction", self.direction, DIRECTIONS)
        if self.unit != "B/s" and self.direction != "n/a":
            what = "a time" if self.unit == "s" else f"a {self.unit} figure"
            raise ValueError(f"direction={self.direction!r} for {what}; expected 'n/a'")

    @property
    def bib_key(self) -> str:
        """The ``book/references.bib`` key the source starts with."""
        return self.source.split()[0]


BEKMAN = "bekman_mlengineering (S. Bekman, Machine Learning Engineering Open Book, network/README.md)"
MAMF = ("bekman_mamf (S. Bekman, Machine Learning Engineering Open Book, compute/accelerator/README.md, "
        "'Maximum Achievable Matmul FLOPS comparison table', mamf-finder.py: BF16 or FP8 torch.matmul, no sparsity, "
        "best of a brute-force search over shapes)")
BEKMAN_SWEEP = ("bekman_mlengineering (S. Bekman, Machine Learning Engineering Open Book, "
                "network/benchmarks/README.md, all-reduce busbw by payload, nccl-tests column)")
TFLOPS = 1e12
H100_HOST = "HGX H100 SXM (Supermicro SYS-821GE-TNHR, 2 x Xeon Scalable 4th/5th gen), PCIe 5.0 x16"

_ENTRIES = (
    # --- PCIe: host <-> device copies ------------------------------------------------
    Measurement("h200-pcie5-h2d-nvbandwidth", 55.43 * GB, "B/s", "per direction",
                "host-to-device copy (memcpy CE)", "8 x H200, PCIe 5.0 x16",
                "nvbandwidth", BEKMAN, 2024),
    Measurement("h200-pcie5-d2h-nvbandwidth", 55.06 * GB, "B/s", "per direction",
                "device-to-host copy (memcpy CE)", "8 x H200, PCIe 5.0 x16",
                "nvbandwidth", BEKMAN, 2024),
    # --- NVLink: nccl-tests AllReduce bus bandwidth ------------------------------------
    Measurement("a100-nvlink3-allreduce-busbw", 234.89 * GB, "B/s", "per direction",
                "AllReduce busbw at 16 GiB", "8 x A100 (NVLink 3)",
                "nccl-tests all_reduce_perf busbw", BEKMAN, 2024),
    Measurement("h200-nvlink4-allreduce-ring-busbw", 367.2 * GB, "B/s", "per direction",
                "AllReduce busbw at 16 GiB, ring, NCCL 2.27", "8 x H200 (NVLink 4)",
                "nccl-tests all_reduce_perf busbw", BEKMAN, 2024),
    Measurement("h200-nvlink4-allreduce-nvls-busbw", 480.0 * GB, "B/s", "per direction",
                "AllReduce busbw at 16 GiB, NVLink SHARP (NVLS), NCCL 2.27", "8 x H200 (NVLink 4)",
                "nccl-tests all_reduce_perf busbw", BEKMAN, 2024),
    # The NVLink chapter quotes a second ring/NVLS pair on the same machine type; the
    # figures differ from the pair above (367.61 against 367.2 and 482.26 against 480.0)
    # and are kept as typed until the run they come from is pinned down.
    Measurement("h200-nvlink4-allreduce-ring-busbw-b", 367.61 * GB, "B/s", "per direction",
                "AllReduce busbw, ring (the NVLink chapter's figure)", "8 x H200 (NVLink 4)",
                "nccl-tests all_reduce_perf busbw", BEKMAN, 2024),
    Measurement("h200-nvlink4-allreduce-nvls-busbw-b", 482.26 * GB, "B/s", "per direction",
                "AllReduce busbw, NVLink SHARP (the NVLink chapter's figure)", "8 x H200 (NVLink 4)",
                "nccl-tests all_reduce_perf busbw", BEKMAN, 2024),
    # --- NVLink: nccl-tests AllReduce busbw by message size (NCCL's model is checked
    # against these in tests/test_nccl_model.py) -----------------------------------------
    Measurement("h200-nvlink4-allreduce-busbw-32kib", 3.20 * GB, "B/s", "per direction",
                "AllReduce busbw at 32 KiB, NCCL's default choice, NCCL 2.30.7", "8 x H200 (NVLink 4)",
                "nccl-tests all_reduce_perf busbw", BEKMAN_SWEEP, 2024),
    Measurement("h200-nvlink4-allreduce-busbw-1mib", 72.45 * GB, "B/s", "per direction",
                "AllReduce busbw at 1 MiB, NCCL's default choice, NCCL 2.30.7", "8 x H200 (NVLink 4)",
                "nccl-tests all_reduce_perf busbw", BEKMAN_SWEEP, 2024),
    Measurement("h200-nvlink4-allreduce-busbw-16mib", 242.45 * GB, "B/s", "per direction",
                "AllReduce busbw at 16 MiB, NCCL's default choice, NCCL 2.30.7", "8 x H200 (NVLink 4)",
                "nccl-tests all_reduce_perf busbw", BEKMAN_SWEEP, 2024),
    Measurement("h200-nvlink4-allreduce-busbw-64mib", 369.82 * GB, "B/s", "per direction",
                "AllReduce busbw at 64 MiB, NCCL's default choice, NCCL 2.30.7", "8 x H200 (NVLink 4)",
                "nccl-tests all_reduce_perf busbw", BEKMAN_SWEEP, 2024),
    Measurement("h200-nvlink4-allreduce-busbw-256mib", 442.27 * GB, "B/s", "per direction",
                "AllReduce busbw at 256 MiB, NCCL's default choice, NCCL 2.30.7", "8 x H200 (NVLink 4)",
                "nccl-tests all_reduce_perf busbw", BEKMAN_SWEEP, 2024),
    Measurement("h200-nvlink4-allreduce-busbw-1gib", 464.00 * GB, "B/s", "per direction",
                "AllReduce busbw at 1 GiB, NCCL's default choice, NCCL 2.30.7", "8 x H200 (NVLink 4)",
                "nccl-tests all_reduce_perf busbw", BEKMAN_SWEEP, 2024),
    Measurement("h200-nvlink4-allreduce-busbw-4gib", 473.10 * GB, "B/s", "per direction",
                "AllReduce busbw at 4 GiB, NCCL's default choice, NCCL 2.30.7", "8 x H200 (NVLink 4)",
                "nccl-tests all_reduce_perf busbw", BEKMAN_SWEEP, 2024),
    Measurement("h200-nvlink4-allreduce-busbw-16gib", 480.70 * GB, "B/s", "per direction",
                "AllReduce busbw at 16 GiB, NCCL's default choice, NCCL 2.30.7", "8 x H200 (NVLink 4)",
                "nccl-tests all_reduce_perf busbw", BEKMAN_SWEEP, 2024),
    Measurement("h200-nvlink4-allreduce-nvls-busbw-issue272", 475 * GB, "B/s", "per direction",
                "AllReduce peak busbw, 64 KiB to 4 GiB, NCCL 2.20.3 (NVLS)", "8 x H200 (NVLink 4)",
                "nccl-tests all_reduce_perf busbw",
                "nccltests_issue272 (NVIDIA/nccl-tests issue #272, the reporter's run)", 2024),
    Measurement("h100-nvlink4-allreduce-ring-busbw-maintainer", 370 * GB, "B/s", "per direction",
                "busbw with NCCL_ALGO=RING or a non-allreduce operation ('~20 %' protocol overhead)",
                "8 x H100 (NVLink 4)", "nccl-tests busbw (maintainer's figure)",
                "nccltests_issue212 (NVIDIA/nccl-tests issue #212, comment by S. Jeaugey)", 2024),
    Measurement("h100-nvlink4-allreduce-nvls-busbw-maintainer", 480 * GB, "B/s", "per direction",
                "AllReduce peak busbw with NVLink SHARP (NVLS) at large sizes ('~480GB/s')",
                "8 x H100 (NVLink 4)", "nccl-tests busbw (maintainer's figure)",
                "nccltests_issue212 (NVIDIA/nccl-tests issue #212, comment by S. Jeaugey)", 2024),
    Measurement("a100-nvlink3-allreduce-busbw-issue175", 232.54 * GB, "B/s", "per direction",
                "AllReduce busbw, all_reduce_perf -b 8 -e 4G -f 2 -g 8", "8 x A100 (NVLink 3)",
                "nccl-tests all_reduce_perf busbw",
                "nccltests_issue175 (NVIDIA/nccl-tests issue #175, the reporter's run)", 2023),
    Measurement("a100-nvbridge-2gpu-allreduce-busbw-issue178", 208 * GB, "B/s", "per direction",
                "AllReduce busbw of two NVLink-bridged GPUs (NV12), all_reduce_perf -b 8 -e 12G -f 2 -g 1 -t 2",
                "8 x A100 PCIe cards, NVLink bridges in pairs (the matrix of traces.get('a100-pcie-nvbridge-topo'))",
                "nccl-tests all_reduce_perf busbw",
                "nccltests_issue178 (NVIDIA/nccl-tests issue #178, the reporter's 'Bus_BW: 208 GBps')", 2023),
    Measurement("b200-nvlink5-allreduce-busbw-4gib", 740.64 * GB, "B/s", "per direction",
                "AllReduce busbw at 4 GiB, nccl 2.27.7", "8 x B200 (NVLink 5), AWS P6-B200",
                "torch all_reduce_bench.py busbw", BEKMAN, 2024),
    # --- NVLink: peer-to-peer copies -------------------------------------------------
    Measurement("h100-nvlink4-p2p-uni", 380 * GB, "B/s", "per direction",
                "GPU-to-GPU copy, one direction", "H100 SXM (NVLink 4)",
                "p2pBandwidthLatencyTest",
                "nccl_issue1264 (NVIDIA/nccl issue #1264)", 2024),
    Measurement("h100-nvlink4-p2p-bidir", 749 * GB, "B/s", "bidirectional",
                "GPU-to-GPU copies, both directions at once", "H100 SXM (NVLink 4)",
                "p2pBandwidthLatencyTest",
                "nccl_issue1264 (NVIDIA/nccl issue #1264)", 2024),
    # --- host-staged copies: peer access disabled, the driver stages through host memory ---
    Measurement("h100-p2p-disabled-uni-cross-socket", 37.06 * GB, "B/s", "per direction",
                "GPU0 to GPU4 copy with peer access disabled (staged through host memory), across "
                "the two sockets", H100_HOST,
                "p2pBandwidthLatencyTest, Unidirectional P2P=Disabled matrix",
                "nccl_issue1264 (NVIDIA/nccl issue #1264)", 2024),
    Measurement("h100-p2p-disabled-uni-same-socket", 37.19 * GB, "B/s", "per direction",
                "GPU0 to GPU1 copy with peer access disabled (staged through host memory), one "
                "socket", H100_HOST,
                "p2pBandwidthLatencyTest, Unidirectional P2P=Disabled matrix",
                "nccl_issue1264 (NVIDIA/nccl issue #1264)", 2024),
    # --- across servers ---------------------------------------------------------------
    Measurement("b200-efa-4node-allreduce-busbw", 381.80 * GB, "B/s", "per direction",
                "AllReduce busbw at 16 GiB across 4 nodes",
                "4 nodes x 8 B200, EFA (8 x 50 GB/s NICs per node)",
                "nccl-tests all_reduce_perf busbw", BEKMAN, 2024),
    # --- GEMM: the maximum achievable matmul FLOP/s (MAMF), BF16 -----------------------
    # The fraction of the dense peak a perfectly shaped GEMM reaches: the ceiling of the
    # step model's GEMM efficiency (interconnect.parallel.machines).
    Measurement("a100-sxm-bf16-mamf", 271.2 * TFLOPS, "FLOP/s", "n/a",
                "BF16 matmul, best shape 1024x10240x5120 (86.9 % of 312 TFLOP/s)", "A100 SXM, torch 2.6.0+cu126",
                "mamf-finder.py", MAMF, 2025),
    Measurement("h100-sxm-bf16-mamf", 794.5 * TFLOPS, "FLOP/s", "n/a",
                "BF16 matmul, best shape 2048x2048x13312 (80.3 % of 989 TFLOP/s; 'H200 is the same')",
                "H100 SXM, torch 2.7.0+cu126", "mamf-finder.py", MAMF, 2025),
    Measurement("b200-sxm-bf16-mamf", 1745.0 * TFLOPS, "FLOP/s", "n/a",
                "BF16 matmul, best shape 1792x16128x3072 (77.6 % of 2,250 TFLOP/s)", "B200 SXM, torch 2.7.1+cu128",
                "mamf-finder.py", MAMF, 2025),
    Measurement("gb200-bf16-mamf", 1822.0 * TFLOPS, "FLOP/s", "n/a",
                "BF16 matmul, best shape 4096x9728x2048 (72.9 % of 2,500 TFLOP/s)", "GB200, torch 2.10.0.dev+cu130",
                "mamf-finder.py", MAMF, 2025),
    Measurement("mi300x-bf16-mamf", 668.4 * TFLOPS, "FLOP/s", "n/a",
                "BF16 matmul, best shape 10240x15360x8192 (51.4 % of 1,300 TFLOP/s)", "MI300X, torch 2.5.1+rocm6.3",
                "mamf-finder.py", MAMF, 2025),
    Measurement("mi325x-bf16-mamf", 784.9 * TFLOPS, "FLOP/s", "n/a",
                "BF16 matmul, best shape 13312x10240x8192 (60.4 % of 1,300 TFLOP/s), 1000 W",
                "MI325X, torch 2.6.0+rocm6.2.4", "mamf-finder.py", MAMF, 2025),
    Measurement("mi355x-bf16-mamf", 1565.0 * TFLOPS, "FLOP/s", "n/a",
                "BF16 matmul, best shape 12288x8192x8192 (68.0 % of 2,300 TFLOP/s)",
                "MI355X, torch 2.8.0+rocm7.0.2", "mamf-finder.py", MAMF, 2025),
    Measurement("h100-sxm-fp8-mamf", 1402.6 * TFLOPS, "FLOP/s", "n/a",
                "FP8 (e4m3) matmul, best shape 1024x9216x14336 (70.9 % of 1,979 TFLOP/s)",
                "H100 SXM, torch 2.7.0+cu126", "mamf-finder.py", MAMF, 2025),
    Measurement("h200-sxm-fp8-mamf", 1453.4 * TFLOPS, "FLOP/s", "n/a",
                "FP8 (e4m3) matmul, best shape 1280x4096x12032 (73.4 % of 1,979 TFLOP/s)",
                "H200 SXM, torch 2.7.1+cu128", "mamf-finder.py", MAMF, 2025),
    Measurement("b200-sxm-fp8-mamf", 3432.5 * TFLOPS, "FLOP/s", "n/a",
                "FP8 (e4m3) matmul, best shape 15360x4096x3072 (76.3 % of 4,500 TFLOP/s)",
                "B200 SXM, torch 2.7.1+cu128", "mamf-finder.py", MAMF, 2025),
    Measurement("gb200-fp8-mamf", 3615.6 * TFLOPS, "FLOP/s", "n/a",
                "FP8 (e4m3) matmul, best shape 19456x5120x1536 (72.3 % of 5,000 TFLOP/s)",
                "GB200, torch 2.10.0.dev+cu130", "mamf-finder.py", MAMF, 2025),
    # --- fused attention -----------------------------------------------------------------
    Measurement("h100-flashattention3-fwd", 661 * TFLOPS, "FLOP/s", "n/a",
                "FlashAttention-3 forward, BF16, batch 4, sequence 8,448, 16 heads of 128 (ablation table)",
                "H100 80GB SXM5", "FlashAttention-3 benchmark",
                "shah2024flashattention3 (Shah et al. 2024, FlashAttention-3, sec. 4.3, pipelining ablation "
                "table)", 2024),
    Measurement("a100-flashattention2-fwdbwd", 230 * TFLOPS, "FLOP/s", "n/a",
                "FlashAttention-2, forward + backward, up to 230 TFLOP/s (73 % of 312)", "A100 80GB SXM4",
                "FlashAttention-2 benchmark",
                "dao2023flashattention2 (Dao 2023, FlashAttention-2, abstract and sec. 4.1)", 2023),
    # --- training runs ---------------------------------------------------------------
    Measurement("titanrtx-gpt2-ddp-nvlink-time", 101.9003, "s", "n/a",
                "GPT-2 run_clm training with DDP, NVLink bridge (train_runtime)",
                "2 x TITAN RTX with NVLink bridge", "transformers run_clm.py (train_runtime)",
                "hf_perf_hardware (Hugging Face transformers docs, perf_hardware)", 2023),
    Measurement("titanrtx-gpt2-ddp-no-p2p-time", 131.4367, "s", "n/a",
                "GPT-2 run_clm training with DDP, NCCL_P2P_DISABLE=1 (train_runtime)",
                "2 x TITAN RTX with NVLink bridge", "transformers run_clm.py (train_runtime)",
                "hf_perf_hardware (Hugging Face transformers docs, perf_hardware)", 2023),
)

#: All measurements by name.
MEASUREMENTS: dict[str, Measurement] = {m.name: m for m in _ENTRIES}
if len(MEASUREMENTS) != len(_ENTRIES):  # pragma: no cover - a typo in the table above
    raise RuntimeError("duplicate measurement name")


def names() -> list[str]:
    """All measurement names, in catalog order.

    >>> "h100-nvlink4-p2p-uni" in names()
    True
    """
    return list(MEASUREMENTS)


def get(name: str) -> Measurement:
    """One measurement by name (case-insensitive).

    Raises
    ------
    ValueError
        If ``name`` is not a string or not a known measurement; the message lists close
        matches and how to list all names.

    Examples
    --------
    >>> get("H200-pcie5-h2d-nvbandwidth").tool
    'nvbandwidth'
    >>> get("h100-nvlink4-p2p-uni").value == 380e9
    True
    """
    return lookup(name, MEASUREMENTS, "measurement", "a100-nvlink3-allreduce-busbw",
                  "list all names with interconnect.catalog.measurements.names()")
