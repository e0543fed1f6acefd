"""Checkers for the chapter "PCI Express" (book/history/pcie)."""

import numpy as np

from .. import collectives as C
from .. import links, netsim
from .. import topology as T
from .. import transfer as X
from ..catalog import measurements, traces
from ..units import GB
from . import Answer, coding_exercise, exercise
from .coding import case, seed_variant

CHAPTER = "book/history/pcie"


def _distinct(value, mistakes, rtol):
    """Keep only the mistakes that a right answer cannot be confused with (> 2.5 rtol away)."""
    v = float(value)
    return {d: w for d, w in mistakes.items() if abs(float(w) - v) > 2.5 * rtol * abs(v)}


# pcie-ex-lanes: PCIe 3.0 x8, per direction, bidirectional, and what 128b/130b costs
def _vary_lanes(rng):
    """Per-student numbers: the slot (PCIe 3.0 to 5.0, all 128b/130b, x4 to x16) as a catalog name."""
    return {"slot": str(rng.choice(["pcie3x4", "pcie3x8", "pcie3x16", "pcie4x4", "pcie4x8", "pcie4x16",
                                     "pcie5x8", "pcie5x16"]))}


@exercise("pcie-ex-lanes", CHAPTER, parts=("per_direction", "bidirectional", "encoding_cost"), variants=_vary_lanes,
          doc="usable bandwidth of PCIe 3.0 x8 per direction (B/s) and both directions added (B/s both), "
              "and the bytes/s per direction the 128b/130b encoding takes from the raw rate")
def _pcie_ex_lanes(slot="pcie3x8"):
    lk = links.get_link(slot)
    raw = lk.lanes * lk.lane_rate / 8
    usable = raw * lk.encoding_efficiency
    assert np.isclose(usable, lk.bandwidth)
    cost = raw - usable
    no_code = "forgot the encoding: lanes × GT/s / 8 is the raw rate, before 128b/130b"
    return {
        # 128b/130b costs 1.5 %: a tolerance of 0.5 % still tells the usable rate from the raw one
        "per_direction": Answer(lk.bandwidth, "B/s", rtol=0.005, mistakes={no_code: raw}),
        "bidirectional": Answer(lk.bidirectional_bandwidth, "B/s both", rtol=0.005, mistakes={no_code: 2 * raw}),
        "encoding_cost": Answer(cost, "B/s", mistakes={
            "used 8b/10b (20 %): PCIe 3.0 and later use 128b/130b": raw * 0.2,
            "gave the usable rate, not what the encoding takes away": usable}),
    }


# pcie-ex-headline: what "256 GB/s" for PCIe 6.0 x16 counts, and a 40 GB copy at peak and at 88 %
_HEADLINE = {"raw_bidirectional": lambda lk: 2 * lk.raw_bandwidth, "raw_per_direction": lambda lk: lk.raw_bandwidth,
             "usable_bidirectional": lambda lk: lk.bidirectional_bandwidth,
             "usable_per_direction": lambda lk: lk.bandwidth}


def _measured_fraction():
    """0.88: nvbandwidth's H2D copy on PCIe 5.0 x16 over the catalog peak, to the 2 digits the exercise uses."""
    return round(measurements.get("h200-pcie5-h2d-nvbandwidth").value / links.get_link("pcie5x16").bandwidth, 2)


@exercise("pcie-ex-headline", CHAPTER, parts=("figure", "peak", "measured"),
          doc="what the 256 GB/s PCIe 6.0 x16 headline counts, and the time (s) of a 40 GB GPU-to-host copy "
              "at the catalog peak and at 88 % of it")
