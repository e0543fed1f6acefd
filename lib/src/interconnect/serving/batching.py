"""Continuous batching in steady state: throughput against time to first token and per output token.

Orca (Yu et al. 2022) schedules at the granularity of one *iteration*: a sequence joins the
running batch as soon as it arrives and leaves as soon as it ends, and each iteration decodes
one token for every running sequence while prefilling the prompts that have just arrived
(vLLM's scheduler does the same, with its paged KV cache). A fluid steady-state model of it:

* requests arrive at ``rate`` per second, each with ``prompt`` tokens and ``output`` tokens to
  generate; every arrival is served (the system is stable);
* an iteration takes ``T``: one forward pass over the decode tokens of the running batch ``B``
  (context the batch's average ``prompt + output / 2``) and the ``n = rate T`` prompts that
  arrived during the previous one. Orca's *selective batching*: the linear layers run on all
  ``B + n prompt`` tokens together, one GEMM per weight matrix that reads the weights once, so
  ``max(weights, GEMM FLOPs)``; attention runs per sequence (the decodes over their cache, each
  prompt causally over itself, writing its cache); the element-wise kernels and the AllReduces
  see every token (``_mixed`` in :mod:`~interconnect.serving.steps`, with ``n = 0`` the
  :func:`~interconnect.serving.decode_step_time` step ``D(B)``). TensorRT-LLM's in-flight
  batching and vLLM schedule context and generation requests into the same iteration this way.
  Prompts join whole: with a mean of ``n`` per iteration (fractional in the fluid model), the
  iterations hold ``floor(n)`` or ``floor(n) + 1`` of them in the proportions that give the
  mean (arrivals at a steady rate), so the mean iteration interpolates between the two; a
  prompt's GEMM work hides under the weight read only where a whole prompt fits under it.
  With pipeline stages (``pp > 1``) each prompt instead occupies the pipeline for ``P / pp`` of
  its prefill latency ``P`` (:func:`~interconnect.serving.prefill_time`), added to the step;
* Little's law: a sequence stays ``output`` iterations, so ``B = rate * output * T``.

Hence ``T = iteration(rate output T, rate T)``; its smallest solution is the operating point
(the one a fixed-point iteration from ``B = 0`` reaches), found on a grid and refined by
bisection. The time per output token is ``TPOT = T``; the time to first token is
``TTFT = T / 2 + iteration(B, max(1, B / output))``: half an iteration's wait for the next
iteration boundary, then the iteration that prefills the prompt (with the running batch's
decode and the other prompts that join it) and emits its first token. The output throughput
is ``rate * output``.

It is stable while the fixed point exists and the running batch fits the paged cache of
:func:`~interconnect.serving.kv_capacity` (preemption and swapping are not modelled). What a
running sequence holds of the cache depends on the engine's **admission** rule:

* ``"on-demand"`` (vLLM): blocks are allocated as tokens arrive, so the batch's cache is
  ``B (prompt + output / 2)`` tokens on average;
* ``"reserve"`` (TensorRT-LLM's default ``GUARANTEED_NO_EVICT`` capacity scheduler): a request
  is admitted only when blocks for its whole ``prompt + output`` are free, so each running
  sequence holds ``prompt + output`` tokens' worth and the batch is at most
  ``capacity / (prompt + output)``; ``trtllm-bench`` sizes its maximum batch from the same
  quotient.

:func:`sustainable_rate` is the largest sustainable rate.

**CUDA-graph padding** (``graph_batches``). TensorRT-LLM's PyTorch backend replays a captured CUDA
graph for an iteration that holds only decodes, and with ``cuda_graph_config.enable_padding`` it
pads such a batch with dummy requests up to the next batch size that has a graph
(``_round_up_batch_size``; a batch above the largest runs unpadded, an iteration with a prompt runs
without a graph). The dummy requests go through every GEMM, element-wise kernel and AllReduce but
hold no cache, so the padded step is :func:`~interconnect.serving.decode_step_time` at the padded
batch with the real batch's KV read. In the fluid model the iterations without a joining prompt
are the share ``1 - n`` of them when ``n < 1`` prompts join per iteration on average.

Not modelled: the randomness of arrivals and lengths (no queueing delay beyond the half
iteration), chunked prefill (a long prompt stalls one iteration), the scheduler's own
overhead, speculative decoding, prefix caching.

References
----------
G.-I. Yu et al., "Orca: A Distributed Serving System for Transformer-Based Generative
Models", OSDI 2022, sec. 4 (iteration-level scheduling, selective batching).
W. Kwon et al., "Efficient Memory Management for Large Language Model Serving with
PagedAttention", SOSP 2023 (vLLM).
J. D. C. Little, "A Proof for the Queuing Formula L = lambda W", Operations Research 9 (1961).
NVIDIA TensorRT-LLM, ``tensorrt_llm/_torch/pyexecutor/model_engine.py`` (``_round_up_batch_size``,
``pad_batch``: generation-only batches padded to a captured CUDA-graph size).
NVIDIA TensorRT-LLM, ``docs/source/performance/performance-tuning-guide/useful-runtime-flags.md``
(capacity scheduler policies, ``GUARANTEED_NO_EVICT`` the default) and
``tensorrt_llm/bench/build/tuning.py`` (``kv_cache_max_requests = cache / (bytes per token x
(ISL + OSL))``).
"""

