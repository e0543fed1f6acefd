"""Tests for interconnect.topology: builders, analyses, nvidia-smi matrix, drawing."""

import itertools
import math

import matplotlib

matplotlib.use("Agg")

import networkx as nx  # noqa: E402
import pytest  # noqa: E402
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from interconnect import topology as T  # noqa: E402
from interconnect.links import get_link  # noqa: E402

FAST = settings(max_examples=25, deadline=None, database=None)
GB = 1e9
NV2 = get_link("nvlink2-link").bandwidth  # 25 GB/s per direction (V100 white paper)
NDR = get_link("ib-ndr").bandwidth  # 50 GB/s per direction (400 Gb/s)
CONTRACT_EDGE = {"bandwidth", "latency", "link", "count"}


def _check_contract(g):
    """Graph contract (/tmp/graph_contract.md): kinds, GPU index, edge attributes."""
    assert isinstance(g, nx.Graph) and not g.is_multigraph() and not g.is_directed()
    assert g.graph["name"]
    for n, d in g.nodes(data=True):
        assert d["kind"] in T.KINDS, n
        assert "pos" in d
        if d["kind"] == "gpu":
            assert isinstance(d["index"], int)
    for u, v, d in g.edges(data=True):
        assert CONTRACT_EDGE <= set(d), (u, v)
        assert d["bandwidth"] > 0 and d["latency"] >= 0 and d["count"] >= 1
        assert isinstance(d["link"], str)


ALL_BUILDERS = [
    lambda: T.ring(8), lambda: T.ring(2), lambda: T.pcie_tree(), lambda: T.pcie_tree(2, 2, 2),
    lambda: T.pcie_tree(2, 2, 1, switch_levels=2), lambda: T.pcie_tree(2, 0, 2),
    lambda: T.dgx1_hybrid_cube_mesh(), lambda: T.dgx1_hybrid_cube_mesh(with_pcie=True),
    lambda: T.nvswitch(8), lambda: T.nvswitch(8, physical=True), lambda: T.nvswitch(8, "nvlink3"),
    lambda: T.torus((4, 4)), lambda: T.torus((2, 3, 2)), lambda: T.fat_tree(4),
    lambda: T.fat_tree(4, oversubscription=2), lambda: T.cluster(2),
    lambda: T.cluster(3, 4, rail_optimized=False), lambda: T.cluster(2, 1),
]


@pytest.mark.parametrize("build", ALL_BUILDERS)
def test_every_builder_follows_the_contract(build):
    g = build()
    _check_contract(g)
    assert nx.is_connected(g)
    # gpus() in (node, index) order
    gs = T.gpus(g)
    keys = [(g.nodes[x].get("node", 0), g.nodes[x]["index"]) for x in gs]
    assert keys == sorted(keys)


# ------------------------------------------------------------------------ ring / torus
@pytest.mark.parametrize("n", [2, 3, 4, 7, 8, 16])
def test_ring_counts_and_diameter(n):
    # a ring of n has n edges (one for n = 2), degree 2, diameter floor(n/2)
    g = T.ring(n)
    assert g.number_of_nodes() == n
    assert g.number_of_edges() == (1 if n == 2 else n)
    assert T.diameter(g) == n // 2
    for _, _, d in g.edges(data=True):
        assert d["bandwidth"] == NV2 * d["count"] and d["link"] == "nvlink2-link"


@pytest.mark.parametrize("n", [3, 4, 6, 8, 9, 12])
def test_ring_bisection_is_two_links(n):
    # cutting a ring in two halves always cuts 2 links (Dally & Towles 2004, sec. 3.3)
    g = T.ring(n, bandwidth=10 * GB, latency=1e-6)
    assert T.bisection_bandwidth(g) == pytest.approx(2 * 10 * GB)


def test_ring_overrides_and_synthetic_link():
    g = T.ring(4, link=None, bandwidth=5.0, latency=2.0)
    assert all(d["link"] == "" and d["bandwidth"] == 5.0 for _, _, d in g.edges(data=True))
    with pytest.raises(ValueError, match="link=None"):
        T.ring(4, link=None)


