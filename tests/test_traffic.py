"""Tests for interconnect.parallel.traffic: what each strategy sends, against closed forms.

Sources:
- Megatron tensor parallelism: 2 AllReduces forward and 2 backward per transformer layer and
  microbatch, each of the ``b s h`` activations in 16 bits (``2 s b h`` bytes). Shoeybi et al.
  2019 (arXiv:1909.08053) sec. 3 and Fig. 4; Narayanan et al. 2021 (arXiv:2104.04473) sec. 2.3
  and 3.2 ("4 all-reduce operations ... per layer per microbatch", each of ``bsh``).
- Sequence parallelism: each AllReduce becomes a ReduceScatter + AllGather of the same bytes,
  Korthikanti et al. 2022 (arXiv:2205.05198) sec. 4.2.2.
- Pipeline parallelism: ``2 m`` transfers of ``b s h`` per stage per step, ``2 m v`` interleaved;
  scatter/gather sends ``1/t`` per TP rank. Narayanan et al. 2021 sec. 2.2 and 4.1.
- ZeRO: baseline DP and ZeRO stages 1-2 move ``2 Psi`` per GPU, stage 3 ``3 Psi`` (1.5x).
  Rajbhandari et al. 2020 (arXiv:1910.02054) sec. 7.2.1-7.2.2; with a ring each of the ``2`` or
  ``3`` passes sends ``(N_d - 1)/N_d`` of the gradient bytes.
- Expert parallelism: 2 AllToAlls forward (dispatch, combine) and 2 backward per MoE layer,
  Lepikhin et al. 2021 (GShard, arXiv:2006.16668) sec. 2.
"""

import dataclasses

import pytest

from interconnect import catalog
from interconnect import parallel as P
from interconnect.parallel import Layout, ModelConfig, Traffic

GPT3 = catalog.models.get("gpt3-175b")          # l = 96, h = 12288, s = 2048, B = 1536
MOE = catalog.models.get("gpt3-6.7b-moe")       # 32 layers, 16 of them MoE
LLAMA8 = catalog.models.get("llama3-8b")       # 8.0B parameters, B = 2048 sequences


