"""The serving models against published measurements: every row's prediction and error.

Each row of :data:`~interconnect.serving.published.PUBLISHED` is predicted by the package's
models with the machine presets' component efficiencies (the measured GEMM ceiling, the
measured fused-attention rate, the measured NVLink AllReduce fraction); nothing is fitted to
these rows. How a row is predicted depends on how it was measured:

* ``"max-throughput"`` (in-flight batching fed at an infinite rate): the output throughput of
  :func:`~interconnect.serving.sustainable_rate`, ``rate * output``, the steady state whose
  running batch fills the paged KV cache (10 % of HBM held back) under the engine's
  admission rule (the row's ``admission``);
* ``"static"`` (a batch prefilled together and decoded together to the end): per GPU,
  ``batch * output / (prefill + sum of the output - 1 decode steps) / tp``, the prefill by
  :func:`~interconnect.serving.prefill_time` and each step by
  :func:`~interconnect.serving.decode_step_time` at its context, its KV read multiplied by
  :func:`~interconnect.serving.kv_read_factor` of the row's decode kernel (``kv_reads``);
* ``"first-token"``: :func:`~interconnect.serving.prefill_time` of the batch (``gptSessionBenchmark``
  timed the prefill and the sampling of its one token at batch 1: no queue, no server).

Every prediction prices the tensor-parallel AllReduces with the row's ``allreduce``
(:func:`~interconnect.serving.tp_allreduce_time`): ``"auto"`` for engines with custom one- and
two-shot kernels, ``"nccl"`` for the 2023 builds, which left them off.

The error is ``predicted / measured - 1``. :func:`validation_table` lists every row,
:func:`validation_summary` counts them.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from .published import PUBLISHED, PublishedServing

__all__ = ["ValidationRow", "predict", "validation_table", "validation_summary", "TARGET"]

#: The error the issue asks for, as a fraction.
TARGET = 0.15


@dataclass(frozen=True)
class ValidationRow:
    """One published row with the model's prediction.

    Attributes
    ----------
    row : PublishedServing
    predicted, measured : float
        In the row's metric.
    error : float
        ``predicted / measured - 1``.
    """

    row: PublishedServing
    predicted: float
    measured: float
    error: float

    @property
    def within_target(self):
        """``abs(error) <= TARGET``."""
        return abs(self.error) <= TARGET


def _static(row, cl, model, fp8):
    from .kv import kv_read_factor
    from .steps import _decode, prefill_time

    p = prefill_time(model, cl, row.prompt, tp=row.tp, fp8=fp8, batch=row.batch, kv_bytes=row.kv_bytes,
                     algorithm=row.allreduce).total
    ctx = np.arange(row.prompt + 1, row.prompt + row.output, dtype=float)
    read = row.kv_bytes * kv_read_factor(model, row.kv_reads)     # bytes a step reads per cached element
    d = sum(_decode(model, cl, row.tp, float(row.batch), c, fp8, read, 2.0, row.allreduce).total for c in ctx)
    return row.batch * row.output / (p + d) / row.tp


def predict(row):
    """The model's value of ``row``'s metric.

    Parameters
    ----------
    row : PublishedServing

    Returns
    -------
    float

    Examples
    --------
    >>> from interconnect.serving.published import PUBLISHED
    >>> r = PUBLISHED[0]
    >>> r.model_name, r.machine, r.tp, r.prompt, r.output, r.value
    ('Llama 3.1 8B', 'dgx-h200', 1, 128, 128, 27911.0)
    >>> round(predict(r))
    32491
    """
    from ..catalog import models
    from .batching import sustainable_rate
    from .steps import as_machine, prefill_time

    if not isinstance(row, PublishedServing):
        raise ValueError(f"row={row!r} is not allowed; allowed: a PublishedServing")
    model, cl, fp8 = models.get(row.model), as_machine(row.machine), row.precision == "fp8"
    if row.mode == "max-throughput":
        return sustainable_rate(model, row.machine, row.tp, row.prompt, row.output, fp8=fp8,
                                kv_bytes=row.kv_bytes, admission=row.admission, algorithm=row.allreduce) * row.output
    if row.mode == "static":
        return _static(row, cl, model, fp8)
    return prefill_time(model, cl, row.prompt, tp=row.tp, fp8=fp8, batch=row.batch, kv_bytes=row.kv_bytes,
                        algorithm=row.allreduce).total


@lru_cache(maxsize=1)
def validation_table():
    """Every published row with its prediction and error, in :data:`PUBLISHED` order.

    Returns
    -------
    tuple of ValidationRow

    Examples
    --------
    >>> t = validation_table()
    >>> len(t), sum(r.within_target for r in t)
    (76, 45)
    """
    out = []
    for row in PUBLISHED:
        p = float(predict(row))
        out.append(ValidationRow(row=row, predicted=p, measured=row.value, error=p / row.value - 1.0))
    return tuple(out)


def validation_summary(mode=None):
    """Rows, rows within :data:`TARGET`, and the median and largest ``abs(error)``, for one
    measurement mode or all.

    Parameters
    ----------
    mode : str, optional
        One of :data:`~interconnect.serving.published.MODES`; None: every row.

    Returns
    -------
    dict
        ``rows``, ``within``, ``median_abs_error``, ``max_abs_error``, ``mean_error``.

    Examples
    --------
    >>> s = validation_summary("max-throughput")
    >>> s["rows"], s["within"], round(s["median_abs_error"], 2)
    (60, 38, 0.11)
    """
    from .._validate import choice
    from .published import MODES

    rows = validation_table()
    if mode is not None:
        mode = choice("mode", mode, MODES)
        rows = [r for r in rows if r.row.mode == mode]
    err = np.array([r.error for r in rows])
    return {"rows": len(rows), "within": int(np.sum(np.abs(err) <= TARGET)),
            "median_abs_error": float(np.median(np.abs(err))), "max_abs_error": float(np.max(np.abs(err))),
            "mean_error": float(np.mean(err))}