def _pcie_ex_headline():
    lk = links.get_link("pcie6x16")
    frac = _measured_fraction()
    match = [k for k, f in _HEADLINE.items() if np.isclose(f(lk), 256 * GB, rtol=1e-3)]
    assert len(match) == 1
    n = 40 * GB
    peak = n / lk.bandwidth
    measured = n / (frac * lk.bandwidth)
    headline = "divided by the 256 GB/s headline: it adds both directions and is before FLIT overhead"
    raw = "used the raw per-direction rate (128 GB/s): FLIT overhead leaves less"
    return {
        "figure": Answer(match[0], choices=tuple(_HEADLINE), mistakes={
            "usable_bidirectional": "the headline is before FLIT overhead: 16 × 64 GT/s / 8 × 2 = 256 GB/s exactly",
            "raw_per_direction": "one direction of x16 is 16 × 64 GT/s / 8 = 128 GB/s; the headline adds both",
            "usable_per_direction": "one direction after FLIT overhead is about 121 GB/s; "
                                    "the headline is raw and adds both"}),
        "peak": Answer(peak, "s", mistakes=_distinct(
            peak, {headline: n / (256 * GB), raw: n / lk.raw_bandwidth}, 0.02)),
        "measured": Answer(measured, "s", mistakes=_distinct(measured, {
            "multiplied by 0.88 instead of dividing: a slower copy takes longer": frac * peak,
            headline + " (then 88 % of it)": n / (frac * 256 * GB),
            "gave the time at peak": peak}, 0.02)),
    }


# pcie-ex-downshift: PCIe 4.0 x16 GPUs in 3.0 x8 slots, bandwidth factor and a 2 GB ring AllReduce over 8
@exercise("pcie-ex-downshift", CHAPTER, parts=("factor", "allreduce_before", "allreduce_after"),
          doc="factor by which per-direction bandwidth drops from PCIe 4.0 x16 to 3.0 x8, and the ring AllReduce "
              "time (s) of 2 GB over 8 GPUs before and after (collective_time, each link's latency)")
def _pcie_ex_downshift():
    good, bad = links.get_link("pcie4x16"), links.get_link("pcie3x8")
    n, p = 2e9, 8
    before = C.collective_time("allreduce", n, p, good.bandwidth, good.latency)
    after = C.collective_time("allreduce", n, p, bad.bandwidth, bad.latency)
    one_half = C.collective_time("allreduce", n, p, good.bandwidth / 2, good.latency)
    factor = good.bandwidth / bad.bandwidth

    def slips(bw, lat):
        return {"forgot the factor 2 of AllReduce (reduce-scatter + all-gather)":
                    C.collective_time("reducescatter", n, p, bw, lat),
                "used p instead of p - 1 (2 n / b, every GPU sending the whole vector twice)":
                    2 * n / bw + 2 * (p - 1) * lat}

    return {
        "factor": Answer(factor, "1", mistakes={
            "halved only once: the generation (8 against 16 GT/s) and the width (x8 against x16) each halve it": 2.0}),
        "allreduce_before": Answer(before, "s", mistakes=_distinct(before, slips(good.bandwidth, good.latency), 0.02)),
        "allreduce_after": Answer(after, "s", mistakes=_distinct(after, {
            # at 2 GB both slips give half the time: one diagnosis names both
            "halved the bandwidth only once (generation and width both halve it), or forgot the factor 2 "
            "of AllReduce (reduce-scatter + all-gather)": one_half,
            "used p instead of p - 1 (2 n / b)": 2 * n / bad.bandwidth + 2 * (p - 1) * bad.latency}, 0.02)),
    }


# pcie-ex-matrix: two levels of switches per socket; the label replacing PHB, and P2P-capable ordered pairs
@exercise("pcie-ex-matrix", CHAPTER, parts=("label", "p2p_pairs"),
          doc="topo_matrix label of same-socket pairs under different lower switches of pcie_tree(2, 2, 2, "
              "switch_levels=2), and the number of ordered GPU pairs with P2P (transfer.p2p_supported)")
