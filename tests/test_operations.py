"""interconnect.operations: the data-loading pipeline, synthetic step logs, scaling efficiency.

Expected values are closed forms: a pipeline runs at its slowest stage (the bottleneck
bound of Lazowska et al. 1984, ch. 5); MFU as in Chowdhery et al. (2022), App. B; weak
and strong scaling efficiency as in Shoeybi et al. (2019).
"""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from interconnect import operations as O
from interconnect import parallel as P
from interconnect.parallel import Cluster, Layout, ModelConfig, machines

GB = 1e9


def _stages(**kw):
    args = dict(sample_bytes=110e3, decoded_bytes=150_528, storage_bandwidth=2 * GB, network_bandwidth=25 * GB,
                cpu_cores=112, decode_rate=150.0, h2d_bandwidth=8 * 63e9, gpu_rate=24_000.0)
    args.update(kw)
    return O.loader_stages(**args)


def _step():
    m = ModelConfig(40, 5120, 40, 2048, 51200, 64)
    return m, P.step_time(m, Layout(dp=2, tp=8, pp=1), Cluster.dgx_a100())


def test_loader_stages_closed_form():
    s = _stages()
    assert list(s) == list(O.STAGES)
    assert s["storage"] == pytest.approx(2e9 / 110e3)          # bytes/s over bytes per sample
    assert s["network"] == pytest.approx(25e9 / 110e3)
    assert s["decode"] == pytest.approx(112 * 150.0)            # cores x samples/s per core
    assert s["h2d"] == pytest.approx(8 * 63e9 / 150_528)        # decoded bytes cross PCIe
    assert s["gpu"] == 24_000.0


def test_pipeline_throughput_is_the_slowest_stage():
    rate, name = O.pipeline_throughput(_stages())
    assert name == "decode" and rate == pytest.approx(16_800.0)
    assert O.data_stall_fraction(_stages()) == pytest.approx(1 - 16_800 / 24_000)


def test_ties_go_to_the_first_stage_and_arrays_work():
    rate, name = O.pipeline_throughput({"a": 5.0, "b": 5.0, "c": 7.0})
    assert (rate, name) == (5.0, "a")
    rate, names = O.pipeline_throughput(_stages(cpu_cores=np.array([16, 112, 448])))
    assert list(names) == ["decode", "decode", "storage"]
    assert rate[2] == pytest.approx(2e9 / 110e3)


@given(st.lists(st.floats(1e-3, 1e9), min_size=1, max_size=8))
def test_throughput_never_exceeds_any_stage(rates):
    stages = {f"s{i}": r for i, r in enumerate(rates)}
    rate, name = O.pipeline_throughput(stages)
    assert rate == min(rates) and stages[name] == rate


@given(st.floats(1e2, 1e6), st.floats(1.0, 10.0))
def test_stall_is_zero_when_the_gpu_binds(gpu_rate, margin):
    stages = {"load": gpu_rate * margin, "gpu": gpu_rate}
    assert O.data_stall_fraction(stages) == pytest.approx(0.0, abs=1e-12)


def test_synthetic_log_is_deterministic_and_centred():
    _, s = _step()
    a = O.synthetic_step_log(s, steps=2000, seed=3)
    b = O.synthetic_step_log(s, steps=2000, seed=3)
    assert np.array_equal(a["total"], b["total"])
    assert not np.array_equal(a["total"], O.synthetic_step_log(s, steps=2000, seed=4)["total"])
    assert np.allclose(a["total"], a["compute"] + a["comm"])
    # log-normal factors of median 1: the medians follow the model's parts
    assert np.median(a["compute"]) == pytest.approx(s.compute + s.bubble, rel=0.01)
    comm0 = s.tp_comm + s.pp_comm + s.ep_comm + s.dp_comm_exposed
    assert np.median(a["comm"]) == pytest.approx(comm0, rel=0.02)


