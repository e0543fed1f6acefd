"""The transformer: :class:`ModelConfig`, its parameters and its FLOPs per iteration.

The closed forms :func:`transformer_params` and :func:`iteration_flops` are the GPT block's
(:mod:`interconnect.parallel.flops`);
:class:`ModelConfig` also describes grouped-query and multi-head latent attention, gated
MLPs, untied embeddings, rotary positions and mixtures of experts (Llama 2/3, Mixtral,
DeepSeek-V3), and reduces to those closed forms for the GPT block.

References
----------
D. Narayanan et al., "Efficient Large-Scale Language Model Training on GPU Clusters Using
Megatron-LM", SC21 (arXiv:2104.04473), eqs. (2), (3).
V. Korthikanti et al., "Reducing Activation Recomputation in Large Transformer Models",
arXiv:2205.05198, 2022, sec. 5 and Appendix A.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np

from .._validate import as_positive, choice
from ._checks import _check_bool, _scalar_count
from .flops import RECOMPUTE_MODES, gelu, iteration_flops, selective_recompute_overhead, step_flops, transformer_params

__all__ = ["transformer_params", "iteration_flops", "ModelConfig", "RECOMPUTE_MODES", "POSITION_EMBEDDINGS",
           "selective_recompute_overhead", "step_flops", "gelu"]

POSITION_EMBEDDINGS = ("learned", "rope")
_MLA_FIELDS = ("q_lora_rank", "kv_lora_rank", "qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim")
_GPT_FIELDS = ("layers", "hidden", "heads", "seq_len", "vocab", "global_batch", "moe_layers", "name")


@dataclass(frozen=True)
class ModelConfig:
    """A decoder-only transformer (GPT, Llama, Mixtral or DeepSeek-V3 shaped) and its global batch.

    Given only ``layers`` to ``global_batch`` (and ``moe_layers``), it is the GPT block of
    Narayanan et al. (2021): multi-head attention of ``h / a`` per head, a ``4h`` GeLU MLP,
    biases and LayerNorms, a learned position embedding and an output layer tied to the token
    embedding; its parameters and FLOPs are then the closed forms :func:`transformer_params`
    and :func:`iteration_flops`, bit for bit. The optional fields describe today's models;
    every default reproduces the GPT block.

    Parameters
    ----------
    layers, hidden, heads, seq_len, vocab : int
        l, h, a, s, V; all >= 1. Unless ``head_dim`` is given (or the attention is MLA),
        ``hidden`` must be divisible by ``heads``.
    global_batch : int
        B, sequences per iteration, >= 1.
    moe_layers : int
        Layers whose MLP is a mixture of experts (their tokens cross the EP group by
        AllToAll), 0 <= moe_layers <= layers. Without ``num_experts`` an MoE layer is counted
        as one dense MLP (top-1 routing to one expert the size of the dense MLP): parameters
        and FLOPs as for the dense model, how the book's MoE example is priced.
    name : str
        For tables.
    kv_heads : int, optional
        Key-value heads g of grouped-query attention (1: multi-query); ``heads`` must be a
        multiple of it. Default ``heads`` (multi-head attention).
    head_dim : int, optional
        Size d of one attention head. Default ``hidden // heads``.
    ffn_hidden : int, optional
        Inner size f of the dense MLP. Default ``4 * hidden``.
    gated_mlp : bool
        A gated (SwiGLU) MLP: three h x f matrices (gate, up, down) instead of two. Default False.
    tied_embeddings : bool
        True (GPT): the output layer is the token embedding, ``V h`` counted once. False
        (Llama, Mixtral, DeepSeek): a separate ``V h`` output layer.
    position_embedding : {"learned", "rope"}
        "learned" (GPT) adds an ``s h`` table; "rope" (rotary) adds no parameters.
    bias : bool
        True (GPT): every linear layer has a bias and the two norms of a layer are
        LayerNorms with weight and bias, ``4h``; with the linear biases that is the ``13h``
        per layer of eq. (2), and, as in eq. (2), the final LayerNorm is not counted.
        False (Llama, Mixtral, DeepSeek): no biases and RMSNorm weights only, ``2h`` per
        layer plus ``h`` for the final norm.
    num_experts : int, optional
        Routed experts E of each MoE layer, >= 1 (needs ``moe_layers >= 1``). None: see
        ``moe_layers``.
    top_k : int
        Routed experts per token, 1 <= top_k <= num_experts; must be 1 without ``num_experts``.
    expert_ffn_hidden : int, optional
        Inner size of one expert's MLP; default ``ffn_hidden``. Needs ``num_experts``.
    shared_experts : int
        Experts every token of an MoE layer passes through besides its top_k (DeepSeekMoE),
        >= 0, each of ``expert_ffn_hidden``. Needs ``num_experts`` if > 0.
    q_lora_rank, kv_lora_rank, qk_nope_head_dim, qk_rope_head_dim, v_head_dim : int, optional
        Multi-head latent attention (MLA; DeepSeek-V2 and V3): ``kv_lora_rank`` (the
        compressed KV size d_c) switches it on and needs the three head sizes (d_nope,
        d_rope and d_v); ``q_lora_rank`` (d_c') compresses the query as well (None: a full
        query projection). MLA is modelled without biases (``bias=False``) and leaves
        ``kv_heads`` and ``head_dim`` unset.

    Notes
    -----
    Parameters of one layer are ``attention_params + norm_params + mlp_params(moe)``, with
    d_qk, d_v the query-key and value head sizes (d and d for standard attention):

    * attention, standard: ``2 h a d + 2 h g d`` (Q and output; K and V of the g = kv_heads
      heads), plus biases ``a d + 2 g d + h``;
    * attention, MLA: ``h r_q + r_q + r_q a d_qk`` (query down-projection, its RMSNorm,
      up-projection; ``h a d_qk`` without r_q) ``+ h (r_kv + d_rope) + r_kv + r_kv a (d_nope
      + d_v) + a d_v h`` (joint KV down-projection and the shared rotary key, its RMSNorm,
      K and V up-projections, output), with d_qk = d_nope + d_rope;
    * MLP of inner size f: ``2 h f`` plus biases ``f + h``; gated ``3 h f`` plus ``2 f + h``;
    * MoE layer with ``num_experts``: ``(E + shared)`` expert MLPs of ``expert_ffn_hidden``
      and the router ``h E``; per token only ``top_k + shared`` experts are active;
    * norms: ``4 h`` (LayerNorm, ``bias=True``) or ``2 h`` (RMSNorm).

    ``embedding_params``: ``V h`` (twice if untied: input embedding and output layer) plus
    ``s h`` for a learned position embedding. ``params`` adds the layers and the final norm;
    ``active_params`` leaves out the ``E - top_k`` routed experts a token does not use (and
    keeps both embedding tables, as Mistral AI's 12.9B for Mixtral does).

    FLOPs per token, forward (:meth:`flops_per_token`): 2 per multiply-add of every weight
    matrix a token passes through (attention, the dense MLP or the router and the
    ``top_k + shared`` experts, and the logits ``2 V h``) plus the attention scores and
    their weighted sum, ``2 s a (d_qk + d_v)`` per layer (``4 s a d`` standard). The full
    s x s score matrix is counted, not the causal half, as Megatron-LM's accounting does
    (Narayanan et al. 2021, eq. 3; Korthikanti et al. 2022, App. A). Training is 3 x the
    forward. Norms, biases, softmax, activations, the router's top-k and the embedding
    lookup are not counted. For the GPT block this is ``24 h^2 + 4 s h`` per layer plus
    ``2 V h``: ``3 B s`` times it is :func:`iteration_flops` without recomputation.

    Examples
    --------
    >>> gpt = ModelConfig(layers=96, hidden=12288, heads=96, seq_len=2048, vocab=51200, global_batch=1536)
    >>> round(gpt.params / 1e9, 1), round(gpt.model_flops() / 1e18, 2)   # GPT-3 175B; EFLOP per iteration
    (174.6, 3.39)

    Llama 3 405B (Dubey et al. 2024, Table 3): grouped-query attention with 8 KV heads, a
    SwiGLU MLP of 53,248, untied embeddings, RoPE, RMSNorm; 504 KiB of KV cache per token in
    BF16, a sixteenth of what 128 KV heads would hold:

    >>> llama = ModelConfig(layers=126, hidden=16384, heads=128, seq_len=8192, vocab=128256,
    ...                     global_batch=2048, kv_heads=8, ffn_hidden=53248, gated_mlp=True,
    ...                     tied_embeddings=False, position_embedding="rope", bias=False)
    >>> round(llama.params / 1e9, 1), llama.kv_cache_bytes_per_token() / 2**10
    (405.9, 504.0)
    >>> try:
    ...     ModelConfig(layers=2, hidden=64, heads=8, seq_len=16, vocab=100, global_batch=1, kv_heads=3)
    ... except ValueError as err:
    ...     print(err)
    kv_heads=3 is not allowed; heads=8 must be a multiple of kv_heads (a divisor of 8: 1, 2, 4, 8)
    """

    layers: int
    hidden: int
    heads: int
    seq_len: int
    vocab: int
    global_batch: int
    moe_layers: int = 0
    name: str = ""
    kv_heads: int | None = None
    head_dim: int | None = None
    ffn_hidden: int | None = None
    gated_mlp: bool = False
    tied_embeddings: bool = True
    position_embedding: str = "learned"
    bias: bool = True
    num_experts: int | None = None
    top_k: int = 1
    expert_ffn_hidden: int | None = None
    shared_experts: int = 0
    q_lora_rank: int | None = None
    kv_lora_rank: int | None = None
    qk_nope_head_dim: int | None = None
    qk_rope_head_dim: int | None = None
    v_head_dim: int | None = None

    def __post_init__(self):
        for n in ("layers", "hidden", "heads", "seq_len", "vocab", "global_batch"):
            object.__setattr__(self, n, _scalar_count(n, getattr(self, n)))
        object.__setattr__(self, "moe_layers", _scalar_count("moe_layers", self.moe_layers, minimum=0))
        if self.moe_layers > self.layers:
            raise ValueError(f"moe_layers={self.moe_layers} is not allowed; allowed 0 to layers={self.layers}")
        for n in ("kv_heads", "head_dim", "ffn_hidden", "num_experts", "expert_ffn_hidden") + _MLA_FIELDS:
            if getattr(self, n) is not None:
                object.__setattr__(self, n, _scalar_count(n, getattr(self, n)))
        object.__setattr__(self, "top_k", _scalar_count("top_k", self.top_k))
        object.__setattr__(self, "shared_experts", _scalar_count("shared_experts", self.shared_experts, minimum=0))
        for n in ("gated_mlp", "tied_embeddings", "bias"):
            object.__setattr__(self, n, _check_bool(n, getattr(self, n)))
        object.__setattr__(self, "position_embedding",
                           choice("position_embedding", self.position_embedding, POSITION_EMBEDDINGS))
        self._check_attention()
        self._check_experts()

    def _check_attention(self):
        if self.is_mla:
            missing = [n for n in _MLA_FIELDS[2:] if getattr(self, n) is None]
            if missing:
                raise ValueError(f"kv_lora_rank={self.kv_lora_rank} (MLA) needs {', '.join(missing)}; "
                                 "allowed: all of qk_nope_head_dim, qk_rope_head_dim, v_head_dim >= 1")
            for n in ("kv_heads", "head_dim"):
                if getattr(self, n) is not None:
                    raise ValueError(f"{n}={getattr(self, n)} is not allowed with MLA (kv_lora_rank set); "
                                     "allowed: None (head sizes: qk_nope_head_dim, qk_rope_head_dim, v_head_dim)")
            if self.bias:
                raise ValueError("bias=True is not allowed with MLA (kv_lora_rank set); allowed: bias=False")
            return
        for n in _MLA_FIELDS:
            if getattr(self, n) is not None:
                raise ValueError(f"{n}={getattr(self, n)} is not allowed without kv_lora_rank (MLA); "
                                 "allowed: None, or give kv_lora_rank too")
        if self.head_dim is None and self.hidden % self.heads:
            raise ValueError(f"hidden={self.hidden} is not divisible by heads={self.heads}")
        if self.kv_heads is not None and self.heads % self.kv_heads:
            divisors = [d for d in range(1, self.heads + 1) if self.heads % d == 0]
            shown = ", ".join(map(str, divisors)) if len(divisors) <= 12 else f"{divisors[0]}, ..., {divisors[-1]}"
            raise ValueError(f"kv_heads={self.kv_heads} is not allowed; heads={self.heads} must be a multiple of "
                             f"kv_heads (a divisor of {self.heads}: {shown})")

    def _check_experts(self):
        if self.num_experts is None:
            for n, default in (("top_k", 1), ("shared_experts", 0), ("expert_ffn_hidden", None)):
                if getattr(self, n) != default:
                    raise ValueError(f"{n}={getattr(self, n)} is not allowed without num_experts; "
                                     f"allowed: {default}, or give num_experts")
            return
        if self.moe_layers == 0:
            raise ValueError(f"num_experts={self.num_experts} needs MoE layers; moe_layers=0 is not allowed "
                             f"with it: allowed 1 to layers={self.layers}")
        if self.top_k > self.num_experts:
            raise ValueError(f"top_k={self.top_k} is not allowed; allowed 1 to num_experts={self.num_experts}")

    def __repr__(self):
        # the GPT fields always (the repr of a GPT preset is what it was), the others where set
        shown = [f"{f.name}={getattr(self, f.name)!r}" for f in fields(self)
                 if f.name in _GPT_FIELDS or getattr(self, f.name) != f.default]
        return f"ModelConfig({', '.join(shown)})"

    # ------------------------------------------------------------------ resolved sizes
    @property
    def is_mla(self):
        """True if the attention is multi-head latent attention (``kv_lora_rank`` set)."""
        return self.kv_lora_rank is not None

    @property
    def is_gpt_block(self):
        """True if every optional field leaves the GPT block of eq. (2) and (3) as it is.

        Then :attr:`params` is :func:`transformer_params` and :meth:`model_flops` is
        :func:`iteration_flops`, and :func:`step_flops` uses Korthikanti et al.'s ratios.
        """
        return (not self.is_mla and self.n_kv_heads == self.heads and self.heads * self.d_head == self.hidden
                and self.d_ff == 4 * self.hidden and not self.gated_mlp and self.tied_embeddings
                and self.position_embedding == "learned" and self.bias and self.num_experts is None)

    @property
    def n_kv_heads(self):
        """Heads with their own keys and values: ``kv_heads``, else ``heads`` (also with MLA)."""
        return self.heads if self.kv_heads is None else self.kv_heads

    @property
    def d_head(self):
        """Head size of standard attention: ``head_dim``, else ``hidden // heads``; with MLA d_qk."""
        if self.is_mla:
            return self.d_qk
        return self.hidden // self.heads if self.head_dim is None else self.head_dim

    @property
    def d_qk(self):
        """Query-key size of a head: d, or ``qk_nope_head_dim + qk_rope_head_dim`` with MLA."""
        return self.qk_nope_head_dim + self.qk_rope_head_dim if self.is_mla else self.d_head

    @property
    def d_v(self):
        """Value size of a head: d, or ``v_head_dim`` with MLA."""
        return self.v_head_dim if self.is_mla else self.d_head

    @property
    def d_ff(self):
        """Inner size of the dense MLP: ``ffn_hidden``, else ``4 * hidden``."""
        return 4 * self.hidden if self.ffn_hidden is None else self.ffn_hidden

    @property
    def d_expert_ff(self):
        """Inner size of one expert: ``expert_ffn_hidden``, else that of the dense MLP."""
        return self.d_ff if self.expert_ffn_hidden is None else self.expert_ffn_hidden

    # ------------------------------------------------------------------ parameters
    def _attention_weights(self):
        h, a = self.hidden, self.heads
        if self.is_mla:
            rq, rkv = self.q_lora_rank, self.kv_lora_rank
            q = h * a * self.d_qk if rq is None else h * rq + rq * a * self.d_qk
            kv = h * (rkv + self.qk_rope_head_dim) + rkv * a * (self.qk_nope_head_dim + self.d_v)
            return q + kv + a * self.d_v * h
        d, g = self.d_head, self.n_kv_heads
        return 2 * h * a * d + 2 * h * g * d

    def _mlp_weights(self, f):
        return (3 if self.gated_mlp else 2) * self.hidden * f

    def _mlp(self, f):
        biases = ((2 if self.gated_mlp else 1) * f + self.hidden) if self.bias else 0
        return self._mlp_weights(f) + biases

    @property
    def attention_params(self):
        """Parameters of one layer's attention block (weights, biases, MLA's two RMSNorms)."""
        if self.is_mla:
            return self._attention_weights() + (self.q_lora_rank or 0) + self.kv_lora_rank
        d, g = self.d_head, self.n_kv_heads
        biases = self.heads * d + 2 * g * d + self.hidden if self.bias else 0
        return self._attention_weights() + biases

    @property
    def norm_params(self):
        """Parameters of one layer's two norms: ``4 h`` (LayerNorm, ``bias``) or ``2 h`` (RMSNorm)."""
        return (4 if self.bias else 2) * self.hidden

    @property
    def final_norm_params(self):
        """The final norm: ``h`` (RMSNorm); 0 with ``bias`` (eq. 2 does not count the final LayerNorm)."""
        return 0 if self.bias else self.hidden

    def mlp_params(self, moe=False, active=False):
        """Parameters of one layer's MLP block.

        Parameters
        ----------
        moe : bool
            An MoE layer (all experts and the router) rather than a dense one; the same as
            dense without ``num_experts``.
        active : bool
            Only what one token uses: the router and ``top_k + shared_experts`` experts.

        Returns
        -------
        int

        Examples
        --------
        Mixtral 8x7B: eight SwiGLU experts of 14,336 and a 4,096 x 8 router; two per token:

        >>> m = ModelConfig(layers=32, hidden=4096, heads=32, seq_len=32768, vocab=32000, global_batch=1,
        ...                 moe_layers=32, kv_heads=8, ffn_hidden=14336, gated_mlp=True, num_experts=8, top_k=2,
        ...                 tied_embeddings=False, position_embedding="rope", bias=False)
        >>> m.mlp_params(moe=True), m.mlp_params(moe=True, active=True)
        (1409318912, 352354304)
        """
        moe, active = _check_bool("moe", moe), _check_bool("active", active)
        if not moe or self.num_experts is None:
            return self._mlp(self.d_ff)
        experts = (self.top_k if active else self.num_experts) + self.shared_experts
        return experts * self._mlp(self.d_expert_ff) + self.hidden * self.num_experts

    @property
    def embedding_params(self):
        """``V h`` (input embedding; twice if untied, for the output layer) plus ``s h`` if learned positions."""
        h = self.hidden
        return (1 if self.tied_embeddings else 2) * self.vocab * h + (
            self.seq_len * h if self.position_embedding == "learned" else 0)

    def _sum_params(self, active=False):
        dense = self.layers - self.moe_layers
        per_layer = self.attention_params + self.norm_params
        return (self.embedding_params + self.final_norm_params + self.layers * per_layer
                + dense * self.mlp_params() + self.moe_layers * self.mlp_params(moe=True, active=active))

    @property
    def params(self):
        """Parameters, total; Narayanan et al. (2021) eq. (2), :func:`transformer_params`, for the GPT block.

        Otherwise the sum in the class notes: embeddings, final norm and, for each layer,
        attention, norms and MLP (all experts of an MoE layer).
        """
        if self.is_gpt_block:
            return transformer_params(self.layers, self.hidden, self.vocab, self.seq_len)
        return float(self._sum_params())

    @property
    def active_params(self):
        """Parameters one token uses: :attr:`params` less the ``E - top_k`` routed experts it skips.

        Counts both embedding tables, as Mistral AI's 12.9B for Mixtral does; DeepSeek-AI's
        37B for DeepSeek-V3 leaves out the input embedding (a token reads one row of it).
        Equal to :attr:`params` for a dense model.
        """
        if self.num_experts is None:
            return self.params
        return float(self._sum_params(active=True))

    # ------------------------------------------------------------------ FLOPs
    def forward_flops_per_token(self):
        """Forward FLOPs per token, by term: the layers' weight matrices, attention core, logits.

        Returns
        -------
        dict
            ``"matmul"``: 2 per multiply-add of every weight matrix a token passes through
            in the layers (attention projections, dense MLP, router and the
            ``top_k + shared`` experts); ``"attention"``: the scores ``Q K^T`` and their
            weighted sum of values, ``2 s a (d_qk + d_v)`` per layer (full s x s, as
            Megatron-LM counts); ``"logits"``: ``2 V h``.

        Examples
        --------
        The GPT block: ``24 h^2`` and ``4 s h`` per layer and ``2 V h``:

        >>> m = ModelConfig(layers=2, hidden=64, heads=4, seq_len=32, vocab=100, global_batch=1)
        >>> m.forward_flops_per_token() == {"matmul": 2 * 24 * 64**2, "attention": 2 * 4 * 32 * 64,
        ...                                 "logits": 2 * 100 * 64}
        True
        """
        dense = self.layers - self.moe_layers
        if self.num_experts is None:
            moe_w = self._mlp_weights(self.d_ff)
        else:
            moe_w = ((self.top_k + self.shared_experts) * self._mlp_weights(self.d_expert_ff)
                     + self.hidden * self.num_experts)
        weights = (self.layers * self._attention_weights() + dense * self._mlp_weights(self.d_ff)
                   + self.moe_layers * moe_w)
        return {"matmul": 2 * weights,
                "attention": 2 * self.layers * self.seq_len * self.heads * (self.d_qk + self.d_v),
                "logits": 2 * self.vocab * self.hidden}

    def flops_per_token(self, training=True):
        """Model FLOPs per token: the sum of :meth:`forward_flops_per_token`, x 3 for training.

        ``2 N_w + 2 l s a (d_qk + d_v) + 2 V h`` forward, N_w the weights of the layers' matrices
        a token passes through; for training 3 x that (backward = 2 x forward). For the GPT
        block ``3 (24 l h^2 + 4 l s h + 2 V h) = 72 l h^2 (1 + s/(6h) + V/(12 l h))``, Korthikanti
        et al. (2022), App. A, per token.

        Parameters
        ----------
        training : bool
            Forward and backward if True, forward only otherwise.

        Returns
        -------
        float

        Examples
        --------
        Llama 3 405B at s = 8,192: 2.63 TFLOP per training token, ``6 x 405e9`` = 2.43 and an
        attention term of 8 %:

        >>> llama = ModelConfig(layers=126, hidden=16384, heads=128, seq_len=8192, vocab=128256,
        ...                     global_batch=2048, kv_heads=8, ffn_hidden=53248, gated_mlp=True,
        ...                     tied_embeddings=False, position_embedding="rope", bias=False)
        >>> round(llama.flops_per_token() / 1e12, 2), round(llama.flops_per_token(training=False) / 1e12, 2)
        (2.63, 0.88)
        """
        mult = 3.0 if _check_bool("training", training) else 1.0
        return mult * float(sum(self.forward_flops_per_token().values()))

    def model_flops(self):
        """Model FLOPs of one iteration (no recomputation): ``B s`` x :meth:`flops_per_token`.

        For the GPT block evaluated as Korthikanti et al. (2022), App. A,
        ``72 B s l h^2 (1 + s/(6h) + V/(12 l h))`` (:func:`iteration_flops` with
        ``recompute=False``), the same number to rounding.
        """
        if self.is_gpt_block:
            return iteration_flops(self.global_batch, self.seq_len, self.layers, self.hidden, self.vocab,
                                   recompute=False)
        return self.global_batch * self.seq_len * self.flops_per_token()

    def kv_cache_bytes_per_token(self, bytes_per_element=2):
        """Bytes of KV cache one token of context holds, all layers.

        ``2 l g d`` elements (a key and a value per KV head); with MLA ``l (d_c + d_rope)``
        (the compressed KV and the shared rotary key, DeepSeek-AI 2024, sec. 2.1.1).

        Parameters
        ----------
        bytes_per_element : float
            2 for BF16/FP16, 1 for FP8; > 0.

        Returns
        -------
        float

        Examples
        --------
        GPT-3 175B, 96 heads of 128: 4.5 MiB per token in FP16:

        >>> gpt = ModelConfig(layers=96, hidden=12288, heads=96, seq_len=2048, vocab=51200, global_batch=1)
        >>> gpt.kv_cache_bytes_per_token() / 2**20
        4.5
        """
        b = as_positive("bytes_per_element", bytes_per_element)
        if np.ndim(b) != 0:
            raise ValueError(f"bytes_per_element={bytes_per_element!r} must be a single number > 0, not an array")
        per_layer = (self.kv_lora_rank + self.qk_rope_head_dim if self.is_mla
                     else 2 * self.n_kv_heads * self.d_head)
        return float(self.layers * per_layer * b)
