"""superpod (DGX H100 SuperPOD RA), nvl72 (GB200 NVL72) and ecmp_count."""

from collections import Counter

import networkx as nx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from interconnect import topology
from interconnect.netsim import simulate
from interconnect.topology import (
    all_shortest_paths,
    bisection_bandwidth,
    ecmp_count,
    fat_tree,
    gpus,
    nvl72,
    path,
    path_bandwidth,
    superpod,
)

NDR = 50e9  # one InfiniBand NDR port, bytes/s per direction
NVLINK5 = 50e9  # one NVLink 5 link, bytes/s per direction


def kinds(g):
    return Counter(d["kind"] for _, d in g.nodes(data=True))


def ports(g, node):
    return sum(d["count"] for _, _, d in g.edges(node, data=True))


# ----------------------------------------------------------------------------------
# superpod: counts against the RA
# ----------------------------------------------------------------------------------
@pytest.mark.parametrize("sus, leaves, spines, cores", [
    (1, 8, 4, 0), (2, 16, 8, 0), (4, 32, 16, 0), (8, 64, 32, 0), (16, 128, 128, 64),
])
def test_superpod_counts_match_the_ra(sus, leaves, spines, cores):
    g = superpod(sus)
    c = kinds(g)
    assert c["gpu"] == c["nic"] == c["pcie_switch"] == 256 * sus
    assert c["nvswitch"] == 32 * sus  # one logical NVSwitch crossbar per DGX
    assert (c["leaf"], c["spine"], c["core"]) == (leaves, spines, cores)
    assert (g.graph["leaves"], g.graph["spines"], g.graph["cores"]) == (leaves, spines, cores)
    assert g.graph["tiers"] == (3 if cores else 2)
    # every switch fits the QM9700's 64 ports; leaves and spines use all of them here
    sw = [n for n, d in g.nodes(data=True) if d["kind"] in ("leaf", "spine", "core")]
    assert max(ports(g, n) for n in sw) == 64
    assert all(ports(g, n) == 64 for n in sw if g.nodes[n]["kind"] == "leaf")
    # node-leaf cables = GPUs; leaf-spine cables = GPUs (non-blocking); spine-core too
    links = Counter()
    for u, v, d in g.edges(data=True):
        links[tuple(sorted((g.nodes[u]["kind"], g.nodes[v]["kind"])))] += d["count"]
    assert links[("leaf", "nic")] == links[("leaf", "spine")] == 256 * sus
    assert links[("core", "spine")] == (256 * sus if cores else 0)


def test_superpod_four_su_with_ufm_is_the_ra_127_nodes():
    g = superpod(4, ufm=True)
    assert g.graph["nodes"] == 127 and len(gpus(g)) == 1016
    assert kinds(g)["leaf"] == 32 and kinds(g)["spine"] == 16
    assert len(gpus(superpod(1))) == 256 and superpod(1).graph["nodes"] == 32


def test_superpod_graph_contract():
    g = superpod(2, nodes_per_su=2)
    for _, d in g.nodes(data=True):
        assert d["kind"] in topology.KINDS and "pos" in d
    for _, _, d in g.edges(data=True):
        assert d["bandwidth"] > 0 and d["latency"] >= 0 and d["count"] >= 1 and isinstance(d["link"], str)
    assert gpus(g)[:2] == ["n0.gpu0", "n0.gpu1"]


# ----------------------------------------------------------------------------------
# superpod: paths and bisection
# ----------------------------------------------------------------------------------
def test_superpod_path_across_sus():
    g = superpod(2)
    p = path(g, "n0.gpu0", "n32.gpu0")  # node 32 is the first node of SU 1
    assert [g.nodes[x]["kind"] for x in p] == ["gpu", "pcie_switch", "nic", "leaf", "spine", "leaf",
                                               "nic", "pcie_switch", "gpu"]
    assert p[3] == "leaf0.0" and p[5] == "leaf1.0"
    assert path_bandwidth(g, "n0.gpu0", "n32.gpu0") == NDR
    assert ecmp_count(g, "n0.gpu0", "n32.gpu0") == 8  # one route per spine
    # same SU, same rail: one leaf, no spine
    assert path(g, "n0.gpu5", "n1.gpu5")[3:4] == ["leaf0.5"] and len(path(g, "n0.gpu5", "n1.gpu5")) == 7
    # inside a node: NVLink through the NVSwitch
    assert path(g, "n0.gpu0", "n0.gpu1") == ["n0.gpu0", "n0.nvsw0", "n0.gpu1"]


