"""Small-message AllReduce: one-shot, two-shot, NVLS and ring in the latency-bound regime.

A tensor-parallel decode step reduces ``batch * hidden * 2`` bytes twice per layer: a few KB
to a few hundred KB, where the per-step latency ``alpha``, not the bandwidth, sets the time.
Inference engines therefore replace NCCL's ring by kernels with fewer steps. With ``S`` the
bytes of the vector, ``n`` ranks, ``alpha`` the latency of one step (a flag barrier between
the GPUs and a peer access over NVLink) and ``B`` the per-direction bandwidth of each GPU:

* **one-shot** (TensorRT-LLM's ``oneShotAllReduceKernel``): every rank reads the whole
  buffer of each of the other ``n - 1`` ranks through NVLink peer access and adds them
  itself: one step, ``n - 1`` full buffers in, ``T = alpha + (n - 1) S / B``;
* **two-shot** (``twoShotAllReduceKernel``): a reduce-scatter (each rank reads its ``1/n``
  slice from the ``n - 1`` others and reduces it) and an all-gather of the reduced slices,
  two steps of ``(n - 1) / n S`` each: ``T = 2 alpha + 2 (n - 1)/n S / B``;
* **nvls** (NCCL's NVLink SHARP algorithm, NVSwitch on Hopper and later): each rank sends its
  buffer once to the switch, which adds and multicasts,
  :func:`~interconnect.collectives.in_network_time`: ``T = 2 alpha + S / B`` (+ the switch's
  own latency);
* **ring** (NCCL's default at large sizes): ``T = 2 (n - 1) alpha + 2 (n - 1)/n S / B``,
  :func:`~interconnect.collectives.collective_time`.

Each is ``c_alpha alpha + c_beta S / B``, so two algorithms cross where
``S* = (c_alpha,a - c_alpha,b) alpha B / (c_beta,b - c_beta,a)`` (:func:`allreduce_crossover`).
One-shot against two-shot: ``S* = n alpha B / ((n - 1)(n - 2))`` for ``n > 2`` (at ``n = 2``
one-shot always wins: both move ``S``); one-shot against ring:
``S* = (2n - 3) n alpha B / ((n - 1)(n - 2))``. Two-shot has the ring's bandwidth term with
two latencies instead of ``2 (n - 1)``, so in this model it never loses to the ring: the
ring wins at large sizes in practice because the custom kernels reach less of the link
(fewer SMs, no pipelining; TensorRT-LLM falls back to NCCL above a size limit), which a
``bandwidth`` below the link peak expresses.

On a machine (a :class:`~interconnect.parallel.Cluster`), :func:`tp_allreduce_time` is the one
place the serving model decides: the custom one-shot and two-shot kernels by the closed forms
above, at the link's large-message fraction (``comm_efficiency``) and one step's latency
(``intra_latency``), against NCCL as the machine runs it
(:meth:`~interconnect.parallel.Cluster.collective_time`: on the presets NCCL's own model, its
choice of ring, tree or NVLS and of protocol for the size, with its latencies); ``"ring"``
and ``"nvls"`` pin NCCL's algorithm.

References
----------
NVIDIA TensorRT-LLM, ``cpp/tensorrt_llm/kernels/customAllReduceKernels.cu``
(``oneShotAllReduceKernel``, ``twoShotAllReduceKernel``, the ``AllReduceStrategyType``
ONESHOT / TWOSHOT / NCCL choice by message size and rank count).
NVIDIA NCCL 2.17+, the NVLS algorithm (``src/device/all_reduce.h``, ``runRing`` vs
``runNvls``): NVLink SHARP reduction in the NVSwitch.
R. Thakur, R. Rabenseifner, W. Gropp (2005): the ring's cost.
"""

from __future__ import annotations

import math

from .._validate import as_count, as_nonnegative, as_positive, choice

__all__ = ["SMALL_ALGORITHMS", "TP_ALGORITHMS", "allreduce_small", "allreduce_coefficients", "allreduce_crossover",
           "tp_allreduce_time"]

#: The small-message AllReduce algorithms :func:`allreduce_small` costs.
SMALL_ALGORITHMS = ("oneshot", "twoshot", "nvls", "ring")

#: The ``algorithm`` values of :func:`tp_allreduce_time` (and of the step and batching models
#: that call it): the fastest (``"auto"``), NCCL's own choice (``"nccl"``) or one pinned.
TP_ALGORITHMS = ("auto", "nccl") + SMALL_ALGORITHMS


def _link_terms(link, latency):
    """(bandwidth, latency) of a catalog name, a Link-like object or a (bandwidth, latency) pair."""
    if isinstance(link, str):
        from ..links import get_link

        link = get_link(link)
    if isinstance(link, tuple) and len(link) == 2:
        bw, lat = link
    elif hasattr(link, "bandwidth") and hasattr(link, "latency"):
        bw, lat = link.bandwidth, link.latency
    else:
        raise ValueError(f"link={link!r} is not allowed; allowed: a catalog name such as 'nvlink4', a Link, "
                         "or a (bandwidth bytes/s, latency s) pair")
    bw = float(as_positive("bandwidth", bw, "bytes/s (per direction)"))
    lat = float(as_nonnegative("latency", lat if latency is None else latency, "seconds"))
    return bw, lat


