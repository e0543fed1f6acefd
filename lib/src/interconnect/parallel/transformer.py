"""The GPT-style transformer: its parameters, its FLOPs per iteration, and :class:`ModelConfig`.

References
----------
D. Narayanan et al., "Efficient Large-Scale Language Model Training on GPU Clusters Using
Megatron-LM", SC21 (arXiv:2104.04473), eqs. (2), (3).
V. Korthikanti et al., "Reducing Activation Recomputation in Large Transformer Models",
arXiv:2205.05198, 2022, sec. 5 and Appendix A.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._validate import as_count
from ._checks import _scalar_count

__all__ = ["transformer_params", "iteration_flops", "ModelConfig", "RECOMPUTE_MODES", "selective_recompute_overhead",
           "step_flops", "gelu"]

RECOMPUTE_MODES = ("none", "selective", "full")


def transformer_params(layers, hidden, vocab, seq_len):
    """Parameters of a GPT-style transformer: ``12 l h^2 (1 + 13/(12 h) + (V + s)/(12 l h))``.

    Attention and MLP weights and biases (``12 h^2 + 13 h`` per layer), the token
    embedding ``V h`` and the learned position embedding ``s h``.

    Parameters
    ----------
    layers, hidden, vocab, seq_len : int
        l, h, V, s; all >= 1.

    References
    ----------
    Narayanan et al. (2021), eq. (2) and Table 1.

    Examples
    --------
    The 145.6B row of Narayanan et al. (2021), Table 1 (80 layers, h = 12,288), and GPT-3
    175B with its 96 layers:

    >>> [round(transformer_params(layers, 12288, 51200, 2048) / 1e9, 1) for layers in (80, 96)]
    [145.6, 174.6]
    """
    L = as_count("layers", layers)
    h = as_count("hidden", hidden)
    V = as_count("vocab", vocab)
    s = as_count("seq_len", seq_len)
    out = 12.0 * np.asarray(L) * np.asarray(h, dtype=float) ** 2 * (
        1.0 + 13.0 / (12.0 * np.asarray(h)) + (np.asarray(V) + np.asarray(s)) / (12.0 * np.asarray(L) * np.asarray(h)))
    return float(out) if np.ndim(out) == 0 else out


def iteration_flops(batch, seq_len, layers, hidden, vocab, recompute=True):
    """FLOPs of one training iteration of a GPT-style transformer (matrix multiplies only).

    ``96 B s l h^2 (1 + s/(6h) + V/(16 l h))`` with full activation recomputation
    (an extra forward pass, so 4 passes' worth); without recomputation the factor is
    72 instead of 96 and the logit term ``V/(12 l h)`` (Korthikanti et al. 2022, App. A).

    Parameters
    ----------
    batch : int
        Global batch size B, in sequences.
    seq_len, layers, hidden, vocab : int
    recompute : bool
        Count the recomputed forward pass (hardware FLOPs, Narayanan's eq. 3) if True;
        model FLOPs otherwise.

    References
    ----------
    Narayanan et al. (2021), eq. (3); Korthikanti et al. (2022), Appendix A.

    Examples
    --------
    The 145.6B model of Narayanan et al. (2021), Table 1, at its batch of 2,304 sequences:
    5.6 EFLOP per iteration with full recomputation, 4.2 without:

    >>> round(iteration_flops(2304, 2048, 80, 12288, 51200) / 1e18, 2)
    5.64
    >>> round(iteration_flops(2304, 2048, 80, 12288, 51200, recompute=False) / 1e18, 2)
    4.24
    """
    B = as_count("batch", batch)
    s = as_count("seq_len", seq_len)
    L = as_count("layers", layers)
    h = as_count("hidden", hidden)
    V = as_count("vocab", vocab)
    hf = np.asarray(h, dtype=float)
    if recompute:
        out = 96.0 * B * s * L * hf**2 * (1.0 + s / (6.0 * hf) + V / (16.0 * L * hf))
    else:
        out = 72.0 * B * s * L * hf**2 * (1.0 + s / (6.0 * hf) + V / (12.0 * L * hf))
    return float(out) if np.ndim(out) == 0 else out


@dataclass(frozen=True)
class ModelConfig:
    """A GPT-style dense transformer (optionally with MoE layers) and its global batch.

    Parameters
    ----------
    layers, hidden, heads, seq_len, vocab : int
        l, h, a, s, V; all >= 1; ``hidden`` must be divisible by ``heads``.
    global_batch : int
        B, sequences per iteration, >= 1.
    moe_layers : int
        Layers whose MLP is a mixture of experts (their tokens cross the EP group by
        AllToAll), 0 <= moe_layers <= layers. FLOPs are counted as for a dense model
        (top-1 routing, one expert of the dense MLP's size per token).
    name : str
        For tables.

    Examples
    --------
    >>> gpt = ModelConfig(layers=96, hidden=12288, heads=96, seq_len=2048, vocab=51200, global_batch=1536)
    >>> round(gpt.params / 1e9, 1), round(gpt.model_flops() / 1e18, 2)   # GPT-3 175B; EFLOP per iteration
    (174.6, 3.39)
    """

    layers: int
    hidden: int
    heads: int
    seq_len: int
    vocab: int
    global_batch: int
    moe_layers: int = 0
    name: str = ""

    def __post_init__(self):
        for n in ("layers", "hidden", "heads", "seq_len", "vocab", "global_batch"):
            object.__setattr__(self, n, _scalar_count(n, getattr(self, n)))
        object.__setattr__(self, "moe_layers", _scalar_count("moe_layers", self.moe_layers, minimum=0))
        if self.moe_layers > self.layers:
            raise ValueError(f"moe_layers={self.moe_layers} is not allowed; allowed 0 to layers={self.layers}")
        if self.hidden % self.heads:
            raise ValueError(f"hidden={self.hidden} is not divisible by heads={self.heads}")

    @property
    def params(self):
        """Parameters, Narayanan et al. (2021) eq. (2): :func:`transformer_params`."""
        return transformer_params(self.layers, self.hidden, self.vocab, self.seq_len)

    def model_flops(self):
        """Model FLOPs of one iteration (no recomputation): ``72 B s l h^2 (1 + s/(6h) + V/(12 l h))``."""
        return iteration_flops(self.global_batch, self.seq_len, self.layers, self.hidden, self.vocab, recompute=False)


def selective_recompute_overhead(seq_len, hidden):
    """Extra FLOPs of selective recomputation, as a fraction of the model FLOPs: ``s / (6 h + s)``.

    The recomputed attention core (``Q K^T`` and ``softmax . V``, ``4 b s^2 h`` FLOPs per
    layer) over one forward pass of a layer (``24 b s h^2 + 4 b s^2 h``). This is the
    accounting of Korthikanti et al. (2022): it gives their 2.7 % for GPT-3 175B and
    1.6 % for MT-NLG 530B (sec. 5), and their Table 5 HFU/MFU ratios of all four models
    (1.053, 1.027, 1.016, 1.013) to the printed digits. (Counted against the full
    forward + backward it would be a third of that; the difference is < 2 % of the step.)

    Parameters
    ----------
    seq_len, hidden : int
        s and h, >= 1.

    Returns
    -------
    float

    Examples
    --------
    GPT-3 175B (h = 12,288) and MT-NLG 530B (h = 20,480): the 2.7 % and 1.6 % of
    Korthikanti et al. (2022), sec. 5:

    >>> round(selective_recompute_overhead(2048, 12288), 3), round(selective_recompute_overhead(2048, 20480), 3)
    (0.027, 0.016)
    """
    s = as_count("seq_len", seq_len)
    h = as_count("hidden", hidden)
    return s / (6.0 * h + s)


def step_flops(model, recompute):
    """Hardware FLOPs of one iteration under a recomputation mode.

    * ``"none"``: model FLOPs, 3 passes: ``72 B s l h^2 (1 + s/(6h) + V/(12 l h))``
      (Korthikanti et al. 2022, App. A);
    * ``"selective"``: model FLOPs ``x (1 + s/(6h + s))`` (:func:`selective_recompute_overhead`);
    * ``"full"``: Narayanan et al. (2021) eq. (3), 4 passes: ``96 B s l h^2 (1 + s/(6h) + V/(16 l h))``.

    Parameters
    ----------
    model : ModelConfig
    recompute : {"none", "selective", "full"}

    Returns
    -------
    float
        FLOPs per iteration, whole job.

    Examples
    --------
    Full recomputation adds about a third (one forward pass to three), selective 2.7 %:

    >>> from interconnect import catalog
    >>> gpt = catalog.models.get("gpt3-175b")
    >>> [round(step_flops(gpt, r) / step_flops(gpt, "none"), 3) for r in ("selective", "full")]
    [1.027, 1.332]
    """
    if recompute not in RECOMPUTE_MODES:
        raise ValueError(f"recompute={recompute!r} is unknown; allowed: {', '.join(RECOMPUTE_MODES)}")
    m = model
    if recompute == "full":
        return iteration_flops(m.global_batch, m.seq_len, m.layers, m.hidden, m.vocab, recompute=True)
    mf = m.model_flops()
    if recompute == "selective":
        return mf * (1.0 + selective_recompute_overhead(m.seq_len, m.hidden))
    return mf


def gelu(x):
    """GeLU activation of the transformer MLP, tanh approximation (Hendrycks and Gimpel 2016):
    ``0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))``.

    Element-wise, so ``gelu(X A)`` split by columns of ``A`` is the column split of
    ``gelu(X A)``: why Megatron's MLP needs no communication between its two GEMMs.

    Parameters
    ----------
    x : float or array

    Returns
    -------
    float or ndarray

    Examples
    --------
    >>> round(float(gelu(1.0)), 4), float(gelu(0.0))
    (0.8412, 0.0)
    """
    x = np.asarray(x, dtype=float)
    out = 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x**3)))
    return float(out) if out.ndim == 0 else out
