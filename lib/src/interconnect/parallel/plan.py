"""The layout planner: enumerate, filter by memory and rank (dp, tp, pp, ep, microbatch) layouts."""

from __future__ import annotations

from dataclasses import dataclass, field

from .. import memory as _memory
from .._validate import as_count, as_positive
from ._checks import _scalar_count
from .layout import Layout, _check_fit
from .step_time import step_time
from .transformer import transformer_params

__all__ = ["Plan", "plan", "stage_params", "layout_memory", "layout_memory_breakdown", "inference_memory"]


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
        What the winner's step is made of (empty if nothing fits).
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
        >>> lay, st, mem = plan(catalog.models.get("gpt3-6.7b"), Cluster.dgx_a100(), 8, 80e9).best
        >>> lay.label(), round(mem / 1e9, 1)      # fastest layout; GB per GPU
        ('dp=8 tp=1 pp=1 b=1 zero=1', 45.8)
        """
        return self.ranked[0] if self.ranked else None


def _divisors(n):
    return [k for k in range(1, n + 1) if n % k == 0]


def stage_params(model, layout):
    """Parameters one GPU of the first pipeline stage holds: ``(12 h^2 + 13 h) l / pp``
    transformer weights plus the token and position embeddings ``(V + s) h``, all over ``tp``.

    References
    ----------
    Narayanan et al. (2021), eq. (2), split by stage and tensor rank.

    Examples
    --------
    GPT-3 175B over 8 pipeline stages and 8 tensor ranks: 2.8B parameters per GPU:

    >>> from interconnect import catalog
    >>> round(stage_params(catalog.models.get("gpt3-175b"), Layout(dp=16, tp=8, pp=8)) / 1e9, 2)
    2.8
    """
    h, L = model.hidden, model.layers
    return ((12.0 * h * h + 13.0 * h) * L / layout.pp + (model.vocab + model.seq_len) * h) / layout.tp


def layout_memory(model, layout):
    """Bytes per GPU on the first pipeline stage (the fullest one).

    Model states of the stage's parameters (``(12 h^2 + 13 h) l / pp`` plus the token and
    position embeddings ``(V + s) h``, all over ``tp``) with ZeRO over ``dp``
    (:func:`interconnect.memory.training_memory`), plus the activations the first stage
    keeps in flight under 1F1B, ``min(pp, m)`` microbatches of ``l / pp`` layers
    (:func:`interconnect.memory.activation_memory`; Korthikanti et al. 2022, eq. 5).

    Examples
    --------
    >>> from interconnect import catalog
    >>> round(layout_memory(catalog.models.get("gpt3-175b"), Layout(dp=16, tp=8, pp=8)) / 1e9, 1)   # GB per GPU
    55.1
    """
    m = _check_fit(model, layout)
    h, L = model.hidden, model.layers
    states = _memory.training_memory(stage_params(model, layout), layout.dp, layout.zero_stage)["total"]
    in_flight = min(layout.pp, m) * L // layout.pp
    acts = _memory.activation_memory(model.seq_len, layout.microbatch, h, model.heads, layers=max(1, in_flight),
                                     tp=layout.tp, sequence_parallel=layout.sequence_parallel,
                                     recompute=layout.recompute, pipeline_stages=layout.pp,
                                     microbatches=m, chunks=layout.chunks)
    return states + acts


def plan(model, cluster, n_gpus, memory_limit, recompute="selective", sequence_parallel=True, zero_stage=1,
         microbatches=(1, 2, 4, 8), ep_sizes=None):
    """Enumerate, filter and rank (dp, tp, pp, ep, microbatch) layouts for ``model`` on ``n_gpus``.

    A layout is *valid* when ``tp`` divides ``heads`` and is at most ``gpus_per_node``,
    ``pp`` divides ``layers``, ``dp tp pp = n_gpus`` and ``microbatch * dp`` divides the
    global batch; invalid combinations are listed in ``rejected`` with the rule they break.
    Valid layouts whose first-stage memory (:func:`layout_memory`) exceeds
    ``memory_limit`` are rejected too; the rest are ranked by :func:`step_time`.

    Parameters
    ----------
    model : ModelConfig
    cluster : Cluster
    n_gpus : int
        GPUs to use, >= 1.
    memory_limit : float
        Bytes per GPU, > 0 (e.g. 80e9 for an A100 80GB, less a margin for buffers).
    recompute, sequence_parallel, zero_stage :
        Passed to every :class:`Layout`.
    microbatches : sequence of int
        Microbatch sizes to try.
    ep_sizes : sequence of int, optional
        Expert-parallel degrees to try (each must divide ``dp``); default every divisor
        of ``dp`` for a model with MoE layers, ``(1,)`` for a dense one. Expert weights
        are counted as dense parameters in the memory check.

    Returns
    -------
    Plan

    Examples
    --------
    GPT-3 6.7B on one DGX A100 (80 GB per GPU): plain data parallelism with ZeRO-1 wins:

    >>> from interconnect import catalog
    >>> from interconnect.parallel import Cluster
    >>> p = plan(catalog.models.get("gpt3-6.7b"), Cluster.dgx_a100(), 8, 80e9)
    >>> p.best[0].label(), len(p.ranked), len(p.rejected)
    ('dp=8 tp=1 pp=1 b=1 zero=1', 36, 4)
    """
    n = _scalar_count("n_gpus", n_gpus)
    limit = float(as_positive("memory_limit", memory_limit, "bytes"))
    bs = [_scalar_count("microbatches", b) for b in microbatches]
    if not bs:
        raise ValueError("microbatches is empty; expected at least one microbatch size")
    ranked, rejected = [], []
    if ep_sizes is not None:
        eps_given = [_scalar_count("ep_sizes", e) for e in ep_sizes]
        if not eps_given:
            raise ValueError("ep_sizes is empty; expected at least one expert-parallel degree")
    for tp in _divisors(n):
        for pp in _divisors(n // tp):
            dp = n // (tp * pp)
            if ep_sizes is not None:
                eps = [e for e in eps_given if dp % e == 0]
            else:
                eps = _divisors(dp) if getattr(model, "moe_layers", 0) else [1]
            for ep, b in ((e, b_) for e in eps for b_ in bs):
                lay = Layout(dp=dp, tp=tp, pp=pp, ep=ep, microbatch=b, sequence_parallel=sequence_parallel,
                             recompute=recompute, zero_stage=zero_stage)
                if model.heads % tp:
                    rejected.append((lay, f"tp={tp} does not divide heads={model.heads}"))
                elif tp > cluster.gpus_per_node:
                    rejected.append((lay, f"tp={tp} > gpus_per_node={cluster.gpus_per_node}: TP would leave NVLink"))
                elif model.layers % pp:
                    rejected.append((lay, f"pp={pp} does not divide layers={model.layers}"))
                elif model.global_batch % (dp * b):
                    rejected.append((lay, f"global_batch={model.global_batch} not divisible by dp*b={dp * b}"))
                else:
                    mem = layout_memory(model, lay)
                    if mem > limit:
                        rejected.append((lay, f"memory {mem / 1e9:.1f} GB > limit {limit / 1e9:.1f} GB"))
                    else:
                        ranked.append((lay, step_time(model, lay, cluster), mem))
    ranked.sort(key=lambda r: r[1].total)
    text = ""
    if ranked:
        lay, st, mem = ranked[0]
        sh = st.shares()
        parts = ", ".join(f"{k} {100 * v:.0f} %" for k, v in sorted(sh.items(), key=lambda kv: -kv[1]) if v >= 0.005)
        text = (f"Best of {len(ranked)} feasible layouts ({len(rejected)} rejected): {lay.label()}, "
                f"{st.total:.3g} s per step, MFU {100 * st.mfu:.1f} %, {mem / 1e9:.1f} GB per GPU. "
                f"The step is {parts}; the largest overhead is {st.dominant_overhead()}.")
        if len(ranked) > 1:
            lay2, st2, _ = ranked[1]
            text += f" Runner-up {lay2.label()} is {100 * (st2.total / st.total - 1):.1f} % slower."
    else:
        text = f"No layout of {n} GPUs fits in {limit / 1e9:.1f} GB per GPU ({len(rejected)} rejected)."
    return Plan(ranked=ranked, rejected=rejected, explanation=text)


def layout_memory_breakdown(model, layout):
    """Bytes per GPU of the first pipeline stage in training, by part.

    The parts :func:`interconnect.parallel.layout_memory` adds up: the model states of the
    stage's parameters (:func:`interconnect.parallel.stage_params`) with ZeRO over ``dp``
    (:func:`interconnect.memory.training_memory`), and the activations, which are what is left of the total.

    Parameters
    ----------
    model : interconnect.parallel.ModelConfig
    layout : interconnect.parallel.Layout

    Returns
    -------
    dict of float
        ``params``, ``grads``, ``optimizer``, ``activations`` and ``total`` (their sum,
        :func:`interconnect.parallel.layout_memory`), bytes per GPU; and ``stage_params``,
        the parameters one GPU of the first stage holds.

    References
    ----------
    Rajbhandari et al. (2020), Table 1 (the model states); Korthikanti et al. (2022),
    eq. 5 (the activations, through :func:`interconnect.memory.activation_memory`).

    Examples
    --------
    GPT-3 175B on ``dp=16 tp=8 pp=8``: the 2.8B parameters of a GPU take 16 bytes each
    (2 + 2 + 12, ZeRO Table 1 without partitioning), activations 10 GB:

    >>> from interconnect import catalog
    >>> b = layout_memory_breakdown(catalog.models.get("gpt3-175b"), Layout(dp=16, tp=8, pp=8))
    >>> {k: round(v / 1e9, 1) for k, v in b.items()}
    {'params': 5.6, 'grads': 5.6, 'optimizer': 33.6, 'activations': 10.3, 'total': 55.1, 'stage_params': 2.8}
    """
    params = stage_params(model, layout)
    states = _memory.training_memory(params, layout.dp, layout.zero_stage)
    total = layout_memory(model, layout)
    return {"params": states["params"], "grads": states["grads"], "optimizer": states["optimizer"],
            "activations": total - states["total"], "total": total, "stage_params": params}


def inference_memory(model, kv_heads, head_dim, tp=1, pp=1, batch=1, context=None, bytes_per_element=2.0):
    """Bytes per GPU in inference: the weights and the KV cache.

    Weights: ``bytes_per_element`` bytes per parameter of
    :func:`interconnect.parallel.transformer_params`, split over ``tp * pp`` GPUs. KV cache:
    :func:`interconnect.memory.kv_cache_bytes` of ``layers // pp`` layers and ``kv_heads // tp`` key-value heads
    (at least one of each: heads are replicated when ``tp > kv_heads``) for ``batch``
    sequences of ``context`` tokens.

    Parameters
    ----------
    model : interconnect.parallel.ModelConfig
    kv_heads : int
        Key-value heads of the attention (fewer than the query heads with grouped-query
        attention).
    head_dim : int
        Size of one head.
    tp, pp : int
        Tensor- and pipeline-parallel sizes, >= 1.
    batch : int
        Sequences served at once, >= 1.
    context : int, optional
        Tokens per sequence; default ``model.seq_len``.
    bytes_per_element : float
        2 for FP16/BF16 weights and cache.

    Returns
    -------
    dict of float
        ``weights``, ``kv_cache`` and ``total``, bytes per GPU.

    References
    ----------
    Kwon et al. (2023), section 3 (KV cache size).

    Examples
    --------
    One GPU, one 4,096-token sequence of a 32-layer model with 32 KV heads of 128: the
    cache is ``2 * 32 * 32 * 128 * 2`` bytes = 512 KiB per token, 2 GiB in all:

    >>> from interconnect.parallel import ModelConfig
    >>> m = ModelConfig(layers=32, hidden=4096, heads=32, seq_len=4096, vocab=32000, global_batch=1)
    >>> inference_memory(m, kv_heads=32, head_dim=128)["kv_cache"] / 2**30
    2.0
    """
    tp = as_count("tp", tp, minimum=1)
    pp = as_count("pp", pp, minimum=1)
    context = model.seq_len if context is None else context
    bpe = as_positive("bytes_per_element", bytes_per_element, "bytes")
    weights = bpe * transformer_params(model.layers, model.hidden, model.vocab, model.seq_len) / (tp * pp)
    kv = _memory.kv_cache_bytes(max(1, model.layers // pp), max(1, kv_heads // tp), head_dim, context, batch,
                        bytes_per_element=bpe)
    return {"weights": weights, "kv_cache": kv, "total": weights + kv}