def _pcie_ex_matrix():
    g1 = T.pcie_tree(2, 2, 2)
    g2 = T.pcie_tree(2, 2, 2, switch_levels=2)
    tm1, tm2 = T.topo_matrix(g1), T.topo_matrix(g2)
    gp = T.gpus(g2)
    phb = [(a, b) for a in gp for b in gp if a != b and tm1.label(a, b) == "PHB"]
    labs = {tm2.label(a, b) for a, b in phb}
    assert len(labs) == 1
    pairs = [(a, b) for a in gp for b in gp if a != b and X.p2p_supported(g2, a, b)]
    pix = [(a, b) for a, b in pairs if tm2.label(a, b) == "PIX"]
    return {
        "label": Answer(labs.pop(), choices=("PIX", "PXB", "PHB", "NODE", "SYS"), mistakes={
            "PIX": "PIX is at most one bridge (a shared switch); "
                   "these pairs cross two lower switches and the upper one",
            "PHB": "the pairs now meet in the upper switch, below the root complex: no host bridge is crossed",
            "NODE": "NODE crosses two host bridges of one NUMA node; these pairs cross none",
            "SYS": "SYS crosses the socket link; these GPUs are on the same socket"}),
        "p2p_pairs": Answer(len(pairs), "1", rtol=0, mistakes={
            "counted unordered pairs: each pair appears twice, once per direction": len(pairs) // 2,
            "counted only PIX pairs: PXB pairs also stay below the root complex": len(pix),
            "counted every pair: cross-socket (SYS) pairs have no P2P": len(gp) * (len(gp) - 1)}),
    }


# pcie-ex-staging: best chunk count of a host-staged 1 GB GPU0->GPU4 copy on g8, and the P2P GPU0->GPU1 time
def _g8():
    return T.pcie_tree(gpus_per_switch=2, switches_per_socket=2, sockets=2, gpu_link="pcie3x16", uplink="pcie3x16")


@exercise("pcie-ex-staging", CHAPTER, parts=("best_chunks", "best_time", "p2p_time"),
          doc="power-of-two chunk count (1..1024) minimising a host-staged 1 GB GPU0->GPU4 copy on g8, its time (s), "
              "and the time (s) of a 1 GB P2P copy GPU0->GPU1")
def _pcie_ex_staging():
    g8 = _g8()
    chunks = [2 ** k for k in range(11)]
    ts = [X.host_staged_copy(g8, "gpu0", "gpu4", 1 * GB, chunks=c).time for c in chunks]
    i = int(np.argmin(ts))
    p2p = X.p2p_copy(g8, "gpu0", "gpu1", 1 * GB).time
    best_c = {"took the largest chunk count: every chunk pays both copies' latencies again": chunks[-1]} \
        if i != len(chunks) - 1 else {}
    return {
        "best_chunks": Answer(chunks[i], "1", rtol=0, mistakes=best_c),
        "best_time": Answer(ts[i], "s", mistakes=_distinct(ts[i], {
            "did not pipeline (one chunk): the two copies then run one after the other": ts[0]}, 0.02)),
        "p2p_time": Answer(p2p, "s", mistakes=_distinct(p2p, {
            "staged the copy through host memory: GPU0 and GPU1 share a switch, P2P works":
                X.host_staged_copy(g8, "gpu0", "gpu1", 1 * GB).time}, 0.02)),
    }


# pcie-ex-uplink: 4 + 4 GPUs exchanging 1 GB across the sockets, 1 and 3 UPI links
def _edge_kind(g, e):
    kinds = sorted(g.nodes[v]["kind"] for v in e)
    if kinds == ["cpu", "cpu"]:
        return "socket_link"
    if "gpu" in kinds:
        return "gpu_link"
    return "uplink"


@exercise("pcie-ex-uplink", CHAPTER, parts=("per_gpu_1upi", "bottleneck_1upi", "per_gpu_3upi", "bottleneck_3upi"),
          doc="effective bandwidth per GPU (B/s per direction, 1 GB / finish time of netsim.simulate) and the "
              "bottleneck link with one and with three UPI links")
