"""Tests for interconnect.memory: ZeRO model-state memory and KV-cache size."""

import doctest

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import interconnect.memory as mem
from interconnect import parallel as P
from interconnect.memory import kv_cache_bytes, training_memory

GB = 1e9  # ZeRO Table 1 is in GB = 1e9 bytes
GiB = 2.0**30
FAST = settings(max_examples=60, deadline=None, database=None)

# Rajbhandari et al. 2020 (ZeRO), Table 1, as transcribed in REFERENCES.md sec. 5:
# {model params: {N_d: (P_os, P_os+g, P_os+g+p)}} in GB. Kept as printed (strings) so that
# the tolerance can follow the printed precision.
TABLE1 = {
    7.5e9: {1: ("120", "120", "120"), 4: ("52.5", "41.3", "30"), 16: ("35.6", "21.6", "7.5"),
            64: ("31.4", "16.6", "1.88"), 256: ("30.4", "15.4", "0.47"), 1024: ("30.1", "15.1", "0.12")},
    128e9: {1: ("2048", "2048", "2048"), 4: ("896", "704", "512"), 16: ("608", "368", "128"),
            64: ("536", "284", "32"), 256: ("518", "263", "8"), 1024: ("513", "257", "2")},
    1e12: {1: ("16000", "16000", "16000"), 4: ("7000", "5500", "4000"), 16: ("4750", "2875", "1000"),
           64: ("4187", "2218", "250"), 256: ("4046", "2054", "62.5"), 1024: ("4011", "2013", "15.6")},
}
TABLE1_CELLS = [(psi, nd, stage, cells[stage - 1])
                for psi, rows in TABLE1.items() for nd, cells in rows.items() for stage in (1, 2, 3)]


def test_docstring_examples():
    # kv_cache_bytes docstring: OPT-13B 819200 bytes per token
    assert doctest.testmod(mem, raise_on_error=False).failed == 0


# --------------------------------------------------------------------------- ZeRO
@pytest.mark.parametrize("psi, nd, stage, printed", TABLE1_CELLS,
                         ids=[f"{psi:g}-Nd{nd}-stage{st}" for psi, nd, st, _ in TABLE1_CELLS])
def test_zero_table1(psi, nd, stage, printed):
    # ZeRO (Rajbhandari et al. 2020) Table 1, GB. Several published cells are truncated
    # rather than rounded (4187.5 -> 4187, 257.75 -> 257), and 0.1171875 is printed 0.12
    # (2.4 % off), so the tolerance is 0.5 % relative or one unit in the last printed
    # digit, whichever is larger.
    published = float(printed)
    decimals = len(printed.split(".")[1]) if "." in printed else 0
    tol = max(0.005 * published, 10.0**-decimals)
    got = training_memory(psi, dp=nd, zero_stage=stage)["total"] / GB
    assert abs(got - published) <= tol


@pytest.mark.parametrize("psi", list(TABLE1))
def test_zero_closed_forms(psi):
    # ZeRO sec. 5.1-5.3: baseline (2 + 2 + K) Psi, P_os 4 Psi + K Psi / N_d,
    # P_os+g 2 Psi + 14 Psi / N_d, P_os+g+p 16 Psi / N_d, with K = 12
    for nd in (1, 2, 3, 8, 64, 1000):
        assert training_memory(psi, nd, 0)["total"] == pytest.approx(16 * psi, rel=1e-15)
        assert training_memory(psi, nd, 1)["total"] == pytest.approx(4 * psi + 12 * psi / nd, rel=1e-15)
        assert training_memory(psi, nd, 2)["total"] == pytest.approx(2 * psi + 14 * psi / nd, rel=1e-15)
        assert training_memory(psi, nd, 3)["total"] == pytest.approx(16 * psi / nd, rel=1e-15)


def test_zero_limits_4x_8x():
    # ZeRO sec. 5: as N_d grows, P_os -> 4 Psi (4x less than 16 Psi), P_os+g -> 2 Psi (8x)
    psi = 1e9
    assert 16 * psi / training_memory(psi, 10**9, 1)["total"] == pytest.approx(4, rel=1e-6)
    assert 16 * psi / training_memory(psi, 10**9, 2)["total"] == pytest.approx(8, rel=1e-6)


