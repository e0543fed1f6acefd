"""Cluster.collective_time: one price for a collective on a machine, NCCL's model on the presets.

Checked against NCCL's model directly (interconnect.collectives.nccl), against the constant-efficiency
form it replaces (which it must approach at large messages, where nccl-tests measure the efficiency),
and for its limits; the serving model's TP AllReduce (serving.tp_allreduce_time) against its parts.
"""

from __future__ import annotations

import math
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from interconnect import serving
from interconnect.collectives import collective_time, nccl_predict, nccl_time
from interconnect.parallel import CALIBRATED_COMM_EFFICIENCY, Cluster
from interconnect.parallel.cluster import COMM_OPS, _group_link
from interconnect.parallel.machines import MACHINES, comm_efficiency_of, machine, machine_names

PRESETS = {n: machine(n) for n in machine_names()}
H100, A100 = PRESETS["dgx-h100"], PRESETS["dgx-a100"]
NCCL_OPS = ("allreduce", "allgather", "reducescatter", "broadcast", "reduce")
GiB = 2**30


def test_no_machine_preset_prices_with_a_fitted_constant():
    for name, cl in PRESETS.items():
        assert cl.nccl is not None, name
        # comm_efficiency stays as the measured large-message fraction, not the 2021 fit
        assert cl.comm_efficiency == comm_efficiency_of(MACHINES[name].nvlink) != CALIBRATED_COMM_EFFICIENCY
    # the 2021 calibrated cluster keeps its fitted constant, and no NCCL model
    assert Cluster.dgx_a100().nccl is None and Cluster.dgx_a100().comm_efficiency == CALIBRATED_COMM_EFFICIENCY
    # overriding comm_efficiency prices at that constant instead
    assert machine("dgx-h100", comm_efficiency=0.7).nccl is None


def test_a_preset_with_other_links_drops_the_nccl_model():
    pcie = replace(H100, intra_bandwidth=63e9, intra_latency=1e-6)          # the same GPUs on PCIe 5.0
    assert pcie.nccl is None
    assert pcie.collective_time("allreduce", 2**26, 8) == collective_time(
        "allreduce", 2**26, 8, 63e9 * H100.comm_efficiency, 1e-6)
    # another comm_efficiency asks for that constant, as machine(..., comm_efficiency=) does
    assert replace(H100, comm_efficiency=1.0).nccl is None
    # another latency alone (custom kernels' flag barrier) keeps NCCL's model
    assert replace(H100, intra_latency=2e-6).nccl == H100.nccl


def test_presets_nccl_machines():
    assert (A100.nccl.arch, A100.nccl.nvlinks, A100.nccl.cpu, A100.nccl.nic_bw) == ("ampere", 12, "amd", 25e9)
    assert (H100.nccl.arch, H100.nccl.nvlinks, H100.nccl.nic_bw) == ("hopper", 18, 50e9)
    nvl = PRESETS["gb200-nvl72"].nccl
    assert (nvl.arch, nvl.gpus_per_node, nvl.nics_per_node, nvl.cpu) == ("blackwell", 72, 72, "arm")


@pytest.mark.parametrize("name", ["dgx-a100", "dgx-h100", "dgx-b200", "gb200-nvl72"])
@pytest.mark.parametrize("op", NCCL_OPS)
@pytest.mark.parametrize("nbytes", [0, 4096, 2**20, 64 * 2**20, GiB])
def test_inside_a_domain_it_is_nccl_time(name, op, nbytes):
    cl = PRESETS[name]
    for group in (2, 4, 8):
        assert cl.collective_time(op, nbytes, group) == nccl_time(op, nbytes, group, 1, machine=cl.nccl)


@pytest.mark.parametrize("group, stride, nnodes, nics", [(16, 1, 2, 8), (8, 8, 8, 1), (32, 4, 16, 2), (64, 1, 8, 8)])
def test_across_nodes_the_rings_run_over_the_members_nics(group, stride, nnodes, nics):
    m = replace(H100.nccl, nics_per_node=nics)
    for op in ("allreduce", "allgather", "reducescatter"):
        for nbytes in (2**16, 2**26, 2**32):
            assert H100.collective_time(op, nbytes, group, stride) == nccl_time(op, nbytes, group, nnodes, machine=m)


def test_sendrecv_and_alltoall_are_nccls_one_hop_copies():
    one_nic = replace(H100.nccl, nics_per_node=1)
    n = 64 * 2**20
    assert H100.collective_time("sendrecv", n, 2) == nccl_time("broadcast", n, 2, 1, machine=H100.nccl)
    assert H100.collective_time("sendrecv", n, 2, 8) == nccl_time("broadcast", n, 2, 2, machine=one_nic)
    # inside a node: 7/8 of the buffer leaves each GPU over NVLink
    assert H100.collective_time("alltoall", n, 8) == nccl_time("broadcast", 7 / 8 * n, 2, 1, machine=H100.nccl)
    # 16 ranks, 8 per node: 7/16 over NVLink and 8/16 over the GPU's own NIC, side by side
    near = nccl_time("broadcast", 7 / 16 * n, 2, 1, machine=H100.nccl)
    far = nccl_time("broadcast", 8 / 16 * n, 2, 2, machine=one_nic)
    assert H100.collective_time("alltoall", n, 16) == max(near, far) == far
    # one latency, not p - 1: an empty AllToAll costs what an empty send does
    assert H100.collective_time("alltoall", 0, 8) == H100.collective_time("sendrecv", 0, 2)


