"""ModelConfig beyond the GPT block: GQA, SwiGLU, untied embeddings, RoPE, RMSNorm, MoE, MLA.

The GPT block must keep its closed forms (Narayanan et al. 2021 eq. 2 and 3; Korthikanti
et al. 2022 App. A) bit for bit; the modern presets must reproduce the parameter counts
their papers print.
"""

import dataclasses

import pytest
from hypothesis import given
from hypothesis import strategies as st

from interconnect.catalog import models
from interconnect.memory import kv_cache_bytes
from interconnect.parallel import (
    ModelConfig,
    iteration_flops,
    selective_recompute_overhead,
    step_flops,
    transformer_params,
)

GPT_KEYS = ("gpt3-175b", "gpt3-13b", "gpt3-6.7b", "gpt3-1.3b", "llama-class-70b", "gpt3-6.7b-moe")
MODERN_KEYS = ("llama2-7b", "llama2-13b", "llama2-70b", "llama3-8b", "llama3-70b", "llama3-405b",
               "mixtral-8x7b", "deepseek-v3")


def _sum_of_parts(m):
    dense = m.layers - m.moe_layers
    return (m.embedding_params + m.final_norm_params + m.layers * (m.attention_params + m.norm_params)
            + dense * m.mlp_params() + m.moe_layers * m.mlp_params(moe=True))


# --------------------------------------------------------------------------- GPT block unchanged
gpt_shapes = st.builds(
    lambda layers, heads, d, s, V, B, moe_frac: dict(layers=layers, hidden=heads * d, heads=heads, seq_len=s,
                                                      vocab=V, global_batch=B,
                                                      moe_layers=int(moe_frac * layers)),
    layers=st.integers(1, 128), heads=st.integers(1, 128), d=st.integers(1, 256),
    s=st.integers(1, 32768), V=st.integers(1, 300_000), B=st.integers(1, 8192), moe_frac=st.floats(0, 1))


@given(kw=gpt_shapes)
def test_gpt_block_keeps_the_closed_forms(kw):
    m = ModelConfig(**kw)
    assert m.is_gpt_block
    L, h, s, V, B = m.layers, m.hidden, m.seq_len, m.vocab, m.global_batch
    # the presets' numbers are the closed forms themselves, bit for bit
    assert m.params == transformer_params(L, h, V, s)
    assert m.active_params == m.params
    assert m.model_flops() == iteration_flops(B, s, L, h, V, recompute=False)
    assert step_flops(m, "full") == iteration_flops(B, s, L, h, V, recompute=True)
    assert step_flops(m, "selective") == m.model_flops() * (1 + selective_recompute_overhead(s, h))
    # ... and the general sums agree with them
    assert _sum_of_parts(m) == pytest.approx(transformer_params(L, h, V, s), rel=1e-12)
    assert B * s * m.flops_per_token() == pytest.approx(iteration_flops(B, s, L, h, V, recompute=False), rel=1e-12)
    t = m.forward_flops_per_token()
    layers_fwd = t["matmul"] + t["attention"]
    assert m.model_flops() + B * s * layers_fwd == pytest.approx(iteration_flops(B, s, L, h, V, recompute=True),
                                                                   rel=1e-12)
    assert t["attention"] / layers_fwd == pytest.approx(selective_recompute_overhead(s, h), rel=1e-12)


@given(kw=gpt_shapes)
def test_spelling_out_the_gpt_defaults_changes_nothing(kw):
    m = ModelConfig(**kw)
    explicit = dataclasses.replace(m, kv_heads=m.heads, head_dim=m.hidden // m.heads, ffn_hidden=4 * m.hidden,
                                   gated_mlp=False, tied_embeddings=True, position_embedding="learned", bias=True)
    assert explicit.is_gpt_block
    assert (explicit.params, explicit.model_flops()) == (m.params, m.model_flops())


@pytest.mark.parametrize("key", GPT_KEYS)
def test_gpt_presets_are_gpt_blocks_with_their_old_repr(key):
    m = models.get(key)
    assert m.is_gpt_block
    assert m.params == transformer_params(m.layers, m.hidden, m.vocab, m.seq_len)
    assert repr(m) == (f"ModelConfig(layers={m.layers}, hidden={m.hidden}, heads={m.heads}, seq_len={m.seq_len}, "
                       f"vocab={m.vocab}, global_batch={m.global_batch}, moe_layers={m.moe_layers}, "
                       f"name={m.name!r})")


