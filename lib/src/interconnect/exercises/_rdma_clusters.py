"""Checkers for the chapter "RDMA clusters" (book/history/rdma_clusters)."""

import functools

import numpy as np

from .. import collectives as C
from .. import links, netsim, topology, transfer
from ..units import GB, GiB, MiB
from . import Answer, exercise

CHAPTER = "book/history/rdma_clusters"
NBYTES = 1 * GiB  # the chapter's AllToAll message


def _nv_and_net(g):
    return (topology.path_bandwidth(g, "n0.gpu0", "n0.gpu1"), topology.path_latency(g, "n0.gpu0", "n0.gpu1"),
            topology.path_bandwidth(g, "n0.gpu0", "n1.gpu0"), topology.path_latency(g, "n0.gpu0", "n1.gpu0"))


# rdma-ex-units: one HDR NIC, eight of them, bidirectional, and a 10 GB shard over one NIC
@exercise("rdma-ex-units", CHAPTER, parts=("nic", "server", "server_bidirectional", "shard_time"),
          doc="per-direction bandwidth of one HDR NIC and of 8, the bidirectional server figure, time for 10 GB")
def _rdma_ex_units():
    hdr = links.get_link("ib-hdr")
    g = topology.cluster(2, 8, nic="ib-hdr")
    t = transfer.gpudirect_rdma(g, "n0.gpu0", "n1.gpu0", 10 * GB).time
    return {
        "nic": Answer(hdr.bandwidth, "B/s"),
        "server": Answer(8 * hdr.bandwidth, "B/s", mistakes={
            "one NIC only: the server figure is eight NICs": hdr.bandwidth}),
        "server_bidirectional": Answer(8 * hdr.bidirectional_bandwidth, "B/s both"),
        "shard_time": Answer(t, "s", mistakes={
            "used the whole server's bandwidth (or 200 GB/s): one GPU sends through one NIC of 200 Gb/s":
                10 * GB / (8 * hdr.bandwidth)}),
    }


# rdma-ex-bounce: best chunk count for a 64 MiB bounce-buffer copy and its ratio to GPUDirect RDMA
@exercise("rdma-ex-bounce", CHAPTER, parts=("best_chunks", "ratio_to_gpudirect"),
          doc="chunk count c in 1..256 that makes the bounce buffer fastest, and its time / GPUDirect RDMA time")
def _rdma_ex_bounce():
    g = topology.cluster(2, 8)
    n = 64 * MiB
    times = {int(c): transfer.bounce_buffer(g, "n0.gpu0", "n1.gpu0", n, chunks=int(c)).time for c in 2 ** np.arange(9)}
    best = min(times, key=times.get)
    gdr = transfer.gpudirect_rdma(g, "n0.gpu0", "n1.gpu0", n).time
    ratio_mistakes = {}
    if abs(times[1] / times[best] - 1) > 0.05:
        ratio_mistakes["no pipelining (c = 1): the three copies then run one after another"] = times[1] / gdr
    return {"best_chunks": Answer(best, "1", rtol=0),
            "ratio_to_gpudirect": Answer(times[best] / gdr, "1", mistakes=ratio_mistakes)}


def _alltoall_time(rail, r, nodes=4):
    g = topology.cluster(nodes, 8, rail_optimized=rail, leaf_spine_oversubscription=r, spines=1)
    return netsim.simulate_collective(g, "alltoall", NBYTES, algorithm="direct").time


# rdma-ex-oversub: simulated 1 GiB AllToAll on 4 ToR servers at 1:1, 2:1, 4:1, and on rails at 4:1
@exercise("rdma-ex-oversub", CHAPTER, parts=("tor_1", "tor_2", "tor_4", "rail_4"),
          doc="simulated AllToAll times on 4 servers: top-of-rack 1:1, 2:1, 4:1 and rail-optimised 4:1")
def _rdma_ex_oversub():
    t = {k: _alltoall_time(rail, r) for k, rail, r in
         (("tor_1", False, 1.0), ("tor_2", False, 2.0), ("tor_4", False, 4.0), ("rail_4", True, 4.0))}
    out = {k: Answer(v, "s") for k, v in t.items()}
    if abs(t["rail_4"] / t["tor_4"] - 1) > 0.05:
        out["rail_4"] = Answer(t["rail_4"], "s", mistakes={
            "top-of-rack time: on rails the AllToAll's traffic also crosses the spines, but per rail": t["tor_4"]})
    return out


# rdma-ex-ecmp: best and worst ECMP AllToAll over seeds 0-5, and the single fat spine
@exercise("rdma-ex-ecmp", CHAPTER, parts=("best", "worst", "ideal"),
          doc="best and worst AllToAll time with ECMP for seeds 0..5 on 2 ToR servers, and with spines=1")