def test_superpod_three_tier_path_and_ecmp():
    g = superpod(4, nodes_per_su=2, radix=16)  # 4 SU x 8 rails = 32 leaves > 16 ports: core tier
    assert g.graph["tiers"] == 3
    # same rail, another SU: up and down the rail group, no core
    p = path(g, "n0.gpu3", "n6.gpu3")
    assert [g.nodes[x]["kind"] for x in p][3:6] == ["leaf", "spine", "leaf"]
    assert g.nodes[p[4]]["rail"] == 3
    assert ecmp_count(g, "n0.gpu3", "n6.gpu3") == len(list(all_shortest_paths(g, "n0.gpu3", "n6.gpu3")))
    # another rail: the routing rule crosses to the right rail on NVLink first (0.6 us)
    # rather than through the core (two more InfiniBand hops)
    assert path(g, "n0.gpu3", "n6.gpu5")[:3] == ["n0.gpu3", "n0.nvsw0", "n0.gpu5"]
    net = ("pcie_switch", "nic", "leaf", "spine", "core")
    q = path(g, "n0.gpu3", "n6.gpu5", transit=net)
    assert [g.nodes[x]["kind"] for x in q][3:8] == ["leaf", "spine", "core", "spine", "leaf"]
    assert ecmp_count(g, "n0.gpu3", "n6.gpu5", transit=net) == len(
        list(all_shortest_paths(g, "n0.gpu3", "n6.gpu5", transit=net)))


@pytest.mark.parametrize("sus, r", [(1, 1.0), (2, 1.0), (1, 2.0), (2, 2.0)])
def test_superpod_bisection_closed_form(sus, r):
    g = superpod(sus, nodes_per_su=4, radix=16, oversubscription=r)
    n_gpu = len(gpus(g))
    # one SU: halves meet at the leaves, never oversubscribed; several: the leaf uplinks, 1/r
    want = n_gpu / 2 * NDR / (r if sus > 1 else 1.0)
    assert bisection_bandwidth(g) == pytest.approx(want)


def test_superpod_full_su_is_non_blocking():
    g = superpod(2)
    assert bisection_bandwidth(g) == pytest.approx(len(gpus(g)) / 2 * NDR)


# ----------------------------------------------------------------------------------
# superpod: bad input
# ----------------------------------------------------------------------------------
@pytest.mark.parametrize("kw, words", [
    ({"sus": 0}, ("sus=0", ">= 1")),
    ({"nodes_per_su": 2.5}, ("nodes_per_su=2.5", "integer >= 1")),
    ({"radix": 63}, ("radix=63", "even")),
    ({"oversubscription": 0.5}, ("oversubscription=0.5", ">= 1")),
    ({"oversubscription": 3}, ("oversubscription=3", "whole number")),
    ({"nodes_per_su": 40}, ("nodes_per_su=40", "<= 32")),
    ({"sus": 33}, ("sus=33", "1..32")),
    ({"ufm": 1}, ("ufm=1", "bool")),
])
def test_superpod_rejects_bad_input(kw, words):
    with pytest.raises(ValueError, match="is not allowed|is not a bool") as e:
        superpod(**kw)
    for w in words:
        assert w in str(e.value)


# ----------------------------------------------------------------------------------
# nvl72
# ----------------------------------------------------------------------------------
def test_nvl72_counts():
    g = nvl72()
    c = kinds(g)
    assert (c["gpu"], c["cpu"], c["nvswitch"], c["nic"]) == (72, 36, 18, 0)
    assert len({d["tray"] for _, d in g.nodes(data=True) if d["kind"] == "gpu"}) == 18
    assert len({d["tray"] for _, d in g.nodes(data=True) if d["kind"] == "nvswitch"}) == 9
    for gpu in gpus(g):
        nv = [d for _, v, d in g.edges(gpu, data=True) if g.nodes[v]["kind"] == "nvswitch"]
        assert len(nv) == 18 and all(d["count"] == 1 and d["bandwidth"] == NVLINK5 for d in nv)
    # 72 GPUs x 1.8 TB/s bidirectional = 129.6 TB/s, NVIDIA's "130 TB/s"
    total = sum(d["bandwidth"] for _, _, d in g.edges(data=True) if d["link"] == "nvlink5-link")
    assert 2 * total == pytest.approx(129.6e12)
    assert kinds(nvl72(nics=True, cpus=False))["nic"] == 72
    assert kinds(nvl72(cpus=False))["cpu"] == 0
    with pytest.raises(ValueError, match="nics=1"):
        nvl72(nics=1)


def test_nvl72_paths_and_bisection():
    g = nvl72()
    assert len(path(g, "gpu0", "gpu71")) == 3 and ecmp_count(g, "gpu0", "gpu71") == 18
    assert path_bandwidth(g, "gpu0", "gpu71") == NVLINK5
    assert bisection_bandwidth(g) == pytest.approx(36 * 18 * NVLINK5)  # 32.4 TB/s


def test_nvl72_all_to_all_closed_form():
    """Each GPU spreads its all-to-all over the 18 chips: 18 x 50 GB/s = 900 GB/s per direction."""
    g = nvl72(cpus=False)
    s = 1e9  # bytes from each GPU to each other GPU
    flows, paths = [], []
    for i in range(72):
        for j in range(72):
            if i != j:
                for c in range(18):
                    flows.append((f"gpu{i}", f"gpu{j}", s / 18))
                    paths.append([f"gpu{i}", f"nvsw{c}", f"gpu{j}"])
    res = simulate(g, flows, paths=paths)
    per_gpu = 18 * NVLINK5
    assert per_gpu == 900e9
    assert res.makespan == pytest.approx(71 * s / per_gpu + 0.6e-6, rel=1e-9)


