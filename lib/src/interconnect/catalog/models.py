"""Transformer models the book trains, each a :class:`~interconnect.parallel.ModelConfig` with its source.

A preset holds the architecture (layers ``l``, hidden size ``h``, heads ``a``, sequence length
``s``, vocabulary ``V``) and the global batch ``B`` of the published training run, in
sequences. A chapter that needs another batch or a shorter label derives it at the call
site, so the architecture is written down once::

    from dataclasses import replace
    gpt3 = replace(catalog.models.get("gpt3-175b"), global_batch=64)

All GPT presets use Megatron-LM's padded vocabulary of 51,200 (the GPT-2 BPE has 50,257
tokens; Megatron pads the embedding to a multiple of 128 x t), as the step-time papers the
book validates against do (Narayanan et al. 2021, sec. 5.1, use V = 51,200 and s = 2,048 for
all their models).

References
----------
Brown et al., "Language Models are Few-Shot Learners" (GPT-3), 2020, Table 2.1.
Narayanan et al., "Efficient Large-Scale Language Model Training on GPU Clusters Using
Megatron-LM", SC 2021, sec. 5.1 and Table 1.
Korthikanti et al., "Reducing Activation Recomputation in Large Transformer Models", 2022, Table 3.
Touvron et al., "Llama 2: Open Foundation and Fine-Tuned Chat Models", 2023, sec. 2.2 and Table 1;
Touvron et al., "LLaMA: Open and Efficient Foundation Language Models", 2023, Table 2.
"""

from __future__ import annotations

from dataclasses import dataclass

from .._validate import lookup
from ..parallel import ModelConfig

__all__ = ["Preset", "get", "names", "preset", "presets"]


@dataclass(frozen=True)
class Preset:
    """One catalog entry: the model and where its numbers come from.

    Attributes
    ----------
    key : str
        The name :func:`get` takes, e.g. ``"gpt3-175b"``.
    model : ModelConfig
    source : str
        Paper and table of every number, and any deviation from it.
    """

    key: str
    model: ModelConfig
    source: str


_MEGATRON_VOCAB = ("V = 51,200: Megatron-LM's padded GPT-2 vocabulary (Narayanan et al. 2021, sec. 5.1); "
                   "s = 2048 (GPT-3 paper, sec. 2.3: n_ctx = 2048)")