def allreduce_coefficients(n, algorithm):
    """``(c_alpha, c_beta)`` of ``T = c_alpha alpha + c_beta S / B`` for ``n`` ranks.

    Parameters
    ----------
    n : int
        Ranks, >= 1.
    algorithm : {"oneshot", "twoshot", "nvls", "ring"}

    Returns
    -------
    (float, float)

    Examples
    --------
    >>> [allreduce_coefficients(8, a) for a in SMALL_ALGORITHMS]
    [(1.0, 7.0), (2.0, 1.75), (2.0, 1.0), (14.0, 1.75)]
    """
    n = as_count("n", n)
    algorithm = choice("algorithm", algorithm, SMALL_ALGORITHMS)
    if n == 1:
        return 0.0, 0.0
    return {"oneshot": (1.0, n - 1.0), "twoshot": (2.0, 2.0 * (n - 1) / n), "nvls": (2.0, 1.0),
            "ring": (2.0 * (n - 1), 2.0 * (n - 1) / n)}[algorithm]


def allreduce_small(nbytes, n, link="nvlink4", algorithm="auto", latency=None, switch_latency=0.0):
    """Time of one AllReduce of ``nbytes`` over ``n`` GPUs of one NVLink domain.

    Parameters
    ----------
    nbytes : float
        Bytes of the vector every rank holds (and ends with), > 0.
    n : int
        Ranks, >= 1 (1: no communication, 0 s).
    link : str, Link or (float, float)
        The GPUs' link: a catalog name (``"nvlink4"``), a :class:`~interconnect.links.Link`, or a
        pair (per-direction bandwidth per GPU in bytes/s, per-step latency in s).
    algorithm : {"auto", "oneshot", "twoshot", "nvls", "ring"}
        "auto": the fastest of one-shot, two-shot and ring, what an engine with a custom
        AllReduce and an NCCL fallback picks (NVLS only when asked: it needs NVSwitch with
        NVLink SHARP).
    latency : float, optional
        Per-step latency alpha, s, >= 0; default the link's.
    switch_latency : float
        Added once to NVLS for the in-switch reduction, s, >= 0.

    Returns
    -------
    float
        Seconds.

    Examples
    --------
    16 KB (batch 1 of Llama 3 70B, ``8192 x 2`` bytes) on 8 H100 with a 2 us step: one-shot
    takes one step, the ring fourteen:

    >>> [round(allreduce_small(16384, 8, (450e9, 2e-6), a) * 1e6, 2) for a in SMALL_ALGORITHMS]
    [2.25, 4.06, 4.04, 28.06]
    """
    s = float(as_positive("nbytes", nbytes, "bytes"))
    n = as_count("n", n)
    bw, lat = _link_terms(link, latency)
    sw = float(as_nonnegative("switch_latency", switch_latency, "seconds"))
    algorithm = choice("algorithm", algorithm, ("auto",) + SMALL_ALGORITHMS)
    if n == 1:
        return 0.0
    if algorithm == "auto":
        return min(allreduce_small(s, n, (bw, lat), a) for a in ("oneshot", "twoshot", "ring"))
    if algorithm == "ring":
        from ..collectives import collective_time

        return float(collective_time("allreduce", s, n, bw, lat, "ring"))
    if algorithm == "nvls":
        from ..collectives import in_network_time

        return float(in_network_time("allreduce", s, n, bw, lat, switch_latency=sw))
    ca, cb = allreduce_coefficients(n, algorithm)
    return ca * lat + cb * s / bw


def allreduce_crossover(n, a, b, link="nvlink4", latency=None):
    """Size ``S*`` at which algorithms ``a`` and ``b`` take the same time.

    ``S* = (c_alpha,a - c_alpha,b) alpha B / (c_beta,b - c_beta,a)``
    (:func:`allreduce_coefficients`): below it the one with fewer latencies wins, above it
    the one with the smaller bandwidth term. One-shot against two-shot,
    ``n alpha B / ((n - 1)(n - 2))``.

    Parameters
    ----------
    n : int
        Ranks, >= 2.
    a, b : {"oneshot", "twoshot", "nvls", "ring"}
    link, latency
        As for :func:`allreduce_small`.

    Returns
    -------
    float
        Bytes; ``math.inf`` if the algorithm with fewer latencies never loses (its
        bandwidth term is no larger), ``0.0`` if the two have the same latency count.

    Examples
    --------
    8 GPUs at 450 GB/s, 2 us a step: one-shot wins below 171 KB against two-shot and below
    2.2 MB against the ring; two-shot never loses to the ring:

    >>> [round(allreduce_crossover(8, "oneshot", x, (450e9, 2e-6)) / 1e3) for x in ("twoshot", "ring")]
    [171, 2229]
    >>> allreduce_crossover(8, "twoshot", "ring", (450e9, 2e-6))
    inf
    """
    n = as_count("n", n, minimum=2)
    bw, lat = _link_terms(link, latency)
    (aa, ba), (ab, bb) = allreduce_coefficients(n, a), allreduce_coefficients(n, b)
    if aa == ab:
        return 0.0
    if aa > ab:
        (aa, ba), (ab, bb) = (ab, bb), (aa, ba)
    if ba <= bb:
        return math.inf
    return (ab - aa) * lat * bw / (ba - bb)


