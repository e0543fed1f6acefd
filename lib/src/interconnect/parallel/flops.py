"""The transformer's arithmetic: the GPT block's closed forms for parameters and FLOPs, and
the hardware FLOPs of an iteration under each recomputation mode.

:class:`interconnect.parallel.ModelConfig` reduces to :func:`transformer_params` and
:func:`iteration_flops` for the GPT block; :func:`step_flops` prices recomputation for any
:class:`~interconnect.parallel.ModelConfig`.

References
----------
D. Narayanan et al., "Efficient Large-Scale Language Model Training on GPU Clusters Using
Megatron-LM", SC21 (arXiv:2104.04473), eqs. (2), (3).
V. Korthikanti et al., "Reducing Activation Recomputation in Large Transformer Models",
arXiv:2205.05198, 2022, sec. 5 and Appendix A.
"""

from __future__ import annotations

import numpy as np

from .._validate import as_count

__all__ = ["transformer_params", "iteration_flops", "RECOMPUTE_MODES", "selective_recompute_overhead", "step_flops",
           "gelu"]

#: Activation recomputation modes: none, selective (the attention core; Korthikanti et al.
#: 2022) and full (every layer's forward pass again).
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

    With F the forward FLOPs per token of the layers (``"matmul"`` + ``"attention"`` of
    :meth:`ModelConfig.forward_flops_per_token`, the output layer left out) and A its attention
    core (``Q K^T`` and ``softmax . V``, ``"attention"``):

    * ``"none"``: the model FLOPs, :meth:`ModelConfig.model_flops` (3 passes);
    * ``"full"``: plus one more forward pass of the layers, ``B s F`` (the output layer is not
      recomputed);
    * ``"selective"``: the model FLOPs ``x (1 + A / F)``, the attention core recomputed,
      priced against a layer's forward pass as Korthikanti et al. (2022) do.

    For the GPT block (:attr:`ModelConfig.is_gpt_block`) these are the published closed forms,
    evaluated as printed: ``72 B s l h^2 (1 + s/(6h) + V/(12 l h))`` (App. A), Narayanan et
    al. (2021) eq. (3) ``96 B s l h^2 (1 + s/(6h) + V/(16 l h))``, and ``x (1 + s/(6h + s))``
    (:func:`selective_recompute_overhead`), since ``A / F = 4 s h / (24 h^2 + 4 s h)``.

    The selective price is Korthikanti et al.'s accounting, which charges about three times the
    core's forward FLOPs (``x`` the three passes of the model FLOPs); once ``A / F > 1/3``
    (``s > 3 h`` for the GPT block, Mixtral's 32K context) it comes out above ``"full"``.

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
    if m.is_gpt_block:
        if recompute == "full":
            return iteration_flops(m.global_batch, m.seq_len, m.layers, m.hidden, m.vocab, recompute=True)
        overhead = selective_recompute_overhead(m.seq_len, m.hidden) if recompute == "selective" else 0.0
        mf = m.model_flops()
        return mf * (1.0 + overhead) if recompute == "selective" else mf
    terms = m.forward_flops_per_token()
    layers_forward = float(terms["matmul"] + terms["attention"])
    mf = m.model_flops()
    if recompute == "full":
        return mf + m.global_batch * m.seq_len * layers_forward
    if recompute == "selective":
        return mf * (1.0 + terms["attention"] / layers_forward)
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
