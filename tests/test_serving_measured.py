"""The serving model's two measured decode components against the data they come from
(``benchmarks/data/decode_streaming_h200.json``, made by ``benchmarks/decode_streaming.py`` on one
H200): the FP8 linear-layer curve and the decode-attention fraction, and where each applies."""

import dataclasses
import json
import statistics
from collections import defaultdict
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from interconnect import serving
from interconnect.catalog import models
from interconnect.devices import get_gpu
from interconnect.parallel import ceiling_fraction

DATA = json.loads((Path(__file__).resolve().parents[1] / "benchmarks" / "data" / "decode_streaming_h200.json")
                  .read_text(encoding="utf-8"))
H200 = get_gpu("H200")
L70 = models.get("llama3-70b")


def test_data_is_an_h200_at_its_datasheet_peaks():
    assert DATA["gpu"] == "NVIDIA H200" and DATA["peak_bytes_per_s"] == H200.memory_bandwidth == 4.8e12
    # a plain copy reaches 89 % of the peak: no measured kernel above it
    copy = DATA["copy"]["bytes_per_s"] / H200.memory_bandwidth
    assert 0.85 < copy < 0.92
    assert all(r["timing"] == "graph" for r in DATA["gemm_curve"] + DATA["attention"])


def test_fp8_linear_roofline_is_the_medians_of_the_fast_accumulation_rows():
    # x: FLOPs at the FP8 peak over bytes at the HBM peak; f: that roofline over the measured time
    by = defaultdict(list)
    for r in DATA["gemm_curve"]:
        if r["fast_accum"]:
            t_bytes = r["bytes"] / H200.memory_bandwidth
            t_flops = r["flops"] / H200.peak_flops_fp8
            by[r["m"]].append((t_flops / t_bytes, max(t_bytes, t_flops) / r["s"]))
    assert len(by) == len(serving.FP8_LINEAR_ROOFLINE) == 17
    assert all(len(v) == 16 for v in by.values())       # 8B and 70B at TP 1, 70B at TP 2, 405B at TP 8
    for m, x, f in serving.FP8_LINEAR_ROOFLINE:
        assert x == pytest.approx(statistics.median(a for a, _ in by[m]), abs=5e-4)
        assert f == pytest.approx(statistics.median(b for _, b in by[m]), abs=5e-4)
    # the few-row end agrees with DeepGEMM's H800 median (STREAM_EFFICIENCY) within 5 %
    few = [r["bytes_per_s"] / H200.memory_bandwidth for r in DATA["gemm"] if r["m"] in (64, 128)]
    assert statistics.median(few) == pytest.approx(serving.STREAM_EFFICIENCY, rel=0.05)
    # the many-row end is below the best shape of Bekman's sweep (the ceiling the TensorRT engines keep)
    assert serving.FP8_LINEAR_ROOFLINE[-1][2] < ceiling_fraction("H200", "fp8")


def test_decode_attention_efficiency_is_the_cudnn_median():
    cudnn = [r["bytes_per_s"] / H200.memory_bandwidth for r in DATA["attention"] if r["backend"] == "CUDNN_ATTENTION"]
    flash = [r["bytes_per_s"] / H200.memory_bandwidth for r in DATA["attention"] if r["backend"] == "FLASH_ATTENTION"]
    assert len(cudnn) == 10
    assert serving.DECODE_ATTENTION_EFFICIENCY == pytest.approx(statistics.median(cudnn), abs=5e-4)
    # PyTorch's FlashAttention-2 is not a decode kernel: about half
    assert statistics.median(flash) < 0.6 * serving.DECODE_ATTENTION_EFFICIENCY


def test_linear_roofline_fraction_interpolates_and_holds_its_ends():
    pts = serving.FP8_LINEAR_ROOFLINE
    for _, x, f in pts:
        assert serving.linear_roofline_fraction(x) == pytest.approx(f)
    assert serving.linear_roofline_fraction(1e-6) == pts[0][2] and serving.linear_roofline_fraction(1e6) == pts[-1][2]
    # halfway in log x between two points: the mean of their fractions
    (_, x0, f0), (_, x1, f1) = pts[6], pts[7]
    assert serving.linear_roofline_fraction((x0 * x1) ** 0.5) == pytest.approx((f0 + f1) / 2)
    with pytest.raises(ValueError, match="x=0"):
        serving.linear_roofline_fraction(0.0)


@given(st.floats(1e-3, 1e3))
def test_linear_roofline_fraction_stays_within_the_measured_range(x):
    fs = [p[2] for p in serving.FP8_LINEAR_ROOFLINE]
    assert min(fs) <= serving.linear_roofline_fraction(x) <= max(fs)


def test_fp8_decode_gemms_on_hopper_take_the_curve():
    # Llama 3 70B at TP 8 on H100, batch 256: the layer's bounds at the peaks, both over the measured share
    b = 256
    d = serving.decode_step_time(L70, "dgx-h100", b, 1, tp=8, fp8=True)
    h100 = serving.as_machine("dgx-h100")
    t = L70.forward_flops_per_token()
    t_bytes = L70.params / 8 / h100.memory_bandwidth
    t_flops = b * (t["matmul"] + t["logits"]) / 8 / h100.peak_flops_fp8
    share = serving.linear_roofline_fraction(t_flops / t_bytes)
    assert d.weights == pytest.approx(t_bytes / share) and d.linear == pytest.approx(t_flops / share)
    # near the ridge the kernel is slower than the plain roofline at the ceiling and the streaming fraction
    assert max(d.weights, d.linear) > max(L70.params / 8 / serving.stream_bandwidth(h100),
                                          t_flops / ceiling_fraction("H100", "fp8"))
    # BF16, a GPU off the curve (Blackwell) or a named FP8 efficiency: the plain roofline
    named = dataclasses.replace(h100, fp8_gemm_efficiency=0.5)
    dn = serving.decode_step_time(L70, named, b, 1, tp=8, fp8=True)
    assert dn.weights == pytest.approx(L70.params / 8 / serving.stream_bandwidth(h100))
    assert dn.linear == pytest.approx(t_flops / 0.5)
    assert "B200" not in serving.FP8_CURVE_GPUS
    b200 = serving.as_machine("dgx-b200")
    db = serving.decode_step_time(L70, b200, b, 1, tp=8, fp8=True)
    assert db.weights == pytest.approx(L70.params / 8 / serving.stream_bandwidth(b200))


def test_kv_reads_at_the_decode_attention_fraction_everywhere():
    for name in ("dgx-a100", "dgx-h100", "dgx-b200"):
        cl = serving.as_machine(name)
        d = serving.decode_step_time(L70, cl, 32, 4096, tp=8)
        kv = 32 * 4096 * serving.kv_bytes_per_token(L70, 8, 1, 2)
        assert d.kv == pytest.approx(kv / (cl.memory_bandwidth * serving.DECODE_ATTENTION_EFFICIENCY))


def test_tensorrt_engines_keep_the_ceiling_roofline():
    from interconnect.serving.published import PUBLISHED

    assert serving.TENSORRT_ENGINES == ("trtllm-v0.5", "trtllm-v0.6.1")
    for r in PUBLISHED:
        cl = serving.engine_machine(r)
        if r.engine in serving.TENSORRT_ENGINES and r.machine == "dgx-h100":
            assert cl.fp8_gemm_efficiency == ceiling_fraction("H100", "fp8")
        elif r.engine == "trtllm-bench":
            assert cl.fp8_gemm_efficiency is None