def _rdma_ex_ecmp():
    g = topology.cluster(2, 8, rail_optimized=False)
    ts = [netsim.simulate_collective(g, "alltoall", NBYTES, algorithm="direct", routing="ecmp", seed=s).time
          for s in range(6)]
    ideal = _alltoall_time(False, 1.0, nodes=2)
    return {"best": Answer(min(ts), "s"), "worst": Answer(max(ts), "s"), "ideal": Answer(ideal, "s")}


# rdma-ex-hier: flat ring against hierarchical AllReduce of 14 GB on 128 x 8 H100 with 400 GbE
@exercise("rdma-ex-hier", CHAPTER, parts=("flat", "hierarchical", "dominant_phase"),
          doc="flat-ring and hierarchical AllReduce times of 14 GB on 128 servers, and the largest phase")
def _rdma_ex_hier():
    b_nv, a_nv, _, _ = _nv_and_net(topology.cluster(8, 8))
    _, _, be, ae = _nv_and_net(topology.cluster(2, 8, nic="eth-400g"))
    n, N, g = 14e9, 128, 8
    rs = C.collective_time("reducescatter", n, g, b_nv, a_nv)
    ar = C.collective_time("allreduce", n / g, N, be, ae)
    phases = {"reducescatter": rs, "allreduce": ar, "allgather": C.collective_time("allgather", n, g, b_nv, a_nv)}
    hier = C.hierarchical_allreduce_time(n, N, g, b_nv, a_nv, be, ae)
    dominant = max(phases, key=phases.get)
    why = "the NVLink phases move n over 8 GPUs at NVLink speed; the network phase is the largest"
    return {
        "flat": Answer(C.collective_time("allreduce", n, g * N, be, ae), "s"),
        "hierarchical": Answer(hier, "s", mistakes={
            "the network phase carried the whole 14 GB: each rail AllReduces only n / 8":
                hier - ar + C.collective_time("allreduce", n, N, be, ae)}),
        "dominant_phase": Answer(dominant, choices=tuple(phases),
                                 mistakes={k: why for k in phases if k != dominant}),
    }


# rdma-ex-nvl72: hierarchical AllReduce of 16 GB on 16 NVL72 racks against 144 servers of 8
@exercise("rdma-ex-nvl72", CHAPTER, parts=("nvl72", "servers_of_8"),
          doc="hierarchical AllReduce time of 16 GB on 16 domains of 72 and on 144 domains of 8 (XDR, NVLink 5)")
def _rdma_ex_nvl72():
    nv5 = links.get_link("nvlink5")
    _, _, bx, ax = _nv_and_net(topology.cluster(2, 8, nic="ib-xdr", gpu_nic_link="pcie6x16"))
    t = {k: C.hierarchical_allreduce_time(16e9, N, g, nv5.bandwidth, nv5.latency, bx, ax)
         for k, g, N in (("nvl72", 72, 16), ("servers_of_8", 8, 144))}
    return {k: Answer(v, "s") for k, v in t.items()}


# rdma-ex-superpod: switches and cables of an 8-SU and a 16-SU DGX SuperPOD
@exercise("rdma-ex-superpod", CHAPTER, parts=("su8_switches", "su8_cables", "su16_switches", "su16_cables_per_gpu"),
          doc="InfiniBand switches and compute-fabric cables of topology.superpod(8), and switches and cables per GPU "
              "of superpod(16)")
def _rdma_ex_superpod():
    inv8, inv16 = (topology.inventory(topology.superpod(s)) for s in (8, 16))
    per_gpu = inv16["cables"] / inv16["nic-leaf"]
    return {
        "su8_switches": Answer(inv8["switches"], "1", rtol=0, mistakes={"counted leaves only": inv8["leaf"]}),
        "su8_cables": Answer(inv8["cables"], "1", rtol=0, mistakes={
            "counted only the node-to-leaf cables": inv8["nic-leaf"]}),
        "su16_switches": Answer(inv16["switches"], "1", rtol=0, mistakes={
            "counted leaves only": inv16["leaf"], "forgot the core tier": inv16["leaf"] + inv16["spine"]}),
        "su16_cables_per_gpu": Answer(per_gpu, "1", rtol=0, mistakes={
            "forgot the spine-core tier of the three-tier design": 2.0}),
    }


# rdma-ex-superpod-oversub: one SU with 2:1 leaves: spines, uplink cables, bisection
@exercise("rdma-ex-superpod-oversub", CHAPTER, parts=("spines", "uplink_cables", "bisection"),
          doc="spines, leaf-spine cables and bisection (B/s per direction) of superpod(1, oversubscription=2)")
