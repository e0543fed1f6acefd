"""The layout planner: enumerate layouts, filter them by memory (:mod:`interconnect.parallel.stage_memory`)
and rank them by step time.

References
----------
D. Narayanan et al., "Efficient Large-Scale Language Model Training on GPU Clusters Using
Megatron-LM", SC21 (arXiv:2104.04473).
V. Korthikanti et al., "Reducing Activation Recomputation in Large Transformer Models",
MLSys 2023 (arXiv:2205.05198).
S. Rajbhandari et al., "ZeRO: Memory Optimizations Toward Training Trillion Parameter
Models", SC20 (arXiv:1910.02054), Table 1.
Y. Zhao et al., "PyTorch FSDP: Experiences on Scaling Fully Sharded Data Parallel",
VLDB 2023 (arXiv:2304.11277), sec. 3.2 (hybrid sharding).
A. Dubey et al., "The Llama 3 Herd of Models", arXiv:2407.21783, 2024, sec. 3.3 and Table 4.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field

from .._validate import as_positive
from ._checks import _check_bool, _scalar_count
from .layout import Layout
from .stage_memory import (
    MEMORY_MARGIN,
    GiB,
    inference_memory,
    layout_memory,
    layout_memory_breakdown,
    memory_limit_of,
    stage_params,
)
from .step_time import step_time
from .transformer import RECOMPUTE_MODES

__all__ = ["Plan", "plan", "stage_params", "layout_memory", "layout_memory_breakdown", "inference_memory",
           "memory_limit_of", "GiB", "MEMORY_MARGIN", "CP_MIN_SEQ"]


@dataclass(frozen=True)
class Plan:
    """Result of :func:`plan`.

    Attributes
    ----------
    ranked : list of (Layout, StepTime, float)
        Feasible layouts, fastest first, with their memory per GPU in bytes.
    rejected : list of (Layout, str)
        Layouts that were enumerated but rejected, with the reason.
    explanation : str
        What the winner's step is made of and how much slower the runner-up is (or why
        nothing fits); :attr:`why` says what the runner-up loses on.
    """

    ranked: list = field(default_factory=list)
    rejected: list = field(default_factory=list)
    explanation: str = ""

    @property
    def best(self):
        """The fastest feasible (Layout, StepTime, memory), or None.

        Examples
        --------
        >>> from interconnect import catalog
        >>> from interconnect.parallel import Cluster
        >>> lay, st, mem = plan(catalog.models.get("gpt3-6.7b"), Cluster.dgx_a100(), 8, 80 * GiB).best
        >>> lay.label(), round(mem / 1e9, 1)      # fastest layout; GB per GPU
        ('dp=8 tp=1 pp=1 b=1 zero=1', 45.8)
        """
        return self.ranked[0] if self.ranked else None

    @property
    def why(self):
        """Why the winner won: the part of the step the runner-up spends longer on, and the
        part it saves (empty with fewer than two feasible layouts).

        Examples
        --------
        >>> from interconnect import catalog
        >>> from interconnect.parallel import Cluster
        >>> import textwrap
        >>> print(textwrap.fill(plan(catalog.models.get("gpt3-175b"), Cluster.dgx_a100(), 1024, 76 * GiB).why, 80))
        Runner-up dp=8 tp=4 pp=32 b=1 zero=1 loses 0.1 s per step: its pp_comm is 0.213
        s longer, which its shorter dp_comm_exposed (0.205 s) does not make up.
        """
        return _why(self.ranked)


def _divisors(n):
    return [k for k in range(1, n + 1) if n % k == 0]


#: Context parallelism is tried (``cp_sizes=None``) only from this sequence length on, and
#: only while each rank keeps at least ``_CP_MIN_TOKENS`` tokens of a sequence.
CP_MIN_SEQ = 8192
_CP_MIN_TOKENS = 4096


def _variant(template, **fields_):
    """A copy of a validated Layout with fields the planner has already checked replaced:
    ``dataclasses.replace`` re-runs every check (about 0.15 ms), too slow for 10^4 layouts."""
    lay = copy.copy(template)
    for k, v in fields_.items():
        object.__setattr__(lay, k, v)
    return lay


def _as_tuple(name, value, check):
    vals = (value,) if isinstance(value, (str, int)) or value is None else tuple(value)
    if not vals:
        raise ValueError(f"{name} is empty; expected at least one value")
    return tuple(check(v) for v in vals)


def _rc(v):
    if v not in RECOMPUTE_MODES:
        raise ValueError(f"recompute={v!r} is unknown; allowed: {', '.join(RECOMPUTE_MODES)}")
    return v


def _zs(v):
    z = _scalar_count("zero_stages", v, minimum=0)
    if z > 3:
        raise ValueError(f"zero_stages={v!r} is not allowed; allowed 0, 1, 2 or 3")
    return z


def _shard(v):
    return v if v is None or v == "node" else _scalar_count("dp_shards", v)


def _auto_cp(model, n):
    s = model.seq_len
    if s < CP_MIN_SEQ:
        return (1,)
    return tuple(c for c in (2**k for k in range(0, 20)) if c == 1 or (n % c == 0 and s // c >= _CP_MIN_TOKENS))


def plan(model, cluster, n_gpus, memory_limit=None, recompute="selective", sequence_parallel=True, zero_stage=1,
         microbatches=(1, 2, 4, 8), ep_sizes=None, *, cp_sizes=None, zero_stages=None, dp_shards=(None,),
         chunks=(1,), uneven_stages=False, stack=None):
    """Enumerate, filter and rank (dp, tp, pp, cp, ep, microbatch, ...) layouts for ``model`` on ``n_gpus``.

    A layout is *valid* when ``tp`` divides ``heads`` (and ``kv_heads``: Megatron-Core splits
    the key-value groups over ``tp``) and is at most ``gpus_per_node``, ``pp`` divides
    ``layers`` (unless ``uneven_stages``), ``dp tp pp cp = n_gpus`` and ``microbatch * dp``
    divides the global batch; invalid combinations are listed in ``rejected`` with the rule
    they break. Valid layouts whose memory on the fullest stage (:func:`layout_memory`)
    exceeds ``memory_limit`` are rejected too (the memory check comes before, and saves,
    the step-time model); the rest are ranked by :func:`step_time`.

    Parameters
    ----------
    model : ModelConfig
    cluster : Cluster
    n_gpus : int
        GPUs to use, >= 1.
    memory_limit : float or str, optional
        Bytes per GPU, > 0 (e.g. ``76 * 2**30``: an 80 GiB H100 or A100 less 4 GiB), or a GPU
        name for :func:`memory_limit_of` (its HBM less 4 GiB). None: the GPU of a machine
        preset's cluster (``cluster.gemm_gpu``).
    recompute : str or sequence of str
        Recomputation mode(s) to try: "none", "selective", "full".
    sequence_parallel : bool
    zero_stage : int
        ZeRO stage of every layout, unless ``zero_stages`` is given.
    microbatches : sequence of int
        Microbatch sizes to try.
    ep_sizes : sequence of int, optional
        Expert-parallel degrees to try (each must divide ``dp``); default every divisor
        of ``dp`` for a model with MoE layers, ``(1,)`` for a dense one.
    cp_sizes : sequence of int, optional
        Context-parallel degrees to try. Default: 1 below ``CP_MIN_SEQ`` = 8,192 tokens (no
        one splits a 2K or 4K sequence); from there on the powers of two that leave each rank
        at least 4,096 tokens (8K: 1 and 2, as NVIDIA's Llama 3 recipes; 128K: up to 32, Llama
        3's 16). ``cp * tp`` may leave the node: Llama 3 405B ran TP8 inside the node and CP16
        across nodes (Dubey et al. 2024, sec. 3.3.2). ``seq_len`` must be divisible by
        ``2 cp`` (Megatron-Core's load-balanced chunks).
    zero_stages : sequence of int, optional
        ZeRO stages to try (default ``(zero_stage,)``): 1 is Megatron's distributed optimizer,
        2 FSDP without resharding parameters after the forward pass (Llama 3), 3 FSDP.
    dp_shards : sequence of (int, "node" or None)
        Hybrid sharding (HSDP) groups to try with ZeRO >= 1: None shards over all ``dp * cp``
        ranks; an int ``k`` over ``k * cp`` (if ``k`` divides ``dp``); ``"node"`` over the
        data-parallel ranks of one node (``gpus_per_node / (tp cp)``).
    chunks : sequence of int
        Interleaved model chunks ``v`` to try; ``v > 1`` only with ``pp > 1`` and a number of
        microbatches divisible by ``pp``.
    uneven_stages : bool
        Allow ``pp`` not to divide ``layers`` (:attr:`Layout.uneven_stages`).
    stack : SoftwareStack or str, optional
        A :mod:`~interconnect.parallel.machines` software stack whose switches (fused
        attention, overlaps, FP32 gradients) every layout takes; ``recompute``,
        ``sequence_parallel`` and the ZeRO stages are this function's.

    Returns
    -------
    Plan

    Examples
    --------
    GPT-3 6.7B on one DGX A100 (80 GiB per GPU): plain data parallelism with ZeRO-1 wins:

    >>> from interconnect import catalog
    >>> from interconnect.parallel import Cluster
    >>> p = plan(catalog.models.get("gpt3-6.7b"), Cluster.dgx_a100(), 8, 80 * GiB)
    >>> p.best[0].label(), len(p.ranked), len(p.rejected)
    ('dp=8 tp=1 pp=1 b=1 zero=1', 36, 4)
    """
    n = _scalar_count("n_gpus", n_gpus)
    if memory_limit is None:
        if getattr(cluster, "gemm_gpu", None) is None:
            raise ValueError("memory_limit=None needs a cluster with a GPU (a machines.machine(...) preset); "
                             "allowed: bytes > 0 or a GPU name")
        limit = memory_limit_of(cluster.gemm_gpu)
    elif isinstance(memory_limit, str):
        limit = memory_limit_of(memory_limit)
    else:
        limit = float(as_positive("memory_limit", memory_limit, "bytes"))
    bs = [_scalar_count("microbatches", b) for b in microbatches]
    if not bs:
        raise ValueError("microbatches is empty; expected at least one microbatch size")
    rcs = _as_tuple("recompute", recompute, _rc)
    zs = _as_tuple("zero_stages", zero_stage if zero_stages is None else zero_stages, _zs)
    shards = _as_tuple("dp_shards", dp_shards, _shard)
    vs = _as_tuple("chunks", chunks, lambda v: _scalar_count("chunks", v))
    cps = _auto_cp(model, n) if cp_sizes is None else _as_tuple("cp_sizes", cp_sizes,
                                                                  lambda v: _scalar_count("cp_sizes", v))
    uneven = _check_bool("uneven_stages", uneven_stages)
    if ep_sizes is not None:
        eps_given = [_scalar_count("ep_sizes", e) for e in ep_sizes]
        if not eps_given:
            raise ValueError("ep_sizes is empty; expected at least one expert-parallel degree")
    if stack is None:
        template = Layout(dp=1, tp=1, pp=1, recompute=rcs[0], sequence_parallel=sequence_parallel,
                          zero_stage=zs[0], uneven_stages=uneven)
    else:
        from .machines import stack as _stack

        sw = _stack(stack) if isinstance(stack, str) else stack
        template = sw.layout(1, 1, 1, recompute=rcs[0], sequence_parallel=sequence_parallel, zero_stage=zs[0],
                             uneven_stages=uneven)
    kv = model.n_kv_heads
    ranked, rejected = [], []
    for tp in _divisors(n):
        for cp in cps:
            if (n // tp) % cp:
                continue
            for pp in _divisors(n // (tp * cp)):
                dp = n // (tp * pp * cp)
                if ep_sizes is not None:
                    eps = [e for e in eps_given if dp % e == 0]
                else:
                    eps = _divisors(dp) if getattr(model, "moe_layers", 0) else [1]
                for ep, b in ((e, b_) for e in eps for b_ in bs):
                    for rc, z, sh, v in ((r, z_, s_, v_) for r in rcs for z_ in zs for s_ in shards for v_ in vs):
                        if v > 1 and pp == 1:
                            continue
                        if sh == "node":
                            sh = cluster.gpus_per_node // (tp * cp)
                            if sh < 1:
                                continue
                        if sh is not None and (z == 0 or dp % sh or sh == dp):
                            continue   # HSDP only with ZeRO, a divisor of dp, and not plain sharding
                        lay = _variant(template, dp=dp, tp=tp, pp=pp, ep=ep, microbatch=b, recompute=rc,
                                       zero_stage=z, dp_shard=sh, chunks=v, cp=cp)
                        reason = _invalid(model, cluster, lay, kv, uneven)
                        if reason:
                            rejected.append((lay, reason))
                            continue
                        mem = layout_memory(model, lay)
                        if mem > limit:
                            rejected.append((lay, f"memory {mem / 1e9:.1f} GB > limit {limit / 1e9:.1f} GB"))
                        else:
                            ranked.append((lay, step_time(model, lay, cluster), mem))
    ranked.sort(key=lambda r: r[1].total)
    return Plan(ranked=ranked, rejected=rejected, explanation=_explain(ranked, rejected, n, limit))


def _invalid(model, cluster, lay, kv, uneven):
    tp, pp, dp, b, v = lay.tp, lay.pp, lay.dp, lay.microbatch, lay.chunks
    if model.heads % tp:
        return f"tp={tp} does not divide heads={model.heads}"
    if not model.is_mla and kv % tp:
        return f"tp={tp} does not divide kv_heads={kv}"
    if tp > cluster.gpus_per_node:
        return f"tp={tp} > gpus_per_node={cluster.gpus_per_node}: TP would leave NVLink"
    if not uneven and model.layers % pp:
        return f"pp={pp} does not divide layers={model.layers}"
    if pp * v > model.layers:
        return f"pp * chunks = {pp * v} > layers={model.layers}"
    if not uneven and model.layers % (pp * v):
        return f"pp * chunks = {pp * v} does not divide layers={model.layers}"
    if model.global_batch % (dp * b):
        return f"global_batch={model.global_batch} not divisible by dp*b={dp * b}"
    if lay.cp > 1 and model.seq_len % (2 * lay.cp):
        return f"seq_len={model.seq_len} not divisible by 2*cp={2 * lay.cp}"
    if v > 1 and (model.global_batch // (dp * b)) % pp:
        return f"microbatches m={model.global_batch // (dp * b)} not a multiple of pp={pp} (interleaving)"
    return ""


def _explain(ranked, rejected, n, limit):
    if not ranked:
        return f"No layout of {n} GPUs fits in {limit / 1e9:.1f} GB per GPU ({len(rejected)} rejected)."
    lay, st, mem = ranked[0]
    sh = st.shares()
    parts = ", ".join(f"{k} {100 * v:.0f} %" for k, v in sorted(sh.items(), key=lambda kv: -kv[1]) if v >= 0.005)
    text = (f"Best of {len(ranked)} feasible layouts ({len(rejected)} rejected): {lay.label()}, "
            f"{st.total:.3g} s per step, MFU {100 * st.mfu:.1f} %, {mem / 1e9:.1f} GB per GPU. "
            f"The step is {parts}; the largest overhead is {st.dominant_overhead()}.")
    if len(ranked) > 1:
        lay2, st2, _ = ranked[1]
        text += f" Runner-up {lay2.label()} is {100 * (st2.total / st.total - 1):.1f} % slower."
    return text


def _why(ranked):
    if len(ranked) < 2:
        return ""
    (_, st, _), (lay2, st2, _) = ranked[0], ranked[1]
    if st2.total <= st.total:
        return (f"Runner-up {lay2.label()} ties with the winner ({st.total:.3g} s per step); ties keep the "
                "order of enumeration (smaller tp, then pp, then microbatch first).")
    diffs = {k: getattr(st2, k) - getattr(st, k) for k in st.PARTS}
    worst = max(diffs, key=diffs.get)
    gains = [k for k, d in sorted(diffs.items(), key=lambda kv: kv[1]) if d < 0]
    text = (f"Runner-up {lay2.label()} loses {st2.total - st.total:.3g} s per step: its {worst} is "
            f"{diffs[worst]:.3g} s longer")
    if gains:
        text += f", which its shorter {gains[0]} ({-diffs[gains[0]]:.3g} s) does not make up"
    return text + "."