def _pcie_ex_uplink():
    out = {}
    for n_upi in (1, 3):
        g = T.pcie_tree(4, 1, 2, gpu_link="pcie4x16", uplink="pcie4x16", socket_links=n_upi)
        flows = [netsim.Flow(f"gpu{i}", f"gpu{i + 4}", 1 * GB) for i in range(4)]
        flows += [netsim.Flow(f"gpu{i + 4}", f"gpu{i}", 1 * GB) for i in range(4)]
        r = netsim.simulate(g, flows)
        bw = 1 * GB / float(np.max(r.finish))
        up = g.edges["sw0", "cpu0"]["bandwidth"]
        sock = g.edges["cpu0", "cpu1"]["bandwidth"]
        out[f"per_gpu_{n_upi}upi"] = Answer(bw, "B/s", mistakes=_distinct(bw, {
            "took one flow alone (path_bandwidth): four flows share the uplink and the socket link":
                T.path_bandwidth(g, "gpu0", "gpu4"),
            "shared the socket link among all eight flows: the four going back use the other direction": sock / 8,
            "divided the uplink only: the socket link is shared too" if n_upi == 1 else
            "divided the socket link only: the switch uplink is shared too": (up if n_upi == 1 else sock) / 4}, 0.02))
        kind = _edge_kind(g, r.bottleneck)
        out[f"bottleneck_{n_upi}upi"] = Answer(kind, choices=("gpu_link", "uplink", "socket_link"), mistakes={
            k: v for k, v in {
                "gpu_link": "a GPU's own x16 link carries one flow; the shared links above it carry four",
                "uplink": "with one UPI link the socket link (20.8 GB/s) is narrower than the switch uplink",
                "socket_link": "three UPI links are wider than one PCIe 4.0 x16 uplink, so the uplink limits"}.items()
            if k != kind})
    return out


# pcie-ex-topo-trace: read a real nvidia-smi topo -m (8 A100 PCIe cards, NVLink bridges in pairs)
#: The labels of nvidia-smi topo -m from the fastest path to the slowest.
_TOPO_ORDER = ("NV", "PIX", "PXB", "PHB", "NODE", "SYS")
_TOPO_WHY = {
    "NV12": "one hop of this ring is not a bridged pair: the slowest hop decides",
    "PIX": "no pair of this machine has PIX: its GPUs do not share a PCIe switch",
    "PXB": "no pair of this machine has PXB: its GPUs do not share a PCIe switch",
    "PHB": "no pair of this machine has PHB: look up each hop of the ring in the matrix",
    "NODE": "a hop of this ring joins GPUs of different NUMA nodes: that path crosses the link between the sockets",
    "SYS": "no hop of this ring leaves its CPU socket: NODE crosses the host bridges within one socket only",
}


def _topo_rank(label):
    return _TOPO_ORDER.index("NV" if label.startswith("NV") else label)


def _vary_topo_trace(rng):
    """Per-student numbers: the three GPUs (in ring order) of a 3-GPU job."""
    g = sorted(int(x) for x in rng.choice(8, size=3, replace=False))
    return {"ring": f"{g[0]},{g[1]},{g[2]}"}


@exercise("pcie-ex-topo-trace", CHAPTER, parts=("sys_pairs", "nv_pairs", "ring_hop", "sys_hops", "nv_fraction"),
          variants=_vary_topo_trace,
          doc="from a real nvidia-smi topo -m of 8 A100 PCIe cards: GPU pairs through the socket link (SYS), "
              "NVLink-bridged pairs, the slowest label and the SYS hops of the ring GPU0 -> GPU1 -> GPU2 -> GPU0, "
              "and the fraction of the NV12 bridge's bandwidth per direction the measured 208 GB/s busbw reaches")
