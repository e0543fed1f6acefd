"""Checkers for the chapter "Topology" (book/stack/topology)."""

import functools
import itertools

from .. import topology as T
from . import Answer, exercise, not_numeric

CHAPTER = "book/stack/topology"


# topo-ex-torus: diameters and bisections of an 8 x 8 torus and a 64-GPU ring
@exercise("topo-ex-torus", CHAPTER, parts=("torus_diameter", "ring_diameter", "torus_bisection", "ring_bisection"),
          doc="diameter (hops) and bisection bandwidth (B/s per direction) of an 8x8 torus and a 64-GPU ring")
def _topo_ex_torus():
    tor, ring = T.torus((8, 8)), T.ring(64)
    return {
        "torus_diameter": Answer(T.diameter(tor), "1", rtol=0,
                                 mistakes={"used k instead of floor(k/2) per dimension": 16}),
        "ring_diameter": Answer(T.diameter(ring), "1", rtol=0, mistakes={"took the ring's size, not half of it": 64}),
        "torus_bisection": Answer(T.bisection_bandwidth(tor), "B/s", mistakes={
            "forgot the wrap-around links (2 k^(n-1) b, not k^(n-1) b)": T.bisection_bandwidth(tor) / 2}),
        "ring_bisection": Answer(T.bisection_bandwidth(ring), "B/s", mistakes={
            "cut one link only: a ring is cut in two places": T.bisection_bandwidth(ring) / 2}),
    }


# topo-ex-oversub: bisection of k=4 and k=8 fat trees at 1:1, 2:1, 4:1
_OVERSUB = [(k, r) for k in (4, 8) for r in (1, 2, 4)]


@exercise("topo-ex-oversub", CHAPTER, parts=tuple(f"k{k}_r{r}" for k, r in _OVERSUB),
          doc="bisection bandwidth (B/s per direction) of k=4 and k=8 fat trees at 1:1, 2:1 and 4:1, (k^3/8) b / r")
def _topo_ex_oversub():
    out = {}
    for k, r in _OVERSUB:
        bis = T.bisection_bandwidth(T.fat_tree(k, oversubscription=r), method="heuristic")
        half = "counted all k^3/4 hosts instead of the half on one side"
        mistakes = ({half: 2 * bis} if r in (1, 2)
                    else {half: 2 * bis, "forgot to divide by the oversubscription r": bis * r})
        if r == 2:
            mistakes = {half + " (or forgot to divide by r)": 2 * bis}
        out[f"k{k}_r{r}"] = Answer(bis, "B/s", mistakes=mistakes)
    return out


