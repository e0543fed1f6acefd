"""Expert-parallel MoE decode (serving.moe_decode_step_time) against interconnect.moe and the
closed forms of the AllToAll."""

from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from interconnect import moe, serving
from interconnect.catalog import models
from interconnect.collectives import nccl_time
from interconnect.parallel import ceiling_fraction
from interconnect.parallel.machines import machine

DSV3 = models.get("deepseek-v3")
MIX = models.get("mixtral-8x7b")
H100 = machine("dgx-h100")
ONE = (DSV3.mlp_params(moe=True) - DSV3.hidden * 256) / 257          # one routed expert
ROUTED = 58 * 256 * ONE


def test_dispatch_inside_one_domain_is_the_moe_alltoall():
    d = serving.moe_decode_step_time(DSV3, "dgx-h100", 64, 1024, 8, fp8=True)
    # the preset prices the AllToAll of 64 tokens x top-8 x 7,168 FP8 bytes by NCCL's model: the
    # 7/8 of it that leaves each GPU as NCCL's one-hop copy on NVLink (its two-rank broadcast)
    nbytes = 64 * 8 * 7168
    assert d.dispatch == H100.collective_time("alltoall", nbytes, 8)
    assert d.dispatch == nccl_time("broadcast", round(7 / 8 * nbytes), 2, 1, machine=H100.nccl)
    assert d.combine == nccl_time("broadcast", round(7 / 8 * 2 * nbytes), 2, 1, machine=H100.nccl)
    assert d.comm == pytest.approx(58 * (d.dispatch + d.combine))
    assert d.elementwise == pytest.approx(64 * serving.elementwise_bytes_per_token(DSV3, fp8=True)
                                          / serving.stream_bandwidth("dgx-h100"))
    assert d.total == pytest.approx(max(d.weights + d.kv, d.compute) + d.elementwise + d.comm)
    assert not d.network and d.experts_per_gpu == 32
    # at the constant efficiency (comm_efficiency given, no NCCL model) it is interconnect.moe's
    # pairwise AllToAll: 7 latencies, 7/8 of the bytes
    flat = machine("dgx-h100", comm_efficiency=H100.comm_efficiency)
    d = serving.moe_decode_step_time(DSV3, flat, 64, 1024, 8, fp8=True)
    bw, lat = 450e9 * H100.comm_efficiency, H100.intra_latency
    assert d.dispatch == pytest.approx(7 * lat + 7 / 8 * nbytes / bw)
    ref = moe.moe_layer_time(64, 7168, 2048, 8, 8, 1978.9e12, bw, lat,
                             gemm_efficiency=ceiling_fraction("H100", "fp8"), bytes_per_element=1, matrices=3)
    assert d.dispatch == pytest.approx(ref["dispatch"])


def test_weights_replicated_part_and_the_gpus_share_of_touched_experts():
    b, ep = 256, 32
    d = serving.moe_decode_step_time(DSV3, "dgx-h100", b, 0, ep)
    touched = 1 - (1 - 8 / 256) ** (b * ep)
    assert d.weights == pytest.approx(2 * (DSV3.params - ROUTED + 58 * 8 * touched * ONE)
                                      / serving.stream_bandwidth("dgx-h100"))
    assert d.kv == 0.0
    # MLA: each GPU reads its own sequences' latents, not split
    d2 = serving.moe_decode_step_time(DSV3, "dgx-h100", 4, 1000, ep)
    assert d2.kv == pytest.approx(4 * 1000 * 61 * 576 * 2 / (3.35e12 * serving.DECODE_ATTENTION_EFFICIENCY))


def test_network_dispatch_one_copy_per_node():
    b, ep = 128, 64
    d = serving.moe_decode_step_time(DSV3, "dgx-h100", b, 1024, ep, fp8=True, node_limit=4)
    copies = moe.cross_node_dispatch(256, 8, 8, 7168, 4, 1)["bytes"]
    # what a GPU sends over its own NIC, as NCCL's one-hop copy between two nodes
    net = nccl_time("broadcast", round(b * copies), 2, 2, machine=replace(H100.nccl, nics_per_node=1))
    inside = serving.moe_decode_step_time(DSV3, "dgx-h100", b, 1024, 8, fp8=True).dispatch
    assert d.dispatch == pytest.approx(max(net, inside))
    assert d.network and d.experts_per_gpu == 4


def test_nvl72_keeps_wide_ep_on_nvlink_and_is_faster():
    ib = serving.moe_decode_step_time(DSV3, "dgx-h100", 128, 4096, 64, fp8=True, node_limit=4)
    nvl = serving.moe_decode_step_time(DSV3, "gb200-nvl72", 128, 4096, 64, fp8=True)
    assert ib.network and not nvl.network
    assert nvl.dispatch < ib.dispatch and nvl.total < ib.total


def test_overlap_hides_the_alltoalls():
    a = serving.moe_decode_step_time(DSV3, "dgx-h100", 128, 4096, 64, fp8=True, overlap=True)
    assert a.total == pytest.approx(max(a.weights + a.kv + a.elementwise, a.compute + a.elementwise, a.comm))


@settings(max_examples=30, deadline=None)
@given(b=st.integers(1, 512), i=st.integers(0, 4))
def test_wider_ep_reads_fewer_weights_per_gpu(b, i):
    eps = (8, 16, 32, 64, 128, 256)
    w1 = serving.moe_decode_step_time(DSV3, "dgx-h100", b, 0, eps[i]).weights
    w2 = serving.moe_decode_step_time(DSV3, "dgx-h100", b, 0, eps[i + 1]).weights
    assert w2 <= w1 * (1 + 1e-12)


def test_moe_decode_errors():
    with pytest.raises(ValueError, match=r"model='Llama 3 70B' is not allowed; allowed: an MoE model"):
        serving.moe_decode_step_time(models.get("llama3-70b"), "dgx-h100", 1, 1, 8)
    with pytest.raises(ValueError, match=r"ep=3 is not allowed; ep must divide num_experts=8"):
        serving.moe_decode_step_time(MIX, "dgx-h100", 1, 1, 3)
    with pytest.raises(ValueError, match=r"ep=128 is not allowed; across NVLink domains ep must be a multiple "
                                         r"of gpus_per_node=72"):
        serving.moe_decode_step_time(DSV3, "gb200-nvl72", 1, 1, 128)
    with pytest.raises(ValueError, match=r"node_limit=9 is out of range; allowed 1 to nodes=8"):
        serving.moe_decode_step_time(DSV3, "dgx-h100", 1, 1, 64, node_limit=9)
    with pytest.raises(ValueError, match=r"imbalance=0.5 is out of range; allowed >= 1"):
        serving.moe_decode_step_time(DSV3, "dgx-h100", 1, 1, 8, imbalance=0.5)
