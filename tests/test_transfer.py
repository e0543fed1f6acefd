"""Tests for interconnect.transfer: P2P, host staging, GPUDirect RDMA, bounce buffers."""

import dataclasses

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from interconnect import topology as T
from interconnect import transfer as X
from interconnect.links import get_link

FAST = settings(max_examples=40, deadline=None, database=None)
GB = 1e9
DGX1 = T.dgx1_hybrid_cube_mesh(with_pcie=True)
PCIE = T.pcie_tree()  # 2 sockets x 1 switch x 4 GPUs
CL = T.cluster(2, 8)
BIG = 1 * GB


def _steps_sum(t):
    assert t.time == pytest.approx(sum(s.seconds for s in t.steps))


def test_p2p_nvlink_alpha_beta():
    # V100 GPU0-GPU3: 2 NVLinks = 50 GB/s per direction, 0.6 us (links catalog)
    t = X.p2p_copy(DGX1, "gpu0", "gpu3", BIG)
    assert t.mechanism == "NVLink P2P" and t.path == ["gpu0", "gpu3"]
    assert t.time == pytest.approx(0.6e-6 + BIG / (50 * GB))
    _steps_sum(t)
    # NVSwitch: any pair gets 450 GB/s (H100, 18 links)
    s = X.p2p_copy(T.nvswitch(8), "gpu0", "gpu7", BIG)
    assert s.path == ["gpu0", "nvsw0", "gpu7"]
    assert s.time == pytest.approx(0.6e-6 + BIG / (450 * GB))


def test_p2p_pcie_and_socket_rule():
    # same PCIe switch: P2P at PCIe 3.0 x16 = 15.75 GB/s
    t = X.p2p_copy(PCIE, "gpu0", "gpu1", BIG)
    assert t.mechanism == "PCIe P2P" and t.path == ["gpu0", "sw0", "gpu1"]
    assert t.time == pytest.approx(1e-6 + BIG / get_link("pcie3x16").bandwidth)
    # across QPI/UPI: refused (GPUDirect RDMA docs: same upstream root complex)
    assert not X.p2p_supported(PCIE, "gpu0", "gpu4")
    with pytest.raises(ValueError, match="socket interconnect"):
        X.p2p_copy(PCIE, "gpu0", "gpu4", BIG)
    # DGX-1 GPU0-GPU6: no NVLink, PCIe route crosses QPI -> no P2P
    assert not X.p2p_supported(DGX1, "gpu0", "gpu6")
    assert X.p2p_supported(DGX1, "gpu0", "gpu1")


def test_ordering_nvlink_pcie_host_for_big_messages():
    # NVLink P2P < PCIe P2P < host staging for large copies
    nv = X.p2p_copy(DGX1, "gpu0", "gpu1", BIG).time
    pc = X.p2p_copy(PCIE, "gpu0", "gpu1", BIG).time
    hs = X.host_staged_copy(PCIE, "gpu0", "gpu1", BIG).time
    assert nv < pc < hs
    # unpipelined staging = two PCIe copies back to back
    assert hs == pytest.approx(2 * pc, rel=1e-3)


def test_host_staged_pipeline():
    one = X.host_staged_copy(PCIE, "gpu0", "gpu5", BIG)
    piped = X.host_staged_copy(PCIE, "gpu0", "gpu5", BIG, chunks=16)
    assert piped.time < one.time
    # pipelining two equal stages approaches one copy time: (c+1)/c x n/B
    b = get_link("pcie3x16").bandwidth
    assert piped.time == pytest.approx(17 / 16 * BIG / b, rel=1e-3)
    assert "cpu1" in one.path  # crosses the socket link on the H2D leg
    _steps_sum(one)
    _steps_sum(piped)
    # latency per chunk: for a tiny message more chunks only cost more
    small = [X.host_staged_copy(PCIE, "gpu0", "gpu1", 1e3, chunks=c).time for c in (1, 4, 16)]
    assert small == sorted(small)


def test_gpudirect_beats_bounce_buffer():
    for dst in ("n1.gpu0", "n1.gpu5"):
        rd = X.gpudirect_rdma(CL, "n0.gpu0", dst, BIG)
        bb = X.bounce_buffer(CL, "n0.gpu0", dst, BIG)
        assert rd.time < bb.time
        assert rd.path[0] == "n0.gpu0" and rd.path[1] == "n0.nic0" and rd.path[-1] == dst
        _steps_sum(rd)
        _steps_sum(bb)
    # GPUDirect RDMA is NIC-limited: 400 Gb/s = 50 GB/s per direction
    rd = X.gpudirect_rdma(CL, "n0.gpu0", "n1.gpu0", BIG)
    assert rd.bandwidth == pytest.approx(50 * GB, rel=1e-3)
    # pipelined bounce buffer gets close to GPUDirect but never beats it
    bbp = X.bounce_buffer(CL, "n0.gpu0", "n1.gpu0", BIG, chunks=32)
    assert rd.time < bbp.time < X.bounce_buffer(CL, "n0.gpu0", "n1.gpu0", BIG).time