@pytest.mark.parametrize("name, nvlink", [("dgx-a100", "nvlink3"), ("dgx-h200", "nvlink4")])
def test_large_messages_converge_to_the_measured_efficiency(name, nvlink):
    """At 16 GiB the ring NCCL runs reaches the nccl-tests bus bandwidth: the old constant form at the
    measured fraction (comm_efficiency_of) gives the same time within 3 %."""
    cl = PRESETS[name]
    n = 16 * GiB
    new = cl.collective_time("allreduce", n, 8, algorithm="ring")
    old = collective_time("allreduce", n, 8, cl.intra_bandwidth * comm_efficiency_of(nvlink), cl.intra_latency)
    assert new == pytest.approx(old, rel=0.03)
    # and the ratio tends there: the gap shrinks with size
    gaps = [abs(cl.collective_time("allreduce", s, 8, algorithm="ring")
                / collective_time("allreduce", s, 8, cl.intra_bandwidth * comm_efficiency_of(nvlink),
                                  cl.intra_latency) - 1) for s in (2**20, 2**26, 16 * GiB)]
    assert gaps[0] > gaps[1] > gaps[2]


def test_small_messages_pay_nccls_latency_not_the_links():
    # 16 KiB on 8 H100: NCCL's ring/LL, 6.6 us base + 14 steps x 0.6 us and the bytes; the constant form
    # at 0.6 us a step is 9.5 us; NCCL's model puts the launch and base latency on top
    t = H100.collective_time("allreduce", 2**14, 8)
    p = nccl_predict("allreduce", 2**14, 8, machine=H100.nccl)
    assert (p.algorithm, p.protocol) == ("ring", "LL") and t == p.time
    assert t > collective_time("allreduce", 2**14, 8, H100.intra_bandwidth * H100.comm_efficiency, H100.intra_latency)
    # at 1 GiB NCCL picks NVLS on 8 H100 and beats the ring at the measured efficiency
    assert nccl_predict("allreduce", GiB, 8, machine=H100.nccl).algorithm == "nvls"
    assert H100.collective_time("allreduce", GiB, 8) < collective_time(
        "allreduce", GiB, 8, H100.intra_bandwidth * H100.comm_efficiency, H100.intra_latency)


def test_calibrated_cluster_keeps_the_constant_form_bit_for_bit():
    dgx = Cluster.dgx_a100()
    for op, alg in (("allreduce", "ring"), ("allgather", "ring"), ("reducescatter", "ring"), ("alltoall", "pairwise")):
        for group, stride in ((8, 1), (4, 2), (16, 8), (64, 1)):
            assert dgx.collective_time(op, 3e7, group, stride) == \
                collective_time(op, 3e7, group, *_group_link(group, stride, dgx), alg)
    eff = dgx.comm_efficiency
    assert dgx.collective_time("sendrecv", 3e7, 2, 8) == dgx.inter_latency + 3e7 / (dgx.inter_bandwidth * eff)
    assert dgx.collective_time("sendrecv", 3e7, 2, 1) == dgx.intra_latency + 3e7 / (dgx.intra_bandwidth * eff)
    # a slower link inside the node than across (PCIe against NDR): the send across nodes is on the NIC
    pcie = Cluster.from_links("H100", "pcie5x16", "ib-ndr")
    assert pcie.collective_time("sendrecv", 3e7, 2, 8) == \
        pcie.inter_latency + 3e7 / (pcie.inter_bandwidth * pcie.comm_efficiency)


@settings(max_examples=60, deadline=None)
@given(name=st.sampled_from(sorted(PRESETS)), op=st.sampled_from(COMM_OPS[:6]), group=st.sampled_from([2, 4, 8]),
       a=st.floats(0, 2**34), b=st.floats(0, 2**34))
def test_monotonic_in_size_inside_a_domain(name, op, group, a, b):
    cl = PRESETS[name]
    lo, hi = sorted((a, b))
    assert cl.collective_time(op, lo, group) <= cl.collective_time(op, hi, group)


@settings(max_examples=60, deadline=None)
@given(name=st.sampled_from(["dgx-a100", "dgx-h100", "dgx-b200"]), op=st.sampled_from(COMM_OPS[:6]),
       shape=st.sampled_from([(16, 1), (8, 8), (4, 16), (32, 8), (2, 8)]), n=st.floats(1, 2**33))
def test_across_nodes_doubling_the_size_never_shortens_it(name, op, shape, n):
    """Across nodes NCCL's own model is not monotonic between neighbouring sizes (the ring's
    "plateau" latency factor and the tree correction switch on at size thresholds), but twice
    the bytes never take less time."""
    cl = PRESETS[name]
    assert cl.collective_time(op, 2 * n, *shape) >= cl.collective_time(op, n, *shape)


