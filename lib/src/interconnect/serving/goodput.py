"""Goodput, the largest request rate within the latency objectives, and when disaggregation pays.

:func:`prefill_goodput`, :func:`decode_goodput` and :func:`colocated_goodput` price the two
phases and the colocated replica against TTFT and TPOT objectives; :func:`disagg_pays`
compares them per GPU. Part of :mod:`interconnect.serving.disagg` (re-exported there), whose
layouts (:func:`~interconnect.serving.disagg.colocated`, :func:`~interconnect.serving.disagg.disaggregated`)
and KV transfer they use.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .disagg import _setup, kv_transfer_time
from .steps import prefill_time

__all__ = ["prefill_goodput", "decode_goodput", "colocated_goodput", "DisaggVerdict", "disagg_pays"]


# ---------------------------------------------------------------------------------------------
# Goodput: the largest rate within the latency objectives
# ---------------------------------------------------------------------------------------------

def _slo(name, value):
    v = float(value)
    if not v > 0:
        raise ValueError(f"{name}={value!r} is not allowed; {name} must be > 0 seconds (math.inf: no objective)")
    return v


def prefill_goodput(model, machine, prompt, ttft_slo, tp=8, kv_seconds=0.0, fp8=False, kv_bytes=2,
                    algorithm="auto"):
    """Largest rate one prefill instance serves with mean TTFT within ``ttft_slo``.

    ``wait + P + kv <= ttft_slo`` with the M/D/1 wait ``lambda P^2 / (2 (1 - lambda P))``:
    ``lambda = 2 x / (P^2 + 2 x P)``, ``x = ttft_slo - P - kv`` (0 if ``x <= 0``).

    Parameters
    ----------
    model, machine, prompt, tp, fp8, kv_bytes, algorithm
        As for :func:`disaggregated`.
    ttft_slo : float
        Seconds, > 0.
    kv_seconds : float
        Exposed KV transfer added to TTFT, s.

    Returns
    -------
    float
        Requests per second.

    Examples
    --------
    >>> from interconnect.catalog import models
    >>> round(prefill_goodput(models.get("llama3-70b"), "dgx-h100", 1024, 0.2), 1)
    21.1
    """
    slo = _slo("ttft_slo", ttft_slo)
    p = prefill_time(model, machine, prompt, tp, fp8, kv_bytes=kv_bytes, algorithm=algorithm).total
    x = slo - p - float(kv_seconds)
    if x <= 0:
        return 0.0
    if math.isinf(x):
        return 1.0 / p
    return 2.0 * x / (p * p + 2.0 * x * p)


def _largest_batch(ok, top, rtol):
    """Largest B in (0, top] with ok(B) (ok monotone: true, then false), 0.0 if none."""
    if ok(top):
        return top
    lo, hi = 1e-9, top
    if not ok(lo):
        return 0.0
    while hi - lo > rtol * hi:
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if ok(mid) else (lo, mid)
    return lo


def _decode_goodput(st, tpot_slo, rtol=1e-9):
    """Largest rate a decode-only instance serves with TPOT <= tpot_slo.

    Parametrised by the running batch: a batch ``B`` is the operating point of the rate
    ``r(B) = B / (output D(B))`` (Little's law), with TPOT ``D(B)``; ``D(B) / B`` falls as
    ``B`` grows (every term of ``D`` is affine or concave with a non-negative intercept), so
    ``r`` rises with ``B`` and the goodput is ``r(B*)`` at the largest ``B*`` within the
    capacity with ``D(B*) <= tpot_slo``.
    """
    saved = st.prefills
    st.prefills = False
    try:
        b = _largest_batch(lambda x: st.decode(x) <= tpot_slo, st.max_batch, rtol)
        return 0.0 if b <= 0 else b / (st.output * st.decode(b))
    finally:
        st.prefills = saved


def decode_goodput(model, machine, prompt, output, tpot_slo, tp=8, fp8=False, kv_bytes=2, block_tokens=16,
                   reserve=0.1, algorithm="auto", gpu=None):
    """Largest rate one decode instance serves with TPOT within ``tpot_slo``.

    Bisection on the rate for the largest whose decode-only fixed point ``T = D(rate output T)``
    (Little's law, no prefill stalls) has ``T <= tpot_slo`` and a running batch within the KV
    capacity.

    Returns
    -------
    float
        Requests per second.

    Examples
    --------
    >>> from interconnect.catalog import models
    >>> round(decode_goodput(models.get("llama3-70b"), "dgx-h100", 1024, 256, 0.05), 1)
    67.4
    """
    slo = _slo("tpot_slo", tpot_slo)
    st = _setup(model, machine, tp, prompt, output, fp8, kv_bytes, block_tokens, reserve, algorithm, gpu)
    return _decode_goodput(st, slo)


def _colocated_ok(st, rate, ttft_slo, tpot_slo):
    sol = st.solve(rate)
    if sol is None:
        return False
    t, b = sol
    return t <= tpot_slo and st.ttft(t, b) <= ttft_slo


def _colocated_at(st, b):
    """(rate, TPOT, TTFT) of the colocated operating point with running batch ``b``: by Little's
    law ``b / output`` prompts join each iteration, ``T = iteration(b, b / output)``,
    ``r = b / (output T)`` (``_Setup.at_batch``)."""
    return st.at_batch(b)


def _colocated_goodput(st, ttft_slo, tpot_slo, rtol=1e-9):
    """Largest rate within both objectives: the rate ``r(B*)`` of the largest running batch
    ``B*`` (within the capacity) whose TPOT and TTFT (:func:`_colocated_at`, both rising with
    ``B``) meet them; ``r`` rises with ``B`` as in :func:`_decode_goodput`."""
    def ok(b):
        _, t, f = _colocated_at(st, b)
        return t <= tpot_slo and f <= ttft_slo

    b = _largest_batch(ok, st.max_batch, rtol)
    return 0.0 if b <= 0 else _colocated_at(st, b)[0]


def colocated_goodput(model, machine, prompt, output, ttft_slo, tpot_slo, tp=8, fp8=False, kv_bytes=2,
                      block_tokens=16, reserve=0.1, algorithm="auto", gpu=None):
    """Largest rate one colocated replica serves within both SLOs (bisection on the rate).

    Returns
    -------
    float
        Requests per second (0 when even a trickle misses an SLO).

    Examples
    --------
    >>> from interconnect.catalog import models
    >>> round(colocated_goodput(models.get("llama3-70b"), "dgx-h100", 1024, 256, 0.2, 0.05), 1)
    17.5
    """
    t_slo, d_slo = _slo("ttft_slo", ttft_slo), _slo("tpot_slo", tpot_slo)
    st = _setup(model, machine, tp, prompt, output, fp8, kv_bytes, block_tokens, reserve, algorithm, gpu)
    return _colocated_goodput(st, t_slo, d_slo)


@dataclass(frozen=True)
class DisaggVerdict:
    """Whether disaggregation serves more requests per GPU within the SLOs.

    Attributes
    ----------
    pays : bool
        ``disaggregated_per_gpu > colocated_per_gpu``.
    colocated_per_gpu : float
        ``g_c / tp``, requests per second per GPU.
    disaggregated_per_gpu : float
        ``1 / (tp_p / g_p + tp_d / g_d)``, with fractional instances.
    prefill_goodput, decode_goodput, colocated_goodput : float
        Per instance, requests per second.
    decode_per_prefill : float
        Decode instances per prefill instance in the best mix, ``g_p / g_d``.
    kv_transfer : float
        Exposed KV transfer per request, seconds.
    why : str
        One sentence: which phase limits the colocated replica and what the transfer costs.
    """

    pays: bool
    colocated_per_gpu: float
    disaggregated_per_gpu: float
    prefill_goodput: float
    decode_goodput: float
    colocated_goodput: float
    decode_per_prefill: float
    kv_transfer: float
    why: str


def disagg_pays(model, machine, prompt, output, ttft_slo, tpot_slo, link="rdma", tp=8, prefill_tp=None,
                decode_tp=None, layerwise=True, fp8=False, kv_bytes=2, block_tokens=16, reserve=0.1,
                algorithm="auto", gpu=None):
    """Does disaggregation pay? Goodput per GPU, colocated against disaggregated (DistServe's measure).

    Parameters
    ----------
    model, machine, prompt, output
        As for :func:`disaggregated`.
    ttft_slo, tpot_slo : float
        The latency objectives, seconds (``math.inf``: none).
    link : {"nvlink", "pcie", "rdma"} or (float, float)
        The KV path.
    tp : int
        TP degree of the colocated replica, and the default of ``prefill_tp`` and ``decode_tp``.
    layerwise, fp8, kv_bytes, block_tokens, reserve, algorithm, gpu
        As for :func:`disaggregated`.

    Returns
    -------
    DisaggVerdict

    Examples
    --------
    Llama 3 70B on DGX H100 with prompts of 1,024 and answers of 256 tokens: under a tight
    TPOT objective (20 ms) the prefill stalls in every iteration hold the colocated replica back, and
    splitting the phases serves 1.25 times the requests per GPU; with a loose one (100 ms)
    the colocated replica wins:

    >>> from interconnect.catalog import models
    >>> m = models.get("llama3-70b")
    >>> v = disagg_pays(m, "dgx-h100", 1024, 256, 0.5, 0.02)
    >>> v.pays, round(v.disaggregated_per_gpu / v.colocated_per_gpu, 2)
    (True, 1.25)
    >>> disagg_pays(m, "dgx-h100", 1024, 256, 0.5, 0.1).pays
    False
    """
    t_slo, d_slo = _slo("ttft_slo", ttft_slo), _slo("tpot_slo", tpot_slo)
    ptp = tp if prefill_tp is None else prefill_tp
    dtp = tp if decode_tp is None else decode_tp
    st_c = _setup(model, machine, tp, prompt, output, fp8, kv_bytes, block_tokens, reserve, algorithm, gpu)
    g_c = _colocated_goodput(st_c, t_slo, d_slo)
    p = prefill_time(model, machine, prompt, ptp, fp8, kv_bytes=kv_bytes, algorithm=algorithm).total
    kv = kv_transfer_time(model, prompt, link, machine, tp=ptp, decode_tp=dtp, kv_bytes=kv_bytes,
                          layerwise=layerwise, prefill=p).exposed
    g_p = prefill_goodput(model, machine, prompt, t_slo, ptp, kv, fp8, kv_bytes, algorithm)
    st_d = st_c if dtp == st_c.tp else _setup(model, machine, dtp, prompt, output, fp8, kv_bytes, block_tokens,
                                              reserve, algorithm, gpu)
    g_d = _decode_goodput(st_d, d_slo)
    per_c = g_c / st_c.tp
    per_d = 0.0 if g_p <= 0 or g_d <= 0 else 1.0 / (ptp / g_p + dtp / g_d)
    ratio = g_p / g_d if g_d > 0 else math.inf
    over = g_c * 1.001 + 1e-12
    if st_c.solve(over) is None:
        limit = "it saturates (prefill fills the GPUs or the KV cache is full)"
    else:
        which = "TPOT" if not _colocated_ok(st_c, over, math.inf, d_slo) else "TTFT"
        limit = f"its {which} objective breaks"
    why = (f"Colocated, one tp={st_c.tp} replica serves {g_c:.3g} requests/s before {limit} "
           f"({per_c:.3g} per GPU); split, a tp={ptp} prefill instance serves {g_p:.3g} and a tp={dtp} "
           f"decode instance {g_d:.3g}, {per_d:.3g} per GPU with {ratio:.2g} decode instances per prefill "
           f"instance; the KV transfer adds {kv * 1e3:.3g} ms to TTFT.")
    return DisaggVerdict(pays=per_d > per_c, colocated_per_gpu=per_c, disaggregated_per_gpu=per_d,
                         prefill_goodput=g_p, decode_goodput=g_d, colocated_goodput=g_c, decode_per_prefill=ratio,
                         kv_transfer=kv, why=why)