def _pcie_ex_topo_trace(ring="0,1,2"):
    gpus, lab = traces.topo_labels(traces.get("a100-pcie-nvbridge-topo").text)
    n = len(gpus)
    pairs = [(i, j) for i in range(n) for j in range(i + 1, n)]
    sys_pairs = sum(lab[i][j] == "SYS" for i, j in pairs)
    node_pairs = sum(lab[i][j] == "NODE" for i, j in pairs)
    nv_pairs = sum(lab[i][j].startswith("NV") for i, j in pairs)
    order = [int(x) for x in ring.split(",")]
    hops = [lab[a][b] for a, b in zip(order, order[1:] + order[:1])]
    worst = max(hops, key=_topo_rank)
    nv = next(lab[i][j] for i, j in pairs if lab[i][j].startswith("NV"))
    bridge = int(nv[2:]) * links.get_link("nvlink3-link").bandwidth      # NV12: twelve NVLink 3 links
    busbw = measurements.get("a100-nvbridge-2gpu-allreduce-busbw-issue178").value
    choices = tuple(k for k in _TOPO_WHY if not k.startswith("NV")) + (nv,)
    twice = "counted each pair twice (GPU0-GPU4 and GPU4-GPU0 are one pair)"
    return {
        "sys_pairs": Answer(sys_pairs, "1", rtol=0, generic=(), mistakes={
            twice: 2 * sys_pairs,
            "counted the NODE pairs too: NODE stays inside one socket": sys_pairs + node_pairs}),
        "nv_pairs": Answer(nv_pairs, "1", rtol=0, generic=(), mistakes={twice: 2 * nv_pairs}),
        "ring_hop": Answer(worst, choices=choices, mistakes={k: v for k, v in
                                                             {**_TOPO_WHY, nv: _TOPO_WHY["NV12"]}.items()
                                                             if k != worst and k in choices}),
        "sys_hops": Answer(sum(h == "SYS" for h in hops), "1", rtol=0, generic=()),
        "nv_fraction": Answer(busbw / bridge, "1", mistakes={
            "used one NVLink 3 link, not the bonded twelve": busbw / links.get_link("nvlink3-link").bandwidth,
            "compared with the bridge's two directions added: busbw is per direction": busbw / (2 * bridge)}),
    }


# pcie-ex-code: write a PCIe link's usable bandwidth per direction from its generation and lanes
_PCIE_KINDS = {
    "gen12": "the generation is 1 or 2 (8b/10b)",
    "gen35": "the generation is 3, 4 or 5 (128b/130b)",
    "x1": "the link has one lane",
    "bad_gen": "the generation is not 1 to 5",
    "bad_lanes": "the lane count is not 1, 2, 4, 8 or 16",
}


def _pcie_rate(gen, lanes, encoding=None):
    x1 = links.get_link(f"pcie{gen}x1")
    eff = x1.encoding_efficiency if encoding is None else encoding
    return lanes * x1.lane_rate * eff / 8


_PCIE_MISTAKES = {
    "forgot the encoding: lanes × GT/s / 8 is the raw rate": lambda g, n: _pcie_rate(g, n, 1.0),
    "used 128b/130b for every generation: PCIe 1.0 and 2.0 use 8b/10b": lambda g, n: _pcie_rate(g, n, 128 / 130),
    "used 8b/10b for every generation: PCIe 3.0 and later use 128b/130b": lambda g, n: _pcie_rate(g, n, 0.8),
    "took the rate to double per generation from PCIe 1.0 (2.5 × 2^(g-1) GT/s): PCIe 3.0 runs at 8 GT/s, not 10":
        lambda g, n: n * 2.5e9 * 2 ** (g - 1) * links.get_link(f"pcie{g}x1").encoding_efficiency / 8,
}


@coding_exercise("pcie-ex-code", CHAPTER, "pcie_bandwidth(generation, lanes)", _PCIE_KINDS, unit="B/s",
                 rtol=1e-6, variants=seed_variant,
                 doc="a function returning the usable bandwidth per direction (B/s) of a PCIe 1.0 to 5.0 link of "
                     "1 to 16 lanes, after the line encoding; ValueError on invalid input")
def _pcie_ex_code(seed=0):
    def ok(g, n):
        kind = "x1" if n == 1 else "gen12" if g <= 2 else "gen35"
        want = links.get_link(f"pcie{g}x{n}").bandwidth if n != 2 else _pcie_rate(g, n)
        return case(kind, (g, n), want, "B/s", {d: f(g, n) for d, f in _PCIE_MISTAKES.items()}, rtol=1e-6)

    cases = [ok(1, 16), ok(2, 8), ok(3, 16), ok(4, 8), ok(5, 16), ok(3, 1), ok(1, 1)]
    rng = np.random.default_rng(seed)
    for _ in range(4):
        cases.append(ok(int(rng.integers(1, 6)), int(rng.choice([2, 4, 8, 16]))))
    cases += [case(k, args, raises=True) for k, args in (
        ("bad_gen", (0, 16)), ("bad_gen", (6, 16)), ("bad_gen", (3.5, 16)),
        ("bad_lanes", (4, 3)), ("bad_lanes", (4, 0)), ("bad_lanes", (4, 32)))]
    return cases