# ----------------------------------------------------------------------------------
# ecmp_count
# ----------------------------------------------------------------------------------
@pytest.mark.parametrize("k", [2, 4, 6, 8])
def test_ecmp_count_fat_tree(k):
    g = fat_tree(k)
    h = k // 2
    hosts_per_pod = h * h
    assert ecmp_count(g, "h0", f"h{hosts_per_pod}") == h * h  # between pods: one per core
    if k >= 4:
        assert ecmp_count(g, "h0", f"h{h}") == h  # same pod, other edge: one per aggregation
    assert ecmp_count(g, "h0", "h1") == 1  # same edge switch
    assert ecmp_count(g, "h0", f"h{hosts_per_pod}") == len(list(all_shortest_paths(g, "h0", f"h{hosts_per_pod}")))


@settings(max_examples=60)
@given(n=st.integers(3, 9), p=st.floats(0.2, 0.9), seed=st.integers(0, 10_000),
       lat=st.lists(st.sampled_from([0.5e-6, 1e-6, 1.5e-6]), min_size=40, max_size=40),
       weight=st.sampled_from(["latency", None]))
def test_ecmp_count_equals_enumeration(n, p, seed, lat, weight):
    g = nx.gnp_random_graph(n, p, seed=seed)
    for e, (u, v) in enumerate(g.edges):
        g.edges[u, v].update(latency=lat[e % len(lat)], bandwidth=1.0, link="", count=1)
    comp = max(nx.connected_components(g), key=len)
    nodes = sorted(comp)
    if len(nodes) < 2:
        return
    for a, b in ((nodes[0], nodes[-1]), (nodes[-1], nodes[0])):
        assert ecmp_count(g, a, b, weight=weight) == len(list(all_shortest_paths(g, a, b, weight=weight)))


def test_ecmp_count_rejects_bad_input():
    g = fat_tree(4)
    with pytest.raises(ValueError, match="same node"):
        ecmp_count(g, "h0", "h0")
    with pytest.raises(ValueError, match="not a node"):
        ecmp_count(g, "h0", "nope")


# ----------------------------------------------------------------------------------
# inventory: switches and cables against the RA and the closed forms
# ----------------------------------------------------------------------------------
@pytest.mark.parametrize("sus, leaves, spines, cores", [
    (1, 8, 4, 0), (2, 16, 8, 0), (4, 32, 16, 0), (8, 64, 32, 0), (16, 128, 128, 64), (32, 256, 256, 128),
])
def test_inventory_counts_switches_and_cables(sus, leaves, spines, cores):
    inv = topology.inventory(superpod(sus))
    gpus_ = 256 * sus
    assert (inv["leaf"], inv["spine"], inv["core"]) == (leaves, spines, cores)
    assert inv["switches"] == leaves + spines + cores
    # non-blocking: one cable per GPU at every tier boundary
    assert inv["nic-leaf"] == inv["leaf-spine"] == gpus_
    assert inv["spine-core"] == (gpus_ if cores else 0)
    assert inv["cables"] == gpus_ * (3 if cores else 2)
    # every port of every 64-port switch is in use in these RA designs
    assert inv["switch_ports"] == 64 * inv["switches"]


@pytest.mark.parametrize("r", [1, 2, 4])
def test_inventory_oversubscribed_leaf_has_fewer_uplink_cables(r):
    inv = topology.inventory(superpod(1, oversubscription=r))
    assert inv["nic-leaf"] == 256 and inv["leaf-spine"] == 256 // r
    assert inv["switch_ports"] == inv["nic-leaf"] + 2 * inv["leaf-spine"]


def test_inventory_ufm_and_cluster():
    inv = topology.inventory(superpod(4, ufm=True))
    assert inv["nic-leaf"] == 127 * 8 and inv["leaf-spine"] == 1024
    c = topology.inventory(topology.cluster(2, 8, rail_optimized=True))
    assert c["nic-leaf"] == 16 and c["core"] == 0


def test_nvl72_crossbar_equals_the_physical_rack_striped_over_18_chips():
    """The logical crossbar ``nvswitch(72, "nvlink5")`` a chapter simulates collectives on
    gives the same AllToAll time as the physical rack with every transfer striped over the 18
    switch chips (the closed form of test_nvl72_all_to_all_closed_form)."""
    from interconnect import netsim

    s = 1e9
    xbar = topology.nvswitch(72, link="nvlink5")
    assert path_bandwidth(xbar, "gpu0", "gpu71") == 18 * NVLINK5
    t_x = netsim.simulate(xbar, [(f"gpu{i}", f"gpu{j}", s) for i in range(72) for j in range(72) if i != j]).makespan
    assert t_x == pytest.approx(71 * s / (18 * NVLINK5) + 0.6e-6, rel=1e-9)
