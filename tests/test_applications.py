"""Application models: decode step, stencil halo exchange, job cost (interconnect.applications)."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from interconnect import applications as A
from interconnect import collectives as C

NV4_BW, NV4_LAT = 450e9, 0.6e-6     # links.get_link("nvlink4")
HBM = 3.35e12                        # H100 SXM datasheet
READ = HBM * 0.686                   # what decode's streaming kernels reach (serving.STREAM_EFFICIENCY)
KV_READ = HBM * 0.829                # what decode attention reads the cache at (serving.DECODE_ATTENTION_EFFICIENCY)


def test_decode_single_gpu_is_the_weight_read():
    # t = 1: no AllReduce; 2 bytes per parameter over the HBM bandwidth a streaming kernel reaches
    d = A.decode_step(7e9, 32, 4096, 1, NV4_BW, NV4_LAT, HBM)
    assert d.comm == 0.0
    assert d.total == pytest.approx(2 * 7e9 / READ, rel=1e-3)
    assert d.tokens_per_second == pytest.approx(1 / d.total)


def test_decode_comm_is_2l_ring_allreduces():
    # Shoeybi et al. 2019: two AllReduces per layer of b h activations
    d = A.decode_step(70e9, 80, 8192, 8, NV4_BW, NV4_LAT, HBM, batch=4)
    one = C.collective_time("allreduce", 2 * 4 * 8192, 8, NV4_BW, NV4_LAT)
    assert d.comm == pytest.approx(2 * 80 * one)
    assert d.weights == pytest.approx(2 * 70e9 / 8 / READ, rel=1e-3)
    assert d.total == pytest.approx(d.weights + d.kv + d.comm)
    assert d.tokens_per_second == pytest.approx(4 / d.total)


def test_decode_is_the_serving_roofline_per_kind_of_kernel():
    # compute-bound GEMMs do not hide the KV read: max(weights, compute) + kv + comm, the
    # serving models' step (serving.decode_roofline), not max(weights + kv, compute)
    from interconnect.serving import decode_roofline

    d = A.decode_step(70e9, 80, 8192, 8, NV4_BW, NV4_LAT, HBM, batch=512, kv_bytes=200e9, peak_flops=700e12)
    assert d.compute > d.weights
    assert d.total == pytest.approx(d.compute + d.kv + d.comm)
    assert d.total == pytest.approx(decode_roofline(d.weights, d.kv, d.compute) + d.comm)
    assert d.total > max(d.weights + d.kv, d.compute) + d.comm


def test_decode_kv_is_split_over_tp():
    d1 = A.decode_step(70e9, 80, 8192, 4, NV4_BW, NV4_LAT, HBM, kv_bytes=40e9)
    assert d1.kv == pytest.approx(40e9 / 4 / KV_READ, rel=1e-3)


def test_decode_reads_at_the_serving_models_stream_bandwidth():
    # one bandwidth for decode: applications.decode_step and serving.decode_step_time read HBM
    # at the same fraction of the peak; stream_efficiency=1 is the peak roofline
    from interconnect.serving import stream_bandwidth
    from interconnect.serving.steps import STREAM_EFFICIENCY

    d = A.decode_step(7e9, 32, 4096, 1, NV4_BW, NV4_LAT, HBM)
    assert d.weights == pytest.approx(2 * 7e9 / stream_bandwidth("dgx-h100"))
    assert d.weights == pytest.approx(2 * 7e9 / (HBM * STREAM_EFFICIENCY))
    peak = A.decode_step(7e9, 32, 4096, 1, NV4_BW, NV4_LAT, HBM, stream_efficiency=1.0)
    assert peak.weights == pytest.approx(2 * 7e9 / HBM)
    with pytest.raises(ValueError, match="stream_efficiency"):
        A.decode_step(7e9, 32, 4096, 1, NV4_BW, NV4_LAT, HBM, stream_efficiency=1.5)


def test_decode_vectorised_over_tp():
    tps = np.array([1, 2, 4, 8])
    d = A.decode_step(70e9, 80, 8192, tps, NV4_BW, NV4_LAT, HBM)
    for i, t in enumerate(tps):
        assert d.total[i] == pytest.approx(A.decode_step(70e9, 80, 8192, int(t), NV4_BW, NV4_LAT, HBM).total)


@given(st.integers(1, 4), st.floats(1e-7, 1e-5))
def test_decode_more_latency_never_faster(k, lat):
    t = 2 ** k
    a = A.decode_step(70e9, 80, 8192, t, NV4_BW, lat, HBM).total
    b = A.decode_step(70e9, 80, 8192, t, NV4_BW, 2 * lat, HBM).total
    assert b > a


def test_halo_closed_form():
    # 6 faces of n^2 cells, 8 bytes each; update 16 bytes per cell over HBM
    s = A.halo_step(100, 50e9, 2e-6, HBM)
    assert s.halo_bytes == pytest.approx(6 * 100 ** 2 * 8)
    assert s.comm == pytest.approx(6 * (2e-6 + 100 ** 2 * 8 / 50e9))
    assert s.compute == pytest.approx(100 ** 3 * 16 / HBM)
    assert s.surface_to_volume == pytest.approx(0.06)
    assert s.total == pytest.approx(s.compute + s.comm)
    o = A.halo_step(100, 50e9, 2e-6, HBM, overlap=True)
    assert o.total == pytest.approx(max(s.compute, s.comm))


@given(st.floats(1e9, 1e12), st.floats(0, 1e-5), st.floats(1e11, 1e13), st.integers(1, 3), st.sampled_from([2, 4, 6]))
def test_crossover_balances_compute_and_comm(bw, lat, mem, halo, faces):
    n = A.halo_crossover(bw, lat, mem, halo=halo, faces=faces)
    s = A.halo_step(n, bw, lat, mem, halo=halo, faces=faces)
    assert s.compute == pytest.approx(s.comm, rel=1e-6)
    # comm dominates below n*, compute above
    assert A.halo_step(0.5 * n, bw, lat, mem, halo=halo, faces=faces).comm_share > 0.5
    assert A.halo_step(2 * n, bw, lat, mem, halo=halo, faces=faces).comm_share < 0.5


def test_crossover_without_latency_is_a_bandwidth_ratio():
    # n* = faces halo bytes_per_cell B_mem / (bytes_per_update B_link)
    assert A.halo_crossover(50e9, 0.0, HBM) == pytest.approx(6 * 8 * HBM / (16 * 50e9))
    np.testing.assert_allclose(A.halo_crossover(np.array([50e9, 450e9]), 0.0, HBM),
                               6 * 8 * HBM / (16 * np.array([50e9, 450e9])))


def test_job_cost():
    assert A.job_cost(7200, 4, 98.32) == pytest.approx(2 * 4 * 98.32)


@pytest.mark.parametrize("call, name", [
    (lambda: A.decode_step(70e9, 80, 8192, 0, NV4_BW, NV4_LAT, HBM), "tp"),
    (lambda: A.decode_step(-1, 80, 8192, 2, NV4_BW, NV4_LAT, HBM), "n_params"),
    (lambda: A.decode_step(70e9, 80, 8192, 2, NV4_BW, NV4_LAT, HBM, batch=0), "batch"),
    (lambda: A.halo_step(0, 50e9, 1e-6, HBM), "n"),
    (lambda: A.halo_step(64, 50e9, -1e-6, HBM), "latency"),
    (lambda: A.halo_step(64, 50e9, 1e-6, HBM, overlap="yes"), "overlap"),
    (lambda: A.halo_crossover(50e9, 1e-6, HBM, faces=0), "faces"),
    (lambda: A.job_cost(3600, 0, 10.0), "instances"),
    (lambda: A.job_cost(3600, 1, 0.0), "price_per_instance_hour"),
])
def test_bad_input_names_the_parameter(call, name):
    with pytest.raises(ValueError, match=name):
        call()


def test_decode_roofline_takes_the_longer_of_memory_and_arithmetic():
    # 2 N b FLOPs per step; at batch 1 the weight read dominates, at a huge batch the arithmetic
    small = A.decode_step(70e9, 80, 8192, 8, NV4_BW, NV4_LAT, HBM, batch=1, peak_flops=700e12)
    assert small.total == pytest.approx(small.weights + small.comm)
    big = A.decode_step(70e9, 80, 8192, 8, NV4_BW, NV4_LAT, HBM, batch=1024, peak_flops=700e12)
    assert big.compute == pytest.approx(2 * 70e9 * 1024 / 8 / 700e12)
    assert big.total == pytest.approx(big.compute + big.comm)
    with pytest.raises(ValueError, match="peak_flops"):
        A.decode_step(70e9, 80, 8192, 8, NV4_BW, NV4_LAT, HBM, peak_flops=0.0)


# --- the chapter's serving scenario (Llama 2 on H100) -----------------------------------------
# Sizes: Touvron et al. 2023 (arXiv:2307.09288), Table 1: 70B has 80 layers, h = 8192 and 8 KV heads
# (grouped-query attention), 7B has 32 layers and 32 heads of 128. KV cache per token (Kwon et al. 2023,
# sec. 3): 2 (K and V) x layers x KV heads x 128 x 2 bytes.
KV_TOKEN_70B = 2 * 80 * 8 * 128 * 2          # 327,680 B = 320 KiB per token
KV_TOKEN_7B = 2 * 32 * 32 * 128 * 2          # 524,288 B = 0.5 MiB per token


def test_serving_batch_is_free_memory_over_kv_per_sequence():
    # 8 x 76 GB (decimal) less 140 GB of BF16 weights, in sequences of 4,096 tokens: 468e9 / 1.342e9 = 348.7
    assert A.max_batch(8, 76e9, 140e9, KV_TOKEN_70B * 4096) == 348
    # the chapter's usable memory is 76 GiB of an 80 GiB H100: (8 x 81.6e9 - 140e9) / 1.342e9 = 382.1
    assert A.H100_USABLE_MEMORY == 76 * 2**30
    assert A.serve(8, "nvlink4")[0] == 382
    # t = 2: 23.2 GB of room, 17 sequences; 16,384-token contexts on 8 GPUs: 95
    assert A.serve(2, "nvlink4")[0] == 17
    assert A.serve(8, "nvlink4", context=16384)[0] == 95
    with pytest.raises(ValueError, match="tp=1"):
        A.serve(1, "nvlink4")           # 140 GB of weights do not fit 76 GiB (81.6 GB)


def test_group_fits_weights_plus_kv():
    kv = KV_TOKEN_70B * 4096             # one sequence of 4,096 tokens, 1.34 GB
    assert A.group_fits(np.array([1, 2, 4, 8]), 76e9, 140e9, kv).tolist() == [False, True, True, True]
    assert A.group_fits(2, 76e9, 140e9, 12e9) is True       # 152 GB >= 152 GB
    assert A.group_fits(2, 76e9, 140e9, 12.1e9) is False


def test_llama2_decode_single_gpu_is_weights_plus_kv_over_hbm():
    # 7B on one H100 at batch 1: no AllReduce, the step reads 14 GB of weights and a 4,096-token
    # KV cache (2 GiB), the weights at the 68.6 % of 3.35 TB/s (H100 SXM datasheet) a streaming kernel
    # reaches, the cache at the 82.9 % a decode attention kernel reaches; the arithmetic is far shorter
    from interconnect.serving.steps import DECODE_ATTENTION_EFFICIENCY, STREAM_EFFICIENCY

    d = A.llama2_decode("7B", 1, "nvlink4", batch=1, context=4096)
    assert KV_TOKEN_7B * 4096 == 2 ** 31
    assert d.comm == 0.0
    assert d.total == pytest.approx(14e9 / (HBM * STREAM_EFFICIENCY) + 2 ** 31 / (HBM * DECODE_ATTENTION_EFFICIENCY),
                                    rel=1e-12)


def test_llama2_decode_is_decode_step_with_the_chapter_arguments():
    from interconnect import devices, links, memory, parallel

    h, pc = devices.get_gpu("H100"), links.get_link("pcie5x16")
    tps = np.array([1, 2, 4, 8])
    direct = A.decode_step(70e9, 80, 8192, tps, pc.bandwidth, pc.latency, h.memory_bandwidth, batch=32,
                           kv_bytes=memory.kv_cache_bytes(80, 8, 128, 4096, 32),
                           peak_flops=h.peak_flops * parallel.ceiling_fraction("H100"))
    assert np.array_equal(A.llama2_decode("70B", tps, "pcie5x16", batch=32).total, direct.total)


def test_the_chapter_machines_are_the_datasheet_machines():
    # NVLink 4: 900 GB/s per GPU both directions (450 per direction); NDR: 400 Gb/s = 50 GB/s per NIC;
    # H100 SXM: 989.4 TFLOP/s dense BF16, 3.35 TB/s HBM3 (the scenario the chapter and its checkers share)
    from interconnect import scenarios

    nodes = scenarios.applications().nodes
    c = nodes["NVLink nodes, 8 NICs"]
    assert (c.gpus_per_node, c.intra_bandwidth, c.inter_bandwidth) == (8, 450e9, 50e9)
    assert (c.peak_flops, c.memory_bandwidth) == (989.4e12, 3.35e12)
    assert nodes["PCIe nodes, 8 NICs"].intra_bandwidth == pytest.approx(16 * 32e9 * 128 / 130 / 8)
    assert nodes["NVLink nodes, 1 NIC"].inter_bandwidth == 50e9 / 8     # one NIC shared by 8 GPUs