def test_moe_example_without_experts_is_priced_as_the_dense_model():
    moe, dense = models.get("gpt3-6.7b-moe"), models.get("gpt3-6.7b")
    assert moe.num_experts is None and moe.moe_layers == 16
    assert (moe.params, moe.active_params, moe.model_flops()) == (dense.params, dense.params, dense.model_flops())
    assert moe.mlp_params(moe=True) == moe.mlp_params() == 8 * 4096**2 + 5 * 4096


def test_llama_class_70b_keeps_the_old_numbers_and_llama2_70b_is_the_real_one():
    old = models.get("llama-class-70b")
    assert (old.layers, old.hidden, old.heads, old.seq_len, old.vocab, old.global_batch, old.name) == (
        80, 8192, 64, 4096, 32000, 1024, "Llama-class 70B")
    assert old.is_gpt_block and round(old.params / 1e9, 1) == 64.7
    new = models.get("llama2-70b")
    assert (new.n_kv_heads, new.d_head, new.d_ff, new.gated_mlp, new.tied_embeddings) == (8, 128, 28672, True, False)
    assert not new.is_gpt_block


# --------------------------------------------------------------------------- presets against their papers
# (key, printed total, printed active, what the print is, tolerance on total)
PRINTED = [
    # Touvron et al. 2023 (Llama 2), Table 1: "7B", "13B", "70B" (labels; 70B has 69.0B)
    ("llama2-7b", 7e9, None, "round", None),
    ("llama2-13b", 13e9, None, "round", None),
    ("llama2-70b", 70e9, None, "label", 0.015),
    # Dubey et al. 2024 (Llama 3), Table 3: "8B", "70B", "405B" (labels: 8.03B, 70.55B, 405.85B)
    ("llama3-8b", 8e9, None, "label", 0.005),
    ("llama3-70b", 70e9, None, "label", 0.01),
    ("llama3-405b", 405e9, None, "label", 0.005),
    # Mistral AI 2023 ("Mixtral of experts"): 46.7B total, 12.9B per token
    ("mixtral-8x7b", 46.7e9, 12.9e9, "round1", None),
    # DeepSeek-AI 2024, sec. 1: 671B total, 37B activated (without the input embedding, below)
    ("deepseek-v3", 671e9, None, "round", None),
]


@pytest.mark.parametrize("key, total, active, kind, tol", PRINTED)
def test_preset_params_match_the_printed_figures(key, total, active, kind, tol):
    m = models.get(key)
    if kind == "round":
        assert round(m.params / 1e9) == round(total / 1e9)
    elif kind == "round1":
        assert round(m.params / 1e9, 1) == round(total / 1e9, 1)
        assert round(m.active_params / 1e9, 1) == round(active / 1e9, 1)
    else:
        assert m.params == pytest.approx(total, rel=tol)
    if m.num_experts is None:
        assert m.active_params == m.params


def test_llama_counts_to_the_released_weights():
    # the sums of the released checkpoints' tensors, to 0.01B: 6.74B, 13.02B, 68.98B; 8.03B, 70.55B, 405.85B
    got = {k: round(models.get(k).params / 1e9, 2) for k in MODERN_KEYS[:6]}
    assert got == {"llama2-7b": 6.74, "llama2-13b": 13.02, "llama2-70b": 68.98,
                   "llama3-8b": 8.03, "llama3-70b": 70.55, "llama3-405b": 405.85}


def test_deepseek_v3_active_params_and_the_input_embedding():
    m = models.get("deepseek-v3")
    input_embedding = m.vocab * m.hidden
    assert round(input_embedding / 1e9, 1) == 0.9                  # README_WEIGHTS.md: "0.9B for Embedding"
    assert round(m.active_params / 1e9, 1) == 37.6                  # both tables counted
    assert round((m.active_params - input_embedding) / 1e9) == 37   # the technical report's 37B
    assert round(m.params / 1e9) == 671