from __future__ import annotations

import bisect
import math
from dataclasses import dataclass

import numpy as np

from .._validate import as_count, as_fraction, as_positive, choice
from .allreduce import TP_ALGORITHMS
from .kv import kv_capacity
from .steps import _check_pp, _check_tp, _decode, _fp8, _mixed, _send_terms, as_machine, prefill_time

__all__ = ["ServingPoint", "continuous_batching", "sustainable_rate", "ADMISSIONS"]

#: How a running sequence holds the KV cache: blocks on demand (vLLM) or reserved for its whole
#: prompt and output at admission (TensorRT-LLM's ``GUARANTEED_NO_EVICT``).
ADMISSIONS = ("on-demand", "reserve")


@dataclass(frozen=True)
class ServingPoint:
    """The steady state of one replica under continuous batching.

    Attributes
    ----------
    rate : float
        Requests per second.
    batch : float
        Mean running (decoding) batch, ``rate * output * tpot`` (Little's law).
    tpot : float
        Time per output token = one iteration, seconds.
    ttft : float
        Time to first token, seconds.
    prefill : float
        Prefill of one prompt alone, seconds.
    prefill_share : float
        Share of an iteration the joining prompts add to the decode step, ``1 - D(batch) / tpot``
        (``D`` padded to the next of ``graph_batches`` where given; at least 0).
    throughput : float
        Output tokens per second, ``rate * output``.
    kv_tokens : float
        Mean tokens in the KV cache, ``batch * (prompt + output / 2)``.
    kv_capacity : int
        Tokens the paged cache holds (:func:`~interconnect.serving.kv_capacity`).
    """

    rate: float
    batch: float
    tpot: float
    ttft: float
    prefill: float
    prefill_share: float
    throughput: float
    kv_tokens: float
    kv_capacity: int


def _gpu_of(machine, cl, gpu):
    if gpu is not None:
        return gpu
    if isinstance(machine, str):
        from ..parallel.machines import MACHINES

        return MACHINES[machine.strip().lower()].gpu if machine.strip().lower() in MACHINES else cl.gemm_gpu
    if cl.gemm_gpu is None:
        raise ValueError("gpu=None is not allowed with a Cluster without gemm_gpu; allowed: a GPU name such as 'H100'")
    return cl.gemm_gpu


def _graph_batches(graph_batches):
    """``graph_batches`` validated: None, or the sorted distinct batch sizes (integers >= 1)."""
    if graph_batches is None:
        return None
    sizes = sorted({as_count("graph_batches", b) for b in graph_batches})
    if not sizes:
        raise ValueError("graph_batches=() is not allowed; allowed: None or batch sizes >= 1")
    return tuple(sizes)