_PRESETS = (
    Preset("gpt3-175b", ModelConfig(layers=96, hidden=12288, heads=96, seq_len=2048, vocab=51200,
                                    global_batch=1536, name="GPT-3 175B"),
           "Brown et al. 2020 (GPT-3), Table 2.1, GPT-3 175B: n_layers = 96, d_model = 12,288, n_heads = 96, "
           "d_head = 128, batch 3.2M tokens; B = 1,536 sequences of 2,048 (3.1M tokens), the global batch of "
           "Megatron-LM's GPT-3 175B recipe (examples/gpt3/train_gpt3_175b_distributed.sh, "
           "--global-batch-size 1536); "
           + _MEGATRON_VOCAB),
    Preset("gpt3-13b", ModelConfig(layers=40, hidden=5120, heads=40, seq_len=2048, vocab=51200,
                                   global_batch=1024, name="GPT-3 13B"),
           "Brown et al. 2020 (GPT-3), Table 2.1, GPT-3 13B: n_layers = 40, n_heads = 40, d_head = 128, "
           "batch 2M tokens; the table prints d_model = 5,140, which is not 40 x 128 and not divisible by 40 "
           "heads; h = 5,120 = 40 x 128 as Megatron-LM trains it; B = 1,024 sequences of 2,048 (2.1M tokens); "
           + _MEGATRON_VOCAB),
    Preset("gpt3-6.7b", ModelConfig(layers=32, hidden=4096, heads=32, seq_len=2048, vocab=51200,
                                    global_batch=1024, name="GPT-3 6.7B"),
           "Brown et al. 2020 (GPT-3), Table 2.1, GPT-3 6.7B: n_layers = 32, d_model = 4,096, n_heads = 32, "
           "d_head = 128, batch 2M tokens; B = 1,024 sequences of 2,048 (2.1M tokens); " + _MEGATRON_VOCAB),
    Preset("gpt3-1.3b", ModelConfig(layers=24, hidden=2048, heads=16, seq_len=2048, vocab=51200,
                                    global_batch=512, name="GPT-3 1.3B"),
           "Brown et al. 2020 (GPT-3), Table 2.1, GPT-3 XL (1.3B): n_layers = 24, d_model = 2,048, d_head = 128, "
           "batch 1M tokens; the table prints n_heads = 24, which does not fit 24 x 128 != 2,048: heads = "
           "2,048 / 128 = 16 keeps the printed d_head; B = 512 sequences of 2,048 (1.0M tokens); " + _MEGATRON_VOCAB),
    Preset("llama2-70b", ModelConfig(layers=80, hidden=8192, heads=64, seq_len=4096, vocab=32000,
                                     global_batch=1024, name="Llama-class 70B"),
           "Touvron et al. 2023 (Llama 2), sec. 2.2 and Table 1: 70B, context 4,096, global batch 4M tokens "
           "(B = 1,024 sequences of 4,096), 32,000-token vocabulary; l = 80, h = 8,192, a = 64 as the 65B of "
           "LLaMA (Touvron et al. 2023, Table 2). 'Llama-class': modelled as a dense GPT block (no grouped-query "
           "attention, a 4h MLP rather than SwiGLU's 8h/3 x 3), so params come out near 65B, not 70B"),
    Preset("gpt3-6.7b-moe", ModelConfig(layers=32, hidden=4096, heads=32, seq_len=2048, vocab=51200,
                                        global_batch=1024, moe_layers=16, name="MoE"),
           "The book's mixture-of-experts example, not a published model: the GPT-3 6.7B shape (Brown et al. "
           "2020, Table 2.1) with every other MLP a mixture of experts, as GShard (Lepikhin et al. 2021, "
           "sec. 2.2) and Switch Transformer (Fedus et al. 2022) alternate dense and MoE layers"),
)

_BY_KEY = {p.key: p for p in _PRESETS}


def names():
    """Every preset name :func:`get` accepts, in catalog order (largest GPT-3 first).

    Examples
    --------
    >>> names()[:4]
    ('gpt3-175b', 'gpt3-13b', 'gpt3-6.7b', 'gpt3-1.3b')
    """
    return tuple(_BY_KEY)


def presets():
    """All :class:`Preset` records (model and source), in catalog order."""
    return _PRESETS


def preset(name):
    """The :class:`Preset` (model and ``source``) of ``name``; see :func:`get`."""
    return lookup(name, _BY_KEY, "model", "gpt3-175b", "list all names with interconnect.catalog.models.names()",
                  n=3, cutoff=0.5)


def get(name):
    """A model preset by name (case-insensitive), as a frozen :class:`~interconnect.parallel.ModelConfig`.

    Parameters
    ----------
    name : str
        One of :func:`names`, e.g. ``"gpt3-175b"``, ``"gpt3-13b"``, ``"gpt3-6.7b"``,
        ``"gpt3-1.3b"``, ``"llama2-70b"``.

    Returns
    -------
    ModelConfig
        The published architecture and global batch. Derive another batch or label with
        :func:`dataclasses.replace`.

    Raises
    ------
    ValueError
        If ``name`` is not a string or not a preset; the message lists close matches.

    Examples
    --------
    >>> m = get("GPT3-175B")
    >>> m.layers, m.hidden, m.heads, m.seq_len, m.global_batch
    (96, 12288, 96, 2048, 1536)
    >>> round(m.params / 1e9, 1)
    174.6
    >>> from dataclasses import replace
    >>> replace(get("gpt3-13b"), global_batch=64).global_batch
    64
    >>> try:
    ...     get("gpt3-175")
    ... except ValueError as err:
    ...     print(err)  # doctest: +ELLIPSIS
    name='gpt3-175' is not a known model; close matches: gpt3-175b, ...
    """
    return preset(name).model
