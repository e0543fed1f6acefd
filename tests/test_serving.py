"""interconnect.serving against closed forms: KV bytes and capacity, the decode roofline, the
small-message AllReduces and their crossovers, the continuous-batching fixed point."""

import dataclasses
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from interconnect import serving
from interconnect.applications import decode_step
from interconnect.catalog import models
from interconnect.collectives import collective_time
from interconnect.memory import kv_cache_bytes
from interconnect.parallel import ceiling_fraction
from interconnect.parallel.machines import machine
from interconnect.serving.steps import (
    DECODE_ATTENTION_EFFICIENCY,
    DEEPGEMM_SMALL_M_BANDWIDTH,
    FP8_LINEAR_ROOFLINE,
    STREAM_EFFICIENCY,
    stream_bandwidth,
)
from interconnect.units import GiB, KiB

#: What an H100 decode kernel reads per second: the HBM peak times the streaming fraction (weights) and
#: times the decode-attention fraction (KV cache).
HBM = 3.35e12 * STREAM_EFFICIENCY
KV_HBM = 3.35e12 * DECODE_ATTENTION_EFFICIENCY

L70 = models.get("llama3-70b")
MIX = models.get("mixtral-8x7b")
DSV3 = models.get("deepseek-v3")
H100 = machine("dgx-h100")


# ---------------------------------------------------------------------- KV cache
def test_llama3_70b_kv_bytes_per_token_is_320_kib():
    assert serving.kv_bytes_per_token(L70) == 2 * 80 * 8 * 128 * 2 == 320 * KiB
    assert serving.kv_bytes_per_token(L70) == kv_cache_bytes(80, 8, 128, 1)
    assert serving.kv_bytes_per_token(L70, tp=8) == 40 * KiB
    assert serving.kv_bytes_per_token(L70, pp=4) == 80 * KiB
    assert serving.kv_bytes_per_token(L70, kv_bytes=1) == 160 * KiB


def test_kv_split_by_heads_replicated_beyond_them_and_not_split_with_mla():
    assert serving.kv_shards(L70, 4) == 4 and serving.kv_shards(L70, 16) == 8
    # MLA caches one latent (d_c + d_rope) per layer, every TP rank all of it
    assert serving.kv_bytes_per_token(DSV3, tp=8) == 61 * (512 + 64) * 2