def test_zero_components():
    # ZeRO sec. 3.1: 2 Psi fp16 params + 2 Psi fp16 grads + K Psi (K = 12) optimizer states
    m = training_memory(1e9)
    assert (m["params"], m["grads"], m["optimizer"], m["total"]) == (2e9, 2e9, 12e9, 16e9)
    m = training_memory(1e9, dp=4, zero_stage=2)
    assert (m["params"], m["grads"], m["optimizer"]) == (2e9, 0.5e9, 3e9)
    m = training_memory(1e9, dp=4, zero_stage=3)
    assert (m["params"], m["grads"], m["optimizer"]) == (0.5e9, 0.5e9, 3e9)
    assert m["total"] == m["params"] + m["grads"] + m["optimizer"]


def test_gpt2_needs_24_gb():
    # ZeRO sec. 3.1: GPT-2 with 1.5B parameters needs at least 24 GB (16 bytes x 1.5e9)
    assert training_memory(1.5e9)["total"] == 24 * GB
    assert training_memory(1.5e9)["total"] >= 24 * GB


def test_zero_bold_cells_are_first_to_fit_32gb_v100():
    # ZeRO Table 1 bold cells "fit in a 32 GB V100": 7.5B P_os@64, P_os+g@16, P_os+g+p@4;
    # 128B P_os+g+p@64; 1T P_os+g+p@1024. With the V100's 32 GiB of HBM2 (2**35 bytes; an
    # assumption, the paper says "32GB"), each is the smallest N_d of Table 1 whose total fits.
    cap = 32 * GiB
    bold = {(7.5e9, 1): 64, (7.5e9, 2): 16, (7.5e9, 3): 4, (128e9, 3): 64, (1e12, 3): 1024}
    for psi in TABLE1:
        for stage in (1, 2, 3):
            fits = [nd for nd in TABLE1[psi] if training_memory(psi, nd, stage)["total"] <= cap]
            assert (min(fits) if fits else None) == bold.get((psi, stage))


def test_training_memory_other_optimizers_and_arrays():
    # K is a parameter: e.g. K = 0 (plain SGD in 16 bits) gives 4 Psi
    assert training_memory(1e9, optimizer_bytes_per_param=0.0)["total"] == 4e9
    # fp32 weights and grads with Adam: 4 + 4 + 12 = 20 bytes / parameter
    assert training_memory(1e9, param_bytes=4, grad_bytes=4)["total"] == 20e9
    nd = np.array([1, 4, 16])
    out = training_memory(7.5e9, dp=nd, zero_stage=3)["total"]
    np.testing.assert_allclose(out, 16 * 7.5e9 / nd, rtol=1e-15)


@FAST
@given(psi=st.floats(1e6, 1e13), nd=st.integers(1, 4096))
def test_more_partitioning_never_uses_more_memory(psi, nd):
    # each ZeRO stage partitions a superset of the previous one; more ranks never cost more
    totals = [training_memory(psi, nd, s)["total"] for s in (0, 1, 2, 3)]
    assert totals == sorted(totals, reverse=True)
    for s in (0, 1, 2, 3):
        assert training_memory(psi, nd + 1, s)["total"] <= training_memory(psi, nd, s)["total"]
    # stage 3 spreads all 16 Psi evenly
    assert training_memory(psi, nd, 3)["total"] * nd == pytest.approx(16 * psi, rel=1e-12)


@pytest.mark.parametrize("kw, match", [
    (dict(n_params=0), "n_params"),
    (dict(n_params=-1e9), "n_params"),
    (dict(n_params="7.5B"), "n_params"),
    (dict(n_params=float("nan")), "n_params"),
    (dict(dp=0), "dp"),
    (dict(dp=1.5), "dp"),
    (dict(zero_stage=4), "zero_stage"),
    (dict(zero_stage=-1), "zero_stage"),
    (dict(zero_stage=1.5), "zero_stage"),
    (dict(optimizer_bytes_per_param=-1), "optimizer_bytes_per_param"),
    (dict(param_bytes=0), "param_bytes"),
    (dict(grad_bytes=-2), "grad_bytes"),
])
def test_training_memory_errors(kw, match):
    args = dict(n_params=1e9) | kw
    with pytest.raises(ValueError, match=match):
        training_memory(**args)


