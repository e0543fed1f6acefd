"""interconnect.netsim.closed_form and interconnect.netsim.resilience."""

import pytest

from interconnect import collectives, netsim
from interconnect import topology as T
from interconnect.netsim.closed_form import neighbour_closed_form, simulated_and_closed_form
from interconnect.netsim.resilience import after_failure

N = 256 * 2**20


def test_neighbour_closed_form_on_a_ring_is_the_ring_formula():
    g = T.ring(8)
    e = g.edges["gpu0", "gpu1"]
    t, bw = neighbour_closed_form(g, N)
    assert bw == e["bandwidth"]
    # Patarasuk and Yuan (2009): 2 (p - 1) (alpha + n / (p B))
    assert t == pytest.approx(2 * 7 * (e["latency"] + N / (8 * e["bandwidth"])))


def test_the_narrowest_neighbour_path_sets_the_bandwidth():
    g = T.pcie_tree(4, 1, 2)
    bad = [f"gpu{i}" for i in (0, 4, 1, 5, 2, 6, 3, 7)]
    _, bw = neighbour_closed_form(g, N, ranks=bad)
    assert bw == min(T.path_bandwidth(g, a, b) for a, b in zip(bad, bad[1:] + bad[:1]))


def test_simulated_and_closed_form_agree_on_a_crossbar():
    g = T.nvswitch(8)
    sim, closed, bw = simulated_and_closed_form(g, N)
    assert sim.time == pytest.approx(closed, rel=1e-9)
    assert closed == collectives.collective_time("allreduce", N, 8, bw, T.path_latency(g, "gpu0", "gpu1"), "ring")


def test_after_failure_of_a_ring_link_cuts_nobody_and_slows_the_ring():
    g = T.ring(8)
    cut, before, after = after_failure(g, N, remove_edge=("gpu3", "gpu4"))
    assert cut == []
    assert before == netsim.simulate_collective(g, "allreduce", N).time
    assert after > before
    assert g.has_edge("gpu3", "gpu4")  # the healthy graph is left as it was


def test_after_failure_of_a_pcie_switch_cuts_off_its_gpus():
    g = T.pcie_tree(4, 1, 2)
    below = sorted(n for n in g.neighbors("sw1") if g.nodes[n]["kind"] == "gpu")
    cut, _, after = after_failure(g, N, remove_node="sw1")
    assert sorted(cut) == below and len(cut) == 4
    assert after > 0


def test_after_failure_with_a_degraded_machine():
    g = T.nvswitch(8, link="nvlink4-link", links_per_gpu=18)
    less = T.nvswitch(8, link="nvlink4-link", links_per_gpu=13)
    cut, before, after = after_failure(g, N, degraded=less)
    assert cut == []
    assert after / before == pytest.approx(18 / 13, rel=5e-3)  # 18 links to 13, up to the latency term