def test_deepseek_v3_mla_and_moe_by_hand():
    m = models.get("deepseek-v3")
    h, a = 7168, 128
    attn = (h * 1536 + 1536 + 1536 * a * (128 + 64)            # query: down, RMSNorm, up
            + h * (512 + 64) + 512 + 512 * a * (128 + 128)      # KV: down (+ rotary key), RMSNorm, up
            + a * 128 * h)                                      # output
    assert m.attention_params == attn == 187_107_328
    expert = 3 * h * 2048
    assert m.mlp_params() == 3 * h * 18432
    assert m.mlp_params(moe=True) == 257 * expert + h * 256
    assert m.mlp_params(moe=True, active=True) == 9 * expert + h * 256
    assert (m.d_qk, m.d_v, m.n_kv_heads) == (192, 128, 128)


def test_mixtral_by_hand():
    m = models.get("mixtral-8x7b")
    h = 4096
    assert m.attention_params == 2 * h * 32 * 128 + 2 * h * 8 * 128
    assert m.norm_params == 2 * h and m.final_norm_params == h
    assert m.embedding_params == 2 * 32000 * h
    assert m.mlp_params(moe=True) == 8 * 3 * h * 14336 + 8 * h


@pytest.mark.parametrize("key", MODERN_KEYS)
def test_flops_are_six_active_params_plus_attention(key):
    # 6 N per training token for the weights a token multiplies (all active parameters but the
    # input-embedding lookup, norms and biases), plus 6 l s a (d_qk + d_v) for the attention core
    m = models.get(key)
    n = m.active_params - m.vocab * m.hidden * (0 if m.tied_embeddings else 1)
    attention = 6 * m.layers * m.seq_len * m.heads * (m.d_qk + m.d_v)
    assert m.flops_per_token() == pytest.approx(6 * n + attention, rel=1e-3)
    assert m.flops_per_token() == 3 * m.flops_per_token(training=False)
    assert m.model_flops() == m.global_batch * m.seq_len * m.flops_per_token()


@pytest.mark.parametrize("key", MODERN_KEYS)
def test_step_flops_general_form(key):
    m = models.get(key)
    t = m.forward_flops_per_token()
    layers_fwd = t["matmul"] + t["attention"]
    none, sel, full = (step_flops(m, r) for r in ("none", "selective", "full"))
    assert none == m.model_flops()
    assert full == pytest.approx(none + m.global_batch * m.seq_len * layers_fwd, rel=1e-15)
    assert sel == pytest.approx(none * (1 + t["attention"] / layers_fwd), rel=1e-15)
    assert none < sel and none < full
    # Korthikanti's accounting prices the recomputed core at (model FLOPs) x A / F, about 3 x its
    # forward FLOPs; past A / F = 1/3 (here Mixtral's 32K context) that exceeds a full forward pass
    assert (sel < full) == (t["attention"] / layers_fwd < 1 / 3 - 1e-3)


def test_selective_beyond_full_is_the_gpt_convention_too():
    # the GPT closed form has the same property: s / (6h + s) > 1/3 once s > 3h
    m = ModelConfig(layers=2, hidden=1024, heads=8, seq_len=4096, vocab=100, global_batch=1)
    assert selective_recompute_overhead(4096, 1024) == 0.4
    assert step_flops(m, "selective") > step_flops(m, "full")


def test_llama3_405b_batch_and_sequence():
    m = models.get("llama3-405b")
    assert (m.seq_len, m.global_batch * m.seq_len) == (8192, 16 * 2**20)   # the 16M-token final stage
    assert (m.layers, m.hidden, m.d_ff, m.heads, m.n_kv_heads, m.vocab) == (126, 16384, 53248, 128, 8, 128256)


# --------------------------------------------------------------------------- KV cache
@pytest.mark.parametrize("key", GPT_KEYS + MODERN_KEYS[:-1])
def test_kv_cache_per_token_agrees_with_memory_module(key):
    m = models.get(key)
    assert m.kv_cache_bytes_per_token() == kv_cache_bytes(m.layers, m.n_kv_heads, m.d_head, 1)
    assert m.kv_cache_bytes_per_token(bytes_per_element=1) == m.kv_cache_bytes_per_token() / 2


