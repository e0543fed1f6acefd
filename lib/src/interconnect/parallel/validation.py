"""Validation of the step-time model against published measurements, and its calibration.

References
----------
V. Korthikanti et al. (2022), arXiv:2205.05198, Tables 3 and 5.
D. Narayanan et al. (2021), SC21 (arXiv:2104.04473), Table 1.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from .cluster import Cluster
from .layout import Layout
from .step_time import step_time
from .transformer import ModelConfig

__all__ = ["ValidationRow", "VALIDATION_ROWS", "validation_layout", "predict_row", "calibrate", "validation_table",
           "validation_rows_2024", "bottom_up_table", "short_source", "throughput_error_pct"]

_SHORT_SOURCES = (("Korthikanti", "Korthikanti et al. 2022, T5"), ("Narayanan", "Narayanan et al. 2021, T1"),
                  ("Megatron-LM README", "Megatron-LM README (r0.8.0)"), ("NeMo 24.07", "NeMo 24.07"),
                  ("Megatron-Bridge", "NeMo 25.09"), ("Dubey", "Llama 3, T4"))


def short_source(source):
    """A short label for a :class:`ValidationRow`'s ``source``, for tables.

    Examples
    --------
    >>> short_source("Dubey et al. 2024 (Llama 3), Table 4")
    'Llama 3, T4'
    """
    for key, short in _SHORT_SOURCES:
        if key in source:
            return short
    return source


def throughput_error_pct(row_result):
    """A :func:`validation_table` row's error in work per second, per cent: ``predicted /
    measured - 1`` for TFLOP/s, ``measured / predicted - 1`` for seconds per iteration, so a
    positive error always means the model runs faster than the measurement.

    Examples
    --------
    >>> round(throughput_error_pct({"quantity": "iteration_s", "measured": 1.1, "predicted": 1.0}), 1)
    10.0
    >>> round(throughput_error_pct({"quantity": "tflops_per_gpu", "measured": 100.0, "predicted": 90.0}), 1)
    -10.0
    """
    if row_result["quantity"] == "iteration_s":
        return 100.0 * (row_result["measured"] / row_result["predicted"] - 1.0)
    return 100.0 * (row_result["predicted"] / row_result["measured"] - 1.0)


@dataclass(frozen=True)
class ValidationRow:
    """One published measurement the step-time model is checked against.

    Attributes
    ----------
    source : str
        Paper and table.
    name : str
        Configuration label.
    model : ModelConfig
    layout : Layout
    quantity : {"iteration_s", "tflops_per_gpu", "model_tflops_per_gpu"}
        What the source printed: seconds per iteration, hardware TFLOP/s per GPU, or model
        TFLOP/s per GPU (no recomputation counted; Megatron-Core's and NeMo's logs).
    measured : float
    machine : str, optional
        A preset of :func:`interconnect.parallel.machines.machine` the row ran on; None for the
        2021-22 DGX A100 rows, which :func:`validation_table` prices on the cluster it is given.
    assumptions : str
        What the source does not state and the row assumes.
    """

    source: str
    name: str
    model: ModelConfig
    layout: Layout
    quantity: str
    measured: float
    machine: str | None = None
    assumptions: str = ""


def _korthikanti_rows():
    # Korthikanti et al. 2022, Table 3 (configurations) and Table 5 (iteration time, s):
    # t = 8, s = 2048, V = 51200, no data parallelism; (name, layers, hidden, heads, pp, GPUs,
    # global batch, microbatch, full-recompute s, present (selective + SP) s).
    # Table 3's batch/GPU columns are confirmed by Table 5's MFU and HFU columns, which they
    # reproduce to the printed 3 digits with 312 TFLOP/s (e.g. 22B: B = 4 on 8 GPUs in 1.10 s
    # gives MFU 41.6 % vs 41.5 % printed).
    cfg = [("22B", 48, 6144, 64, 1, 8, 4, 4, 1.42, 1.10),
           ("175B", 96, 12288, 96, 8, 64, 64, 1, 18.13, 13.75),
           ("530B", 105, 20480, 128, 35, 280, 280, 1, 49.05, 37.83),
           ("1T", 128, 25600, 160, 64, 512, 512, 1, 94.42, 71.49)]
    rows = []
    for name, L, h, a, p, n, B, b, t_full, t_sel in cfg:
        model = ModelConfig(L, h, a, 2048, 51200, B, name=name)
        dp = n // (8 * p)
        for mode, sp, t in (("full", False, t_full), ("selective", True, t_sel)):
            lay = Layout(dp=dp, tp=8, pp=p, microbatch=b, sequence_parallel=sp, recompute=mode)
            rows.append(ValidationRow("Korthikanti et al. 2022, Table 5", f"{name} {mode}", model, lay,
                                      "iteration_s", t))
    return rows


def _narayanan_rows():
    # Narayanan et al. 2021, Table 1 (weak scaling, every row): (params B, heads, hidden,
    # layers, t, p, GPUs, batch, TFLOP/s per GPU). s = 2048, V = 51200; d = GPUs / (t p).
    # The table gives neither the microbatch size nor the number of model chunks; sec. 5.1
    # says the interleaved schedule with scatter/gather was used. Modelled as b = 1 and, as a
    # deliberate simplification, plain 1F1B (chunks = 1), which overstates the bubble of the
    # p > 1 rows; full recomputation (eq. 3 is how the TFLOP/s are counted),
    # no sequence parallelism (it came in 2022), no DP overlap (Megatron-LM of 2021 reduced
    # gradients after the backward pass), scatter/gather on (sec. 4.1).
    cfg = [(1.7, 24, 2304, 24, 1, 1, 32, 512, 137), (3.6, 32, 3072, 30, 2, 1, 64, 512, 138),
           (7.5, 32, 4096, 36, 4, 1, 128, 512, 142), (18.4, 48, 6144, 40, 8, 1, 256, 1024, 135),
           (39.1, 64, 8192, 48, 8, 2, 512, 1536, 138), (76.1, 80, 10240, 60, 8, 4, 1024, 1792, 140),
           (145.6, 96, 12288, 80, 8, 8, 1536, 2304, 148), (310.1, 128, 16384, 96, 8, 16, 1920, 2160, 155),
           (529.6, 128, 20480, 105, 8, 35, 2520, 2520, 163), (1008.0, 160, 25600, 128, 8, 64, 3072, 3072, 163)]
    rows = []
    for billions, a, h, L, t, p, n, B, tf in cfg:
        name = f"{billions:g}B"
        model = ModelConfig(L, h, a, 2048, 51200, B, name=name)
        lay = Layout(dp=n // (t * p), tp=t, pp=p, microbatch=1, sequence_parallel=False, recompute="full")
        rows.append(ValidationRow("Narayanan et al. 2021, Table 1", f"{name} t={t} p={p} n={n}", model, lay,
                                  "tflops_per_gpu", float(tf)))
    return rows


#: Every validation row: Korthikanti et al. (2022) Table 5 (8 rows) and Narayanan et al.
#: (2021) Table 1 (10 rows), all on DGX A100 (Selene).
VALIDATION_ROWS = tuple(_korthikanti_rows() + _narayanan_rows())


def validation_layout(row):
    """The :class:`Layout` of a :class:`ValidationRow` (kept for symmetry with ``row.model``)."""
    return row.layout


def predict_row(row, cluster=None):
    """The model's prediction of ``row.quantity`` for a :class:`ValidationRow` on ``cluster``
    (default: the row's own ``machine`` preset)."""
    if cluster is None:
        if row.machine is None:
            raise ValueError(f"cluster=None for row {row.name!r}, which names no machine; pass a Cluster")
        from .machines import machine

        cluster = machine(row.machine)
    st = step_time(row.model, row.layout, cluster)
    return {"iteration_s": st.total, "tflops_per_gpu": st.tflops_per_gpu,
            "model_tflops_per_gpu": st.model_tflops_per_gpu}[row.quantity]


def _log_errors(rows, g, c):
    cl = Cluster.dgx_a100(gemm_efficiency=g, comm_efficiency=c)
    return np.array([np.log(predict_row(r, cl) / r.measured) for r in rows])


def calibrate(rows=None):
    """Fit ``gemm_efficiency`` and ``comm_efficiency`` once, over all rows, on DGX A100.

    Minimises ``sum(log(predicted / measured)^2)`` (for TFLOP/s rows the log error is that
    of the iteration time, sign flipped), with both efficiencies bounded to (0.05, 1].
    No row has a parameter of its own.

    Parameters
    ----------
    rows : sequence of ValidationRow, optional
        Default :data:`VALIDATION_ROWS`.

    Returns
    -------
    dict
        ``gemm_efficiency``, ``comm_efficiency``, ``rms_log_error``, ``max_abs_error``
        (relative, fraction).
    """
    from scipy.optimize import least_squares

    rows = VALIDATION_ROWS if rows is None else tuple(rows)
    if not rows:
        raise ValueError("rows is empty; expected at least one ValidationRow")
    res = least_squares(lambda x: _log_errors(rows, x[0], x[1]), x0=[0.6, 0.7],
                        bounds=([0.05, 0.05], [1.0, 1.0]), xtol=1e-12, ftol=1e-12)
    e = _log_errors(rows, *res.x)
    return {"gemm_efficiency": float(res.x[0]), "comm_efficiency": float(res.x[1]),
            "rms_log_error": float(np.sqrt(np.mean(e**2))), "max_abs_error": float(np.max(np.abs(np.expm1(e))))}


def validation_table(cluster=None, rows=None):
    """Rows of (source, name, quantity, measured, predicted, error %) for the validation set.

    Rows that name a ``machine`` run on that preset; the others on ``cluster`` (default the
    calibrated :meth:`Cluster.dgx_a100`)."""
    cluster = Cluster.dgx_a100() if cluster is None else cluster
    rows = VALIDATION_ROWS if rows is None else rows
    out = []
    for r in rows:
        pred = predict_row(r, None if r.machine is not None else cluster)
        out.append({"source": r.source, "name": r.name, "quantity": r.quantity, "measured": r.measured,
                    "predicted": pred, "error_pct": 100.0 * (pred / r.measured - 1.0)})
    return out


def _megatron_core_readme_rows():
    # NVIDIA Megatron-LM README, "Training Speed and Scalability", weak-scaling table
    # (images/model_table.png, Megatron-Core r0.8.0, commit f2e5db40, 2024): GPT models, s = 4096,
    # V = 131,072, DP = 48, H100; --overlap-grad-reduce --overlap-param-gather --tp-comm-overlap.
    # (billions, heads, hidden, layers, t, p, GPUs, batch, model TFLOP/s per GPU)
    from .machines import stack

    cfg = [(1.7, 16, 2048, 24, 1, 1, 48, 192, 408.8), (7.1, 32, 4096, 30, 2, 1, 96, 192, 465.9),
           (16, 48, 6144, 32, 4, 1, 192, 192, 489.1), (32, 56, 7168, 48, 8, 1, 384, 192, 459.6),
           (70, 64, 8192, 84, 8, 2, 768, 384, 419.7), (119, 80, 10240, 92, 8, 4, 1536, 768, 420.5),
           (177, 96, 12288, 96, 8, 6, 2304, 1152, 432.8), (314, 128, 16384, 96, 8, 8, 3072, 1536, 474.4),
           (462, 144, 18432, 112, 8, 16, 6144, 3072, 459.9)]
    core = stack("megatron-core-2024")
    rows = []
    for billions, a, h, L, t, p, n, B, tf in cfg:
        model = ModelConfig(L, h, a, 4096, 131072, B, name=f"GPT {billions:g}B")
        lay = core.layout(dp=n // (t * p), tp=t, pp=p, microbatch=1)
        rows.append(ValidationRow("NVIDIA Megatron-LM README (Megatron-Core r0.8.0), weak scaling", f"{billions:g}B "
                                  f"t={t} p={p} n={n}", model, lay, "model_tflops_per_gpu", tf, "dgx-h100",
                                  "BF16; microbatch 1 and no interleaving (neither stated); GPT block with a 4h MLP "
                                  "and no GQA (not stated)"))
    return rows


def _nemo_rows():
    # NVIDIA NeMo performance summary, NeMo 24.07, DGX-H100, FP8 (docs/source/performance/
    # performance_summary.md, commit 8e3d65dc, 2024): GPT3-175B on 128 GPUs, TP4 PP8 VP6, GBS 256,
    # MBS 1, s = 2048: 771 model TFLOP/s per GPU.
    from dataclasses import replace as _replace

    from ..catalog import models
    from .machines import stack

    core = stack("megatron-core-2024")
    nemo24 = "NVIDIA NeMo 24.07 performance summary (DGX-H100, FP8)"
    nemo25 = "NVIDIA Megatron-Bridge performance summary, NeMo 25.09 (FP8)"
    recipe = "recomputation off and every overlap on (the recipe's defaults, not printed in the table)"
    # (source, label, model key, s, GBS, MBS, TP, PP, VP, GPUs, machine, model TFLOP/s per GPU)
    cfg = [(nemo24, "GPT-3 175B", "gpt3-175b", 2048, 256, 1, 4, 8, 6, 128, "dgx-h100", 771.0),
           (nemo24, "Llama 2 7B", "llama2-7b", 4096, 128, 1, 1, 1, 1, 8, "dgx-h100", 780.0),
           (nemo24, "Llama 2 13B", "llama2-13b", 4096, 128, 1, 1, 4, 10, 16, "dgx-h100", 760.0),
           (nemo24, "Llama 2 70B", "llama2-70b", 4096, 128, 1, 4, 4, 20, 64, "dgx-h100", 768.0),
           (nemo25, "Llama 3 70B", "llama3-70b", 8192, 128, 1, 4, 8, 5, 64, "dgx-h100", 727.0),
           (nemo25, "Llama 3 8B", "llama3-8b", 8192, 128, 2, 1, 1, 1, 8, "dgx-b200", 1544.0),
           (nemo25, "Llama 3 8B", "llama3-8b", 8192, 128, 2, 1, 1, 1, 8, "gb200-nvl72", 1614.0)]
    rows = []
    for source, label, key, s, B, b, t, p, v, n, mach, tf in cfg:
        model = _replace(models.get(key), seq_len=s, global_batch=B)
        lay = core.layout(dp=n // (t * p), tp=t, pp=p, chunks=v, microbatch=b, fp8=True)
        rows.append(ValidationRow(source, f"{label} t={t} p={p} v={v} n={n} ({mach})", model, lay,
                                  "model_tflops_per_gpu", tf, mach, recipe))
    # Dubey et al. 2024 (Llama 3), Table 4: 405B, BF16, TP8 PP16, seq 8,192, 16M tokens per batch
    llama = models.get("llama3-405b")
    for n, dp, tf in ((8192, 64, 430.0), (16384, 128, 400.0)):
        lay = core.layout(dp=dp, tp=8, pp=16, microbatch=1, uneven_stages=True, tp_overlap=0.0)
        rows.append(ValidationRow("Dubey et al. 2024 (Llama 3), Table 4", f"Llama 3 405B t=8 p=16 n={n}", llama, lay,
                                  "model_tflops_per_gpu", tf, "dgx-h100",
                                  "Meta's own stack: BF16, FSDP sharding optimizer states and gradients (ZeRO-2 "
                                  "traffic = ZeRO-1's), FP32 gradient reduce-scatter, no recomputation, fused "
                                  "attention; "
                                  "TP communication not overlapped; microbatch 1 and plain 1F1B (interleaving is used "
                                  "but its depth is not stated); Grand Teton servers with 8 x 400 Gb/s RoCE NICs, "
                                  "modelled as DGX H100"))
    return rows


@functools.cache
def validation_rows_2024():
    """Published training runs of 2024-26 on H100-era machines (a tuple of :class:`ValidationRow`),
    each priced on its ``machine`` preset with component-measured efficiencies (no fitted
    constant). Built on first use, as the model catalog imports this package.

    Examples
    --------
    >>> rows = validation_rows_2024()
    >>> len(rows) >= 10, {r.machine for r in rows} >= {"dgx-h100"}
    (True, True)
    """
    return tuple(_megatron_core_readme_rows() + _nemo_rows())


def bottom_up_table(rows=None):
    """Every validation row priced bottom-up: the 2021-22 DGX A100 rows on
    :func:`~interconnect.parallel.machines.machine` ``("dgx-a100")`` (measured GEMM ceiling,
    quantisation and nccl-tests bus bandwidth, nothing fitted) and the 2024-26 rows on their own
    machine presets. On Hopper and Blackwell the GEMMs also lose the measured share of a short
    reduction (:func:`~interconnect.parallel.gemm.depth_factor`) and fused attention runs at
    FlashAttention-3's measured forward and backward rates
    (:func:`~interconnect.parallel.compute.attention_pass_rates`); every machine preset counts the
    optimizer step (:func:`~interconnect.parallel.compute.optimizer_bytes`). No constant is fitted
    to any row.

    Returns
    -------
    list of dict
        As :func:`validation_table`.
    """
    from .machines import machine

    rows = VALIDATION_ROWS + validation_rows_2024() if rows is None else tuple(rows)
    return validation_table(machine("dgx-a100"), rows)
