"""Checkers for the chapter "NVLink and NVSwitch" (book/history/nvlink)."""

import numpy as np

from .. import collectives as C
from .. import links, netsim
from .. import topology as T
from ..units import GB, GiB, KiB, MiB
from . import Answer, exercise

CHAPTER = "book/history/nvlink"


def _distinct(value, mistakes, rtol=0.02):
    """Keep only the mistakes whose value a reader could not confuse with the answer."""
    v = np.asarray(value, dtype=float)
    return {k: w for k, w in mistakes.items()
            if not np.allclose(np.asarray(w, dtype=float), v, rtol=2.5 * rtol, atol=0)}


def _gpus(*idx):
    return [f"gpu{i}" for i in idx]


# nvl-ex-nv12: NV12 on a DGX A100: bandwidth per direction and bidirectional
@exercise("nvl-ex-nv12", CHAPTER, parts=("per_direction", "bidirectional"),
          doc="most a GPU0->GPU5 copy on a DGX A100 (NV12) can reach: B/s per direction, and the bidirectional sum "
              "(B/s, both directions added)")
def _nvl_ex_nv12():
    label = T.topo_matrix(T.nvswitch(8, "nvlink3")).labels[0][5]
    k = int(label[2:])
    one = links.get_link("nvlink3-link")
    per_dir = k * one.bandwidth
    return {
        "per_direction": Answer(per_dir, "B/s", mistakes={
            "read NV12 as 12 GB/s: it counts twelve bonded links": k * GB,
            "multiplied by the bidirectional per-link figure": k * one.bidirectional_bandwidth}),
        "bidirectional": Answer(2 * per_dir, "B/s both", mistakes={
            "read NV12 as 12 GB/s: it counts twelve bonded links": 2 * k * GB}),
    }


# nvl-ex-mislabel: "900 GB/s bidirectional per link, 18 links per GPU" against the library's nvlink5
_READINGS = ("per link bidirectional", "per link per direction", "per GPU per direction", "per GPU bidirectional")


@exercise("nvl-ex-mislabel", CHAPTER, parts=("literal_bidirectional", "library_bidirectional", "ratio", "reading"),
          doc="per-GPU bidirectional bandwidth (B/s, both directions added) of the literal reading and of the "
              "library's nvlink5, their ratio, and the reading of '900 GB/s' that is consistent")
def _nvl_ex_mislabel():
    g5 = links.get_link("nvlink5")
    figure, n_links = 900 * GB, g5.links_per_gpu            # the datasheet line's numbers; 18 links per GPU
    literal = n_links * figure                             # 18 links x 900 GB/s bidirectional
    lib = g5.bidirectional_bandwidth
    # the per-GPU per-direction bandwidth each reading implies
    implied = {"per link bidirectional": n_links * figure / 2, "per link per direction": n_links * figure,
               "per GPU per direction": figure, "per GPU bidirectional": figure / 2}
    right = next(r for r in _READINGS if np.isclose(implied[r], g5.bandwidth))
    why = {"per link bidirectional": "the literal reading gives nine times NVIDIA's per-GPU figure",
           "per link per direction": "that gives 18 x 900 GB/s = 16.2 TB/s per direction per GPU",
           "per GPU bidirectional": "then a GPU would have 450 GB/s per direction, half the library's nvlink5",
           "per GPU per direction": "900 GB/s is the per-GPU per-direction bandwidth"}
    return {
        "literal_bidirectional": Answer(literal, "B/s both", mistakes={
            "used 900 GB/s for the whole GPU, not per link": figure}),
        "library_bidirectional": Answer(lib, "B/s both", mistakes={
            "took one link (nvlink5-link), not the whole GPU (nvlink5)":
                links.get_link("nvlink5-link").bidirectional_bandwidth}),
        "ratio": Answer(literal / lib, "1", mistakes={"inverted the ratio (library over literal)": lib / literal}),
        "reading": Answer(right, choices=_READINGS, mistakes={r: why[r] for r in _READINGS if r != right}),
    }


# nvl-ex-pair: GPU0 to every other GPU on the DGX-1 with V100, NVLink or the PCIe tree
@exercise("nvl-ex-pair", CHAPTER, parts=("bandwidth", "sys_gpus"),
          doc="bandwidth (B/s per direction) from GPU 0 to GPUs 1..7 of the DGX-1 with V100 (an array of 7), and the "
              "indices of the GPUs reachable only through the CPU sockets (an array, ascending)")