def test_no_noise_reproduces_the_model_and_stragglers_slow_it():
    _, s = _step()
    log = O.synthetic_step_log(s, steps=10, jitter=0.0, comm_jitter=0.0)
    assert np.allclose(log["total"], s.total)
    slow = O.synthetic_step_log(s, steps=10, jitter=0.0, comm_jitter=0.0, straggler_rate=1.0, straggler_factor=2.0)
    comm0 = s.total - s.compute - s.bubble
    assert np.allclose(slow["total"], s.total + comm0)


def test_analyse_log_recovers_the_model_mfu():
    m, s = _step()
    log = O.synthetic_step_log(s, steps=50, jitter=0.0, comm_jitter=0.0)
    tokens = m.global_batch * m.seq_len
    out = O.analyse_step_log(log["total"], tokens, m.model_flops() / tokens, 16, Cluster.dgx_a100().peak_flops,
                             comm=log["comm"], warmup=5)
    assert out["steps"] == 45
    assert out["mfu"] == pytest.approx(s.mfu)      # same FLOPs over the same time
    assert out["comm_share"] == pytest.approx((s.total - s.compute - s.bubble) / s.total)
    assert out["tokens_per_second"] == pytest.approx(tokens / s.total)


def test_scaling_efficiency_closed_forms():
    assert O.scaling_efficiency(1.0, 1.25, 8) == pytest.approx(0.8)                    # weak: t1 / tn
    assert O.scaling_efficiency(8.0, 1.25, 8, mode="strong") == pytest.approx(0.8)     # strong: t1 / (n tn)
    # Megatron-LM: 15.1 PFLOP/s on 512 GPUs against 39 TFLOP/s on one, i.e. per-GPU time ratio
    assert O.scaling_efficiency(1 / 39e12, 512 / 15.1e15, 512) == pytest.approx(0.756, abs=0.001)
    assert np.allclose(O.scaling_efficiency(1.0, np.array([1.0, 2.0]), 2), [1.0, 0.5])


@pytest.mark.parametrize("call, name", [
    (lambda: _stages(sample_bytes=0), "sample_bytes"),
    (lambda: _stages(cpu_cores=1.5), "cpu_cores"),
    (lambda: O.pipeline_throughput({}), "stages"),
    (lambda: O.pipeline_throughput({"a": -1.0}), "stages"),
    (lambda: O.data_stall_fraction({"a": 1.0}), "consumer"),
    (lambda: O.synthetic_step_log(1.0), "step"),
    (lambda: O.synthetic_step_log(_step()[1], straggler_factor=0.5), "straggler_factor"),
    (lambda: O.synthetic_step_log(_step()[1], straggler_rate=1.5), "straggler_rate"),
    (lambda: O.analyse_step_log([1.0, 1.0], 1.0, 1.0, 1, 1.0, warmup=2), "warmup"),
    (lambda: O.analyse_step_log([1.0, 1.0], 1.0, 1.0, 1, 1.0, comm=[0.1]), "comm"),
    (lambda: O.scaling_efficiency(1.0, 1.0, 2, mode="linear"), "mode"),
    (lambda: O.scaling_efficiency(0.0, 1.0, 2), "time_base"),
])
def test_bad_input_names_the_parameter(call, name):
    with pytest.raises(ValueError, match=name):
        call()


# --- the chapter's machines, placements and link sensitivity ------------------------------------

def test_the_chapter_machines_are_the_datasheet_machines():
    # H100 SXM: 989.4 TFLOP/s dense BF16, 3.35 TB/s; NVLink 4 450 GB/s per direction; NDR 400 Gb/s = 50 GB/s;
    # 100 GbE = 12.5 GB/s (the scenario the chapter and its checkers share)
    from interconnect import scenarios

    c = scenarios.operations().clusters["NVLink + NDR IB"]
    assert (c.gpus_per_node, c.peak_flops, c.memory_bandwidth) == (8, 989.4e12, 3.35e12)
    assert (c.intra_bandwidth, c.inter_bandwidth) == (450e9, 50e9)
    # the H100's measured GEMM ceiling and NVLink 4's measured ring efficiency (as the dgx-h100 preset)
    assert c.gemm_efficiency == P.ceiling_fraction("H100")
    assert c.comm_efficiency == machines.comm_efficiency_of("nvlink4")
    assert scenarios.operations().clusters["PCIe + 100 GbE"].inter_bandwidth == 12.5e9
    assert Cluster.from_links("A100", "nvlink3", "ib-hdr") == Cluster.dgx_a100()

