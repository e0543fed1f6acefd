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

__all__ = ["ValidationRow", "predict", "validation_table", "validation_summary", "TARGET", "reserve_rate_bound"]

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


def reserve_rate_bound(model, machine, tp, prompt, output, kv_bytes, weight_bytes=1.0, fraction=1.0):
    """An upper bound on the output tokens per second of a ``tp``-GPU replica that admits requests
    by reserving their whole length in the KV cache (``admission="reserve"``), whatever its kernels.

    Every GPU's memory beyond its share of the weights, times ``fraction``, holds the cache, so
    at most ``B = fraction (M - w N / tp) / (kv (prompt + output))`` requests run at once
    (``kv``: :func:`~interconnect.serving.kv_bytes_per_token`; ``M``: the GPU's memory). A step
    reads at least the weights and the running batch's cache at its mean context
    ``prompt + output / 2``, at the peak HBM bandwidth ``bw``, and yields one token per running
    request, so the rate is at most ``B bw / (w N / tp + B (prompt + output / 2) kv)``, which grows
    with ``B``. Activations, the engine's own buffers and every other kernel only lower it.

    A published maximum-load row above this bound for a given ``kv_bytes`` rules that cache
    precision out for the engine that measured it.

    Parameters
    ----------
    model : ModelConfig
    machine : str or Cluster
        Needs its ``memory_bandwidth`` and ``gemm_gpu`` (whose ``memory`` is used).
    tp : int
        Tensor-parallel degree, >= 1.
    prompt, output : int
        Tokens per request, >= 1.
    kv_bytes, weight_bytes : float
        Bytes per cached element and per weight, > 0.
    fraction : float
        Share of the memory beyond the weights given to the cache, in (0, 1].

    Returns
    -------
    float
        Output tokens per second of the replica.

    Examples
    --------
    Llama 3.3 70B in FP8 on one H200, 128 input and 4,096 output tokens: NVIDIA's published
    2,872 tokens/s is above the bound for a BF16 cache and below it for an FP8 cache.

    >>> from interconnect.catalog import models
    >>> m = models.get("llama3-70b")
    >>> [round(reserve_rate_bound(m, "dgx-h200", 1, 128, 4096, kv_bytes=b)) for b in (2, 1)]
    [2499, 4997]
    """
    from .._validate import as_count, as_fraction, as_positive
    from ..devices import get_gpu
    from .kv import kv_bytes_per_token
    from .steps import as_machine

    cl = as_machine(machine)
    tp = as_count("tp", tp)
    prompt, output = as_count("prompt", prompt), as_count("output", output)
    fraction = float(as_fraction("fraction", fraction, 0.0, 1.0))
    w = float(as_positive("weight_bytes", weight_bytes, "bytes")) * model.params / tp
    kv = kv_bytes_per_token(model, tp, 1, kv_bytes)
    free = get_gpu(cl.gemm_gpu).memory - w
    if free <= 0:
        raise ValueError(f"tp={tp}: the weights ({w / 2**30:.1f} GiB per GPU) do not fit; allowed: a larger tp")
    batch = fraction * free / (kv * (prompt + output))
    return batch * cl.memory_bandwidth / (w + batch * (prompt + output / 2) * kv)


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
    (76, 59)
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
    (60, 52, 0.07)
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