@settings(max_examples=60, deadline=None)
@given(name=st.sampled_from(sorted(PRESETS)), op=st.sampled_from(COMM_OPS[:6]),
       shape=st.sampled_from([(2, 1), (8, 1), (16, 1), (8, 8)]), n=st.floats(0, 2**34))
def test_limits(name, op, shape, n):
    cl = PRESETS[name]
    if shape[0] * shape[1] > cl.gpus_per_node and cl.gpus_per_node == 72:
        return
    t, t0 = cl.collective_time(op, n, *shape), cl.collective_time(op, 0, *shape)
    assert 0 < t0 <= t < math.inf                      # never free, never below the empty call
    assert cl.collective_time(op, n, 1) == 0.0         # one rank: nothing to do
    # no faster than the wire: each GPU's share of the bytes over its NVLink at peak (an AllReduce
    # sends n at least once: NVLS, reducing in the switch, gets below the ring's 2 (p-1)/p n)
    group = shape[0]
    share = {"allreduce": 1.0, "broadcast": 0.0, "reduce": 0.0}.get(op, (group - 1) / group)
    assert t >= share * n / (cl.intra_bandwidth * 1.0001)


def test_bad_input_raises_naming_the_parameter():
    with pytest.raises(ValueError, match="op="):
        H100.collective_time("gather", 1e6, 8)
    with pytest.raises(ValueError, match="nbytes="):
        H100.collective_time("allreduce", -1.0, 8)
    with pytest.raises(ValueError, match="group="):
        H100.collective_time("allreduce", 1e6, 0)
    with pytest.raises(ValueError, match="group=4 is not allowed for op='sendrecv'"):
        H100.collective_time("sendrecv", 1e6, 4)
    with pytest.raises(ValueError, match="stride="):
        H100.collective_time("allreduce", 1e6, 8, 0)
    with pytest.raises(ValueError, match="not enabled"):
        A100.collective_time("allreduce", 1e6, 8, algorithm="nvls")   # no NVLS before Hopper
    with pytest.raises(ValueError, match="nccl="):
        replace(H100, nccl="dgx-h100")
    with pytest.raises(ValueError, match="nccl.gpus_per_node"):
        replace(PRESETS["gb200-nvl72"], nccl=H100.nccl)


# --- the serving model's TP AllReduce -----------------------------------------------------------

@settings(max_examples=80, deadline=None)
@given(name=st.sampled_from(["dgx-a100", "dgx-h100", "dgx-b200", "gb200-nvl72"]), n=st.sampled_from([2, 4, 8]),
       nbytes=st.floats(0, 2**30))
def test_tp_allreduce_auto_is_the_fastest_of_the_custom_kernels_and_nccl(name, n, nbytes):
    cl = PRESETS[name]
    bw, lat = cl.intra_bandwidth * cl.comm_efficiency, cl.intra_latency
    one = lat + (n - 1) * nbytes / bw
    two = 2 * lat + 2 * (n - 1) / n * nbytes / bw
    nccl = cl.collective_time("allreduce", nbytes, n)
    assert serving.tp_allreduce_time(cl, nbytes, n, "oneshot") == pytest.approx(one, rel=1e-12, abs=1e-18)
    assert serving.tp_allreduce_time(cl, nbytes, n, "twoshot") == pytest.approx(two, rel=1e-12, abs=1e-18)
    assert serving.tp_allreduce_time(cl, nbytes, n, "nccl") == nccl
    assert serving.tp_allreduce_time(cl, nbytes, n) == pytest.approx(min(one, two, nccl), rel=1e-12, abs=1e-18)


def test_tp_allreduce_pins_and_the_calibrated_cluster():
    assert serving.tp_allreduce_time(H100, 2**26, 8, "ring") == H100.collective_time("allreduce", 2**26, 8, 1, "ring")
    assert serving.tp_allreduce_time(H100, 2**26, 8, "nvls") == nccl_time("allreduce", 2**26, 8, machine=H100.nccl,
                                                                          algorithm="nvls")
    assert serving.tp_allreduce_time(H100, 2**26, 1) == 0.0
    # a calibrated cluster: the closed forms of allreduce_small at the fitted constant
    dgx = Cluster.dgx_a100()
    link = (dgx.intra_bandwidth * dgx.comm_efficiency, dgx.intra_latency)
    for alg in ("oneshot", "twoshot", "ring", "nvls"):
        assert serving.tp_allreduce_time(dgx, 2**20, 8, alg) == pytest.approx(
            serving.allreduce_small(2**20, 8, link, alg), rel=1e-12)
    # small decode messages go to the custom kernels, large prefill ones to NCCL (NVLS on 8 H100)
    assert serving.tp_allreduce_time(H100, 2**14, 8) == serving.tp_allreduce_time(H100, 2**14, 8, "oneshot")
    assert serving.tp_allreduce_time(H100, 2**28, 8) == serving.tp_allreduce_time(H100, 2**28, 8, "nvls")