def test_kv_cache_gqa_and_mla():
    assert models.get("llama2-70b").kv_cache_bytes_per_token() == 327_680        # 2 x 80 x 8 x 128 x 2
    assert models.get("llama-class-70b").kv_cache_bytes_per_token() == 8 * 327_680
    # MLA caches the compressed KV (512) and the shared rotary key (64) per layer
    assert models.get("deepseek-v3").kv_cache_bytes_per_token() == 61 * (512 + 64) * 2


# --------------------------------------------------------------------------- validation
BASE = dict(layers=4, hidden=64, heads=8, seq_len=16, vocab=100, global_batch=2)
MLA = dict(kv_lora_rank=16, qk_nope_head_dim=8, qk_rope_head_dim=4, v_head_dim=8, bias=False)


@pytest.mark.parametrize("kw, match", [
    (dict(kv_heads=3), r"kv_heads=3 is not allowed; heads=8 must be a multiple of kv_heads"),
    (dict(kv_heads=0), r"kv_heads=0 is not allowed"),
    (dict(head_dim=0), r"head_dim=0 is not allowed"),
    (dict(ffn_hidden=2.5), r"ffn_hidden=2.5 is not allowed"),
    (dict(gated_mlp=1), r"gated_mlp=1 is not a bool"),
    (dict(tied_embeddings="no"), r"tied_embeddings='no' is not a bool"),
    (dict(position_embedding="alibi"), r"position_embedding='alibi' is unknown; allowed: learned, rope"),
    (dict(top_k=2), r"top_k=2 is not allowed without num_experts"),
    (dict(shared_experts=1), r"shared_experts=1 is not allowed without num_experts"),
    (dict(expert_ffn_hidden=32), r"expert_ffn_hidden=32 is not allowed without num_experts"),
    (dict(num_experts=4), r"num_experts=4 needs MoE layers; moe_layers=0 is not allowed"),
    (dict(num_experts=4, moe_layers=2, top_k=5), r"top_k=5 is not allowed; allowed 1 to num_experts=4"),
    (dict(num_experts=4, moe_layers=2, shared_experts=-1), r"shared_experts=-1 is not allowed"),
    (dict(q_lora_rank=8), r"q_lora_rank=8 is not allowed without kv_lora_rank"),
    (dict(kv_lora_rank=16, bias=False), r"kv_lora_rank=16 \(MLA\) needs qk_nope_head_dim, qk_rope_head_dim"),
    (dict(MLA, kv_heads=2), r"kv_heads=2 is not allowed with MLA"),
    (dict(MLA, head_dim=8), r"head_dim=8 is not allowed with MLA"),
    (dict(MLA, bias=True), r"bias=True is not allowed with MLA"),
    (dict(hidden=60), r"hidden=60 is not divisible by heads=8"),
])
def test_invalid_fields_are_named(kw, match):
    with pytest.raises(ValueError, match=match):
        ModelConfig(**{**BASE, **kw})


def test_head_dim_frees_hidden_from_heads():
    m = ModelConfig(**{**BASE, "hidden": 60, "head_dim": 16, "bias": False})
    assert m.attention_params == 2 * 60 * 8 * 16 + 2 * 60 * 8 * 16 and not m.is_gpt_block


def test_mla_without_query_compression():
    m = ModelConfig(**BASE, **MLA)
    h, a = 64, 8
    assert m.attention_params == h * a * 12 + h * (16 + 4) + 16 + 16 * a * (8 + 8) + a * 8 * h
    assert m.kv_cache_bytes_per_token() == 4 * (16 + 4) * 2


def test_method_arguments_are_checked():
    m = models.get("mixtral-8x7b")
    for call, match in [(lambda: m.mlp_params(moe="yes"), "moe='yes' is not a bool"),
                        (lambda: m.flops_per_token(training=None), "training=None is not a bool"),
                        (lambda: m.kv_cache_bytes_per_token(0), "bytes_per_element=0"),
                        (lambda: m.kv_cache_bytes_per_token([1, 2]), "bytes_per_element")]:
        with pytest.raises(ValueError, match=match):
            call()


def test_modern_presets_have_sources_citing_tables():
    for key in MODERN_KEYS:
        p = models.preset(key)
        assert p.model.name and not p.model.is_gpt_block
        assert "et al." in p.source or "DeepSeek-AI" in p.source
        assert "Table" in p.source or "sec." in p.source