class _Setup:
    """Validated arguments and the rate-independent parts (prefill time, capacity)."""

    def __init__(self, model, machine, tp, prompt, output, fp8, kv_bytes, block_tokens, reserve, algorithm, gpu,
                 pp=1, admission="on-demand", graph_batches=None, batch_limit=None):
        self.model, self.cl = model, as_machine(machine)
        self.graph_batches = _graph_batches(graph_batches)
        self.tp = _check_tp(model, self.cl, tp)
        self.pp = _check_pp(model, self.cl, self.tp, pp)
        self.send = _send_terms(machine, self.tp, self.pp)
        self.prompt, self.output = as_count("prompt", prompt), as_count("output", output)
        self.fp8 = _fp8(fp8)
        self.kv_bytes = float(as_positive("kv_bytes", kv_bytes, "bytes"))
        self.algorithm = choice("algorithm", algorithm, TP_ALGORITHMS)
        as_fraction("reserve", reserve, 0.0, 1.0, low_open=False)
        self.prefill = prefill_time(model, machine, self.prompt, self.tp, self.fp8, kv_bytes=self.kv_bytes,
                                    algorithm=self.algorithm, pp=self.pp).total
        cap = kv_capacity(model, _gpu_of(machine, self.cl, gpu), tp=self.tp, pp=self.pp,
                          weight_bytes=1 if self.fp8 else 2,
                          kv_bytes=self.kv_bytes, block_tokens=block_tokens, reserve=reserve)
        self.capacity = cap.tokens
        self.context = self.prompt + self.output / 2.0
        held = self.context if choice("admission", admission, ADMISSIONS) == "on-demand" else self.prompt + self.output
        self.max_batch = self.capacity / held
        if batch_limit is not None:
            self.max_batch = min(self.max_batch, float(as_count("batch_limit", batch_limit)))

    #: Whether prompts join the iterations (False: a decode-only instance of a disaggregated system).
    prefills = True

    def decode(self, batch):
        """The decode step of a running batch, no prompt joining."""
        return _decode(self.model, self.cl, self.tp, batch, self.context, self.fp8, self.kv_bytes, 2.0,
                       self.algorithm, self.pp, self.pp, self.send).total

    def generation_only(self, batch):
        """An iteration with no prompt joining: the decode step, padded up to the next of
        ``graph_batches`` (the padding holds no cache, so the KV read and attention stay the real
        batch's)."""
        if not self.graph_batches or batch <= 0.0:
            return self.decode(batch)
        i = bisect.bisect_left(self.graph_batches, batch)
        if i == len(self.graph_batches):
            return self.decode(batch)
        padded = float(self.graph_batches[i])
        return _decode(self.model, self.cl, self.tp, padded, self.context * batch / padded, self.fp8, self.kv_bytes,
                       2.0, self.algorithm, self.pp, self.pp, self.send).total

    def iteration(self, batch, prompts):
        """One iteration with ``batch`` running sequences and ``prompts`` prompts joining.

        At ``pp = 1`` the prompts are batched with the decodes into one forward pass
        (:func:`~interconnect.serving.steps._mixed`: the weights read once for all tokens); with
        pipeline stages each prompt occupies the pipeline for ``P / pp`` of its prefill latency
        ``P``, added to the decode step.
        """
        if not self.prefills or prompts <= 0.0:
            return self.generation_only(batch)
        if self.pp > 1:
            return self.decode(batch) + prompts * self.prefill / self.pp
        # prompts join whole: a mean of n per iteration is floor(n) or floor(n) + 1 of them, in the
        # proportions that give the mean
        whole = math.floor(prompts)
        frac = prompts - whole
        low = self._with(batch, whole) if whole else self.generation_only(batch)
        return low if frac == 0.0 else (1.0 - frac) * low + frac * self._with(batch, whole + 1)

    def _with(self, batch, prompts):
        return _mixed(self.model, self.cl, self.tp, batch, self.context, float(prompts), self.prompt, self.fp8,
                      self.kv_bytes, 2.0, self.algorithm)

    def ttft(self, t, batch):
        """Time to first token at the operating point (iteration ``t``, running batch ``batch``):
        half an iteration's wait for the next boundary, then the iteration that prefills the prompt
        with the running batch (and the ``batch / output`` other prompts that join it, at least
        this one)."""
        return t / 2.0 + self.iteration(batch, max(1.0, batch / self.output))

    def at_batch(self, batch):
        """(rate, iteration, TTFT) of the operating point whose running batch is ``batch``: by
        Little's law ``batch / output`` prompts join each iteration, so
        ``T = iteration(batch, batch / output)`` and the rate is ``batch / (output T)``."""
        t = self.iteration(batch, batch / self.output)
        return batch / (self.output * t), t, self.ttft(t, batch)

    def solve(self, rate, grid=64, rtol=1e-12):
        """(T, B) of the operating point, or None where the rate is not sustainable.

        The smallest ``T >= T0 = iteration(0, 0)`` with ``g(T) = T - iteration(rate output T,
        rate T) >= 0`` (below it the fixed-point map stays above the diagonal, so g < 0): the
        first point of a geometric grid up to the capacity's ``T_max`` where g >= 0, then bisection.
        """
        if self.prefills and self.pp > 1 and rate * self.prefill / self.pp >= 1.0:
            return None
        lo = self.decode(0.0)
        t_max = self.max_batch / (rate * self.output)
        if lo > t_max:
            return None

        def g(t):
            return t - self.iteration(rate * self.output * t, rate * t)

        if g(lo) >= 0:
            return lo, rate * self.output * lo
        hi = None
        for t in (lo * (t_max / lo) ** ((1.0 + np.arange(grid)) / grid)).tolist():
            if g(t) >= 0:
                hi = t
                break
            lo = t
        if hi is None:
            return None
        while hi - lo > rtol * hi:
            mid = 0.5 * (lo + hi)
            lo, hi = (lo, mid) if g(mid) >= 0 else (mid, hi)
        return hi, rate * self.output * hi

    def sustainable(self):
        """The rate whose operating point fills the cache: ``r(B_max)`` of :meth:`at_batch`.

        ``iteration(B, B / output) / B`` falls with ``B`` (each term is affine or concave in the
        tokens with a non-negative intercept), so ``r(B) = B / (output iteration(B, B / output))``
        rises with ``B``, and the largest sustainable rate is that of the largest batch the cache
        holds.
        """
        return self.at_batch(self.max_batch)[0]