@FAST
@given(st.floats(0, 1e10), st.floats(0, 1e10), st.integers(1, 8))
def test_time_monotone_in_nbytes(a, b, chunks):
    lo, hi = sorted((a, b))
    cases = [
        lambda n: X.p2p_copy(DGX1, "gpu0", "gpu4", n),
        lambda n: X.p2p_copy(PCIE, "gpu2", "gpu3", n),
        lambda n: X.host_staged_copy(PCIE, "gpu0", "gpu6", n, chunks=chunks),
        lambda n: X.gpudirect_rdma(CL, "n0.gpu1", "n1.gpu6", n),
        lambda n: X.bounce_buffer(CL, "n0.gpu1", "n1.gpu1", n, chunks=chunks),
    ]
    for f in cases:
        t1, t2 = f(lo), f(hi)
        assert t1.time <= t2.time * (1 + 1e-12)
        assert t1.time > 0


def test_errors():
    with pytest.raises(ValueError, match="nbytes"):
        X.p2p_copy(DGX1, "gpu0", "gpu1", -1)
    with pytest.raises(ValueError, match="src_gpu"):
        X.p2p_copy(DGX1, "gpu9", "gpu1", 1)
    with pytest.raises(ValueError, match="not a GPU"):
        X.p2p_copy(DGX1, "sw0", "gpu1", 1)
    with pytest.raises(ValueError, match="different GPUs"):
        X.p2p_copy(DGX1, "gpu1", "gpu1", 1)
    with pytest.raises(ValueError, match="chunks"):
        X.host_staged_copy(PCIE, "gpu0", "gpu1", 1, chunks=0)
    with pytest.raises(ValueError, match="host_memory_bandwidth"):
        X.host_staged_copy(PCIE, "gpu0", "gpu1", 1, host_memory_bandwidth=0)
    with pytest.raises(ValueError, match="PCIe tree"):
        X.host_staged_copy(T.nvswitch(8), "gpu0", "gpu1", 1)
    with pytest.raises(ValueError, match="different machines"):
        X.gpudirect_rdma(CL, "n0.gpu0", "n0.gpu1", 1)
    with pytest.raises(ValueError, match="different machines"):
        X.gpudirect_rdma(DGX1, "gpu0", "gpu1", 1)  # a single machine: no node attribute
    with pytest.raises(ValueError, match="networkx"):
        X.p2p_copy("dgx1", "gpu0", "gpu1", 1)


def test_transfer_is_frozen_and_printable():
    t = X.p2p_copy(DGX1, "gpu0", "gpu1", 0)
    assert t.bandwidth == 0.0 and t.time == pytest.approx(0.6e-6)
    with pytest.raises(dataclasses.FrozenInstanceError):
        t.time = 1.0
    assert "NVLink P2P" in str(t)


def test_steps_are_structured_and_their_kinds_name_what_they_are():
    g = T.dgx1_hybrid_cube_mesh(with_pcie=True)
    direct = X.p2p_copy(g, "gpu0", "gpu3", 2**30)
    assert [s.kind for s in direct.steps] == ["latency", "stream"]
    staged = X.host_staged_copy(g, "gpu0", "gpu6", 2**30, chunks=4)
    assert [s.kind for s in staged.steps] == ["d2h", "h2d", "chunks"]
    assert staged.steps[0].description.startswith("D2H copy gpu0")
    c = T.cluster(2, 8)
    assert [s.kind for s in X.bounce_buffer(c, "n0.gpu0", "n1.gpu0", 2**20).steps] == ["d2h", "rdma", "h2d"]
    assert [s.kind for s in X.gpudirect_rdma(c, "n0.gpu0", "n1.gpu0", 2**20).steps] == ["latency"] * 3 + ["stream"]
    assert all(s.kind in X.STEP_KINDS for s in staged.steps)
    with pytest.raises(AttributeError):
        staged.steps[0].seconds = 0.0


# --------------------------------------------------- host staging: the steady-state pipeline
def test_host_staged_steady_state_closed_form():
    """chunks=None: T = L1 + L2 + n / min(B1, B2, mem/2): the slower leg, not the sum."""
    g = T.pcie_tree(1, 4, 2, gpu_link="pcie5x16", uplink="pcie5x16", socket_link="upi2-16")
    mem = 307.2 * GB
    t = X.host_staged_copy(g, "gpu0", "gpu4", BIG, host_memory_bandwidth=mem, chunks=None)
    l1 = T.path_latency(g, ["gpu0", "sw0", "cpu0"])
    l2 = T.path_latency(g, ["cpu0", "cpu1", "sw4", "gpu4"])
    leg = min(get_link("pcie5x16").bandwidth, 4 * 32 * GB, mem / 2)
    assert leg == get_link("pcie5x16").bandwidth
    assert t.time == pytest.approx(l1 + l2 + BIG / leg, rel=1e-12)
    assert [s.kind for s in t.steps] == ["latency", "stream"]
    _steps_sum(t)
    # half the host memory bandwidth binds when it is the narrowest
    slow = X.host_staged_copy(g, "gpu0", "gpu4", BIG, host_memory_bandwidth=60 * GB, chunks=None)
    assert slow.time == pytest.approx(l1 + l2 + BIG / (30 * GB), rel=1e-12)


