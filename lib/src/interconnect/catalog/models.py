"""Transformer models the book trains, each a :class:`~interconnect.parallel.ModelConfig` with its source.

A preset holds the architecture (layers ``l``, hidden size ``h``, heads ``a``, sequence length
``s``, vocabulary ``V``, and for today's models grouped-query or latent attention, the gated
MLP, untied embeddings, rotary positions and experts) and the global batch ``B`` of the
published training run, in sequences. A chapter that needs another batch or a shorter label
derives it at the call site, so the architecture is written down once::

    from dataclasses import replace
    gpt3 = replace(catalog.models.get("gpt3-175b"), global_batch=64)

All GPT presets use Megatron-LM's padded vocabulary of 51,200 (the GPT-2 BPE has 50,257
tokens; Megatron pads the embedding to a multiple of 128 x t), as the step-time papers the
book validates against do (Narayanan et al. 2021, sec. 5.1, use V = 51,200 and s = 2,048 for
all their models). The GPT presets, "llama-class-70b" (a GPT block of Llama 2 70B's size,
which the planning chapter uses) and the book's MoE example are GPT blocks, priced by
Narayanan et al.'s closed forms; "llama2-7b" to "llama3-405b", "mixtral-8x7b" and
"deepseek-v3" are the published architectures.

References
----------
Brown et al., "Language Models are Few-Shot Learners" (GPT-3), 2020, Table 2.1.
Narayanan et al., "Efficient Large-Scale Language Model Training on GPU Clusters Using
Megatron-LM", SC 2021, sec. 5.1 and Table 1.
Korthikanti et al., "Reducing Activation Recomputation in Large Transformer Models", 2022, Table 3.
Touvron et al., "Llama 2: Open Foundation and Fine-Tuned Chat Models", 2023, sec. 2.2 and Table 1;
Touvron et al., "LLaMA: Open and Efficient Foundation Language Models", 2023, Table 2.
Dubey et al., "The Llama 3 Herd of Models", 2024, Table 3 and sec. 3.4.1.
Jiang et al., "Mixtral of Experts", 2024, Table 1.
DeepSeek-AI, "DeepSeek-V3 Technical Report", 2024, sec. 4.2, and its config.json.
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

_LLAMA = dict(gated_mlp=True, tied_embeddings=False, position_embedding="rope", bias=False)
_LLAMA3 = ("vocabulary 128,256 as released (Table 3 prints 128,000: 100K tiktoken tokens, 28K more and 256 "
           "reserved special tokens; meta-llama/llama-models, models/llama3_1/api/sku_list.py, "
           "VOCAB_SIZE = 128256), untied; sequence 8,192 and B = 2,048 sequences (16M tokens): the final "
           "batch of the 405B pre-training schedule (sec. 3.4.1: 4M tokens of 4,096, then 8M of 8,192, then "
           "16M), the only one the paper gives, used for all three sizes")

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
    Preset("llama-class-70b", ModelConfig(layers=80, hidden=8192, heads=64, seq_len=4096, vocab=32000,
                                          global_batch=1024, name="Llama-class 70B"),
           "Touvron et al. 2023 (Llama 2), sec. 2.2 and Table 1: 70B, context 4,096, global batch 4M tokens "
           "(B = 1,024 sequences of 4,096), 32,000-token vocabulary; l = 80, h = 8,192, a = 64 as the 65B of "
           "LLaMA (Touvron et al. 2023, Table 2). 'Llama-class': modelled as a dense GPT block (no grouped-query "
           "attention, a 4h MLP rather than SwiGLU's 8h/3 x 3), so params come out near 65B, not 70B; the real "
           "architecture is the preset 'llama2-70b'"),
    Preset("gpt3-6.7b-moe", ModelConfig(layers=32, hidden=4096, heads=32, seq_len=2048, vocab=51200,
                                        global_batch=1024, moe_layers=16, name="MoE"),
           "The book's mixture-of-experts example, not a published model: the GPT-3 6.7B shape (Brown et al. "
           "2020, Table 2.1) with every other MLP a mixture of experts, as GShard (Lepikhin et al. 2021, "
           "sec. 2.2) and Switch Transformer (Fedus et al. 2022) alternate dense and MoE layers"),
    # ---- today's architectures: GQA, SwiGLU, RoPE, RMSNorm, untied embeddings, MoE, MLA
    Preset("llama2-7b", ModelConfig(layers=32, hidden=4096, heads=32, seq_len=4096, vocab=32000,
                                    global_batch=1024, ffn_hidden=11008, **_LLAMA, name="Llama 2 7B"),
           "Touvron et al. 2023 (Llama 2), sec. 2.2 and Table 1: 7B, context 4,096, no GQA, global batch 4M "
           "tokens (B = 1,024 sequences of 4,096); architecture of LLaMA (Touvron et al. 2023, sec. 2.2 and "
           "Table 2: 32 layers, dimension 4,096, 32 heads; SwiGLU, RoPE, RMSNorm pre-normalisation); "
           "FFN 11,008 and vocabulary 32,000 from the released weights (HF config.json of "
           "meta-llama/Llama-2-7b-hf: intermediate_size 11008, tie_word_embeddings false)"),
    Preset("llama2-13b", ModelConfig(layers=40, hidden=5120, heads=40, seq_len=4096, vocab=32000,
                                     global_batch=1024, ffn_hidden=13824, **_LLAMA, name="Llama 2 13B"),
           "Touvron et al. 2023 (Llama 2), sec. 2.2 and Table 1: 13B, context 4,096, no GQA, global batch 4M "
           "tokens (B = 1,024 sequences of 4,096); LLaMA 13B shape (Touvron et al. 2023, Table 2: 40 layers, "
           "dimension 5,120, 40 heads); FFN 13,824 from the released weights (HF config.json of "
           "meta-llama/Llama-2-13b-hf)"),
    Preset("llama2-70b", ModelConfig(layers=80, hidden=8192, heads=64, seq_len=4096, vocab=32000,
                                     global_batch=1024, kv_heads=8, ffn_hidden=28672, **_LLAMA, name="Llama 2 70B"),
           "Touvron et al. 2023 (Llama 2), sec. 2.2 and Table 1: 70B, context 4,096, grouped-query attention "
           "with 8 key-value heads, global batch 4M tokens (B = 1,024 sequences of 4,096); 80 layers, dimension "
           "8,192, 64 heads (LLaMA 65B, Table 2); FFN 28,672 (ffn_dim_multiplier 1.3, multiple_of 4,096: HF "
           "config.json of meta-llama/Llama-2-70b-hf). 69.0B parameters: '70B' is the paper's label, not a "
           "rounding"),
    Preset("llama3-8b", ModelConfig(layers=32, hidden=4096, heads=32, seq_len=8192, vocab=128256,
                                    global_batch=2048, kv_heads=8, ffn_hidden=14336, **_LLAMA, name="Llama 3 8B"),
           "Dubey et al. 2024 (The Llama 3 Herd of Models), Table 3, 8B: 32 layers, model dimension 4,096, FFN "
           "14,336, 32 heads, 8 key-value heads, RoPE; " + _LLAMA3),
    Preset("llama3-70b", ModelConfig(layers=80, hidden=8192, heads=64, seq_len=8192, vocab=128256,
                                     global_batch=2048, kv_heads=8, ffn_hidden=28672, **_LLAMA, name="Llama 3 70B"),
           "Dubey et al. 2024 (The Llama 3 Herd of Models), Table 3, 70B: 80 layers, model dimension 8,192, FFN "
           "28,672, 64 heads, 8 key-value heads, RoPE; " + _LLAMA3),
    Preset("llama3-405b", ModelConfig(layers=126, hidden=16384, heads=128, seq_len=8192, vocab=128256,
                                      global_batch=2048, kv_heads=8, ffn_hidden=53248, **_LLAMA, name="Llama 3 405B"),
           "Dubey et al. 2024 (The Llama 3 Herd of Models), Table 3, 405B: 126 layers, model dimension 16,384, "
           "FFN 53,248, 128 heads, 8 key-value heads, RoPE; " + _LLAMA3),
    Preset("mixtral-8x7b", ModelConfig(layers=32, hidden=4096, heads=32, seq_len=32768, vocab=32000,
                                       global_batch=128, moe_layers=32, kv_heads=8, ffn_hidden=14336,
                                       num_experts=8, top_k=2, **_LLAMA, name="Mixtral 8x7B"),
           "Jiang et al. 2024 (Mixtral of Experts), Table 1: 32 layers, dim 4,096, head_dim 128, hidden_dim "
           "14,336, 32 heads, 8 key-value heads, context 32,768, vocabulary 32,000, 8 experts, top-2; every "
           "layer's MLP a mixture of SwiGLU experts (sec. 2.1); 46.7B parameters, 12.9B active per token "
           "(Mistral AI, 'Mixtral of experts', 2023; the paper's sec. 1 rounds to 47B and 13B). The training "
           "batch is not published: B = 128 sequences of 32,768 (4.2M tokens) is the book's assumption"),
    Preset("deepseek-v3", ModelConfig(layers=61, hidden=7168, heads=128, seq_len=4096, vocab=129280,
                                      global_batch=15360, moe_layers=58, ffn_hidden=18432, num_experts=256,
                                      top_k=8, expert_ffn_hidden=2048, shared_experts=1, q_lora_rank=1536,
                                      kv_lora_rank=512, qk_nope_head_dim=128, qk_rope_head_dim=64, v_head_dim=128,
                                      **_LLAMA, name="DeepSeek-V3"),
           "DeepSeek-AI 2024 (DeepSeek-V3 Technical Report), sec. 4.2 and the released configuration "
           "(deepseek-ai/DeepSeek-V3, inference/configs/config_671B.json): 61 layers, hidden 7,168, the first "
           "3 dense (FFN 18,432), the other 58 with 256 routed experts (top-8) and 1 shared expert of 2,048, "
           "MLA with 128 heads, q_lora_rank 1,536, kv_lora_rank 512, qk_nope 128, qk_rope 64, v_head 128, "
           "vocabulary 129,280, untied; sequence 4,096 and batch 15,360 sequences (sec. 4.2, after the "
           "batch-size ramp from 3,072). 671B parameters, 37B activated per token (sec. 1); this count "
           "gives 37.6B with both embedding tables, 36.6B without the input embedding (a token reads one row "
           "of it). The multi-token-prediction module (11.5B more, README_WEIGHTS.md) and the routers' 256 "
           "bias terms per layer are not modelled"),
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
        ``"gpt3-1.3b"``, ``"llama-class-70b"``, ``"llama2-70b"``, ``"llama3-405b"``,
        ``"mixtral-8x7b"``, ``"deepseek-v3"``.

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
    >>> ds = get("deepseek-v3")   # 671B parameters, 37.6B of them used by each token
    >>> round(ds.params / 1e9), round(ds.active_params / 1e9, 1)
    (671, 37.6)
    >>> try:
    ...     get("gpt3-175")
    ... except ValueError as err:
    ...     print(err)  # doctest: +ELLIPSIS
    name='gpt3-175' is not a known model; close matches: gpt3-175b, ...
    """
    return preset(name).model
