"""The in-GPU mechanisms priced from component measurements (issue 13, item 3): the GEMM's measured
loss at a short reduction depth (OpenXLA's matmul table), the per-pass rates of FlashAttention-3
(Shah et al. 2024, Fig. 5 and 6), checked against the numbers the sources print."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from interconnect import catalog
from interconnect.catalog import measurements
from interconnect.parallel import compute as C
from interconnect.parallel import gemm as G
from interconnect.parallel import machines as M
from interconnect.parallel.machines import machine, stack


def test_depth_factor_at_the_measured_depths():
    # OpenXLA kDefaultMatmulPTable, b = 1, m = n = 4096, bf16 on sm_90: 398.6 .. 780.2 TFLOP/s
    for k, t in zip(G.K_GRID, G.K_DEPTH[("H100", "bf16")]):
        assert G.depth_factor(k, "H100") == pytest.approx(t / 780.2, rel=1e-12)
    assert G.depth_factor(1024, "B200", "fp8") == pytest.approx(1895.4 / 2765.0)
    # H200 takes H100's curve, GB200 B200's; Hopper FP8 the BF16 curve (the table's sm_90 FP8 exceeds the peak)
    assert G.depth_factor(512, "H200") == G.depth_factor(512, "H100")
    assert G.depth_factor(512, "GB200", "fp8") == G.depth_factor(512, "B200", "fp8")
    assert G.depth_factor(512, "H100", "fp8") == G.depth_factor(512, "H100", "bf16")
    # no curve: A100 and the AMD parts keep 1
    assert G.depth_factor(256, "A100") == 1.0 == G.depth_factor(256, "MI300X")


def test_the_deep_end_of_the_table_agrees_with_the_measured_ceiling():
    """Two independent sources: XLA's 4096^3 BF16 GEMM on H100 and Bekman's best-shape MAMF agree
    within 2 %, so normalising the depth curve at k = 4,096 does not count the ceiling twice."""
    xla = G.K_DEPTH[("H100", "bf16")][-1] * 1e12
    assert xla / measurements.get("h100-sxm-bf16-mamf").value == pytest.approx(1.0, abs=0.02)


@given(st.integers(1, 1 << 16), st.integers(1, 1 << 16))
def test_depth_factor_is_monotone_and_bounded(k1, k2):
    lo, hi = sorted((k1, k2))
    for gpu, dtype in (("H100", "bf16"), ("B200", "bf16"), ("B200", "fp8")):
        a, b = G.depth_factor(lo, gpu, dtype), G.depth_factor(hi, gpu, dtype)
        assert 0.0 < a <= b <= 1.0


def test_training_gemm_efficiency_counts_each_pass_reduction():
    # every reduction >= 4096: the forward efficiency, bit for bit
    assert G.training_gemm_efficiency(8192, 8192, 8192, "H100") == G.gemm_efficiency(8192, 8192, 8192, "H100")
    # the 22B projection [2048, 768] x [768, 6144]: reductions 768 (forward), 6144 (dgrad), 2048 (wgrad)
    base = G.gemm_efficiency(2048, 6144, 768, "H100", depth=False)
    d = [G.depth_factor(r, "H100") for r in (768, 6144, 2048)]
    assert G.training_gemm_efficiency(2048, 6144, 768, "H100") == pytest.approx(base * 3 / sum(1 / x for x in d))
    with pytest.raises(ValueError, match="k"):
        G.depth_factor(0, "H100")


def test_attention_pass_rates_read_the_figures():
    # Fig. 5, causal, hdim 128, 4k: 579 TFLOP/s forward; Fig. 6 (unmasked) 542 backward against 638 forward
    fwd, bwd = C.attention_pass_rates(4096)
    assert fwd == pytest.approx(579e12) and bwd == pytest.approx(579e12 * 542 / 638)
    # between and beyond the measured lengths: log-linear, then flat
    f3k = C.attention_pass_rates(3072)[0]
    assert 521e12 < f3k < 579e12
    assert C.attention_pass_rates(131072) == C.attention_pass_rates(16384)
    # Blackwell keeps Hopper's fraction of its own peak
    b200 = C.attention_pass_rates(4096, "B200")[0]
    assert b200 / machine("dgx-b200").peak_flops == pytest.approx(fwd / machine("dgx-h100").peak_flops)
    with pytest.raises(ValueError, match="gpu"):
        C.attention_pass_rates(4096, "A100")


def test_attention_core_time_by_pass_closed_form():
    model = catalog.models.get("llama3-70b")
    lay = stack("megatron-core-2024").layout(dp=2, tp=4, pp=1, microbatch=1)
    h100 = machine("dgx-h100")
    fwd_rate, bwd_rate = C.attention_pass_rates(model.seq_len)
    # 64 query heads over TP 4: 16 per GPU, below FlashAttention-3's benchmark size of 64
    grid = C.attention_grid_factor(lay.microbatch * model.heads / lay.tp)
    assert grid == C.attention_grid_factor(16) == (0.781, 0.897)
    fwd_rate, bwd_rate = fwd_rate * grid[0], bwd_rate * grid[1]
    flops = C._flops_by_term(model)["attention"] / 3 * 0.5     # forward, FlashAttention's causal count
    kept = h100.sustained_fraction          # Hopper's fitted constant, machines.SUSTAINED_FRACTION
    assert kept == M.SUSTAINED_FRACTION["hopper"] < 1
    want = flops * (1 / fwd_rate + 2.5 / bwd_rate) / (lay.n_gpus * kept)
    assert C._attention_core_time(model, lay, h100) == pytest.approx(want, rel=1e-12)
    assert C.compute_parts(model, lay, h100)["attention"] == C._attention_core_time(model, lay, h100)
    # full recomputation runs the forward twice
    full = replace(lay, recompute="full")
    assert C._attention_core_time(model, full, h100) == pytest.approx(
        flops * (2 / fwd_rate + 2.5 / bwd_rate) / (lay.n_gpus * kept), rel=1e-12)
    # an attention efficiency set by hand is honoured as given (one rate for all passes)
    hand = replace(h100, attention_efficiency=0.5)
    t = C._attention_core_time(model, lay, hand)
    assert math.isclose(t, C._flops_by_term(model)["attention"] * C._attention_recompute_factor(lay)
                        * C._causal_fraction(model, lay) / (lay.n_gpus * 0.5 * h100.peak_flops * kept),
                        rel_tol=1e-12)
    # the measured backward is slower than the old single-rate pricing assumed
    assert C._attention_core_time(model, lay, h100) > C._attention_core_time(
        model, lay, replace(h100, attention_efficiency=h100.attention_efficiency * (1 - 1e-15)))


def test_optimizer_step_bytes_closed_form():
    from interconnect.parallel import Layout, ModelConfig, stage_params

    m22 = ModelConfig(48, 6144, 64, 2048, 51200, 4)
    lay = Layout(dp=1, tp=8, pp=1)
    p = stage_params(m22, lay)
    assert C.optimizer_bytes(m22, lay) == pytest.approx((34 + 4) * p)
    # Megatron's distributed optimizer (ZeRO-1) shards the Adam update over dp, not the gradient buffer
    z1 = Layout(dp=8, tp=8, pp=1, zero_stage=1)
    assert C.optimizer_bytes(m22, z1) == pytest.approx(34 * p / 8 + 4 * p)
    # ZeRO-2 shards the gradients after their reduce-scatter, but the microbatches accumulate into a
    # full buffer first: the same bytes as ZeRO-1 (so the planner's ZeRO-1/ZeRO-2 ties stay ties)
    z2 = Layout(dp=8, tp=8, pp=1, zero_stage=2)
    assert C.optimizer_bytes(m22, z2) == C.optimizer_bytes(m22, z1)
    # once per step (the 4 microbatches of B = 4 each run the layers), on the bottom-up machines only
    a100 = machine("dgx-a100")
    with_opt = C.elementwise_time(m22, lay, a100)
    assert with_opt == pytest.approx((4 * C._bottom_up_elementwise_bytes(m22, lay) + C.optimizer_bytes(m22, lay))
                                     / a100.memory_bandwidth)


def test_attention_grid_factor_reads_the_measurement():
    # benchmarks/data/attention_heads_h200.json: cuDNN rows at batch 1 over the batch-4 x 16-head row
    import json
    import pathlib

    data = json.loads((pathlib.Path(__file__).resolve().parent.parent / "benchmarks" / "data"
                       / "attention_heads_h200.json").read_text())["cases"]["CUDNN_ATTENTION"]
    (ref,) = [r for r in data if r["batch"] == 4]
    for r in data:
        if r["batch"] == 1:
            i = C.ATTENTION_GRID_HEADS.index(r["heads"])
            assert C.ATTENTION_GRID_RATE["fwd"][i] == pytest.approx(r["fwd_tflops"] / ref["fwd_tflops"], abs=5e-4)
            assert C.ATTENTION_GRID_RATE["bwd"][i] == pytest.approx(r["bwd_tflops"] / ref["bwd_tflops"], abs=5e-4)
    assert C.attention_grid_factor(64) == C.attention_grid_factor(1024) == (1.0, 1.0)
    assert C.attention_grid_factor(1) == C.attention_grid_factor(7)
    lo, hi = C.attention_grid_factor(16), C.attention_grid_factor(20)
    assert lo[0] < hi[0] and lo[1] < hi[1]
    with pytest.raises(ValueError, match="heads"):
        C.attention_grid_factor(0)


def test_cross_entropy_fraction_reads_the_measurement():
    # benchmarks/data/vocab_layer_h200.json: 58 bytes per logit over the measured time, over H200's peak
    import json
    import pathlib

    from interconnect.devices import get_gpu

    data = json.loads((pathlib.Path(__file__).resolve().parent.parent / "benchmarks" / "data"
                       / "vocab_layer_h200.json").read_text())["cases"]
    peak = get_gpu("H200").memory_bandwidth
    fr = [C.CROSS_ENTROPY_BYTES_PER_LOGIT * r["s"] * r["v"] / r["ce"] / peak for r in data.values()]
    assert C.CROSS_ENTROPY_HBM_FRACTION == pytest.approx(sum(fr) / len(fr), abs=5e-4)
    # priced on Hopper and Blackwell presets only; the A100 preset keeps the peak
    m = catalog.models.get("llama3-8b")
    lay = stack("megatron-core-2024").layout(dp=8, tp=1, pp=1, microbatch=1)
    logits = C.CROSS_ENTROPY_BYTES_PER_LOGIT * m.seq_len * m.vocab
    base = C._bottom_up_elementwise_bytes(m, lay)
    extra = C._bottom_up_elementwise_bytes(m, lay, C.CROSS_ENTROPY_HBM_FRACTION) - base
    assert extra == pytest.approx(logits * (1 / C.CROSS_ENTROPY_HBM_FRACTION - 1), rel=1e-9)