def test_image_loader_node_rates_are_the_chapter_closed_forms():
    # 112 cores x 150 images/s = 16,800; 2 GB/s / 110 kB = 18,182; 8 x 3,000 = 24,000 (DGX H100, chapter text)
    st_ = O.loader_stages(**O.image_loader_node())
    assert st_["decode"] == pytest.approx(16_800)
    assert st_["storage"] == pytest.approx(2e9 / 110e3)
    assert st_["gpu"] == pytest.approx(24_000)
    assert st_["h2d"] == pytest.approx(8 * 16 * 32e9 * 128 / 130 / 8 / (224 * 224 * 3))
    assert O.pipeline_throughput(st_) == (pytest.approx(16_800), "decode")


def test_split_rings_use_every_rail_once_each_way():
    for k in (2, 4, 8):
        rings = O.split_rings(k)
        assert len(rings) == k
        members = {f"n0.gpu{i}" for i in range(k)} | {f"n1.gpu{i}" for i in range(k)}
        assert all(set(r) == members and len(r) == 2 * k for r in rings)
        # the two hops between the nodes of ring r: n0.gpu r -> n1.gpu r (rail r) and back on rail r + 1
        out = sorted(r[k - 1] for r in rings)
        back = sorted(r[-1] for r in rings)
        assert out == sorted(f"n0.gpu{i}" for i in range(k))
        assert back == sorted(f"n1.gpu{i}" for i in range(k))
        assert all(r[k - 1][-1] == r[k][-1] for r in rings)        # leaves and arrives on the same rail


def test_tp_placement_times_match_the_ring_closed_forms():
    # Ring AllReduce (Thakur et al. 2005): 2 (p-1) (alpha + n / (p B)) with p = 8, alpha = 0.6 us. In one node
    # B is NVLink 4 (450 GB/s); split 4 + 4 with one ring the bottleneck is the one NDR NIC (50 GB/s) each way;
    # with four rings, one per rail, each NIC carries a quarter of the bytes.
    n, a = 256e6, 0.6e-6
    t = O.tp_placement_times(n)
    assert list(t) == list(O.PLACEMENTS)
    assert t["one node (NVLink)"] == pytest.approx(14 * (a + n / 8 / 450e9), rel=0.01)
    assert t["split 4 + 4, one ring"] == pytest.approx(14 * n / 8 / 50e9, rel=0.03)
    assert t["split 4 + 4, four rings"] == pytest.approx(14 * n / 4 / 8 / 50e9, rel=0.03)


def test_link_sensitivity_scales_the_bandwidth_terms():
    # alpha-beta: with zero latency every communication time is bytes / bandwidth, so dividing every
    # bandwidth by k multiplies each unoverlapped communication term by k: step = compute + k comm
    m = ModelConfig(24, 2048, 16, 2048, 51200, 64)
    lay = Layout(dp=16, tp=1, pp=1, dp_overlap=0.0)
    from dataclasses import replace

    cl = replace(Cluster.from_links("H100", "nvlink4", "ib-ndr"), intra_latency=0.0, inter_latency=0.0)
    s = P.step_time(m, lay, cl)
    comm = s.tp_comm + s.pp_comm + s.ep_comm + s.dp_comm_exposed
    assert s.total == pytest.approx(s.compute + s.bubble + comm) and comm > 0.05 * s.total
    assert O.link_sensitivity(m, lay, cl, bandwidth_divisor=4) == pytest.approx((s.total + 3 * comm) / s.total)
    assert O.link_sensitivity(m, lay, cl) == 1.0
    assert O.link_sensitivity(m, lay, cl, latency_factor=10) == 1.0      # no latency to multiply