# --------------------------------------------------------------------------- KV cache
def test_kv_cache_opt13b_vllm():
    # Kwon et al. 2023 (vLLM) sec. 3: OPT-13B, 2 (K and V) x 5120 hidden x 40 layers x 2 bytes
    # = 819,200 B ("800 KB") per token; 2048 tokens = 1,677,721,600 B ("1.6 GB")
    assert kv_cache_bytes(layers=40, kv_heads=40, head_dim=128, seq_len=1) == 819_200
    assert kv_cache_bytes(40, 40, 128, 2048) == 1_677_721_600
    assert kv_cache_bytes(40, 40, 128, 2048) == 2 * 5120 * 40 * 2 * 2048


def test_kv_cache_llama2_70b_gqa():
    # Llama-2-70B config (REFERENCES.md sec. 10): 80 layers, 8 KV heads of 128 (GQA):
    # 2 x 80 x 8 x 128 x 2 = 327,680 B = 320 KiB per token; 4096 tokens = 1.25 GiB
    per_token = kv_cache_bytes(80, 8, 128, 1)
    assert per_token == 327_680
    assert per_token == 320 * 1024
    assert kv_cache_bytes(80, 8, 128, 4096) == 1.25 * GiB
    # the common error: using the 64 query heads instead of 8 KV heads is 8x too large
    # (2 x 80 x 8192 x 2 = 2.62 MB per token)
    wrong = kv_cache_bytes(80, 64, 128, 1)
    assert wrong == 8 * per_token == 2_621_440


def test_kv_cache_scaling_and_dtype():
    # linear in every factor; bytes_per_element 1 (FP8/INT8) halves FP16
    base = kv_cache_bytes(32, 8, 128, 1024)
    assert kv_cache_bytes(32, 8, 128, 1024, batch=16) == 16 * base
    assert kv_cache_bytes(32, 8, 128, 1024, bytes_per_element=1) == base / 2
    assert kv_cache_bytes(32, 8, 128, 1024, bytes_per_element=4) == base * 2
    assert isinstance(base, float)
    seq = np.array([1, 2048, 4096])
    np.testing.assert_array_equal(kv_cache_bytes(80, 8, 128, seq), 327_680.0 * seq)


@pytest.mark.parametrize("kw, match", [
    (dict(layers=0), "layers"),
    (dict(kv_heads=1.5), "kv_heads"),
    (dict(head_dim=-128), "head_dim"),
    (dict(seq_len=0), "seq_len"),
    (dict(batch=0), "batch"),
    (dict(layers="80"), "layers"),
    (dict(seq_len=float("nan")), "seq_len"),
    (dict(bytes_per_element=0), "bytes_per_element"),
    (dict(bytes_per_element=-2), "bytes_per_element"),
    (dict(bytes_per_element=float("nan")), "bytes_per_element"),
    (dict(bytes_per_element="2"), "bytes_per_element"),
    (dict(bytes_per_element=None), "bytes_per_element"),
])
def test_kv_cache_errors(kw, match):
    args = dict(layers=80, kv_heads=8, head_dim=128, seq_len=4096) | kw
    with pytest.raises(ValueError, match=match):
        kv_cache_bytes(**args)


# --- activations (Korthikanti et al. 2022, Table 2) --------------------------------------

def test_activation_memory_table2_forms():
    from interconnect.memory import activation_memory as act

    s, b, h, a, t = 2048, 1, 12288, 96, 8  # GPT-3 175B (Korthikanti et al. 2022, sec. 5)
    sbh = s * b * h
    assert 5 * a * s / h == 80  # the paper's 5as/h = 80 for GPT-3
    assert act(s, b, h, a) == pytest.approx(sbh * (34 + 80))
    assert act(s, b, h, a, tp=t) == pytest.approx(sbh * (10 + 24 / t + 80 / t))
    assert act(s, b, h, a, tp=t, sequence_parallel=True) == pytest.approx(sbh * (34 / t + 80 / t))
    assert act(s, b, h, a, tp=t, recompute="selective") == pytest.approx(sbh * (10 + 24 / t))
    assert act(s, b, h, a, tp=t, sequence_parallel=True, recompute="selective") == pytest.approx(sbh * 34 / t)
    assert act(s, b, h, a, tp=t, recompute="full") == pytest.approx(2 * sbh)
    # eq. 5: the first pipeline stage holds L layers' worth; the interleaved schedule stores
    # L (1 + (p-1)/(p m)) layers, "where m is the number of interleaving stages" (sec. 4.2.3)
    L, p, v = 96, 8, 2
    base = act(s, b, h, a, layers=L, tp=t, sequence_parallel=True)
    assert base == pytest.approx(sbh * L / t * (34 + 80))
    assert act(s, b, h, a, layers=L, tp=t, sequence_parallel=True, pipeline_stages=p, microbatches=64,
               chunks=v) == pytest.approx(base * (1 + (p - 1) / (p * v)))