def test_capacity_arithmetic():
    c = serving.kv_capacity(L70, "H100", tp=8, context=8192)
    free = 0.9 * 80 * GiB - 2 * L70.params / 8
    blocks = math.floor(free / (16 * 40 * KiB))
    assert c.free_bytes == pytest.approx(free)
    assert (c.blocks, c.tokens, c.sequences) == (blocks, 16 * blocks, blocks // 512)
    # a sequence of 17 tokens holds two blocks of 16: paging wastes at most the last block's tail
    assert serving.kv_capacity(L70, "H100", tp=8, context=17).sequences == blocks // 2
    # FP8 cache: twice the tokens (to the block)
    assert serving.kv_capacity(L70, "H100", tp=8, kv_bytes=1).blocks in (2 * blocks, 2 * blocks + 1)
    # no reserve, one block of one token
    c0 = serving.kv_capacity(L70, "H200", tp=4, reserve=0.0, block_tokens=1)
    assert c0.tokens == math.floor((141 * GiB - 2 * L70.params / 4) / (80 * KiB))


@settings(max_examples=40, deadline=None)
@given(c1=st.integers(1, 200_000), dc=st.integers(0, 200_000), tp=st.sampled_from([2, 4, 8]),
       block=st.sampled_from([1, 8, 16, 32]))
def test_capacity_non_increasing_in_context(c1, dc, tp, block):
    # tp >= 2: Llama 3 70B's 141 GB of BF16 weights do not fit one H200 with the 10 % reserve
    a = serving.kv_capacity(L70, "H200", tp=tp, block_tokens=block, context=c1)
    b = serving.kv_capacity(L70, "H200", tp=tp, block_tokens=block, context=c1 + dc)
    assert b.sequences <= a.sequences
    assert b.tokens == a.tokens


def test_capacity_errors_name_parameter_value_and_range():
    with pytest.raises(ValueError, match=r"tp=1, pp=1: the weights .* allowed: a larger"):
        serving.kv_capacity(models.get("llama3-405b"), "H100")
    with pytest.raises(ValueError, match=r"reserve=1\.0 is out of range; allowed \[0\.0, 1\.0\)"):
        serving.kv_capacity(L70, "H100", tp=8, reserve=1.0)
    with pytest.raises(ValueError, match=r"block_tokens=0 .* >= 1"):
        serving.kv_capacity(L70, "H100", tp=8, block_tokens=0)
    with pytest.raises(ValueError, match=r"pp=81 is not allowed; allowed 1 to layers=80"):
        serving.kv_capacity(L70, "H100", pp=81)


# ---------------------------------------------------------------------- prefill and decode
def test_decode_at_batch_one_is_weights_over_hbm_bandwidth():
    d = serving.decode_step_time(L70, "dgx-h100", 1, 1)
    assert d.memory_bound and d.comm == 0.0
    assert d.weights == pytest.approx(2 * L70.params / HBM)
    assert d.kv == pytest.approx(320 * KiB / KV_HBM)
    assert d.elementwise == pytest.approx(serving.elementwise_bytes_per_token(L70) / HBM)
    assert d.total == pytest.approx(d.weights + d.kv + d.elementwise)
    assert d.tokens_per_second == pytest.approx(1 / d.total)


def test_elementwise_bytes_closed_form():
    # Llama 3 8B per token and layer (Korthikanti's accounting, fused attention, no dropout): norms and
    # block inputs 8h, Q K V and context 2(a d + 2 g d + a d), log-sum-exp 4a, SwiGLU 6f; each written once
    # and read once; FP8 adds 3 bytes per element of the four GEMM inputs (h, a d, h, f)
    m8 = models.get("llama3-8b")
    h, a, g, d, f, layers = 4096, 32, 8, 128, 14336, 32
    stored = 8 * h + 2 * (a * d + 2 * g * d + a * d) + 4 * a + 6 * f
    assert serving.elementwise_bytes_per_token(m8) == pytest.approx(layers * 2 * stored)
    casts = layers * 3 * (h + a * d + h + f)
    assert serving.elementwise_bytes_per_token(m8, fp8=True) == pytest.approx(layers * 2 * stored + casts)
    # tensor parallelism splits the heads' and the MLP's terms, not the replicated norms and block inputs
    split8 = 8 * h + (2 * (a * d + 2 * g * d + a * d) + 4 * a + 6 * f) / 8
    assert serving.elementwise_bytes_per_token(m8, tp=8) == pytest.approx(layers * 2 * split8)
    with pytest.raises(ValueError, match="tp=0"):
        serving.elementwise_bytes_per_token(m8, tp=0)


def test_decode_memory_terms_match_the_applications_roofline():
    # a dense model at tp = 1: the same weights + KV over HBM as applications.decode_step
    b, c = 16, 4096
    d = serving.decode_step_time(L70, "dgx-h100", b, c)
    ref = decode_step(L70.params, 80, 8192, 1, 450e9, 0.0, 3.35e12, batch=b,
                      kv_bytes=kv_cache_bytes(80, 8, 128, c, b))
    assert d.weights == pytest.approx(ref.weights) and d.kv == pytest.approx(ref.kv)


def test_decode_tp_adds_two_small_allreduces_per_layer():
    d = serving.decode_step_time(L70, "dgx-h100", 4, 1024, tp=8)
    one = serving.allreduce_small(4 * 8192 * 2, 8, (450e9 * H100.comm_efficiency, H100.intra_latency))
    assert d.comm == pytest.approx(2 * 80 * one)
    assert d.weights == pytest.approx(2 * L70.params / 8 / HBM)
    assert d.kv == pytest.approx(4 * 1024 * 40 * KiB / KV_HBM)


def test_decode_prices_another_step_latency_through_the_cluster():
    slow = dataclasses.replace(H100, intra_latency=5e-6)
    d = serving.decode_step_time(L70, slow, 1, 1, tp=8)
    # 16 KB: one-shot wins, one step of 5 us and 7 buffers in
    assert d.comm == pytest.approx(160 * (5e-6 + 7 * 16384 / (450e9 * H100.comm_efficiency)))


def test_decode_fp8_halves_the_weights_and_needs_an_fp8_peak():
    bf16 = serving.decode_step_time(L70, "dgx-h100", 1, 1, tp=8)
    fp8 = serving.decode_step_time(L70, "dgx-h100", 1, 1, tp=8, fp8=True)
    # FP8 on Hopper: the measured cuBLASLt curve, whose few-row end streams at 0.715 of the peak, not 0.686
    assert FP8_LINEAR_ROOFLINE[0][2] == 0.715
    assert fp8.weights == pytest.approx(bf16.weights / 2 * STREAM_EFFICIENCY / 0.715)
    # a machine that names its FP8 GEMM efficiency keeps the plain roofline: half the bytes, half the time
    trt = serving.decode_step_time(L70, dataclasses.replace(H100, fp8_gemm_efficiency=0.7), 1, 1, tp=8, fp8=True)
    assert trt.weights == pytest.approx(bf16.weights / 2)
    with pytest.raises(ValueError, match="fp8=True is not allowed"):
        serving.decode_step_time(L70, "dgx-a100", 1, 1, fp8=True)


def test_decode_large_batch_becomes_compute_bound():
    d = serving.decode_step_time(L70, "dgx-h100", 4096, 16, tp=8)
    assert not d.memory_bound and d.linear > d.weights
    # per-kernel roofline: the GEMMs at their FLOPs, then the attention at its own bound
    assert d.total == pytest.approx(d.linear + max(d.kv, d.attention) + d.elementwise + d.comm)
    assert d.compute == pytest.approx(d.linear + d.attention)


def test_decode_attention_bound_by_hbm_is_not_hidden_by_compute_bound_gemms():
    # batch 512, 8k context: the GEMMs are compute bound, the attention reads 21 GB of cache per GPU
    d = serving.decode_step_time(L70, "dgx-h100", 512, 8192, tp=8)
    assert d.linear > d.weights and d.kv > d.attention
    assert d.total == pytest.approx(d.linear + d.kv + d.elementwise + d.comm)


def test_moe_decode_reads_only_the_touched_experts():
    assert serving.weights_read(MIX, 1) == pytest.approx(MIX.active_params)
    assert serving.weights_read(MIX, 10_000) == pytest.approx(MIX.params)
    assert serving.weights_read(L70, 1) == L70.params
    d1 = serving.decode_step_time(MIX, "dgx-h100", 1, 1)
    assert d1.weights == pytest.approx(2 * MIX.active_params / HBM)


def test_prefill_closed_form():
    s = 8192
    p = serving.prefill_time(L70, "dgx-h100", s)
    t = L70.forward_flops_per_token()
    gemm = 989.4e12 * ceiling_fraction("H100")
    assert p.linear == pytest.approx((s * t["matmul"] + t["logits"]) / gemm)
    # causal FlashAttention: half of the s x s scores, l a (d_qk + d_v) s^2
    assert p.attention == pytest.approx(80 * 64 * 256 * s**2 / (989.4e12 * H100.attention_efficiency))
    assert p.linear + p.attention > p.memory and p.comm == 0.0
    assert p.total == pytest.approx(p.linear + p.attention + p.elementwise)
    assert p.elementwise == pytest.approx(s * serving.elementwise_bytes_per_token(L70) / HBM)
    fp8 = serving.prefill_time(L70, "dgx-h100", s, fp8=True)
    # FP8 on Hopper: 8,192 rows are far past the ridge, where the measured curve ends at 0.64 of the FP8 peak
    assert fp8.linear == pytest.approx((s * t["matmul"] + t["logits"]) / (1978.9e12 * 0.64))
    trt = serving.prefill_time(L70, dataclasses.replace(H100, fp8_gemm_efficiency=ceiling_fraction("H100", "fp8")), s,
                               fp8=True)
    assert trt.linear == pytest.approx((s * t["matmul"] + t["logits"]) / (1978.9e12 * ceiling_fraction("H100", "fp8")))


@settings(max_examples=40, deadline=None)
@given(b=st.integers(1, 2048), db=st.integers(0, 2048), c=st.integers(0, 32768), dc=st.integers(0, 32768),
       tp=st.sampled_from([1, 2, 8]), fp8=st.booleans(), m=st.sampled_from(["llama3-70b", "mixtral-8x7b"]))
def test_decode_time_non_decreasing_in_batch_and_context(b, db, c, dc, tp, fp8, m):
    model = models.get(m)
    base = serving.decode_step_time(model, H100, b, c, tp=tp, fp8=fp8).total
    assert serving.decode_step_time(model, H100, b + db, c, tp=tp, fp8=fp8).total >= base * (1 - 1e-12)
    assert serving.decode_step_time(model, H100, b, c + dc, tp=tp, fp8=fp8).total >= base * (1 - 1e-12)


def test_step_errors_name_parameter_value_and_range():
    with pytest.raises(ValueError, match=r"tp=3 is not allowed; heads=64 must be divisible by tp "
                                         r"\(allowed: 1, 2, 4, 8\)"):
        serving.decode_step_time(L70, "dgx-h100", 1, 1, tp=3)
    with pytest.raises(ValueError, match=r"tp=16 is not allowed; allowed 1 to gpus_per_node=8"):
        serving.prefill_time(L70, "dgx-h100", 128, tp=16)
    with pytest.raises(ValueError, match=r"batch=0 is not allowed; batch must be an integer >= 1"):
        serving.decode_step_time(L70, "dgx-h100", 0, 1)
    with pytest.raises(ValueError, match=r"context=-1 is not allowed; context must be an integer >= 0"):
        serving.decode_step_time(L70, "dgx-h100", 1, -1)
    with pytest.raises(ValueError, match=r"machine=3 is not allowed; allowed: a name"):
        serving.decode_step_time(L70, 3, 1, 1)
    with pytest.raises(ValueError, match=r"fp8='yes' is not a bool"):
        serving.prefill_time(L70, "dgx-h100", 128, fp8="yes")
    with pytest.raises(ValueError, match=r"algorithm='tree' is unknown; allowed: auto, nccl, oneshot"):
        serving.decode_step_time(L70, "dgx-h100", 1, 1, tp=8, algorithm="tree")


# ---------------------------------------------------------------------- small-message AllReduce
LINK = (450e9, 2e-6)


@pytest.mark.parametrize("n", [2, 4, 8, 72])
def test_allreduce_closed_forms(n):
    s, (bw, a) = 65536.0, LINK
    assert serving.allreduce_small(s, n, LINK, "oneshot") == pytest.approx(a + (n - 1) * s / bw)
    assert serving.allreduce_small(s, n, LINK, "twoshot") == pytest.approx(2 * a + 2 * (n - 1) / n * s / bw)
    assert serving.allreduce_small(s, n, LINK, "nvls") == pytest.approx(2 * a + s / bw)
    ring = 2 * (n - 1) * a + 2 * (n - 1) / n * s / bw
    assert serving.allreduce_small(s, n, LINK, "ring") == pytest.approx(ring)
    assert ring == pytest.approx(collective_time("allreduce", s, n, bw, a, "ring"))
    assert serving.allreduce_small(s, n, LINK) == min(serving.allreduce_small(s, n, LINK, x)
                                                      for x in ("oneshot", "twoshot", "ring"))
    assert serving.allreduce_small(s, 1, LINK, "ring") == 0.0


@pytest.mark.parametrize("n", [3, 4, 8, 16])
def test_oneshot_twoshot_crossover(n):
    bw, a = LINK
    x = serving.allreduce_crossover(n, "oneshot", "twoshot", LINK)
    assert x == pytest.approx(n * a * bw / ((n - 1) * (n - 2)))
    t = {alg: serving.allreduce_small(x, n, LINK, alg) for alg in ("oneshot", "twoshot")}
    assert t["oneshot"] == pytest.approx(t["twoshot"])
    assert serving.allreduce_small(x / 2, n, LINK, "oneshot") < serving.allreduce_small(x / 2, n, LINK, "twoshot")
    assert serving.allreduce_small(2 * x, n, LINK, "oneshot") > serving.allreduce_small(2 * x, n, LINK, "twoshot")
    ring = serving.allreduce_crossover(n, "ring", "oneshot", LINK)
    assert ring == pytest.approx((2 * n - 3) * n * a * bw / ((n - 1) * (n - 2)))


def test_crossover_edge_cases():
    assert serving.allreduce_crossover(2, "oneshot", "twoshot", LINK) == math.inf   # both move S at n = 2
    assert serving.allreduce_crossover(8, "twoshot", "ring", LINK) == math.inf      # same bytes, fewer steps
    assert serving.allreduce_crossover(8, "twoshot", "nvls", LINK) == 0.0           # both two steps
    bw, a = LINK
    assert serving.allreduce_crossover(8, "nvls", "oneshot", LINK) == pytest.approx(a * bw / 6)


@settings(max_examples=40, deadline=None)
@given(s=st.floats(1, 1e9), ds=st.floats(0, 1e9), n=st.integers(1, 128),
       alg=st.sampled_from(("auto",) + serving.SMALL_ALGORITHMS))
def test_allreduce_non_decreasing_in_size(s, ds, n, alg):
    assert serving.allreduce_small(s + ds, n, LINK, alg) >= serving.allreduce_small(s, n, LINK, alg)


def test_allreduce_errors():
    with pytest.raises(ValueError, match=r"nbytes=0 .* must be > 0 bytes"):
        serving.allreduce_small(0, 8)
    with pytest.raises(ValueError, match=r"n=1 is not allowed; n must be an integer >= 2"):
        serving.allreduce_crossover(1, "oneshot", "twoshot")
    with pytest.raises(ValueError, match=r"link=42 is not allowed; allowed: a catalog name"):
        serving.allreduce_small(1024, 8, 42)


# ---------------------------------------------------------------------- continuous batching
def test_continuous_batching_is_a_littles_law_fixed_point():
    rate, prompt, output = 3.0, 1024, 256
    s = serving.continuous_batching(L70, "dgx-h100", 8, rate, prompt, output)
    assert s.batch == pytest.approx(rate * output * s.tpot)
    p = serving.prefill_time(L70, "dgx-h100", prompt, tp=8).total
    assert s.prefill == pytest.approx(p)
    ctx = prompt + output / 2
    d = serving.steps._decode(L70, H100, 8, s.batch, ctx, False, 2.0, 2.0, "auto").total
    # n = rate T < 1 prompts join an iteration on average: a fraction n of the iterations carry one
    # whole prompt, batched with the decodes (Orca's selective batching), the others none
    n = rate * s.tpot
    assert n < 1
    one = serving.steps._mixed(L70, H100, 8, s.batch, ctx, 1.0, prompt, False, 2.0, 2.0, "auto")
    assert d < one < d + p          # the prompt shares the decode step's weight read
    assert s.tpot == pytest.approx((1 - n) * d + n * one, rel=1e-8)
    assert s.ttft == pytest.approx(s.tpot / 2 + one, rel=1e-8)
    assert s.prefill_share == pytest.approx(1 - d / s.tpot)
    assert s.throughput == rate * output
    assert s.kv_tokens == pytest.approx(s.batch * (prompt + output / 2))
    assert s.kv_capacity == serving.kv_capacity(L70, "H100", tp=8).tokens


def test_mixed_iteration_ends_in_the_decode_step_and_the_prefill():
    # no prompt: the decode step; no running batch and one prompt: the prefill of prefill_time
    mixed = serving.steps._mixed
    assert mixed(L70, H100, 8, 16.0, 1536, 0.0, 1024, False, 2.0, 2.0, "auto") == pytest.approx(
        serving.decode_step_time(L70, "dgx-h100", 16, 1536, tp=8).total)
    assert mixed(L70, H100, 8, 0.0, 1536, 1.0, 1024, False, 2.0, 2.0, "auto") == pytest.approx(
        serving.prefill_time(L70, "dgx-h100", 1024, tp=8).total)
    # a short prompt joining a memory-bound step costs less than its prefill alone (no second weight read)
    d = serving.decode_step_time(L70, "dgx-h100", 16, 1536, tp=8).total
    with_one = mixed(L70, H100, 8, 16.0, 1536, 1.0, 128, False, 2.0, 2.0, "auto")
    assert with_one - d < serving.prefill_time(L70, "dgx-h100", 128, tp=8).total / 2


def test_continuous_batching_trades_latency_for_throughput():
    pts = [serving.continuous_batching(L70, "dgx-h100", 8, r, 1024, 256) for r in (0.5, 4.0, 12.0)]
    assert [p.tpot for p in pts] == sorted(p.tpot for p in pts)
    assert [p.ttft for p in pts] == sorted(p.ttft for p in pts)
    assert [p.batch for p in pts] == sorted(p.batch for p in pts)


def test_sustainable_rate_bounds_the_model():
    top = serving.sustainable_rate(L70, "dgx-h100", 8, 1024, 256)
    assert top < 1 / serving.prefill_time(L70, "dgx-h100", 1024, tp=8).total
    serving.continuous_batching(L70, "dgx-h100", 8, 0.99 * top, 1024, 256)
    with pytest.raises(ValueError, match=r"rate=\S+ is not sustainable; allowed 0 < rate < "):
        serving.continuous_batching(L70, "dgx-h100", 8, 1.01 * top, 1024, 256)
    # a long context fills the cache before prefill saturates: capacity binds
    cap = serving.sustainable_rate(L70, "dgx-h100", 8, 1024, 32768)
    s = serving.continuous_batching(L70, "dgx-h100", 8, 0.99 * cap, 1024, 32768)
    assert s.kv_tokens <= s.kv_capacity and s.kv_tokens > 0.9 * s.kv_capacity


def test_reserving_the_whole_request_caps_the_batch_at_capacity_over_its_length():
    # TensorRT-LLM's GUARANTEED_NO_EVICT: each running sequence holds prompt + output tokens of blocks
    prompt, output = 1024, 32768
    cap = serving.kv_capacity(L70, "H100", tp=8).tokens
    top = serving.sustainable_rate(L70, "dgx-h100", 8, prompt, output, admission="reserve")
    s = serving.continuous_batching(L70, "dgx-h100", 8, 0.99 * top, prompt, output, admission="reserve")
    assert s.batch <= cap / (prompt + output) and s.batch > 0.9 * cap / (prompt + output)
    assert top < serving.sustainable_rate(L70, "dgx-h100", 8, prompt, output)
    with pytest.raises(ValueError, match=r"admission='evict' is unknown; allowed: on-demand, reserve"):
        serving.sustainable_rate(L70, "dgx-h100", 8, prompt, output, admission="evict")


@pytest.mark.parametrize("name", ["llama2-7b", "llama2-70b", "llama3-70b", "mixtral-8x7b"])
def test_kv_read_factor_is_query_heads_per_kv_head(name):
    m = models.get(name)
    assert serving.kv_read_factor(m) == 1.0
    assert serving.kv_read_factor(m, "per-query-head") == m.heads / m.n_kv_heads
    assert serving.kv_read_factor(DSV3, "per-query-head") == 1.0      # MLA: one latent vector, no heads to repeat
    with pytest.raises(ValueError, match=r"kv_reads='per-token' is unknown; allowed: per-kv-head, per-query-head"):
        serving.kv_read_factor(m, "per-token")


def test_stream_bandwidth_is_the_median_deepgemm_small_m_bandwidth_over_the_h800_hbm():
    # the median of the twelve M = 64 and 128 rows of DeepGEMM's table: (2277 + 2320) / 2 GB/s
    assert sorted(DEEPGEMM_SMALL_M_BANDWIDTH)[5:7] == [2277e9, 2320e9]
    assert STREAM_EFFICIENCY == pytest.approx(2298.5e9 / 3.35e12)
    assert stream_bandwidth("dgx-h100") == pytest.approx(HBM)
    assert stream_bandwidth("dgx-h200") == pytest.approx(4.8e12 * 2298.5e9 / 3.35e12)
    # no measurement of another GPU: every GPU takes the same fraction of its HBM bandwidth
    a100 = serving.as_machine("dgx-a100").memory_bandwidth
    assert stream_bandwidth("dgx-a100") == pytest.approx(a100 * STREAM_EFFICIENCY)
