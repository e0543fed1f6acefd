"""interconnect.serving.disagg against closed forms: the KV transfer (whole and layer-wise),
disaggregated against colocated serving, the goodputs and the verdict."""

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from interconnect import serving, topology, transfer
from interconnect.catalog import models
from interconnect.parallel.machines import machine
from interconnect.serving.steps import _decode
from interconnect.units import KiB

L70 = models.get("llama3-70b")
DSV3 = models.get("deepseek-v3")
H100 = machine("dgx-h100")


# ---------------------------------------------------------------------- KV transfer
def test_kv_transfer_rdma_is_gpudirect_rdma_of_one_shard():
    x = serving.kv_transfer_time(L70, 8192, "rdma", tp=8)
    assert x.total_bytes == 8192 * 320 * KiB
    assert x.bytes == 8192 * 40 * KiB                       # 8 KV heads over 8 GPUs, each its own NIC
    ref = transfer.gpudirect_rdma(topology.cluster(2, gpus_per_node=1), "n0.gpu0", "n1.gpu0", x.bytes)
    assert x.time == pytest.approx(ref.time) and x.exposed == x.time
    assert x.mechanism == "GPUDirect RDMA" and x.bandwidth == pytest.approx(x.bytes / x.time)
    assert x.bandwidth < 50e9                                # NDR 400 Gb/s, less its latency


def test_kv_transfer_paths_order_nvlink_pcie_rdma():
    t = {p: serving.kv_transfer_time(L70, 4096, p, tp=8).time for p in serving.KV_PATHS}
    assert t["nvlink"] < t["pcie"] < t["rdma"]
    nv = transfer.p2p_copy(topology.nvswitch(2, link="nvlink4"), "gpu0", "gpu1", 4096 * 40 * KiB)
    assert t["nvlink"] == pytest.approx(nv.time)


def test_kv_transfer_pair_is_alpha_beta():
    bw, lat = 25e9, 5e-6
    x = serving.kv_transfer_time(L70, 1000, (bw, lat), tp=4, batch=3)
    assert x.bytes == 3 * 1000 * 80 * KiB
    assert x.time == pytest.approx(lat + x.bytes / bw)