_COEFFS = {}


def _custom(n, algorithm):
    """(c_alpha, c_beta) of a custom kernel, cached (this runs inside the batching model's search)."""
    key = (n, algorithm)
    if key not in _COEFFS:
        _COEFFS[key] = allreduce_coefficients(n, algorithm)
    return _COEFFS[key]


def tp_allreduce_time(cluster, nbytes, n, algorithm="auto"):
    """One tensor-parallel AllReduce of ``nbytes`` over ``n`` GPUs of ``cluster``'s NVLink domain, seconds.

    The serving model's one decision between the custom kernels and NCCL:

    * ``"oneshot"``, ``"twoshot"``: the closed forms of :func:`allreduce_small` at
      ``cluster.intra_bandwidth * cluster.comm_efficiency`` and ``cluster.intra_latency`` (a
      kernel outside NCCL, one flag barrier a step);
    * ``"ring"``, ``"nvls"``: NCCL with that algorithm pinned,
      :meth:`~interconnect.parallel.Cluster.collective_time` (on a machine preset NCCL's
      model with its protocol choice and latencies; on a calibrated cluster the alpha-beta
      ring, or :func:`~interconnect.collectives.in_network_time` for NVLS, at
      ``comm_efficiency``);
    * ``"nccl"``: NCCL's own choice of algorithm and protocol;
    * ``"auto"``: the fastest of one-shot, two-shot and NCCL's choice, what an engine with
      a custom AllReduce and an NCCL fallback picks.

    Parameters
    ----------
    cluster : Cluster
    nbytes : float
        Bytes of the vector, >= 0.
    n : int
        Ranks, 1 to ``cluster.gpus_per_node`` (1: 0 s).
    algorithm : {"auto", "nccl", "oneshot", "twoshot", "nvls", "ring"}

    Returns
    -------
    float

    Examples
    --------
    A decode step of Llama 3 70B at batch 1 (16 KiB) on a DGX H100: one-shot in about a
    microsecond, NCCL (LL protocol) in about 17. At a 64 MiB prefill AllReduce the custom two-shot
    kernel still edges out NCCL's NVLS, whose 16 channels do not fill their pipeline at that size:

    >>> from interconnect.parallel.machines import machine
    >>> h100 = machine("dgx-h100")
    >>> [round(tp_allreduce_time(h100, 2**14, 8, a) * 1e6, 1) for a in ("oneshot", "nccl", "auto")]
    [0.9, 16.9, 0.9]
    >>> big = 64 * 2**20
    >>> [round(tp_allreduce_time(h100, big, 8, a) * 1e6) for a in ("twoshot", "nvls", "auto")]
    [321, 333, 321]
    """
    algorithm = choice("algorithm", algorithm, TP_ALGORITHMS)
    n = as_count("n", n)
    if n == 1:
        return 0.0
    s = float(nbytes)
    bw, lat = cluster.intra_bandwidth * cluster.comm_efficiency, cluster.intra_latency
    if algorithm in ("oneshot", "twoshot"):
        ca, cb = _custom(n, algorithm)
        return ca * lat + cb * s / bw
    if cluster.nccl is None and algorithm == "nvls":
        return allreduce_small(max(s, 1e-300), n, (bw, lat), "nvls")
    if algorithm in ("ring", "nvls"):
        return cluster.collective_time("allreduce", s, n, 1, algorithm)
    if algorithm == "nccl":
        return cluster.collective_time("allreduce", s, n, 1)
    custom = min(ca * lat + cb * s / bw for ca, cb in (_custom(n, "oneshot"), _custom(n, "twoshot")))
    # NCCL never beats its own empty call (each pair's time is its latency plus bytes over bandwidth):
    # below that floor the custom kernel wins without asking NCCL's model
    if custom <= _nccl_floor(cluster, n):
        return custom
    return min(custom, cluster.collective_time("allreduce", s, n, 1))


_FLOORS = {}


def _nccl_floor(cluster, n):
    key = (cluster, n)
    if key not in _FLOORS:
        _FLOORS[key] = cluster.collective_time("allreduce", 0.0, n, 1)
    return _FLOORS[key]
