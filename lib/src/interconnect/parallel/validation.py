"""Validation of the step-time model against published measurements, and its calibration.

References
----------
V. Korthikanti et al. (2022), arXiv:2205.05198, Tables 3 and 5.
D. Narayanan et al. (2021), SC21 (arXiv:2104.04473), Table 1.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .cluster import Cluster
from .layout import Layout
from .step_time import step_time
from .transformer import ModelConfig

__all__ = ["ValidationRow", "VALIDATION_ROWS", "validation_layout", "predict_row", "calibrate", "validation_table"]


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
    quantity : {"iteration_s", "tflops_per_gpu"}
        What the paper printed: seconds per iteration or hardware TFLOP/s per GPU.
    measured : float
    """

    source: str
    name: str
    model: ModelConfig
    layout: Layout
    quantity: str
    measured: float


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
    # The table does not give the microbatch size or the schedule: modelled as b = 1,
    # plain 1F1B (chunks = 1), full recomputation (eq. 3 is how the TFLOP/s are counted),
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


def predict_row(row, cluster):
    """The model's prediction of ``row.quantity`` for a :class:`ValidationRow` on ``cluster``."""
    st = step_time(row.model, row.layout, cluster)
    return st.total if row.quantity == "iteration_s" else st.tflops_per_gpu


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
    """Rows of (source, name, quantity, measured, predicted, error %) for the validation set."""
    cluster = Cluster.dgx_a100() if cluster is None else cluster
    rows = VALIDATION_ROWS if rows is None else rows
    out = []
    for r in rows:
        pred = predict_row(r, cluster)
        out.append({"source": r.source, "name": r.name, "quantity": r.quantity, "measured": r.measured,
                    "predicted": pred, "error_pct": 100.0 * (pred / r.measured - 1.0)})
    return out