def test_kv_shards_sent_follow_the_smaller_group_and_mla():
    a = serving.kv_transfer_time(L70, 1024, "rdma", tp=8, decode_tp=2)
    assert a.bytes == 1024 * 320 * KiB / 2
    assert serving.kv_transfer_time(L70, 1024, "rdma", tp=16 // 2, pp=2).bytes == 1024 * 320 * KiB / 16
    # MLA: one latent per token and layer, split over the senders
    d = serving.kv_transfer_time(DSV3, 1024, "rdma", tp=8)
    assert d.total_bytes == 1024 * 61 * (512 + 64) * 2 and d.bytes == d.total_bytes / 8


def test_layerwise_closed_form():
    bw, lat, s = 50e9, 10e-6, 4096
    whole = serving.kv_transfer_time(L70, s, (bw, lat), tp=8)
    one = lat + whole.bytes / 80 / bw
    # prefill much longer than the transfer: only the last layer's piece shows
    slow = serving.kv_transfer_time(L70, s, (bw, lat), tp=8, layerwise=True, prefill=10.0)
    assert slow.exposed == pytest.approx(one)
    # a prefill of almost nothing: the 80 pieces one after another
    fast = serving.kv_transfer_time(L70, s, (bw, lat), tp=8, layerwise=True, prefill=1e-12)
    assert fast.exposed == pytest.approx(one + 79 * (one - 1e-12 / 80))
    p = 80 * one / 2   # each layer computes in half a piece's time
    mid = serving.kv_transfer_time(L70, s, (bw, lat), tp=8, layerwise=True, prefill=p)
    assert mid.exposed == pytest.approx(one + 79 * one / 2)


@settings(max_examples=40, deadline=None)
@given(s=st.integers(1, 65536), p1=st.floats(1e-6, 1.0), dp=st.floats(0, 1.0),
       path=st.sampled_from(serving.KV_PATHS))
def test_layerwise_exposed_shrinks_with_longer_prefill(s, p1, dp, path):
    a = serving.kv_transfer_time(L70, s, path, tp=8, layerwise=True, prefill=p1).exposed
    b = serving.kv_transfer_time(L70, s, path, tp=8, layerwise=True, prefill=p1 + dp).exposed
    assert b <= a * (1 + 1e-12)
    whole = serving.kv_transfer_time(L70, s, path, tp=8)
    assert b <= 80 * serving.kv_transfer_time(L70, s, path, tp=8, layerwise=True, prefill=1e9).exposed * (1 + 1e-12)
    assert whole.time > 0


def test_kv_transfer_errors():
    with pytest.raises(ValueError, match=r"link='ethernet' is unknown; allowed: nvlink, pcie, rdma"):
        serving.kv_transfer_time(L70, 1024, "ethernet")
    with pytest.raises(ValueError, match=r"link=3 is not allowed; allowed: nvlink, pcie, rdma or a"):
        serving.kv_transfer_time(L70, 1024, 3)
    with pytest.raises(ValueError, match=r"tokens=0 is not allowed; tokens must be an integer >= 1"):
        serving.kv_transfer_time(L70, 0)
    with pytest.raises(ValueError, match=r"layerwise=1 is not a bool"):
        serving.kv_transfer_time(L70, 10, layerwise=1)
    with pytest.raises(ValueError, match=r"bandwidth=0 .* must be > 0"):
        serving.kv_transfer_time(L70, 10, (0, 1e-6))


# ---------------------------------------------------------------------- colocated and disaggregated
def test_colocated_is_continuous_batching_per_replica():
    c = serving.colocated(L70, "dgx-h100", 6.0, 1024, 256, tp=8, replicas=2)
    s = serving.continuous_batching(L70, "dgx-h100", 8, 3.0, 1024, 256)
    assert (c.ttft, c.tpot, c.batch, c.gpus) == (s.ttft, s.tpot, s.batch, 16)
    assert c.throughput == 6.0 * 256 and c.throughput_per_gpu == 6.0 * 256 / 16
    assert c.label() == "colocated 2 x tp=8"


def test_disaggregated_closed_form():
    rate, prompt, output = 6.0, 2048, 128
    d = serving.disaggregated(L70, "dgx-h100", rate, prompt, output, prefill_tp=8, decode_tp=4,
                              prefill_replicas=2, decode_replicas=1, link="rdma")
    p = serving.prefill_time(L70, "dgx-h100", prompt, tp=8).total
    rho = rate / 2 * p
    kv = serving.kv_transfer_time(L70, prompt, "rdma", tp=8, decode_tp=4, layerwise=True, prefill=p).exposed
    assert d.ttft == pytest.approx(rho * p / (2 * (1 - rho)) + p + kv)     # M/D/1 wait + prefill + KV
    assert d.kv_transfer == kv
    assert d.batch == pytest.approx(rate * output * d.tpot)                # Little's law
    dec = _decode(L70, H100, 4, d.batch, prompt + output / 2, False, 2.0, 2.0, "auto").total
    assert d.tpot == pytest.approx(dec, rel=1e-8)                          # no prefill stalls
    assert d.gpus == 2 * 8 + 4
    assert d.label() == "disaggregated 2 x tp=8 prefill + 1 x tp=4 decode"


def test_pipelined_replicas_and_decode_instances():
    c = serving.colocated(L70, "dgx-h100", 2.0, 1024, 256, tp=4, replicas=2, pp=2)
    s = serving.continuous_batching(L70, "dgx-h100", 4, 1.0, 1024, 256, pp=2)
    assert (c.ttft, c.tpot, c.gpus, c.decode_pp) == (s.ttft, s.tpot, 16, 2)
    assert c.label() == "colocated 2 x tp=4 pp=2"
    d = serving.disaggregated(L70, "dgx-h100", 2.0, 1024, 256, decode_tp=4, decode_pp=2)
    assert d.gpus == 8 + 8 and d.label() == "disaggregated 1 x tp=8 prefill + 1 x tp=4 pp=2 decode"
    assert d.batch == pytest.approx(2.0 * 256 * d.tpot)


def test_disaggregation_removes_prefill_stalls_from_tpot():
    c = serving.colocated(L70, "dgx-h100", 8.0, 2048, 256, tp=8)
    d = serving.disaggregated(L70, "dgx-h100", 8.0, 2048, 256)
    assert d.tpot < c.tpot and d.gpus == 2 * c.gpus


def test_disaggregated_errors():
    p = serving.prefill_time(L70, "dgx-h100", 1024, tp=8).total
    with pytest.raises(ValueError, match=r"rate=\S+ is not sustainable by 1 prefill instance\(s\); allowed 0 < rate"):
        serving.disaggregated(L70, "dgx-h100", 1.01 / p, 1024, 256)
    with pytest.raises(ValueError, match=r"is not sustainable by 1 decode instance\(s\)"):
        serving.disaggregated(L70, "dgx-h100", 20.0, 1024, 32768, prefill_replicas=8)
    with pytest.raises(ValueError, match=r"prefill_replicas=0 is not allowed"):
        serving.disaggregated(L70, "dgx-h100", 1.0, 1024, 256, prefill_replicas=0)


# ---------------------------------------------------------------------- goodput and the verdict
def test_prefill_goodput_meets_the_ttft_slo_exactly():
    slo = 0.15
    g = serving.prefill_goodput(L70, "dgx-h100", 1024, slo, tp=8)
    p = serving.prefill_time(L70, "dgx-h100", 1024, tp=8).total
    rho = g * p
    assert rho * p / (2 * (1 - rho)) + p == pytest.approx(slo)
    assert serving.prefill_goodput(L70, "dgx-h100", 1024, p / 2, tp=8) == 0.0
    assert serving.prefill_goodput(L70, "dgx-h100", 1024, math.inf, tp=8) == pytest.approx(1 / p)


def test_decode_goodput_meets_the_tpot_slo_or_the_capacity():
    slo = 0.012
    g = serving.decode_goodput(L70, "dgx-h100", 1024, 256, slo, tp=8)
    d = serving.disaggregated(L70, "dgx-h100", g * 0.999999, 1024, 256, prefill_replicas=8)
    assert d.tpot == pytest.approx(slo, rel=1e-4)
    # a loose objective: the decode instance's own limit binds (here its GEMMs: the fixed point
    # T = D(rate output T) stops existing before the cache is full)
    cap = serving.decode_goodput(L70, "dgx-h100", 1024, 256, 10.0, tp=8)
    st_ = serving.kv_capacity(L70, "H100", tp=8)
    d = serving.disaggregated(L70, "dgx-h100", cap * 0.999, 1024, 256, prefill_replicas=8)
    assert d.batch * (1024 + 128) <= st_.tokens
    step = serving.decode_step_time(L70, "dgx-h100", round(d.batch), 1152, tp=8)
    assert step.linear > step.weights       # the weight GEMMs are bound by their arithmetic
    with pytest.raises(ValueError, match="not sustainable by 1 decode"):
        serving.disaggregated(L70, "dgx-h100", cap * 1.001, 1024, 256, prefill_replicas=8)


def test_colocated_goodput_is_the_largest_rate_within_both_slos():
    g = serving.colocated_goodput(L70, "dgx-h100", 1024, 256, 0.2, 0.008, tp=8)
    ok = serving.colocated(L70, "dgx-h100", g * 0.999, 1024, 256)
    assert ok.tpot <= 0.008 and ok.ttft <= 0.2
    bad = serving.colocated(L70, "dgx-h100", g * 1.01, 1024, 256)
    assert bad.tpot > 0.008 or bad.ttft > 0.2


def test_disagg_pays_per_gpu_closed_form():
    v = serving.disagg_pays(L70, "dgx-h100", 1024, 256, 0.5, 0.02)
    assert v.colocated_per_gpu == pytest.approx(v.colocated_goodput / 8)
    assert v.disaggregated_per_gpu == pytest.approx(1 / (8 / v.prefill_goodput + 8 / v.decode_goodput))
    assert v.pays == (v.disaggregated_per_gpu > v.colocated_per_gpu)
    assert v.decode_per_prefill == pytest.approx(v.prefill_goodput / v.decode_goodput)
    assert "per GPU" in v.why and "KV transfer adds" in v.why


def test_disagg_pays_when_tpot_is_tight_not_when_loose():
    assert serving.disagg_pays(L70, "dgx-h100", 1024, 256, 0.5, 0.02).pays
    assert not serving.disagg_pays(L70, "dgx-h100", 1024, 256, 0.5, 0.1).pays


def test_slo_errors():
    with pytest.raises(ValueError, match=r"ttft_slo=0 is not allowed; ttft_slo must be > 0 seconds"):
        serving.prefill_goodput(L70, "dgx-h100", 1024, 0)
    with pytest.raises(ValueError, match=r"tpot_slo=-1 is not allowed"):
        serving.disagg_pays(L70, "dgx-h100", 1024, 256, 1.0, -1)