def test_selective_recompute_removes_about_70_percent_for_gpt3():
    # Korthikanti et al. 2022: the attention term is 80 of 114 (about 70 %) of the activations for GPT-3
    from interconnect.memory import activation_memory as act

    full = act(2048, 1, 12288, 96)
    sel = act(2048, 1, 12288, 96, recompute="selective")
    assert 1 - sel / full == pytest.approx(80 / 114)
    assert 0.69 < 1 - sel / full < 0.71


def test_activation_memory_errors():
    from interconnect.memory import activation_memory as act

    with pytest.raises(ValueError, match="recompute"):
        act(2048, 1, 1024, 16, recompute="some")
    with pytest.raises(ValueError, match="microbatches"):
        act(2048, 1, 1024, 16, chunks=2, microbatches=0)
    with pytest.raises(ValueError, match="heads"):
        act(2048, 1, 1024, 0)


# --- layout_memory_breakdown and inference_memory ------------------------------------------


@pytest.mark.parametrize("zero_stage", [0, 1, 2, 3])
def test_layout_memory_breakdown_is_zero_table_1_plus_activations(zero_stage):
    from dataclasses import replace

    from interconnect.catalog import models
    from interconnect.parallel import Layout, layout_memory, stage_params

    m = models.get("gpt3-13b")
    lay = Layout(dp=8, tp=4, pp=2, microbatch=1, zero_stage=zero_stage)
    m = replace(m, global_batch=8 * 2 * 4)
    parts = P.layout_memory_breakdown(m, lay)
    psi, nd = stage_params(m, lay), 8
    # Rajbhandari et al. (2020), Table 1: 2 + 2 + 12 bytes per parameter, partitioned by stage
    assert parts["stage_params"] == psi
    assert parts["params"] == pytest.approx(2 * psi / (nd if zero_stage >= 3 else 1))
    assert parts["grads"] == pytest.approx(2 * psi / (nd if zero_stage >= 2 else 1))
    assert parts["optimizer"] == pytest.approx(12 * psi / (nd if zero_stage >= 1 else 1))
    assert parts["activations"] > 0
    assert parts["total"] == layout_memory(m, lay)
    assert parts["params"] + parts["grads"] + parts["optimizer"] + parts["activations"] == pytest.approx(
        parts["total"])


def test_inference_memory_is_weights_plus_the_kv_cache():
    from interconnect.catalog import models
    from interconnect.parallel import transformer_params

    m = models.get("llama-class-70b")
    one = P.inference_memory(m, kv_heads=8, head_dim=128, batch=32, context=8192)
    # KV cache: 2 (K and V) * layers * kv_heads * head_dim * 2 bytes per token
    assert one["kv_cache"] == 2 * m.layers * 8 * 128 * 2 * 32 * 8192
    assert one["weights"] == 2 * transformer_params(m.layers, m.hidden, m.vocab, m.seq_len)
    assert one["total"] == one["weights"] + one["kv_cache"]
    # over tp = 8 and pp = 4: weights / 32, the cache of layers / 4 layers and 8 / 8 = 1 KV head
    split = P.inference_memory(m, kv_heads=8, head_dim=128, tp=8, pp=4, batch=32, context=8192)
    assert split["weights"] == pytest.approx(one["weights"] / 32)
    assert split["kv_cache"] == 2 * (m.layers // 4) * 1 * 128 * 2 * 32 * 8192
    # heads are replicated, not split below one, when tp > kv_heads
    assert P.inference_memory(m, 8, 128, tp=16, batch=1, context=1)["kv_cache"] == 2 * m.layers * 128 * 2