def _nvl_ex_pair():
    dgx1 = T.dgx1_hybrid_cube_mesh(with_pcie=True)
    mesh = T.dgx1_hybrid_cube_mesh()
    tm = T.topo_matrix(dgx1)
    one = links.get_link("nvlink2-link").bandwidth
    bw, relay, single, sys_gpus = [], [], [], []
    for j in range(1, 8):
        b = f"gpu{j}"
        if dgx1.has_edge("gpu0", b):
            x = dgx1.edges["gpu0", b]["bandwidth"]
            relay.append(x)
            single.append(one)
        else:
            x = T.path_bandwidth(dgx1, T.path(dgx1, "gpu0", b, transit=("pcie_switch", "cpu")))
            relay.append(T.widest_path(mesh, "gpu0", b)[1])
            single.append(x)
        if tm.label("gpu0", b) == "SYS":
            sys_gpus.append(j)
        bw.append(x)
    return {
        "bandwidth": Answer(np.array(bw), "B/s", mistakes=_distinct(bw, {
            "relayed the pairs without NVLink through other GPUs (widest_path) instead of taking the PCIe route": relay,
            "gave every NVLink pair one link: on the V100 machine eight pairs have two (NV2)": single})),
        "sys_gpus": Answer(np.array(sys_gpus, dtype=float), "1", rtol=0),
    }


# nvl-ex-ringorder: single-ring 256 MiB AllReduce busbw on the DGX-1 with V100 for three rank orders
_ORDERS = {"order_01234567": (0, 1, 2, 3, 4, 5, 6, 7), "order_04512673": (0, 4, 5, 1, 2, 6, 7, 3),
           "order_03215674": (0, 3, 2, 1, 5, 6, 7, 4)}


@exercise("nvl-ex-ringorder", CHAPTER, parts=tuple(_ORDERS),
          doc="simulated busbw (B/s per direction) of one 256 MiB ring AllReduce on the DGX-1 (NVLink only) "
              "for the rank orders 0-1-2-3-4-5-6-7, 0-4-5-1-2-6-7-3 and 0-3-2-1-5-6-7-4")
def _nvl_ex_ringorder():
    mesh = T.dgx1_hybrid_cube_mesh()
    nv2_gpu = links.get_link("nvlink2").bandwidth
    p = 8
    out = {}
    for part, order in _ORDERS.items():
        ring = _gpus(*order)
        hops = list(zip(ring, ring[1:] + ring[:1]))
        r = netsim.simulate_collective(mesh, "allreduce", 256 * MiB, ranks=ring)
        bws = [mesh.edges[a, b]["bandwidth"] for a, b in hops if mesh.has_edge(a, b)]
        mistakes = {"reported algbw (n / t), not busbw": r.busbw / C.bus_factor("allreduce", p),
                    "took the GPU's whole NVLink bandwidth (six links): "
                    "one ring uses one link of each GPU per direction":
                        nv2_gpu,
                    "took the widest hop, not the narrowest: a ring goes at the pace of its slowest hop": max(bws)}
        out[part] = Answer(r.busbw, "B/s", mistakes=_distinct(r.busbw, mistakes))
    return out


# nvl-ex-sharp: ring / NVLink SHARP AllReduce time, 8 and 72 GPUs, 1 GiB and 64 KiB
_SHARP = {8: "nvlink4", 72: "nvlink5"}


@exercise("nvl-ex-sharp", CHAPTER,
          parts=("p8_1GiB", "p8_64KiB", "p72_1GiB", "p72_64KiB", "limit_p8", "limit_p72"),
          doc="ring time over NVLink SHARP time of an AllReduce (8 GPUs on nvlink4, 72 on nvlink5) at 1 GiB and "
              "64 KiB, and the large-message limit of the ratio for each p")
def _nvl_ex_sharp():
    out = {}
    for p, name in _SHARP.items():
        link = links.get_link(name)
        limit = C.cost_terms("allreduce", p, "ring")[1]       # 2(p-1)/p bytes per byte
        for tag, size in (("1GiB", 1 * GiB), ("64KiB", 64 * KiB)):
            tr = C.collective_time("allreduce", size, p, link.bandwidth, link.latency)
            ts = C.in_network_time("allreduce", size, p, link.bandwidth, link.latency)
            out[f"p{p}_{tag}"] = Answer(tr / ts, "1", mistakes=_distinct(tr / ts, {
                "inverted the ratio (SHARP over ring)": ts / tr,
                "compared the bandwidth terms only, 2(p-1)/p: the latency terms decide at this size": limit}))
        out[f"limit_p{p}"] = Answer(limit, "1", mistakes=_distinct(limit, {
            "took the p -> infinity limit 2, not 2(p-1)/p at this p": 2.0,
            "forgot the factor 2 of the ring (reduce-scatter and all-gather)": limit / 2}))
    return out