def test_tp_is_four_allreduces_of_2sbh_per_layer_per_microbatch():
    # Narayanan et al. 2021 sec. 3.2 / Shoeybi et al. 2019 Fig. 4
    b, tp, pp = 2, 8, 8
    lay = Layout(dp=4, tp=tp, pp=pp, microbatch=b, sequence_parallel=False)
    m = GPT3.global_batch // (b * 4)
    (t,) = P.tp_traffic(GPT3, lay)
    assert (t.op, t.group, t.stride) == ("allreduce", tp, 1)
    assert t.nbytes == 2 * GPT3.seq_len * b * GPT3.hidden
    assert t.count == 4 * (GPT3.layers // pp) * m
    # ring AllReduce sends 2 (t-1)/t of the message per call
    assert P.wire_bytes([t]) == pytest.approx(4 * (GPT3.layers // pp) * m * 2 * (tp - 1) / tp * t.nbytes)


def test_tp_full_recompute_repeats_the_forward_allreduces():
    # the recomputed forward pass has its 2 AllReduces again: 6 per layer
    lay = Layout(dp=1, tp=8, pp=8, sequence_parallel=False, recompute="full")
    assert P.tp_traffic(GPT3, lay)[0].count == 6 * 12 * GPT3.global_batch
    assert P.collectives_per_layer(lay) == 6


def test_sequence_parallel_is_reducescatter_plus_allgather_of_the_same_bytes():
    # Korthikanti et al. 2022 sec. 4.2.2: same bytes on the wire as the AllReduce
    sp = P.tp_traffic(GPT3, Layout(dp=1, tp=8, pp=8))
    ar = P.tp_traffic(GPT3, Layout(dp=1, tp=8, pp=8, sequence_parallel=False))
    assert [t.op for t in sp] == ["reducescatter", "allgather"]
    assert all(t.nbytes == ar[0].nbytes and t.count == ar[0].count for t in sp)
    assert P.wire_bytes(sp) == pytest.approx(P.wire_bytes(ar))


def test_tp_message_is_the_activation():
    lay = Layout(dp=1, tp=8, pp=1, microbatch=4)
    assert P.activation_bytes(GPT3, lay) == 2 * 2048 * 4 * 12288
    assert P.tp_traffic(GPT3, Layout(dp=8, tp=1, pp=1)) == []


def test_pp_is_2m_transfers_of_the_activation():
    # Narayanan et al. 2021 sec. 2.2: one activation forward, one gradient backward per microbatch
    lay = Layout(dp=2, tp=8, pp=8, scatter_gather=False)
    m = GPT3.global_batch // 2
    (t,) = P.pp_traffic(GPT3, lay)
    assert (t.op, t.count, t.nbytes, t.stride) == ("sendrecv", 2 * m, 2 * 2048 * 12288, 16)
    assert t.wire_bytes == 2 * m * t.nbytes


def test_pp_interleaved_and_scatter_gather():
    # sec. 2.2.2: v chunks multiply the transfers by v; sec. 4.1: each TP rank sends 1/t
    lay = Layout(dp=2, tp=8, pp=8, chunks=2)
    send, gather = P.pp_traffic(GPT3, lay)
    assert send.count == gather.count == 2 * 2 * (GPT3.global_batch // 2)
    assert send.nbytes == P.activation_bytes(GPT3, lay) / 8
    assert (gather.op, gather.group, gather.nbytes) == ("allgather", 8, P.activation_bytes(GPT3, lay))
    # a pipeline inside one node needs no scatter/gather
    small = Layout(dp=1, tp=2, pp=4)
    assert [t.op for t in P.pp_traffic(GPT3, small, gpus_per_node=8)] == ["sendrecv"]
    assert [t.op for t in P.pp_traffic(GPT3, small)] == ["sendrecv", "allgather"]


@pytest.mark.parametrize("dp", [2, 8, 64])
def test_zero_volumes_2x_and_3x(dp):
    # Rajbhandari et al. 2020 sec. 7.2: 2 Psi for DP and ZeRO 1-2, 3 Psi (1.5x) for ZeRO 3,
    # with Psi the gradient bytes; a ring sends (N_d - 1)/N_d of it per pass
    m = catalog.models.get("gpt3-6.7b")
    psi = 2 * m.params                  # BF16 gradient bytes of the whole model (tp = pp = 1)
    f = (dp - 1) / dp
    vols = {z: P.wire_bytes(P.dp_traffic(m, Layout(dp=dp, tp=1, pp=1, zero_stage=z))) for z in range(4)}
    for z in (0, 1, 2):
        assert vols[z] == pytest.approx(2 * f * psi, rel=1e-12)
    assert vols[3] == pytest.approx(3 * f * psi, rel=1e-12)
    assert vols[3] / vols[0] == pytest.approx(1.5)


def test_dp_traffic_ops_buckets_and_shard():
    m = catalog.models.get("gpt3-6.7b")
    lay = Layout(dp=4, tp=2, pp=2, zero_stage=3, bucket_bytes=100e6)
    tr = P.dp_traffic(m, lay)
    assert [t.op for t in tr] == ["reducescatter", "allgather", "allgather"]
    shard = 2 * m.params / 4                       # gradients of one GPU's tp * pp shard
    n = -(-shard // 100e6)
    assert all(t.count == n and t.nbytes * n == pytest.approx(shard) and t.stride == 2 for t in tr)
    assert P.dp_traffic(m, Layout(dp=1, tp=8, pp=1)) == []


def test_dp_wire_bytes_is_the_sum_over_dp_traffic():
    for z in range(4):
        lay = Layout(dp=8, tp=2, pp=2, zero_stage=z)
        tr = P.dp_traffic(GPT3, lay)
        assert P.dp_wire_bytes(GPT3, lay) == P.wire_bytes(tr)
        assert P.wire_bytes(tr) == pytest.approx(sum(t.wire_bytes for t in tr))


def test_ep_is_four_alltoalls_per_moe_layer():
    # GShard: dispatch and combine forward, both again backward
    lay = Layout(dp=8, tp=2, pp=2, ep=4, sequence_parallel=False)
    m = MOE.global_batch // 8
    (t,) = P.ep_traffic(MOE, lay)
    assert (t.op, t.group, t.stride) == ("alltoall", 4, 2)
    assert t.count == 4 * (MOE.moe_layers // 2) * m
    assert t.nbytes == 2 * MOE.seq_len * MOE.hidden
    # with sequence parallelism each TP rank holds 1/t of the tokens
    assert P.ep_traffic(MOE, dataclasses.replace(lay, sequence_parallel=True))[0].nbytes == t.nbytes / 2
    assert P.ep_traffic(GPT3, Layout(dp=8, tp=8, pp=8, ep=8)) == []


def test_step_traffic_collects_all_four():
    lay = Layout(dp=8, tp=2, pp=2, ep=4)
    tr = P.step_traffic(MOE, lay, gpus_per_node=8)
    assert set(tr) == {"tp", "pp", "dp", "ep"}
    assert tr["ep"] == P.ep_traffic(MOE, lay) and tr["dp"] == P.dp_traffic(MOE, lay)


def test_traffic_rejects_bad_fields():
    with pytest.raises(ValueError, match="op='allreduse'"):
        Traffic("allreduse", 1e6, 8, 1)
    with pytest.raises(ValueError, match="nbytes=-1"):
        Traffic("allreduce", -1, 8, 1)
    with pytest.raises(ValueError, match="group=0"):
        Traffic("allreduce", 1e6, 0, 1)
    with pytest.raises(ValueError, match="count=-2"):
        Traffic("allreduce", 1e6, 8, -2)


def test_traffic_does_not_fit_raises_like_step_time():
    bad = ModelConfig(10, 1024, 16, 2048, 51200, 64)
    with pytest.raises(ValueError, match="does not divide layers"):
        P.tp_traffic(bad, Layout(dp=1, tp=2, pp=4))


def test_step_efficiency_is_compute_over_total():
    st = P.step_time(GPT3, Layout(dp=16, tp=8, pp=8), P.Cluster.dgx_a100())
    assert st.efficiency == st.compute / st.total
    assert 0 < st.efficiency < 1


# --- DeepSpeed-Ulysses ----------------------------------------------------------------------
# Jacobs et al. 2023 (arXiv:2309.14509) sec. 3.2: per layer an AllToAll of the Q, K, V
# projections, aggregate message 3 N h, and one of the output, N h: 4 N h / P per link
# (elements; N sequence, h hidden, P ranks). A rank holds N / P tokens and sends (P - 1)/P of them.

@pytest.mark.parametrize("cp", [2, 4, 8, 16, 32])
def test_ulysses_forward_bytes_are_the_papers_4nh_over_p(cp):
    lay = Layout(dp=1, tp=1, pp=1, cp=cp, flash_attention=True)
    qkv, out = P.ulysses_traffic(GPT3, lay)                 # multi-head: g = a, a d = h
    N, h = GPT3.seq_len, GPT3.hidden
    assert qkv.nbytes == 2 * 3 * N * h / cp and out.nbytes == 2 * N * h / cp     # 16-bit elements
    forward_per_layer = qkv.bytes_per_call + out.bytes_per_call
    assert forward_per_layer == pytest.approx(2 * 4 * N * h / cp * (cp - 1) / cp, rel=1e-12)
    # forward + backward, every layer and microbatch: 2 x that
    m = GPT3.global_batch
    assert P.wire_bytes(P.ulysses_traffic(GPT3, lay)) == pytest.approx(2 * m * GPT3.layers * forward_per_layer,
                                                                       rel=1e-12)


def test_ulysses_with_gqa_and_tp():
    # Llama 3 70B: 64 query heads, 8 KV heads of 128; tp = 2 leaves 32 and 4 per rank
    ll = catalog.models.get("llama3-70b")
    lay = Layout(dp=1, tp=2, pp=1, cp=4, flash_attention=True)
    qkv, out = P.ulysses_traffic(ll, lay)
    tokens = ll.seq_len / 4
    assert qkv.nbytes == 2 * tokens * (32 * 128 + 4 * 256)
    assert out.nbytes == 2 * tokens * 32 * 128
    assert (qkv.op, qkv.group, qkv.stride, qkv.algorithm) == ("alltoall", 4, 2, "pairwise")
    # the heads limit: cp must divide the 4 KV heads of a rank
    with pytest.raises(ValueError, match="at most 4"):
        P.ulysses_traffic(ll, Layout(dp=1, tp=2, pp=1, cp=8))
    assert P.ulysses_traffic(ll, Layout(dp=1, tp=2, pp=1)) == []


def test_ulysses_recomputation_adds_a_forward_like_cp_traffic():
    ll = catalog.models.get("llama3-8b")
    base = Layout(dp=1, tp=1, pp=1, cp=4, flash_attention=True)
    n = P.ulysses_traffic(ll, base)[0].count
    assert P.ulysses_traffic(ll, dataclasses.replace(base, recompute="full"))[0].count == 1.5 * n
    assert P.ulysses_traffic(ll, dataclasses.replace(base, recompute="selective"))[0].count == n
    assert P.ulysses_traffic(ll, dataclasses.replace(base, recompute="selective", flash_attention=False))[0].count \
        == 1.5 * n


def test_ulysses_shrinks_with_cp_while_the_ring_does_not():
    # ring: each rank sends (cp - 1)/cp of the whole sequence's K, V three times per layer;
    # Ulysses: (cp - 1)/cp of its own s / cp tokens' Q, K, V and output, twice
    ll = catalog.models.get("llama3-70b")
    ring = [P.wire_bytes(P.cp_traffic(ll, Layout(dp=1, tp=1, pp=1, cp=c, flash_attention=True))) for c in (2, 4, 8)]
    uly = [P.wire_bytes(P.ulysses_traffic(ll, Layout(dp=1, tp=1, pp=1, cp=c, flash_attention=True)))
           for c in (2, 4, 8)]
    assert ring[0] < ring[1] < ring[2] < 2 * ring[0]                  # (cp - 1)/cp grows towards 1
    assert uly[0] > uly[1] > uly[2]
    # per layer and microbatch at cp = 2, each times (cp - 1)/cp = 1/2: ring 3 x 2 s (8 x 256);
    # Ulysses 2 x 2 (s / 2) (Q 64 x 128 + K, V 8 x 256 + output 64 x 128)
    s = ll.seq_len
    assert ring[0] / uly[0] == pytest.approx((3 * 2 * s * 8 * 256) / (2 * 2 * s / 2 * (64 * 128 + 8 * 256 + 64 * 128)))


# ---- network_bytes: what crosses the NICs (the per-node rule Cluster prices groups by) -------

@pytest.mark.parametrize("dp", [16, 64, 1024])
def test_network_bytes_of_a_flat_ring_is_its_wire_bytes_over_the_nics_of_a_node(dp):
    # a ring over dp ranks 1 apart, 8 per node: 8 channels, one per NIC, each 1/8 of the bytes
    tr = P.dp_traffic(LLAMA8, Layout(dp=dp, tp=1, pp=1, zero_stage=1))
    assert P.network_bytes(tr) == pytest.approx(P.wire_bytes(tr) / 8, rel=1e-12)


def test_network_bytes_inside_a_node_is_zero_and_hsdp_sends_only_the_replicas_allreduce():
    tr = P.dp_traffic(LLAMA8, Layout(dp=8, tp=1, pp=1, zero_stage=3, dp_shard=8))
    assert P.wire_bytes(tr) > 0 and P.network_bytes(tr) == 0.0
    # HSDP: shard group of 8 on NVLink; 16 replicas, one per node (stride 8): k = 1
    lay = Layout(dp=128, tp=1, pp=1, zero_stage=3, dp_shard=8)
    tr = P.dp_traffic(LLAMA8, lay)
    replicas = [t for t in tr if t.op == "allreduce"]
    assert replicas[0].group == 16 and replicas[0].stride == 8
    assert P.network_bytes(tr) == pytest.approx(P.wire_bytes(replicas), rel=1e-12)
    # FSDP over all 128: 3 m collectives per bucket, all across nodes, m times HSDP's gathers
    fsdp = P.dp_traffic(LLAMA8, Layout(dp=128, tp=1, pp=1, zero_stage=3, dp_shard=128))
    assert P.network_bytes(fsdp) == pytest.approx(P.wire_bytes(fsdp) / 8, rel=1e-12)
