"""interconnect.netsim.simgrid: the export of a topology and a simulation to SimGrid, and
netsim against SimGrid (a compiled flow-level simulator) on the same flows and routes.

The export tests run everywhere. The comparisons are skipped, with a message, where
Debian's python3-simgrid is not installed; .ci/run installs it so that CI runs them.
SimGrid runs its CM02 model with TCP-gamma 0 and no cross-traffic; see the module's
docstring for how latency is made to follow netsim's rule.
"""

import ast
import pathlib
import sys
import xml.etree.ElementTree as ET

import networkx as nx
import pytest

from interconnect import netsim, topology
from interconnect.netsim import Flow, simgrid

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "benchmarks"))
import simgrid_compare as sgc  # noqa: E402

needs_simgrid = pytest.mark.skipif(not simgrid.simgrid_available(),
                                   reason=f"SimGrid not importable by {simgrid.SIMGRID_PYTHON} "
                                          "(apt-get install python3-simgrid)")


def _parse(xml):
    root = ET.fromstring(xml)
    zone = root.find("zone")
    return root, zone


# --------------------------------------------------------------------------- the export (no SimGrid needed)


def test_platform_of_a_ring_allreduce_has_the_expected_hosts_links_and_routes(tmp_path):
    g = topology.cluster(nodes=2, gpus_per_node=8)
    r = netsim.simulate_collective(g, "allreduce", 2**24)
    info = simgrid.export(g, r, tmp_path)
    root, zone = _parse(pathlib.Path(info["platform"]).read_text())
    assert root.tag == "platform" and root.get("version") == "4.1" and zone.get("routing") == "Full"
    hosts = [h.get("id") for h in zone.findall("host")]
    links = {ln.get("id"): ln for ln in zone.findall("link")}
    routes = zone.findall("route")
    assert sorted(hosts) == sorted(map(str, topology.endpoints(g)))          # 16 GPUs
    assert len(links) == 2 * g.number_of_edges()                             # both directions of each edge
    assert len(routes) == 16 == info["routes"]                               # one per ring neighbour pair
    assert info["flows"] == r.n_flows == 2 * 15 * 16
    # every route is the path netsim took, link for link, and every link is the edge's
    path = {(str(p[0]), str(p[-1])): p for p in r.paths}
    for route in routes:
        p = path[(route.get("src"), route.get("dst"))]
        assert route.get("symmetrical") == "NO"
        assert [c.get("id") for c in route.findall("link_ctn")] == [f"{a}->{b}" for a, b in zip(p, p[1:])]
    for (u, v, d) in g.edges(data=True):
        for a, b in ((u, v), (v, u)):
            ln = links[f"{a}->{b}"]
            assert float(ln.get("bandwidth").removesuffix("Bps")) == d["bandwidth"]
            assert float(ln.get("latency").removesuffix("s")) == d["latency"]


def test_replay_script_carries_the_schedule(tmp_path):
    g = topology.nvswitch(4, link="nvlink4")
    r = netsim.simulate_collective(g, "allreduce", 2**20, chunks=2)
    text = simgrid.to_replay(g, r)
    compile(text, "replay.py", "exec")                                        # valid Python
    assign = next(n for n in ast.parse(text).body if isinstance(n, ast.Assign) and n.targets[0].id == "FLOWS")
    flows = ast.literal_eval(assign.value)
    assert len(flows) == r.n_flows
    assert [f["deps"] for f in flows] == [list(r.schedule.deps(i)) for i in range(r.n_flows)]
    assert [f["nbytes"] for f in flows] == r.sim.nbytes.tolist()
    assert all(f["delay"] == pytest.approx(2 * g.edges["gpu0", "nvsw0"]["latency"]) for f in flows)


def test_graph_alone_gets_a_route_between_every_pair_of_ranks():
    g = topology.nvswitch(4, link="nvlink4")
    _, zone = _parse(simgrid.to_platform_xml(g))
    assert len(zone.findall("host")) == 4 and len(zone.findall("route")) == 4 * 3


