"""serving.plan_serving: every ranked layout meets the objectives at the rate with the GPUs it
says, the ranking, the rejections, the speed and the errors."""

import math
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from interconnect import serving
from interconnect.catalog import models

L70 = models.get("llama3-70b")
L8 = models.get("llama3-8b")
DSV3 = models.get("deepseek-v3")


def _check(o, rate, prompt, output, ttft, tpot):
    """Re-evaluate a ranked option with the package's own functions."""
    if o.kind == "colocated":
        s = serving.continuous_batching(L70, o.machine, o.decode_tp, rate / o.decode_replicas,
                                        prompt, output, pp=o.pp)
        assert s.ttft == pytest.approx(o.ttft, rel=1e-6) and s.tpot == pytest.approx(o.tpot, rel=1e-6)
        assert o.gpus == o.decode_replicas * o.decode_tp * o.pp
    elif o.decode_ep == 1:
        d = serving.disaggregated(L70, o.machine, rate, prompt, output, prefill_tp=o.prefill_tp,
                                  decode_tp=o.decode_tp, prefill_replicas=o.prefill_replicas,
                                  decode_replicas=o.decode_replicas, decode_pp=o.decode_pp)
        assert d.ttft == pytest.approx(o.ttft, rel=1e-6) and d.tpot == pytest.approx(o.tpot, rel=1e-6)
        assert d.gpus == o.gpus
    assert o.ttft <= ttft * (1 + 1e-6) and o.tpot <= tpot * (1 + 1e-6)
    assert o.goodput >= rate * (1 - 1e-6)


def test_every_ranked_layout_meets_the_objectives_and_they_are_sorted():
    p = serving.plan_serving(L70, 20.0, 1024, 256, 0.5, 0.03)
    assert p.ranked and p.best is p.ranked[0]
    for o in p.ranked:
        _check(o, 20.0, 1024, 256, 0.5, 0.03)
    assert [o.gpus for o in p.ranked] == sorted(o.gpus for o in p.ranked)
    assert p.best.label() == "dgx-h100 disaggregated 3 x (tp=2) prefill + 1 x (tp=4) decode"
    assert p.best.label() in p.explanation and "GPUs" in p.explanation
    assert p.why.startswith("The best colocated layout")
    # Llama 3 70B in BF16 does not fit one H100
    assert ("dgx-h100 colocated tp=1 pp=1", "tp=1, pp=1: the weights (131.4 GiB per GPU) leave no room for one KV "
            "block in 72.0 GiB of H100") in p.rejected


def test_one_fewer_instance_would_miss():
    # the instance counts are the smallest that carry the rate: ceil(rate / goodput)
    p = serving.plan_serving(L70, 20.0, 1024, 256, 0.5, 0.03, disaggregate=False)
    for o in p.ranked:
        assert o.decode_replicas == math.ceil(20.0 / o.decode_goodput)
        assert (o.decode_replicas - 1) * o.decode_goodput < 20.0


@settings(max_examples=8, deadline=None)
@given(r1=st.floats(0.5, 30.0), dr=st.floats(0.0, 30.0))
def test_more_traffic_never_needs_fewer_gpus(r1, dr):
    a = serving.plan_serving(L8, r1, 512, 128, 0.3, 0.02).best
    b = serving.plan_serving(L8, r1 + dr, 512, 128, 0.3, 0.02).best
    assert b.gpus >= a.gpus


def test_prices_break_ties_and_moe_gets_expert_parallel_decode():
    p = serving.plan_serving(DSV3, 50.0, 2048, 512, 2.0, 0.05, fp8=True, machines=("dgx-h100", "gb200-nvl72"),
                             prices={"dgx-h100": 2.0, "gb200-nvl72": 4.0})
    assert any(o.decode_ep > 1 for o in p.ranked)
    for a, b in zip(p.ranked, p.ranked[1:]):
        assert (a.gpus, a.cost) <= (b.gpus, b.cost)
    assert all(o.cost == o.gpus * (2.0 if o.machine == "dgx-h100" else 4.0) for o in p.ranked)


def test_planner_is_fast():
    t = time.process_time()   # CPU time: `make test` runs two lanes at once on two cores
    serving.plan_serving(L70, 20.0, 1024, 256, 0.5, 0.03)
    assert time.process_time() - t < 1.0


def test_nothing_feasible_is_explained():
    p = serving.plan_serving(L70, 20.0, 1024, 256, 0.001, 0.03)
    assert p.best is None and p.why == ""
    assert p.explanation.startswith("No layout serves 20 requests/s within the objectives")


def test_plan_errors():
    with pytest.raises(ValueError, match=r"machines contains 'dgx-z'; allowed: names of"):
        serving.plan_serving(L70, 1.0, 128, 128, 1.0, 1.0, machines=("dgx-z",))
    with pytest.raises(ValueError, match=r"rate=0 .* must be > 0 requests/s"):
        serving.plan_serving(L70, 0, 128, 128, 1.0, 1.0)
    with pytest.raises(ValueError, match=r"prices\['dgx-h100'\]=-1 .* must be > 0 per GPU-hour"):
        serving.plan_serving(L70, 1.0, 128, 128, 1.0, 1.0, prices={"dgx-h100": -1})
    with pytest.raises(ValueError, match=r"ttft_slo=0 is not allowed"):
        serving.plan_serving(L70, 1.0, 128, 128, 0, 1.0)
