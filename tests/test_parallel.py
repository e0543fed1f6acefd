"""Tests for interconnect.parallel: FLOPs per token, MFU, exposed communication,
efficiency, and the data-parallel step model."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from interconnect.collectives import collective_time
from interconnect.parallel import dp_step, efficiency, exposed_communication, mfu, model_flops_per_token

FAST = settings(max_examples=80, deadline=None, database=None)


# --------------------------------------------------------------------------- FLOPs and MFU
def test_six_n_and_two_n():
    # Kaplan et al. 2020 sec. 2.1: C ~ 6N FLOPs per training token, 2N per forward-only token
    for n in (1.5e9, 175e9, 540e9):
        assert model_flops_per_token(n) == 6 * n
        assert model_flops_per_token(n, training=False) == 2 * n
    np.testing.assert_array_equal(model_flops_per_token(np.array([1e9, 2e9])), [6e9, 12e9])


def test_attention_term_palm_appendix_b():
    # PaLM App. B: 6N + 12 L H Q T per training token, here with H * Q = d_model;
    # forward only is a third: 2N + 4 L H Q T (Kaplan Eq. 2.2: 2N + 2 n_layer n_ctx d_attn per
    # forward pass of the score and value products)
    N, L, d, T = 540e9, 118, 48 * 256, 2048
    assert model_flops_per_token(N, L, d, T) == pytest.approx(6 * N + 12 * L * d * T, rel=1e-15)
    assert model_flops_per_token(N, L, d, T, training=False) == pytest.approx(2 * N + 4 * L * d * T, rel=1e-15)


def test_palm_mfu():
    # PaLM (Chowdhery et al. 2022) sec. 4.1 / App. B: 540B on 6144 TPU v4 at 275 TFLOP/s,
    # 238.3K tokens/s, T = 2048, L = 118, H = 48, Q = 256: MFU 45.7 % with 6N only and
    # 46.2 % with the attention term (REFERENCES.md sec. 8 consistency check)
    N, L, d, T = 540e9, 118, 48 * 256, 2048
    six_n = mfu(238.3e3, model_flops_per_token(N), 6144, 275e12)
    with_attn = mfu(238.3e3, model_flops_per_token(N, L, d, T), 6144, 275e12)
    assert six_n == pytest.approx(0.457, abs=0.001)
    assert with_attn == pytest.approx(0.462, abs=0.001)
    assert six_n < with_attn


def test_megatron_2019_scaling_efficiency():
    # Shoeybi et al. 2019 (Megatron-LM) abstract: 15.1 PFLOP/s on 512 V100 against 39 TFLOP/s
    # on one GPU = 76 % scaling efficiency. That is mfu() with the single-GPU sustained rate in
    # place of the peak: 15.1e15 / (512 * 39e12) = 0.756
    fpt = model_flops_per_token(8.3e9)
    tokens_per_s = 15.1e15 / fpt
    assert mfu(tokens_per_s, fpt, 512, 39e12) == pytest.approx(15.1e15 / (512 * 39e12), rel=1e-12)
    assert mfu(tokens_per_s, fpt, 512, 39e12) == pytest.approx(0.756, abs=0.0005)


def test_mfu_definition():
    # PaLM sec. 4.1: observed tokens/s over the peak-FLOPs tokens/s
    assert mfu(1000.0, 6e9, 8, 1e12) == pytest.approx(1000 * 6e9 / (8 * 1e12), rel=1e-15)


@pytest.mark.parametrize("call, match", [
    (lambda: model_flops_per_token(0), "n_params"),
    (lambda: model_flops_per_token(-1e9), "n_params"),
    (lambda: model_flops_per_token("7B"), "n_params"),
    (lambda: model_flops_per_token(1e9, n_layers=10), "n_layers, d_model and seq_len"),
    (lambda: model_flops_per_token(1e9, n_layers=10, d_model=512), "seq_len"),
    (lambda: model_flops_per_token(1e9, 0, 512, 2048), "n_layers"),
    (lambda: model_flops_per_token(1e9, 10, 512.5, 2048), "d_model"),
    (lambda: model_flops_per_token(1e9, 10, 512, -1), "seq_len"),
    (lambda: mfu(0, 6e9, 8, 1e12), "tokens_per_second"),
    (lambda: mfu(1e3, 0, 8, 1e12), "flops_per_token"),
    (lambda: mfu(1e3, 6e9, 0, 1e12), "n_gpus"),
    (lambda: mfu(1e3, 6e9, 2.5, 1e12), "n_gpus"),
    (lambda: mfu(1e3, 6e9, 8, float("nan")), "peak_flops"),
])
def test_flops_errors(call, match):
    with pytest.raises(ValueError, match=match):
        call()


# --------------------------------------------------------------------------- efficiency
def test_exposed_communication_values():
    # exposed = comm - min(comm, overlap * compute)
    assert exposed_communication(1.0, 2.0) == 1.0
    assert exposed_communication(1.0, 2.0, overlap=0.25) == 0.5
    assert exposed_communication(1.0, 2.0, overlap=1.0) == 0.0
    assert exposed_communication(3.0, 2.0, overlap=1.0) == 1.0
    assert exposed_communication(0.0, 2.0, overlap=0.5) == 0.0


def test_efficiency_values():
    # REFERENCES.md sec. 11: efficiency = T_compute / (T_compute + T_exposed)
    assert efficiency(3.0, 1.0) == 0.75
    assert efficiency(3.0, 1.0, overlap=1.0) == 1.0
    assert efficiency(1.0, 3.0, overlap=1.0) == pytest.approx(1 / 3, rel=1e-15)
    out = efficiency(np.array([1.0, 3.0]), np.array([1.0, 1.0]))
    np.testing.assert_allclose(out, [0.5, 0.75])


@FAST
@given(comp=st.floats(1e-6, 1e3), comm=st.floats(0.0, 1e3), ov=st.floats(0.0, 1.0))
def test_efficiency_in_unit_interval_and_matches_definition(comp, comm, ov):
    e = efficiency(comp, comm, ov)
    assert 0.0 < e <= 1.0
    exposed = max(0.0, comm - ov * comp)
    assert exposed_communication(comm, comp, ov) == pytest.approx(exposed, rel=1e-12, abs=1e-300)
    assert e == pytest.approx(comp / (comp + exposed), rel=1e-12)
    assert 0.0 <= exposed_communication(comm, comp, ov) <= comm


@FAST
@given(comp=st.floats(1e-6, 1e3), comm=st.floats(0.0, 1e3),
       ov1=st.floats(0.0, 1.0), ov2=st.floats(0.0, 1.0))
def test_more_overlap_never_lowers_efficiency(comp, comm, ov1, ov2):
    lo, hi = sorted((ov1, ov2))
    assert efficiency(comp, comm, hi) >= efficiency(comp, comm, lo)
    assert exposed_communication(comm, comp, hi) <= exposed_communication(comm, comp, lo)


@FAST
@given(comp=st.floats(1e-6, 1e3), comm=st.floats(0.0, 1e3), extra=st.floats(0.0, 1e3),
       ov=st.floats(0.0, 1.0))
def test_more_communication_never_raises_efficiency(comp, comm, extra, ov):
    assert efficiency(comp, comm + extra, ov) <= efficiency(comp, comm, ov)


@FAST
@given(comp=st.floats(1e-6, 1e3), frac=st.floats(0.0, 1.0), ov=st.floats(0.0, 1.0))
def test_efficiency_one_when_comm_zero_or_fully_hidden(comp, frac, ov):
    assert efficiency(comp, 0.0, ov) == 1.0
    # comm no longer than the overlappable part of the compute: fully hidden
    assert efficiency(comp, frac * ov * comp, ov) == 1.0


@pytest.mark.parametrize("call, match", [
    (lambda: exposed_communication(-1.0, 1.0), "comm_time"),
    (lambda: exposed_communication(1.0, 0.0), "compute_time"),
    (lambda: exposed_communication(1.0, 1.0, overlap=1.5), "overlap"),
    (lambda: exposed_communication(1.0, 1.0, overlap=-0.1), "overlap"),
    (lambda: efficiency(0.0, 1.0), "compute_time"),
    (lambda: efficiency(1.0, float("nan")), "comm_time"),
    (lambda: efficiency(1.0, 1.0, "half"), "overlap"),
])
def test_efficiency_errors(call, match):
    with pytest.raises(ValueError, match=match):
        call()


# --------------------------------------------------------------------------- dp_step
STEP = dict(n_params=7e9, tokens_per_gpu=4096, peak_flops=989e12, bandwidth=450e9, latency=5e-6)
HALF = dict(gemm_efficiency=0.5)   # an illustrative fraction of peak; the library has no default


@pytest.mark.parametrize("p", [1, 2, 8, 64, 1000])
@pytest.mark.parametrize("overlap", [0.0, 0.3, 1.0])
def test_dp_step_consistent_with_collectives_and_efficiency(p, overlap):
    r = dp_step(p=p, overlap=overlap, gemm_efficiency=0.4, **STEP)
    N = STEP["n_params"]
    # compute: 6N FLOP per token (Kaplan 2020) at 40 % of peak
    assert r["compute"] == pytest.approx(6 * N * 4096 / (0.4 * 989e12), rel=1e-15)
    # comm: ring allreduce of 2N bytes of BF16 gradients (collectives.collective_time)
    assert r["comm"] == collective_time("allreduce", 2 * N, p, 450e9, 5e-6, "ring")
    assert r["exposed"] == exposed_communication(r["comm"], r["compute"], overlap)
    assert r["step"] == pytest.approx(r["compute"] + r["exposed"], rel=1e-15)
    assert r["efficiency"] == pytest.approx(efficiency(r["compute"], r["comm"], overlap), rel=1e-15)
    assert r["speedup"] == pytest.approx(p * r["efficiency"], rel=1e-15)
    # MFU from the throughput, as PaLM defines it: p * tokens_per_gpu / step tokens/s
    assert r["mfu"] == pytest.approx(mfu(p * 4096 / r["step"], 6 * N, p, 989e12), rel=1e-12)
    if p == 1:
        assert r["comm"] == 0.0 and r["efficiency"] == 1.0 and r["mfu"] == pytest.approx(0.4)


def test_dp_step_algorithm_and_grad_bytes():
    r = dp_step(p=64, algorithm="rabenseifner", grad_bytes=4.0, **STEP, **HALF)
    assert r["comm"] == collective_time("allreduce", 4 * 7e9, 64, 450e9, 5e-6, "rabenseifner")


def test_dp_step_vectorised_over_p():
    ps = np.array([1, 2, 8, 64])
    r = dp_step(p=ps, **STEP, **HALF)
    for i, p in enumerate(ps):
        one = dp_step(p=int(p), **STEP, **HALF)
        for key in ("comm", "exposed", "step", "efficiency", "speedup", "mfu"):
            assert r[key][i] == pytest.approx(one[key], rel=1e-15)


@FAST
@given(p=st.integers(1, 4096), bw=st.floats(1e9, 1e12), ov=st.floats(0.0, 1.0))
def test_dp_step_properties(p, bw, ov):
    r = dp_step(p=p, overlap=ov, **(STEP | HALF | dict(bandwidth=bw)))
    assert 0.0 < r["efficiency"] <= 1.0
    assert 0.0 < r["speedup"] <= p
    assert 0.0 < r["mfu"] <= 0.5  # the gemm_efficiency of 0.5 is the ceiling
    faster = dp_step(p=p, overlap=ov, **(STEP | HALF | dict(bandwidth=2 * bw)))
    assert faster["efficiency"] >= r["efficiency"]


@pytest.mark.parametrize("kw, match", [
    (dict(n_params=0), "n_params"),
    (dict(p=0), "p="),
    (dict(p=2.5), "p="),
    (dict(tokens_per_gpu=0), "tokens_per_gpu"),
    (dict(peak_flops=-1), "peak_flops"),
    (dict(gemm_efficiency=0), "gemm_efficiency"),
    (dict(achieved_fraction=0), "achieved_fraction"),
    (dict(achieved_fraction=1.2), "achieved_fraction"),
    (dict(grad_bytes=0), "grad_bytes"),
    (dict(overlap=2.0), "overlap"),
    (dict(bandwidth=0), "bandwidth"),
    (dict(latency=-1e-6), "latency"),
    (dict(algorithm="bruck"), "algorithm='bruck'"),
    (dict(algorithm="recursive_doubling", p=6), "p=6"),
])
def test_dp_step_errors(kw, match):
    args = dict(STEP, p=8) | HALF | kw
    with pytest.raises(ValueError, match=match):
        dp_step(**args)


def test_dp_models_need_an_explicit_gemm_efficiency():
    # no arbitrary default: the caller names the fraction of peak (e.g. gemm.ceiling_fraction)
    from interconnect.parallel import dp_break_even_tokens

    with pytest.raises(TypeError, match="gemm_efficiency is required"):
        dp_step(p=8, **STEP)
    with pytest.raises(TypeError, match="ceiling_fraction"):
        dp_break_even_tokens(989e12, 450e9, 8)


# --- pipeline bubble (Narayanan et al. 2021, sec. 2.2) ------------------------------------

def test_pipeline_bubble_closed_forms():
    from interconnect.parallel import pipeline_bubble_fraction as bubble

    # GPipe / 1F1B: (p - 1) / m
    assert bubble(8, 32) == pytest.approx(7 / 32)
    # interleaved with v chunks: (1/v) (p - 1) / m
    assert bubble(8, 32, chunks=4) == pytest.approx(7 / 128)
    # one stage: no bubble
    assert bubble(1, 5) == 0.0
    np.testing.assert_allclose(bubble(np.array([2, 4, 8]), 16), [1 / 16, 3 / 16, 7 / 16])


def test_pipeline_bubble_rejects_bad_input():
    from interconnect.parallel import pipeline_bubble_fraction as bubble

    with pytest.raises(ValueError, match="microbatches"):
        bubble(4, 6, chunks=2)  # interleaving needs m a multiple of p
    with pytest.raises(ValueError, match="stages"):
        bubble(0, 4)


# --- Narayanan et al. 2021, Table 1: parameter counts from eq. (2) -------------------------
# (billions, heads, hidden, layers) with V = 51200, s = 2048; the table prints 4 significant figures
NARAYANAN_TABLE1 = [(1.7, 24, 2304, 24), (3.6, 32, 3072, 30), (7.5, 32, 4096, 36), (18.4, 48, 6144, 40),
                    (39.1, 64, 8192, 48), (76.1, 80, 10240, 60), (145.6, 96, 12288, 80),
                    (310.1, 128, 16384, 96), (529.6, 128, 20480, 105), (1008.0, 160, 25600, 128)]


@pytest.mark.parametrize("billions, heads, hidden, layers", NARAYANAN_TABLE1)
def test_transformer_params_reproduce_narayanan_table1(billions, heads, hidden, layers):
    from interconnect.parallel import transformer_params

    got = transformer_params(layers, hidden, 51200, 2048) / 1e9
    assert got == pytest.approx(billions, abs=0.051)


def test_iteration_flops_megatron_gpt3_days():
    # Narayanan et al. 2021 sec. 5.1: end-to-end time ~ 8 T P / (n X); GPT-3 175B on 1024 A100s at
    # 140 TFLOP/s for 300B tokens: "about 34 days". eq. (3) per iteration is ~ 8 x params x tokens
    from interconnect.parallel import iteration_flops, transformer_params

    P = transformer_params(96, 12288, 51200, 2048)
    F = iteration_flops(1536, 2048, 96, 12288, 51200)
    assert F / (1536 * 2048 * P) == pytest.approx(8.0, rel=0.03)
    days = 8 * 300e9 * 175e9 / (1024 * 140e12) / 86400
    assert days == pytest.approx(34, abs=1)
    # model FLOPs (no recomputation) are 3/4 of it up to the logit term
    assert iteration_flops(1536, 2048, 96, 12288, 51200, recompute=False) / F == pytest.approx(0.75, rel=0.01)


def test_the_older_name_achieved_fraction_gives_the_same_step():
    # gemm_efficiency is the library's one name for the fraction of peak (README, names and units)
    from interconnect.parallel import dp_break_even_tokens

    new = dp_step(p=8, gemm_efficiency=0.4, **STEP)
    old = dp_step(p=8, achieved_fraction=0.4, **STEP)
    assert new == old
    assert dp_break_even_tokens(989e12, 450e9, 8, achieved_fraction=0.3) == dp_break_even_tokens(989e12, 450e9, 8, 0.3)