# nvl-ex-physical: DGX H100 physical against logical model, and the ring with one NVSwitch chip removed
@exercise("nvl-ex-physical", CHAPTER, parts=("busbw_physical", "busbw_logical", "busbw_degraded"),
          doc="simulated busbw (B/s per direction) of a 1 GiB ring AllReduce on the DGX H100, physical and logical "
              "model, and with chip nvsw0 removed and traffic spread over all remaining links")
def _nvl_ex_physical():
    n, p = 1 * GiB, 8
    h100 = T.nvswitch(8, "nvlink4")
    phys = T.nvswitch(8, "nvlink4", physical=True)
    r_phys = netsim.simulate_collective(phys, "allreduce", n)
    r_log = netsim.simulate_collective(h100, "allreduce", n)

    def degraded_busbw(chip):
        """The logical crossbar with each GPU's edge cut to the links it keeps without `chip`."""
        g = phys.copy()
        g.remove_node(chip)
        spread = T.nvswitch(8, "nvlink4")
        for gpu in T.gpus(spread):
            left = sum(g.edges[e]["bandwidth"] for e in g.edges(gpu))
            for e in spread.edges(gpu):
                spread.edges[e]["bandwidth"] = left
        return netsim.simulate_collective(spread, "allreduce", n).busbw

    deg = degraded_busbw("nvsw0")
    cut_phys = phys.copy()
    cut_phys.remove_node("nvsw0")
    one_path = netsim.simulate_collective(cut_phys, "allreduce", n).busbw
    algbw = 1 / C.bus_factor("allreduce", p)
    return {
        "busbw_physical": Answer(r_phys.busbw, "B/s", mistakes=_distinct(r_phys.busbw, {
            "reported algbw (n / t), not busbw": r_phys.busbw * algbw})),
        "busbw_logical": Answer(r_log.busbw, "B/s", mistakes=_distinct(r_log.busbw, {
            "reported algbw (n / t), not busbw": r_log.busbw * algbw})),
        "busbw_degraded": Answer(deg, "B/s", mistakes=_distinct(deg, {
            "simulated the cut physical graph: its single-path routing uses one chip per flow, not all remaining links":
                one_path,
            "removed a four-link chip (nvsw1 or nvsw2), not nvsw0 with its five links per GPU": degraded_busbw("nvsw1"),
            "kept the full 450 GB/s: without the chip each GPU loses that chip's links": r_log.busbw,
            "reported algbw (n / t), not busbw": deg * algbw})),
    }


# nvl-ex-nvl72: ports of one switch chip and one tray, and the rack's bisection per direction
@exercise("nvl-ex-nvl72", CHAPTER, parts=("chip_ports", "tray_ports", "bisection"),
          doc="NVLink ports used on one switch chip and on one switch tray of topology.nvl72, and the rack's "
              "bisection bandwidth in B/s per direction")
def _nvl_ex_nvl72():
    rack = T.nvl72(cpus=False)
    chip = rack.degree("nvsw0")
    per_tray = chip * rack.graph["switch_chips"] // rack.graph["switch_trays"]
    bis = T.bisection_bandwidth(rack)
    return {
        "chip_ports": Answer(chip, "1", rtol=0, mistakes={"counted a GPU's links, not a chip's ports": 18}),
        "tray_ports": Answer(per_tray, "1", rtol=0, mistakes={"counted one chip: a tray holds two": chip}),
        "bisection": Answer(bis, "B/s", mistakes=_distinct(bis, {
            "added both directions": 2 * bis,
            "took one route (one link) per GPU, not all 18": bis / 18})),
    }


# nvl-ex-rackvsservers: a 256 MiB AllToAll on 72 GPUs, one NVL72 rack against nine DGX B200
@exercise("nvl-ex-rackvsservers", CHAPTER, parts=("rack", "servers", "ratio"),
          doc="simulated time (s) of a direct 256 MiB AllToAll on the NVL72 crossbar and on 9 DGX B200 "
              "(rack_and_servers), and servers / rack")
def _nvl_ex_rackvsservers():
    from ..viz.explorers.scale_up import rack_and_servers

    m = rack_and_servers()
    t = {k: netsim.simulate_collective(m[k], "alltoall", 256 * MiB, ranks=T.gpus(m[k]), algorithm="direct").time
         for k in ("rack", "servers")}
    phys = T.nvl72(cpus=False)
    one_route = netsim.simulate_collective(phys, "alltoall", 256 * MiB, algorithm="direct").time
    return {"rack": Answer(t["rack"], "s", mistakes=_distinct(t["rack"], {
                "simulated the physical nvl72 graph: its single-path routing uses one 50 GB/s link per flow":
                    one_route})),
            "servers": Answer(t["servers"], "s"),
            "ratio": Answer(t["servers"] / t["rack"], "1")}
