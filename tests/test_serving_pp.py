"""Pipeline parallelism in the serving step times: closed forms, the sends costed by
interconnect.transfer, and continuous batching over a pipeline."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from interconnect import serving, topology, transfer
from interconnect.catalog import models
from interconnect.serving.steps import STREAM_EFFICIENCY
from interconnect.units import KiB

L70 = models.get("llama3-70b")
BW = 3.35e12 * STREAM_EFFICIENCY    # what a decode kernel reaches of the HBM peak


def _nvlink(nbytes):
    return transfer.p2p_copy(topology.nvswitch(2, link="nvlink4"), "gpu0", "gpu1", nbytes).time


def _rdma(nbytes):
    return transfer.gpudirect_rdma(topology.cluster(2, gpus_per_node=1), "n0.gpu0", "n1.gpu0", nbytes).time


def test_pp_decode_closed_form_inside_one_nvlink_domain():
    b, c = 64, 2048
    d = serving.decode_step_time(L70, "dgx-h100", b, c, tp=2, pp=4)
    # 4 microbatches of 16 go round 4 stages: the weights are read once per token,
    # each microbatch's cache only by the stage that holds its layers
    assert d.weights == pytest.approx(2 * L70.params / 2 / BW)
    assert d.kv == pytest.approx(b * c * 160 * KiB / 4 / (3.35e12 * serving.DECODE_ATTENTION_EFFICIENCY))
    assert d.send == pytest.approx(4 * _nvlink(16 * 8192 * 2))
    assert d.elementwise == pytest.approx(b * serving.elementwise_bytes_per_token(L70, tp=2) / 4 / BW)
    assert d.total == pytest.approx(max(d.weights + d.kv, d.compute) + d.elementwise + d.comm + d.send)
    one = serving.decode_step_time(L70, "dgx-h100", b, c, tp=2)
    assert d.kv == pytest.approx(one.kv / 4) and d.compute == pytest.approx(one.compute / 4)


def test_pp_decode_without_microbatches_idles_the_stages():
    d = serving.decode_step_time(L70, "dgx-h100", 8, 1024, tp=2, pp=4, microbatches=1)
    one = serving.decode_step_time(L70, "dgx-h100", 8, 1024, tp=2)
    assert d.weights == pytest.approx(one.weights) and d.kv == pytest.approx(one.kv)
    assert d.send == pytest.approx(4 * _nvlink(8 * 8192 * 2))


def test_pp_across_nodes_sends_over_rdma():
    d = serving.decode_step_time(L70, "dgx-h100", 16, 1024, tp=8, pp=2)
    assert d.send == pytest.approx(2 * _rdma(8 * 8192 * 2))
    p1 = serving.prefill_time(L70, "dgx-h100", 4096, tp=8)
    p2 = serving.prefill_time(L70, "dgx-h100", 4096, tp=8, pp=2)
    assert p2.send == pytest.approx(_rdma(4096 * 8192 * 2))
    assert p2.total == pytest.approx(p1.total + p2.send)
    assert serving.prefill_time(L70, "dgx-h100", 4096, tp=2, pp=4).send == pytest.approx(3 * _nvlink(4096 * 8192 * 2))


def test_pp_is_no_faster_per_token_than_tp_on_the_same_gpus():
    tp8 = serving.decode_step_time(L70, "dgx-h100", 64, 2048, tp=8)
    pp = serving.decode_step_time(L70, "dgx-h100", 64, 2048, tp=2, pp=4)
    assert pp.total > 2 * tp8.total


@settings(max_examples=30, deadline=None)
@given(b=st.integers(1, 512), c=st.integers(0, 16384), pp=st.sampled_from([1, 2, 4, 8]),
       tp=st.sampled_from([1, 2, 8]))
def test_pp_decode_weights_independent_of_pp_with_full_microbatching(b, c, pp, tp):
    d = serving.decode_step_time(L70, "dgx-h100", b, c, tp=tp, pp=pp)
    ref = serving.decode_step_time(L70, "dgx-h100", b, c, tp=tp)
    m = min(pp, b)
    assert d.weights == pytest.approx(ref.weights * max(m, pp) / pp)
    assert d.kv == pytest.approx(ref.kv * max(m, pp) / (pp * m))
    assert (d.send == 0.0) == (pp == 1)


def test_continuous_batching_with_pp_uses_the_pipelines_capacity():
    s1 = serving.continuous_batching(L70, "dgx-h100", 4, 2.0, 1024, 256)
    s2 = serving.continuous_batching(L70, "dgx-h100", 4, 2.0, 1024, 256, pp=2)
    assert s2.kv_capacity == serving.kv_capacity(L70, "H100", tp=4, pp=2).tokens > s1.kv_capacity
    p = serving.prefill_time(L70, "dgx-h100", 1024, tp=4, pp=2).total
    assert s2.prefill == pytest.approx(p) and s2.prefill_share == pytest.approx(2.0 * p / 2)
    assert serving.sustainable_rate(L70, "dgx-h100", 4, 1024, 256, pp=2) > \
        serving.sustainable_rate(L70, "dgx-h100", 4, 1024, 256)


def test_pp_errors():
    with pytest.raises(ValueError, match=r"pp=81 is not allowed; allowed 1 to layers=80"):
        serving.decode_step_time(L70, "dgx-h100", 1, 1, pp=81)
    with pytest.raises(ValueError, match=r"microbatches=9 is not allowed; allowed 1 to batch=8"):
        serving.decode_step_time(L70, "dgx-h100", 8, 1, tp=2, pp=4, microbatches=9)
    with pytest.raises(ValueError, match=r"pp=0 is not allowed; pp must be an integer >= 1"):
        serving.prefill_time(L70, "dgx-h100", 8, pp=0)