@FAST
@given(n=st.floats(1e3, 1e11), chunks=st.integers(1, 256))
def test_host_staged_steady_state_is_the_chunked_limit(n, chunks):
    """With the latencies set to zero the chunked pipeline, n (c+1) / (c B), falls to the
    steady state n / B from above as the chunk count grows; with latencies it is never
    faster than the steady state."""
    g0 = T.pcie_tree(4, 1, 2, socket_link_latency=0.0)
    for u, v in g0.edges:
        g0.edges[u, v]["latency"] = 0.0
    steady = X.host_staged_copy(g0, "gpu0", "gpu4", n, chunks=None).time
    piped = X.host_staged_copy(g0, "gpu0", "gpu4", n, chunks=chunks).time
    assert piped == pytest.approx(steady * (chunks + 1) / chunks, rel=1e-9)
    real = X.host_staged_copy(PCIE, "gpu0", "gpu4", n, chunks=chunks).time
    assert real >= X.host_staged_copy(PCIE, "gpu0", "gpu4", n, chunks=None).time * (1 - 1e-12)


@pytest.mark.parametrize("bad", [0, -1, 2.5, "many"])
def test_host_staged_bad_chunks(bad):
    with pytest.raises(ValueError, match="chunks"):
        X.host_staged_copy(PCIE, "gpu0", "gpu4", BIG, chunks=bad)


def test_staged_copy_check_against_hgx_h100():
    """HGX H100, GPU0 -> GPU4 with peer access off: 37.06 GB/s measured (NVIDIA/nccl #1264).
    The models: one UPI link in sequence 1/(1/63.0 + 1/20.8) = 15.6 GB/s; four UPI 2.0 links
    in sequence 63.0 / 2 = 31.5 GB/s; pipelined, the PCIe 5.0 x16 leg, 63.0 GB/s."""
    from interconnect.catalog import measurements
    from interconnect.pcie_servers import staged_copy_check

    pcie5 = get_link("pcie5x16").bandwidth
    meas = measurements.get("h100-p2p-disabled-uni-cross-socket").value
    assert meas == 37.06 * GB
    one, seq, piped = staged_copy_check(1e12)          # latencies negligible
    assert one.bandwidth == pytest.approx(1 / (1 / pcie5 + 1 / (20.8 * GB)), rel=1e-6)
    assert seq.bandwidth == pytest.approx(pcie5 / 2, rel=1e-6)
    assert piped.bandwidth == pytest.approx(pcie5, rel=1e-6)
    for c in (one, seq, piped):
        assert c.measured == meas and c.error == pytest.approx(c.bandwidth / meas - 1)
    # the measurement lies between the sequential and the pipelined model
    assert seq.bandwidth < meas < piped.bandwidth
    with pytest.raises(ValueError, match="nbytes"):
        staged_copy_check(0)


def test_staged_copy_same_and_cross_socket_as_measured():
    """nccl #1264 measures the same staged copy within one socket (GPU0 -> GPU1, 37.19 GB/s) and
    across the sockets (GPU0 -> GPU4, 37.06 GB/s): the socket link does not bind. With
    Sapphire Rapids' four UPI 2.0 links (4 x 32 = 128 GB/s, above one PCIe 5.0 x16 leg) the
    model agrees, sequential or pipelined; with one UPI 10.4 GT/s link it would put the
    cross-socket copy at 0.49 (sequential) or 0.33 (pipelined) of the same-socket one."""
    from interconnect.catalog import measurements
    from interconnect.pcie_servers import hgx_h100_host

    cross = measurements.get("h100-p2p-disabled-uni-cross-socket").value
    same = measurements.get("h100-p2p-disabled-uni-same-socket").value
    assert cross / same == pytest.approx(37.06 / 37.19)
    mem = X.HOST_MEMORY_BANDWIDTH_DDR5
    pcie5, upi = get_link("pcie5x16").bandwidth, 20.8 * GB

    def ratio(g, chunks):
        bw = [X.host_staged_copy(g, "gpu0", dst, 1e12, host_memory_bandwidth=mem, chunks=chunks).bandwidth
              for dst in ("gpu4", "gpu1")]
        return bw[0] / bw[1]

    real, one = hgx_h100_host(), hgx_h100_host(socket_link="upi-10.4", socket_links=1)
    assert real.edges["cpu0", "cpu1"]["count"] == 4 and T.gpus(real)[:5] == ["gpu0", "gpu1", "gpu2", "gpu3", "gpu4"]
    for chunks in (1, None):
        assert ratio(real, chunks) == pytest.approx(1.0, rel=1e-6)
        assert abs(ratio(real, chunks) - cross / same) < 0.005
    assert ratio(one, 1) == pytest.approx((1 / (1 / pcie5 + 1 / upi)) / (pcie5 / 2), rel=1e-6)   # 0.49
    assert ratio(one, None) == pytest.approx(upi / pcie5, rel=1e-6)                              # 0.33
