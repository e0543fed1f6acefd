"""Checkers for the chapter "Other fabrics" (book/stack/other_fabrics)."""

from .. import collectives as C
from .. import topology as T
from ..catalog.fabrics import get_fabric
from ..netsim import domain_allreduce_time
from ..topology import eight_way_systems
from ..units import GB, GiB
from . import Answer, exercise

CHAPTER = "book/stack/other_fabrics"


# ofab-ex-perdir: Gaudi 3's bidirectional scale-up figure, per device and per peer pair
@exercise("ofab-ex-perdir", CHAPTER, parts=("per_device", "per_pair"),
          doc="Gaudi 3 scale-up bandwidth of one device and of one pair of devices in a box, B/s per direction")
def _ofab_ex_perdir():
    up = get_fabric("gaudi3-scale-up")
    peers = up.domain - 1
    per_pair = up.links // peers * up.per_link_bandwidth
    return {
        "per_device": Answer(up.bandwidth, "B/s", mistakes={
            "kept Intel's bidirectional figure (1,050 GB/s): halve it": up.quoted}),
        "per_pair": Answer(per_pair, "B/s", mistakes={
            "divided the bidirectional figure by the 7 peers": up.quoted / peers,
            "took one port (25 GB/s): each pair has three": up.per_link_bandwidth,
            "divided by the 8 devices of the box, not the 7 peers": up.bandwidth / up.domain}),
    }


# ofab-ex-mesh: ring, all rings and direct AllReduce of 1 GiB on the MI300X mesh
@exercise("ofab-ex-mesh", CHAPTER, parts=("ring", "rings", "direct"),
          doc="bus bandwidth (B/s per direction) of a 1 GiB AllReduce on the 8-GPU MI300X xGMI mesh, simulated: "
              "one ring, all edge-disjoint rings in both directions, direct")
def _ofab_ex_mesh():
    mi = eight_way_systems()["MI300X (xGMI mesh)"]
    n = 1 * GiB
    bus = {a: C.bus_bandwidth("allreduce", n / domain_allreduce_time(mi.graph, n, a), 8)
           for a in ("ring", "rings", "direct")}
    peak = C.bus_bandwidth("allreduce", n / C.collective_time("allreduce", n, 8, mi.per_device, T.ASSUMED_LATENCY), 8)
    return {
        "ring": Answer(bus["ring"], "B/s", mistakes={
            "costed the ring on the 7-link sum (448 GB/s): a ring uses one link per GPU": peak}),
        "rings": Answer(bus["rings"], "B/s", mistakes={
            "counted 7 rings: the edges left over form a matching, not a ring": bus["rings"] * 7 / 6,
            "ran the 3 rings in one direction only": bus["rings"] / 2}),
        "direct": Answer(bus["direct"], "B/s", mistakes={
            "took one link (64 GB/s) for the direct algorithm": bus["ring"]}),
    }


# ofab-ex-torus: bisection of a TPU v5p 4x4x8 slice with and without the OCS wrap-around
@exercise("ofab-ex-torus", CHAPTER, parts=("torus", "mesh"),
          doc="bisection bandwidth (B/s per direction) of a TPU v5p 4x4x8 slice, with the OCS wrap-around links "
              "(torus) and without them (mesh), at the chapter's even split of 600 GB/s over 6 links")
def _ofab_ex_torus():
    tor = T.bisection_bandwidth(T.tpu_slice((4, 4, 8)))
    mesh = T.bisection_bandwidth(T.tpu_slice((4, 4, 8), wrap=False))
    link = get_fabric("tpu-v5p-ici").bandwidth / 6
    return {
        "torus": Answer(tor, "B/s", mistakes={
            "cut across a dimension of 4: the cheapest cut halves the longest dimension": 2 * 32 * link,
            "forgot the wrap-around links": tor / 2}),
        "mesh": Answer(mesh, "B/s", mistakes={
            "kept the wrap-around links, which the OCS provides only for whole cubes": mesh * 2}),
    }


# ofab-ex-dragonfly: the largest balanced dragonfly with 8 routers per group
@exercise("ofab-ex-dragonfly", CHAPTER, parts=("groups", "hosts", "global_links"),
          doc="groups, hosts and global links of the largest balanced dragonfly with a = 8 routers per group, "
              "p = 4 hosts and h = 4 global links per router (counts)")
def _ofab_ex_dragonfly():
    a, p, h = 8, 4, 4
    groups = a * h + 1
    g = T.dragonfly(groups=groups, routers=a, hosts=p, global_links=h)
    hosts = len(T.endpoints(g))
    glob = sum(d["count"] for *_, d in g.edges(data=True) if d["tier"] == "global")
    return {
        "groups": Answer(groups, "1", rtol=0, mistakes={
            "forgot the group itself: a h links reach a h other groups, so a h + 1 groups": a * h}),
        "hosts": Answer(hosts, "1", rtol=0, mistakes={"used a h groups instead of a h + 1": a * h * a * p}),
        "global_links": Answer(glob, "1", rtol=0, mistakes={
            "counted each global link from both ends": 2 * glob}),
    }


# ofab-ex-trn2: which Trainium2 figure can be costed
_TRN2 = ("1280 GB/s per direction", "640 GB/s per direction", "not costable")


@exercise("ofab-ex-trn2", CHAPTER, parts=("reading",),
          doc="which per-direction bandwidth the published NeuronLink-v3 figure supports for a cost model")
def _ofab_ex_trn2():
    rec = get_fabric("neuronlink-v3-trn2")
    right = "not costable" if rec.bandwidth is None else f"{rec.bandwidth / GB:g} GB/s per direction"
    why = {"1280 GB/s per direction": "AWS does not say 1.28 TB/s is per direction; if it is both added, this "
                                      "doubles every bandwidth term",
           "640 GB/s per direction": "that assumes the figure adds both directions, which AWS does not say either"}
    return {"reading": Answer(right, choices=_TRN2, mistakes={k: v for k, v in why.items() if k != right})}