def continuous_batching(model, machine, tp, rate, prompt, output, fp8=False, kv_bytes=2, block_tokens=16,
                        reserve=0.1, algorithm="auto", gpu=None, pp=1, admission="on-demand", graph_batches=None,
                        batch_limit=None):
    """Steady state of one TP replica serving ``rate`` requests per second with continuous batching.

    Parameters
    ----------
    model : ModelConfig
    machine : str or Cluster
        A machine preset (``"dgx-h100"``, ...) or a :class:`~interconnect.parallel.Cluster`.
    tp : int
        Tensor-parallel degree of the replica (1 to ``gpus_per_node``, dividing ``heads``).
    rate : float
        Arrivals, requests per second, > 0.
    prompt, output : int
        Tokens per prompt and generated per request, >= 1.
    fp8 : bool
        FP8 weights and GEMMs.
    kv_bytes : float
        Bytes per KV element (1 for an FP8 cache).
    block_tokens : int
        KV block size (vLLM: 16).
    reserve : float
        Fraction of HBM held back from weights and cache, [0, 1).
    algorithm : str
        TP AllReduce algorithm, :func:`~interconnect.serving.allreduce_small`.
    gpu : str, optional
        The GPU whose memory holds the cache; default the machine's.
    pp : int
        Pipeline stages of the replica (``tp * pp`` GPUs): decode in ``pp`` microbatches
        (:func:`~interconnect.serving.decode_step_time`), and a prompt occupies the pipeline
        for ``P / pp`` of its prefill latency ``P`` (at ``pp = 1`` the prompts join the
        iteration's forward pass).
    admission : str
        One of :data:`ADMISSIONS`: ``"on-demand"`` (vLLM) or ``"reserve"`` (TensorRT-LLM's
        ``GUARANTEED_NO_EVICT``: each running sequence holds blocks for ``prompt + output``).
    graph_batches : sequence of int, optional
        Batch sizes with a captured CUDA graph: an iteration with no prompt joining is padded up
        to the next of them (TensorRT-LLM's ``cuda_graph_config`` with ``enable_padding``; see
        the module's notes). None: no padding.
    batch_limit : int, optional
        The engine's largest running batch (TensorRT-LLM's ``max_batch_size``), >= 1: the batch
        the cache admits is capped at it. None: no cap but the cache.

    Returns
    -------
    ServingPoint

    Raises
    ------
    ValueError
        For arguments out of range, and for a rate above :func:`sustainable_rate` (the
        message gives it).

    Examples
    --------
    Llama 3 70B on 8 H100, prompts of 1,024 tokens and 256 generated: at 2 requests per
    second the running batch is 4.4, each token takes 9 ms, the first 46 ms:

    >>> from interconnect.catalog import models
    >>> s = continuous_batching(models.get("llama3-70b"), "dgx-h100", 8, 2.0, 1024, 256)
    >>> round(s.batch, 1), round(s.tpot * 1e3, 1), round(s.ttft * 1e3), round(s.throughput)
    (4.4, 8.6, 46, 512)
    """
    st = _Setup(model, machine, tp, prompt, output, fp8, kv_bytes, block_tokens, reserve, algorithm, gpu, pp,
                admission, graph_batches, batch_limit)
    lam = float(as_positive("rate", rate, "requests/s"))
    sol = st.solve(lam)
    if sol is None:
        raise ValueError(f"rate={lam:g} is not sustainable; allowed 0 < rate < {st.sustainable():.4g} requests/s "
                         f"(prefill {st.prefill * 1e3:.3g} ms, KV capacity {st.capacity} tokens)")
    t, b = sol
    ttft = st.ttft(t, b)
    return ServingPoint(rate=lam, batch=b, tpot=t, ttft=ttft, prefill=st.prefill,
                        prefill_share=max(0.0, 1.0 - st.generation_only(b) / t),
                        throughput=lam * st.output, kv_tokens=b * st.context, kv_capacity=st.capacity)