def test_export_errors_name_the_problem(tmp_path):
    g = nx.Graph()
    g.add_edge(1, "1", bandwidth=1e9, latency=0.0)
    with pytest.raises(ValueError, match="same name"):
        simgrid.to_platform_xml(g, [Flow(1, "1", 1.0)])
    # ECMP sends two flows of one pair over two paths; a Full zone keeps one route per pair
    g = nx.cycle_graph(4)
    nx.set_edge_attributes(g, 1e9, "bandwidth")
    nx.set_edge_attributes(g, 0.0, "latency")
    flows = [Flow(0, 2, 1.0)] * 16
    with pytest.raises(ValueError, match="two different paths"):
        simgrid.to_platform_xml(g, flows, routing="ecmp", seed=1)
    with pytest.raises(ValueError, match="no flows"):
        simgrid.export(g, None, tmp_path)
    with pytest.raises(ValueError, match="not a netsim simulation"):
        simgrid.compare(g, flows)


# --------------------------------------------------------------------------- netsim against SimGrid


@needs_simgrid
def test_ring_allreduce_on_nvswitch_agrees():
    # the simulator issue: simulated times must agree to 0.1 %
    g, run = sgc.workload_ring_allreduce_nvswitch(nbytes=2**28, p=8)
    r = sgc.compare("ring", g, run, repeat=1)
    assert r["makespan_rel_err"] < 1e-3
    assert r["max_flow_rel_err"] < 1e-3


@needs_simgrid
def test_alltoall_on_oversubscribed_fat_tree_agrees():
    # contention: 2:1 oversubscription, ECMP routes shared with SimGrid
    g, run = sgc.workload_alltoall_fat_tree(k=4, hosts=16, nbytes=2**24, oversubscription=2.0, seed=3)
    r = sgc.compare("alltoall", g, run, repeat=1)
    assert r["flows"] == 16 * 15
    assert r["makespan_rel_err"] < 1e-3
    assert r["max_flow_rel_err"] < 1e-3


@needs_simgrid
def test_two_rings_with_their_dependencies_agree_on_a_rail_optimised_cluster():
    # simulate_rings: two channels, each with its own dependencies, sharing the rails
    g = topology.cluster(nodes=2, gpus_per_node=8)
    ring = topology.endpoints(g)
    r = netsim.simulate_rings(g, 2**26, [ring, ring[::-1]])
    out = simgrid.compare(g, r)
    assert out["makespan_rel_err"] < 1e-3 and out["max_flow_rel_err"] < 1e-3


@needs_simgrid
def test_shared_link_halves_the_rate_in_both(tmp_path):
    # two flows through one link each take twice as long as one alone, in SimGrid as in netsim
    g = nx.Graph()
    for a in ("a", "c", "b"):
        g.add_edge(a, "s", bandwidth=1e9, latency=1e-6)
    flows = [Flow("a", "b", 1e9), Flow("c", "b", 1e9)]
    simgrid.export(g, flows, tmp_path)
    out = simgrid.run_simgrid(tmp_path)
    assert out["arrival"] == pytest.approx([2.0 + 2e-6, 2.0 + 2e-6], rel=1e-9)
    assert netsim.simulate(g, flows).arrival.tolist() == pytest.approx(out["arrival"], rel=1e-12)


@needs_simgrid
def test_simgrid_own_latency_model_on_one_flow(tmp_path):
    # one flow alone: latency + bytes / bandwidth under SimGrid's own latency model too
    g = nx.Graph()
    g.add_edge("a", "s", bandwidth=1e9, latency=1e-6)
    g.add_edge("s", "b", bandwidth=1e9, latency=1e-6)
    simgrid.export(g, [Flow("a", "b", 1e6)], tmp_path)
    out = simgrid.run_simgrid(tmp_path, simgrid_latency=True)
    assert out["makespan"] == pytest.approx(1e-3 + 2e-6, rel=1e-9)