def _rdma_ex_superpod_oversub():
    g = topology.superpod(1, oversubscription=2)
    inv = topology.inventory(g)
    bis = topology.bisection_bandwidth(g, method="heuristic")
    return {"spines": Answer(inv["spine"], "1", rtol=0, mistakes={"kept the 1:1 design's spines": 4}),
            "uplink_cables": Answer(inv["leaf-spine"], "1", rtol=0, mistakes={"kept one uplink per GPU (1:1)": 256}),
            "bisection": Answer(bis, "B/s", mistakes={
                "divided by the oversubscription: in one SU the worst cut runs through the leaves, not the spines":
                    bis / 2, "added both directions": 2 * bis})}


# rdma-ex-fattree: derive the k-ary fat tree's switches, cables and switches per host; evaluate them at a k too
# large to build
def _fat_tree_counts(k):
    """The closed forms the exercise derives: switches 5k^2/4, cables 3k^3/4 (host-edge, edge-aggregation,
    aggregation-core k^3/4 each), switches per host 5/k."""
    return 5 * k * k / 4, 3 * k**3 / 4, 5 / k


def _fat_tree_built(k):
    """The same counts read off topology.fat_tree(k): the library's model, for a k small enough to build."""
    g = topology.fat_tree(k)
    kinds = dict(g.nodes(data="kind"))
    switches = sum(1 for v in kinds.values() if v in topology.NETWORK_KINDS)
    return switches, g.number_of_edges(), switches / len(topology.endpoints(g))


def _vary_fattree(rng):
    """Per-student numbers: the switch radix k."""
    return {"k": int(rng.choice([24, 32, 36, 40, 48, 128]))}


@exercise("rdma-ex-fattree", CHAPTER, parts=("switches", "cables", "switches_per_host"), variants=_vary_fattree,
          doc="switches, cables (host-edge, edge-aggregation, aggregation-core) and switches per host of a k-ary "
              "three-tier fat tree, derived as functions of k and evaluated at k = 64")
def _rdma_ex_fattree(k=64):
    for small in (4, 6, 8):   # the derived forms agree with the library's fat tree where it can be built
        assert all(abs(a - b) < 1e-12 for a, b in zip(_fat_tree_counts(small), _fat_tree_built(small)))
    s, c, per = _fat_tree_counts(k)
    return {"switches": Answer(s, "1", rtol=0, mistakes={
                "forgot the core tier's (k/2)^2 switches": k * k,
                "counted k core switches per pod: there are (k/2)^2 in all, shared by the pods": k * k + k * k / 2}),
            "cables": Answer(c, "1", rtol=0, mistakes={
                "counted only the host cables, k^3/4": k**3 / 4,
                "forgot the aggregation-core tier": k**3 / 2}),
            "switches_per_host": Answer(per, "1", rtol=0.001, mistakes={
                "forgot the core tier's (k/2)^2 switches": 4 / k,
                "inverted the ratio (hosts per switch)": k / 5})}


# rdma-ex-design: the leaf oversubscription of a DGX SuperPOD with the fewest switches that meets a bisection target
OVERSUBSCRIPTIONS = {"1:1": 1.0, "4:3": 4 / 3, "2:1": 2.0, "4:1": 4.0, "8:1": 8.0}


@functools.cache
def _superpod_figures(sus, ratio):
    """(switches, bisection in B/s per direction) of topology.superpod(sus, oversubscription=ratio)."""
    g = topology.superpod(sus, oversubscription=OVERSUBSCRIPTIONS[ratio])
    return topology.inventory(g)["switches"], topology.bisection_bandwidth(g, method="heuristic")


def _vary_design(rng):
    """Per-student numbers: scalable units and the bisection target (TB/s per direction)."""
    sus = int(rng.choice([2, 4]))
    full = _superpod_figures(sus, "1:1")[1]
    return {"sus": sus, "target_tb_s": round(float(rng.choice([0.2, 0.3, 0.45, 0.6, 0.8])) * full / 1e12, 2)}


@exercise("rdma-ex-design", CHAPTER, variants=_vary_design,
          doc="the leaf oversubscription ('1:1', '4:3', '2:1', '4:1' or '8:1') of topology.superpod(2, ...) with the "
              "fewest switches whose bisection is at least 9 TB/s per direction (within 10 % of the fewest)")
def _rdma_ex_design(sus=2, target_tb_s=9.0):
    target = target_tb_s * 1e12   # the student's numbers show TB/s; the models use B/s
    from .design import design_answer

    options, cost = {}, {}
    for ratio in OVERSUBSCRIPTIONS:
        switches, bis = _superpod_figures(sus, ratio)
        options[ratio] = [] if bis >= target else [
            "its bisection bandwidth is below the target: the spine tier is too thin for this traffic"]
        cost[ratio] = switches
    return design_answer(options, cost, 0.10, too_costly=(
        "it meets the bisection target, but a design with fewer switches meets it too"))