def sustainable_rate(model, machine, tp, prompt, output, fp8=False, kv_bytes=2, block_tokens=16, reserve=0.1,
                     algorithm="auto", gpu=None, pp=1, admission="on-demand", graph_batches=None, batch_limit=None):
    """Largest arrival rate :func:`continuous_batching` sustains (requests per second).

    The rate whose steady state fills the paged cache (or reaches ``batch_limit``),
    ``B_max / (output T(B_max))`` with
    ``T(B) = iteration(B, B / output)`` (the running batch's decode with the ``B / output`` prompts
    that join each iteration) and ``B_max = capacity / (prompt + output / 2)`` (``capacity / (prompt + output)`` with
    ``admission="reserve"``): the rate rises with the running batch, so the largest batch gives
    the largest rate (with ``graph_batches`` the padding makes the rate a saw-tooth in ``B``, but an
    engine fed at an infinite rate still runs the largest batch its cache admits, so ``B_max`` stays
    the operating point). Arguments as :func:`continuous_batching`.

    Returns
    -------
    float

    Examples
    --------
    >>> from interconnect.catalog import models
    >>> round(sustainable_rate(models.get("llama3-70b"), "dgx-h100", 8, 1024, 256), 1)
    18.0

    Where the cache binds, reserving each request's whole length at admission (TensorRT-LLM)
    caps the batch, and the output rate, lower: Llama 3.1 405B in FP8 on 8 H100, prompts of 128
    tokens and answers of 4,096, in output tokens per second:

    >>> m = models.get("llama3-405b")
    >>> [round(sustainable_rate(m, "dgx-h100", 8, 128, 4096, fp8=True, admission=a) * 4096) for a in ADMISSIONS]
    [4175, 2874]

    Padding the decode-only iterations up to a captured CUDA-graph batch (here 128 for a batch
    of about 98) adds GEMM rows, element-wise work and AllReduce bytes, not cache reads:

    >>> round(sustainable_rate(m, "dgx-h100", 8, 128, 4096, fp8=True, admission="reserve",
    ...                        graph_batches=(64, 128, 256)) * 4096)
    2719
    """
    return _Setup(model, machine, tp, prompt, output, fp8, kv_bytes, block_tokens, reserve, algorithm,
                  gpu, pp, admission, graph_batches, batch_limit).sustainable()