@pytest.mark.parametrize("dims", [(4, 4), (3, 5), (2, 2), (2, 4), (4, 4, 2), (5,)])
def test_torus_counts_degree_diameter(dims):
    # k-ary n-cube: degree 2 per dimension with k > 2, 1 with k = 2; diameter sum floor(k/2)
    g = T.torus(dims)
    n = math.prod(dims)
    deg = sum(2 if k > 2 else (1 if k == 2 else 0) for k in dims)
    assert g.number_of_nodes() == n
    assert all(dd == deg for _, dd in g.degree())
    assert g.number_of_edges() == n * deg // 2
    assert T.diameter(g) == sum(k // 2 for k in dims)


@pytest.mark.parametrize("k", [4, 6])
def test_torus_bisection_closed_form(k):
    # k x k torus, k even: bisection 2k links (wrap-around doubles the k cut links);
    # Dally & Towles (2004), ch. 5. k=4 is exact search, k=6 the heuristic method.
    g = T.torus((k, k), bandwidth=1.0, latency=0.0)
    assert T.bisection_bandwidth(g) == pytest.approx(2 * k)


def test_torus_size_two_is_single_edge():
    g = T.torus((2, 2))
    assert g.number_of_edges() == 4
    assert all(d["count"] == 1 for _, _, d in g.edges(data=True))


# ------------------------------------------------------------------------ DGX-1
def test_dgx1_wiring_facts():
    # NVIDIA DGX-1 V100 white paper: every V100 uses its 6 NVLinks, 24 links total
    g = T.dgx1_hybrid_cube_mesh()
    assert g.number_of_nodes() == 8
    for n in g:
        assert sum(g.edges[n, m]["count"] for m in g.neighbors(n)) == 6
    assert sum(d["count"] for _, _, d in g.edges(data=True)) == 24
    assert g.number_of_edges() == 16
    # Alibaba Cloud ACK docs: GPU0-GPU3 and GPU0-GPU4 two NVLinks, GPU0-GPU1/2 one, GPU0-GPU6 none
    assert g.edges["gpu0", "gpu3"]["count"] == 2 and g.edges["gpu0", "gpu4"]["count"] == 2
    assert g.edges["gpu0", "gpu1"]["count"] == 1 and g.edges["gpu0", "gpu2"]["count"] == 1
    assert not g.has_edge("gpu0", "gpu6")
    # white paper: two faces (GPUs 0-3 and 4-7) fully connected, GPU i linked to i+4
    for quad in ((0, 1, 2, 3), (4, 5, 6, 7)):
        for a, b in itertools.combinations(quad, 2):
            assert g.has_edge(f"gpu{a}", f"gpu{b}")
    for i in range(4):
        assert g.has_edge(f"gpu{i}", f"gpu{i + 4}")
    for _, _, d in g.edges(data=True):
        assert d["bandwidth"] == pytest.approx(d["count"] * NV2)
    assert T.diameter(g) == 2


# DGX-1 V100 `nvidia-smi topo -m` (Microway, "nvidia-smi: Control Your GPUs")
DGX1_SMI = """\
X NV1 NV1 NV2 NV2 SYS SYS SYS
NV1 X NV2 NV1 SYS NV2 SYS SYS
NV1 NV2 X NV2 SYS SYS NV1 SYS
NV2 NV1 NV2 X SYS SYS SYS NV1
NV2 SYS SYS SYS X NV1 NV1 NV2
SYS NV2 SYS SYS NV1 X NV2 NV1
SYS SYS NV1 SYS NV1 NV2 X NV2
SYS SYS SYS NV1 NV2 NV1 NV2 X"""


def test_topo_matrix_dgx1_matches_nvidia_smi():
    m = T.topo_matrix(T.dgx1_hybrid_cube_mesh(with_pcie=True))
    assert m.labels == [row.split() for row in DGX1_SMI.splitlines()]
    assert m.numa == [0, 0, 0, 0, 1, 1, 1, 1]  # CPU affinity 0-19 for GPU0-3 in the same output
    text = str(m)
    assert "GPU7" in text and "NV2" in text and "Legend" in text
    assert repr(m) == text  # a live notebook's text view is the matrix, not the dataclass fields
    assert "<table" in m._repr_html_()
    # without the PCIe tree the non-NVLink pairs are unknown
    m2 = T.topo_matrix(T.dgx1_hybrid_cube_mesh())
    assert m2.label("gpu0", "gpu6") == "-"


def test_dgx1_pcie_tree():
    g = T.dgx1_hybrid_cube_mesh(with_pcie=True)
    assert sum(1 for _, d in g.nodes(data=True) if d["kind"] == "pcie_switch") == 4
    assert sum(1 for _, d in g.nodes(data=True) if d["kind"] == "cpu") == 2
    # Xeon E5-2698 v4: 2 QPI links at 9.6 GT/s = 2 x 19.2 GB/s per direction
    assert g.edges["cpu0", "cpu1"]["count"] == 2
    assert g.edges["cpu0", "cpu1"]["bandwidth"] == pytest.approx(38.4 * GB)
    # GPU0/GPU1 on one switch (PIX via PCIe)
    assert g.has_edge("gpu0", "sw0") and g.has_edge("gpu1", "sw0")
    assert g.edges["gpu0", "sw0"]["link"] == "pcie3x16"


# ------------------------------------------------------------------------ NVSwitch
def test_nvswitch_h100_matrix_and_bandwidth():
    # DGX H100: nvidia-smi shows NV18 for every pair; any pair gets 450 GB/s per direction
    g = T.nvswitch(8)
    m = T.topo_matrix(g)
    for i, row in enumerate(m.labels):
        for j, x in enumerate(row):
            assert x == ("X" if i == j else "NV18")
    assert g.graph["switches"] == 4
    for a, b in itertools.combinations(T.gpus(g), 2):
        assert T.path_bandwidth(g, a, b) == pytest.approx(450 * GB)
    for _, _, d in g.edges(data=True):
        assert d["link"] == "nvlink4-link"
        assert d["bandwidth"] == pytest.approx(d["count"] * get_link("nvlink4-link").bandwidth)
    # GPU-switch-GPU costs one NVLink latency (latency convention of the module)
    assert T.path_latency(g, "gpu0", "gpu1") == pytest.approx(get_link("nvlink4").latency)


def test_nvswitch_a100_and_physical_split():
    # DGX A100: 12 NVLinks per GPU over 6 NVSwitches -> NV12, 2 links per switch
    a = T.nvswitch(8, "nvlink3")
    assert T.topo_matrix(a).labels[0][1] == "NV12" and a.graph["switches"] == 6
    p = T.nvswitch(8, "nvlink3", physical=True)
    assert {d["count"] for _, _, d in p.edges(data=True)} == {2}
    # DGX H100 physical: 5/4/4/5 links per GPU to the 4 NVSwitch chips, still NV18
    h = T.nvswitch(8, physical=True)
    assert [h.edges["gpu0", f"nvsw{s}"]["count"] for s in range(4)] == [5, 4, 4, 5]
    assert T.topo_matrix(h).labels[0][7] == "NV18"


def test_nvswitch_bisection():
    # half the GPUs each push their full 450 GB/s: 4 x 450 = 1.8 TB/s per direction
    # (3.6 TB/s bidirectional, NVIDIA's DGX H100 bisection figure)
    assert T.bisection_bandwidth(T.nvswitch(8)) == pytest.approx(1800 * GB)


# ------------------------------------------------------------------------ PCIe tree
def test_pcie_tree_counts_and_matrix():
    g = T.pcie_tree(2, 2, 2)
    assert len(T.gpus(g)) == 8
    m = T.topo_matrix(g)
    # nvidia-smi legend: same switch PIX, same socket different switch PHB, across QPI/UPI SYS
    assert m.labels[0][1] == "PIX" and m.labels[0][2] == "PHB" and m.labels[0][4] == "SYS"
    assert m.labels[6][7] == "PIX" and m.labels[5][7] == "PHB"
    g1 = T.pcie_tree()  # 2 sockets x 1 switch x 4 GPUs
    m1 = T.topo_matrix(g1)
    assert m1.labels[0][3] == "PIX" and m1.labels[3][4] == "SYS"
    g2 = T.pcie_tree(2, 2, 1, switch_levels=2)  # cascaded switches: PXB
    assert T.topo_matrix(g2).labels[0][2] == "PXB"
    g3 = T.pcie_tree(2, 0, 1)  # GPUs on root ports
    assert T.topo_matrix(g3).labels[0][1] == "PHB"
    for _, _, d in g.edges(data=True):
        if d["link"]:
            assert d["bandwidth"] == pytest.approx(get_link(d["link"]).bandwidth * d["count"])


def test_pcie_tree_defaults_upi():
    # UPI 10.4 GT/s x 2 bytes = 20.8 GB/s per direction per link
    g = T.pcie_tree(socket_links=2)
    assert g.edges["cpu0", "cpu1"]["bandwidth"] == pytest.approx(2 * 20.8 * GB)
    assert T.UPI_BANDWIDTH == pytest.approx(10.4e9 * 2)
    d = T.pcie_tree(socket_links=1).edges["cpu0", "cpu1"]   # one UPI link, a lower bound
    assert (d["count"], d["bandwidth"], d["socket_link"]) == (1, T.UPI_BANDWIDTH, "")


@pytest.mark.parametrize("gpu_link,name,count,per_link", [
    ("pcie3x16", "upi-10.4", 3, 20.8),   # Skylake-SP: Intel ARK Platinum 8168, 3 UPI links
    ("pcie4x16", "xgmi-rome", 3, 36.0),  # EPYC 7002 (DGX A100): AMD MI100 docs, 3 links in 2P
    ("pcie5x16", "upi2-16", 4, 32.0),    # Sapphire Rapids (DGX/HGX H100): Intel ARK 8480+, 4 UPI 2.0
    ("pcie6x16", "", 1, 20.8),           # no platform recorded: the one-link lower bound
])
def test_pcie_tree_default_socket_link_is_the_platform_of_its_pcie_generation(gpu_link, name, count, per_link):
    e = T.pcie_tree(4, 1, 2, gpu_link=gpu_link, uplink=gpu_link).edges["cpu0", "cpu1"]
    assert (e["count"], e["socket_link"]) == (count, name)
    assert e["bandwidth"] == pytest.approx(count * per_link * GB, rel=1e-12)
    assert T.DEFAULT_SOCKET_LINK.get(gpu_link[:5], "") == name
    # naming only a count or a bandwidth keeps the UPI 10.4 GT/s link of the earlier chapters
    e = T.pcie_tree(4, 1, 2, gpu_link=gpu_link, uplink=gpu_link, socket_links=2).edges["cpu0", "cpu1"]
    assert (e["count"], e["bandwidth"], e["socket_link"]) == (2, 2 * T.UPI_BANDWIDTH, "")


@pytest.mark.parametrize("name,gts,links,per_link", [
    ("qpi-9.6", 9.6, 2, 19.2),     # Intel ARK E5-2698 v4: 2 QPI links; 2 bytes per transfer
    ("upi-10.4", 10.4, 3, 20.8),   # Intel ARK Platinum 8168: 3 UPI links
    ("upi2-16", 16.0, 4, 32.0),    # Intel ARK Platinum 8480+: 4 UPI 2.0 links at 16 GT/s
    ("xgmi-rome", 18.0, 3, 36.0),  # AMD ROCm MI100 docs: 2P EPYC, 3 links, 18 GT/s, x16, 2 B/transfer
    ("xgmi-genoa", 32.0, 4, 64.0),  # Lenovo Press LP1852: EPYC 9004, up to 4 xGMI links at 32 Gb/s, x16
])
def test_socket_links_real_counts(name, gts, links, per_link):
    from interconnect.catalog.socket_links import get_socket_link

    rec = get_socket_link(name)
    assert rec.transfer_rate == pytest.approx(gts * 1e9) and rec.links == links
    assert rec.bandwidth == pytest.approx(per_link * GB, rel=1e-12)
    assert rec.bandwidth == pytest.approx(rec.transfer_rate * 2, rel=1e-12)   # 16 data lanes, 2 bytes
    assert rec.total_bandwidth == pytest.approx(links * per_link * GB, rel=1e-12)
    g = T.pcie_tree(2, 2, 2, socket_link=name)
    e = g.edges["cpu0", "cpu1"]
    assert (e["count"], e["socket_link"]) == (links, name)
    assert e["bandwidth"] == pytest.approx(links * per_link * GB, rel=1e-12)
    assert f"{links} x " in g.graph["socket_link"]
    # an explicit count overrides the record's
    assert T.pcie_tree(2, 2, 2, socket_link=name, socket_links=1).edges["cpu0", "cpu1"]["count"] == 1


@pytest.mark.parametrize("kw,match", [
    (dict(socket_link="upi-99"), "socket link"), (dict(socket_link=3), "name="),
    (dict(socket_links=0), "socket_links"), (dict(socket_link="upi2-16", socket_links=0), "socket_links"),
    (dict(socket_link_bandwidth=0.0), "socket_link_bandwidth"),
])
def test_pcie_tree_bad_socket_links(kw, match):
    with pytest.raises(ValueError, match=match):
        T.pcie_tree(**kw)


def test_hgx_h100_host_socket_link_does_not_bind():
    """Four UPI 2.0 links (128 GB/s per direction) are twice a PCIe 5.0 x16 GPU link, so a
    cross-socket path is as wide as a same-socket one, as p2pBandwidthLatencyTest's flat
    P2P=Disabled matrix on HGX H100 shows (NVIDIA/nccl #1264)."""
    from interconnect.pcie_servers import hgx_h100_host

    g = hgx_h100_host()
    assert T.path_bandwidth(g, "gpu0", "gpu4") == T.path_bandwidth(g, "gpu0", "gpu1") == get_link("pcie5x16").bandwidth
    assert T.topo_matrix(g).label("gpu0", "gpu4") == "SYS"
    one = hgx_h100_host(socket_links=1)
    assert T.path_bandwidth(one, "gpu0", "gpu4") == pytest.approx(32 * GB)


# ------------------------------------------------------------------------ fat tree
@pytest.mark.parametrize("k", [2, 4, 6, 8])
def test_fat_tree_counts(k):
    # Al-Fares et al. 2008: k^3/4 hosts, 5k^2/4 switches of k ports, 3k^3/4 links
    g = T.fat_tree(k)
    kinds = [d["kind"] for _, d in g.nodes(data=True)]
    assert kinds.count("host") == k ** 3 // 4
    assert sum(kinds.count(x) for x in ("edge", "aggregation", "core")) == 5 * k * k // 4
    assert kinds.count("core") == (k // 2) ** 2
    assert g.number_of_edges() == 3 * k ** 3 // 4
    for n, d in g.nodes(data=True):
        if d["kind"] != "host":
            assert g.degree(n) == (k if d["kind"] != "core" else k)
    assert T.diameter(g) == (6 if k >= 4 else 6)


@pytest.mark.parametrize("k,r", [(4, 1.0), (4, 2.0), (6, 1.0), (6, 3.0)])
def test_fat_tree_bisection_closed_form(k, r):
    # full bisection (k^3/8) links, divided by the oversubscription r
    g = T.fat_tree(k, oversubscription=r)
    assert T.bisection_bandwidth(g) == pytest.approx(k ** 3 / 8 * NDR / r, rel=1e-6)


def test_fat_tree_oversubscription_tiers():
    g = T.fat_tree(4, oversubscription=2)
    assert g.edges["h0", "edge0.0"]["bandwidth"] == NDR
    assert g.edges["edge0.0", "agg0.0"]["bandwidth"] == NDR / 2
    assert g.edges["agg0.0", "core0"]["bandwidth"] == NDR / 2


# ------------------------------------------------------------------------ cluster
def test_cluster_rail_optimised():
    g = T.cluster(2, 8)
    kinds = [d["kind"] for _, d in g.nodes(data=True)]
    assert kinds.count("gpu") == 16 and kinds.count("nic") == 16 and kinds.count("leaf") == 8
    # rail i: leaf i connects NIC i of every node (Juniper JVD "Rail Optimized Fabric")
    for i in range(8):
        assert set(g.neighbors(f"leaf{i}")) >= {f"n0.nic{i}", f"n1.nic{i}"}
    # GPU-NIC edge: min(PCIe 5.0 x16 63 GB/s, NDR 50 GB/s) = 50 GB/s
    assert g.edges["n0.gpu3", "n0.nic3"]["bandwidth"] == pytest.approx(NDR)
    # same-rail GPUs on different nodes: GPU-NIC-leaf-NIC-GPU, 4 hops
    assert T.path(g, "n0.gpu2", "n1.gpu2") == ["n0.gpu2", "n0.nic2", "leaf2", "n1.nic2", "n1.gpu2"]
    assert T.topo_matrix(g).labels[0][1] == "NV18"
    assert T.topo_matrix(g, node=1).gpus[0] == "n1.gpu0"
    # 8 NICs x 50 GB/s between the two nodes
    assert T.bisection_bandwidth(g) == pytest.approx(8 * NDR)


def test_cluster_tor_and_oversubscription():
    g = T.cluster(4, 8, rail_optimized=False, leaf_spine_oversubscription=2)
    assert sum(1 for _, d in g.nodes(data=True) if d["kind"] == "leaf") == 4
    assert set(g.neighbors("leaf1")) >= {f"n1.nic{i}" for i in range(8)}
    # each leaf: 8 x 50 GB/s down, half of it up
    up = sum(g.edges["leaf0", s]["bandwidth"] for s in g.neighbors("leaf0")
             if g.nodes[s]["kind"] == "spine")
    assert up == pytest.approx(8 * NDR / 2)


# ------------------------------------------------------------------------ paths
GRAPHS = [T.dgx1_hybrid_cube_mesh(with_pcie=True), T.pcie_tree(2, 2, 2), T.torus((3, 4)),
          T.cluster(2, 4), T.fat_tree(4, oversubscription=2)]


@FAST
@given(st.integers(0, len(GRAPHS) - 1), st.data())
def test_path_bandwidth_bounds_and_widest(gi, data):
    # the bottleneck of a path is <= every edge on it; the widest path is >= the shortest
    g = GRAPHS[gi]
    ends = T.endpoints(g)
    a, b = data.draw(st.sampled_from(list(itertools.permutations(ends, 2))))
    p = T.path(g, a, b)
    bw = T.path_bandwidth(g, a, b)
    for u, v in zip(p, p[1:]):
        assert bw <= g.edges[u, v]["bandwidth"]
    wp, wbw = T.widest_path(g, a, b)
    assert wp[0] == a and wp[-1] == b and wbw >= bw
    assert wbw == pytest.approx(T.path_bandwidth(g, wp))
    assert T.path_latency(g, a, b) <= T.path_latency(g, wp) + 1e-15


def test_path_ties_broken_by_hops_and_transit():
    g = T.ring(4, bandwidth=1.0, latency=0.0)  # all latencies zero: fewest hops wins
    assert len(T.path(g, "gpu0", "gpu1")) == 2
    d = T.dgx1_hybrid_cube_mesh(with_pcie=True)
    with pytest.raises(ValueError, match="no path"):
        T.path(d, "gpu0", "gpu6", transit=("nvswitch",))


def test_errors():
    with pytest.raises(ValueError, match="n"):
        T.ring(1)
    with pytest.raises(ValueError, match="k"):
        T.fat_tree(5)
    with pytest.raises(ValueError, match="oversubscription"):
        T.fat_tree(4, oversubscription=0.5)
    with pytest.raises(ValueError, match="dims"):
        T.torus((1,))
    with pytest.raises(ValueError, match="link"):
        T.nvswitch(8, link="pcie4x16")
    with pytest.raises(ValueError, match="links_per_gpu"):
        T.nvswitch(8, link="nvlink4-link")
    with pytest.raises(ValueError, match="name"):
        T.ring(4, link="nvlink9")
    with pytest.raises(ValueError, match="switch_levels"):
        T.pcie_tree(switch_levels=3)
    with pytest.raises(ValueError, match="spines"):
        T.cluster(2, spines=0)
    g = T.ring(4)
    with pytest.raises(ValueError, match="not a node"):
        T.path(g, "gpu0", "gpu9")
    with pytest.raises(ValueError, match="same node"):
        T.path_bandwidth(g, "gpu0", "gpu0")
    with pytest.raises(ValueError, match="method"):
        T.bisection_bandwidth(g, method="magic")


def test_bisection_partition_and_methods_agree():
    g = T.dgx1_hybrid_cube_mesh()
    val, (s, t) = T.bisection_bandwidth(g, return_partition=True)
    assert len(s) == len(t) == 4
    # quads {0-3} | {4-7}: cut 0-4 (2) + 1-5 (2) + 2-6 (1) + 3-7 (1) = 6 links
    assert val == pytest.approx(6 * NV2)
    assert T.bisection_bandwidth(g, method="heuristic") >= val - 1e-6


# ------------------------------------------------------------------------ drawing
@pytest.mark.parametrize("build", [lambda: T.dgx1_hybrid_cube_mesh(with_pcie=True),
                                   lambda: T.torus((4, 4)), lambda: T.cluster(2, 4),
                                   lambda: T.fat_tree(4), lambda: T.pcie_tree()])
def test_draw_returns_axes(build):
    import matplotlib.pyplot as plt

    g = build()
    ax = T.draw(g, title="t")
    assert ax.get_title() == "t"
    assert ax.get_legend() is not None
    plt.close(ax.figure)


@pytest.mark.parametrize("nic", ["ib-hdr", "ib-ndr", "eth-400g"])
def test_network_paths_cost_one_end_to_end_network_latency(nic):
    """The catalog's network latency is GPU to GPU through one switch (NCCL's hwLat[NET]):
    a same-rail path sums to exactly it; crossing to another rail on NVLink first adds one
    NVLink latency; a detour through a spine adds two switch-to-switch edges."""
    net, nv = get_link(nic).latency, get_link("nvlink4").latency
    g = T.cluster(2, nic=nic)
    assert T.path_latency(g, "n0.gpu0", "n1.gpu0") == pytest.approx(net, rel=1e-12)
    assert T.path(g, "n0.gpu0", "n1.gpu3")[:3] == ["n0.gpu0", "n0.nvsw0", "n0.gpu3"]   # PXN, source side
    assert T.path_latency(g, "n0.gpu0", "n1.gpu3") == pytest.approx(net + nv, rel=1e-12)
    assert T.cluster_paths(nic)[3] == pytest.approx(net, rel=1e-12)
    tor = T.cluster(2, nic=nic, rail_optimized=False)
    hop = (net - 2 * get_link("pcie5x16").latency) / 2
    assert T.path_latency(tor, "n0.gpu0", "n1.gpu0") == pytest.approx(net + 2 * hop, rel=1e-12)
    ft = T.fat_tree(4, link=nic)
    assert T.path_latency(ft, "h0", "h1") == pytest.approx(net, rel=1e-12)        # one edge switch
    assert T.path_latency(ft, "h0", "h15") == pytest.approx(3 * net, rel=1e-12)   # up to the core and back


def test_superpod_network_path_is_one_end_to_end_network_latency():
    """Same convention as cluster(): GPU -> PCIe switch -> NIC -> leaf -> NIC -> GPU on one rail
    of one SU sums to the NIC's end-to-end latency (NCCL's 2.7 us)."""
    g = T.superpod(1, nodes_per_su=2, radix=16)
    assert T.path(g, "n0.gpu0", "n1.gpu0") == ["n0.gpu0", "n0.sw0", "n0.nic0", "leaf0.0", "n1.nic0", "n1.sw0",
                                               "n1.gpu0"]
    assert T.path_latency(g, "n0.gpu0", "n1.gpu0") == pytest.approx(get_link("ib-ndr").latency, rel=1e-12)