# topo-ex-dgx1ring: number of directed DGX-1 ring orders from GPU 0 using only NV2 pairs
@exercise("topo-ex-dgx1ring", CHAPTER, doc="how many directed ring orders from GPU 0 use only NV2 (two-link) pairs")
def _topo_ex_dgx1ring():
    g = T.dgx1_hybrid_cube_mesh()
    best_bw, count = 0.0, 0
    for rest in itertools.permutations(range(1, 8)):
        order = [f"gpu{i}" for i in (0, *rest)]
        pairs = list(zip(order, order[1:] + order[:1]))
        if all(g.has_edge(a, b) for a, b in pairs):
            bw = min(g.edges[a, b]["bandwidth"] for a, b in pairs)
            if bw > best_bw:
                best_bw, count = bw, 1
            elif bw == best_bw:
                count += 1
    return Answer(count, "1", rtol=0, mistakes={
        "counted undirected rings: each appears twice, once per direction": count // 2})


not_numeric("topo-ex-blast", CHAPTER,
            "which GPUs stay connected after a link failure: a list of islands and an explanation")
not_numeric("topo-ex-pxn", CHAPTER, "a path through the cluster and the NIC it uses: compare with the printed route")
not_numeric("topo-ex-dragonfly", CHAPTER,
            "build a graph by hand and compare a simulation with a closed form: open-ended")


# topo-ex-wrap: a 4x4x4 slice with and without wrap-around (OCS loops)
@exercise("topo-ex-wrap", CHAPTER, parts=("diameter_torus", "diameter_mesh", "bisection_torus", "bisection_mesh"),
          doc="diameter (hops) and bisection (B/s per direction) of tpu_slice((4, 4, 4)) with and without wrap-around")
def _topo_ex_wrap():
    tor, mesh = T.tpu_slice((4, 4, 4)), T.tpu_slice((4, 4, 4), wrap=False)
    bt, bm = T.bisection_bandwidth(tor), T.bisection_bandwidth(mesh)
    return {"diameter_torus": Answer(T.diameter(tor), "1", rtol=0, mistakes={"forgot the wrap-around": 9}),
            "diameter_mesh": Answer(T.diameter(mesh), "1", rtol=0, mistakes={"kept the wrap-around": 6}),
            "bisection_torus": Answer(bt, "B/s", mistakes={"forgot the wrap-around links of the cut": bm}),
            "bisection_mesh": Answer(bm, "B/s", mistakes={"counted the wrap-around links a mesh lacks": bt})}


# topo-ex-ecmp: equal-cost path counts of the new builders
_ECMP = {"fat_tree8": ("fat_tree(8), h0 -> h127", lambda: (T.fat_tree(8), "h0", "h127")),
         "torus44": ("torus((4, 4)), gpu0 -> gpu10", lambda: (T.torus((4, 4)), "gpu0", "gpu10")),
         "nvl72": ("nvl72(), gpu0 -> gpu71", lambda: (T.nvl72(cpus=False), "gpu0", "gpu71")),
         "dragonfly": ("dragonfly(), h0 -> h8", lambda: (T.dragonfly(groups=9, routers=4, hosts=2, global_links=2),
                                                         "h0", "h8"))}


@exercise("topo-ex-ecmp", CHAPTER, parts=tuple(_ECMP),
          doc="topology.ecmp_count for: " + "; ".join(v[0] for v in _ECMP.values()))
def _topo_ex_ecmp():
    out = {}
    for k, (_, build) in _ECMP.items():
        g, a, b = build()
        out[k] = Answer(T.ecmp_count(g, a, b), "1", rtol=0)
    out["fat_tree8"] = Answer(out["fat_tree8"].value, "1", rtol=0,
                              mistakes={"counted k/2 paths (same pod), not (k/2)^2 across pods": 4})
    out["torus44"] = Answer(out["torus44"].value, "1", rtol=0,
                            mistakes={"ignored the wrap-around: each dimension can go either way round": 6})
    return out


# topo-ex-design: the torus (or torus without wrap-around) of 64 GPUs with the fewest cables that meets a bisection
# target and a diameter limit
def _factorisations(n, largest=None):
    """Every way of writing n as a product of factors >= 2, largest first: (64,), (32, 2), ..., (2, 2, 2, 2, 2, 2)."""
    if n == 1:
        yield ()
        return
    for f in range(min(n, largest or n), 1, -1):
        if n % f == 0:
            for rest in _factorisations(n // f, f):
                yield (f, *rest)


def _design_name(dims, wrap):
    return "x".join(map(str, dims)) + (" torus" if wrap else " no-wrap")


@functools.cache
def _torus_figures(n=64):
    """{name: (cables, bisection in B/s per direction, diameter in hops)} of every torus and torus without
    wrap-around of n GPUs (topology.torus, NVLink 2 links)."""
    out = {}
    for dims in _factorisations(n):
        for wrap in (True, False):
            g = T.torus(dims, wrap=wrap)
            cables = sum(int(d.get("count", 1)) for *_, d in g.edges(data=True))
            out[_design_name(dims, wrap)] = (cables, T.bisection_bandwidth(g), T.diameter(g))
    return out


def _vary_design(rng):
    """Per-student numbers: the bisection target (GB/s per direction) and the largest diameter allowed (hops)."""
    target, diameter = [(100, 17), (200, 10), (200, 14), (400, 8), (400, 9), (800, 6)][int(rng.integers(6))]
    return {"target_gb_s": target, "max_diameter": diameter}


@exercise("topo-ex-design", CHAPTER, variants=_vary_design,
          doc="the torus of 64 GPUs (dimensions largest first, with or without wrap-around: '8x8 torus', "
              "'8x8 no-wrap', ...) with the fewest cables whose bisection is at least 400 GB/s per direction and "
              "whose diameter is at most 7 hops (within 5 % of the fewest)")
def _topo_ex_design(target_gb_s=400, max_diameter=7):
    target = target_gb_s * 1e9   # the student's numbers show GB/s; the models use B/s
    from .design import design_answer

    options, cost = {}, {}
    for name, (cables, bis, diam) in _torus_figures().items():
        why = []
        if bis < target:
            why.append("its bisection bandwidth is below the target")
        if diam > max_diameter:
            why.append("its diameter is longer than the limit")
        options[name], cost[name] = why, cables
    return design_answer(options, cost, 0.05, too_costly=(
        "it meets both constraints, but another torus of the list meets them with fewer cables"))
