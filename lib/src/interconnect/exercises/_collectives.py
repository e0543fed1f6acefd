"""Checkers for the chapter "Collective communication" (book/stack/collectives)."""

import math

import numpy as np

from .. import collectives as C
from .. import links
from ..units import GB, GiB, KiB, MiB, us
from . import Answer, coding_exercise, exercise
from .coding import case, seed_variant

CHAPTER = "book/stack/collectives"


def _distinct(value, mistakes, rtol=0.02):
    """Keep only the mistakes whose value a reader could not confuse with the answer."""
    v = np.asarray(value, dtype=float)
    return {k: w for k, w in mistakes.items()
            if not np.allclose(np.asarray(w, dtype=float), v, rtol=2.5 * rtol, atol=0)}


# coll-ex-busbw: 1 GiB AllReduce on 8 GPUs in 5.2 ms: algbw, busbw, fraction of NVLink 4
@exercise("coll-ex-busbw", CHAPTER, parts=("algbw", "busbw", "fraction"),
          doc="algbw and busbw (B/s) of a 1 GiB 8-GPU AllReduce that took 5.2 ms, and busbw as a fraction of nvlink4 "
              "per direction")
def _coll_ex_busbw():
    n, t, p = 1 * GiB, 5.2e-3, 8
    nv4 = links.get_link("nvlink4")
    algbw = C.algorithm_bandwidth(n, t)
    busbw = C.bus_bandwidth("allreduce", algbw, p)
    return {
        "algbw": Answer(algbw, "B/s", mistakes={
            "multiplied by the bus factor: that is busbw, algbw is n / t": busbw}),
        "busbw": Answer(busbw, "B/s", mistakes={
            "used the AllGather factor (p-1)/p instead of AllReduce's 2(p-1)/p": C.bus_bandwidth("allgather", algbw, p),
            "took algbw as busbw (forgot the factor 2(p-1)/p)": algbw}),
        "fraction": Answer(busbw / nv4.bandwidth, "1", mistakes={
            "compared algbw, not busbw, with the link": algbw / nv4.bandwidth,
            "divided by the bidirectional 900 GB/s: compare with the per-direction peak":
                busbw / nv4.bidirectional_bandwidth}),
    }


# coll-ex-bytes: bytes each GPU sends and receives in a 1 GiB ring AllReduce, p = 8 and 64
@exercise("coll-ex-bytes", CHAPTER, parts=("sent_p8", "received_p8", "sent_p64", "received_p64"),
          doc="bytes each GPU sends and receives in a ring AllReduce of 1 GiB on 8 and on 64 GPUs")
def _coll_ex_bytes():
    n = 1 * GiB
    out = {}
    for p in (8, 64):
        a, b, _ = C.cost_terms("allreduce", p, "ring")
        mistakes = _distinct(b * n, {
            "counted the reduce-scatter phase only: the all-gather sends as much again": b * n / 2,
            "sent the whole vector in every one of the 2(p-1) steps: each step sends a chunk n/p": a * n,
            "took the p -> infinity limit 2n, not 2(p-1)/p n": 2 * n})
        for kind in ("sent", "received"):
            out[f"{kind}_p{p}"] = Answer(b * n, "B", mistakes=mistakes)
    return out


# coll-ex-crossover: ring against binomial tree AllReduce, 16 GPUs, 25 GB/s, 5 us
@exercise("coll-ex-crossover", CHAPTER,
          doc="message size (B) above which the 16-GPU ring AllReduce beats the binomial tree, 25 GB/s, 5 us")
def _coll_ex_crossover():
    p, bw, lat = 16, 25 * GB, 5 * us
    x = C.crossover_size("allreduce", p, bw, lat, "ring", "tree")
    a_ring, b_ring, _ = C.cost_terms("allreduce", p, "ring")
    lg = math.log2(p)
    return Answer(x, "B", mistakes=_distinct(x, {
        "took n* = alpha B, without the coefficients' differences": lat * bw,
        "used the bidirectional 50 GB/s": C.crossover_size("allreduce", p, 2 * bw, lat, "ring", "tree"),
        "gave the tree lg p terms (a Reduce only), not 2 lg p (Reduce + Broadcast)":
            (a_ring - lg) * lat / ((lg - b_ring) / bw)}))


# coll-ex-allgather: ZeRO-3 AllGather of 8 x 128 MiB shards on NVLink 3
@exercise("coll-ex-allgather", CHAPTER, parts=("time", "factor"),
          doc="time (s) of the right AllGather call (n = all 8 shards) on NVLink 3, and the factor by which the "
              "colleague's call (n = one 128 MiB shard) is too fast")
def _coll_ex_allgather():
    nv3 = links.get_link("nvlink3")
    p, shard = 8, 128 * MiB
    right = C.collective_time("allgather", p * shard, p, nv3.bandwidth, nv3.latency)
    wrong = C.collective_time("allgather", shard, p, nv3.bandwidth, nv3.latency)
    return {
        "time": Answer(right, "s", mistakes={"passed the 128 MiB shard: nbytes is the AllGather's output": wrong}),
        "factor": Answer(right / wrong, "1", mistakes=_distinct(right / wrong, {
            "inverted the factor (wrong over right)": wrong / right,
            "took exactly p = 8: the latency term is the same in both calls": float(p)})),
    }


# coll-ex-small: 1 KiB AllReduce over 64 GPUs on NVLink 4
@exercise("coll-ex-small", CHAPTER, parts=("algorithm", "time", "ring_time"),
          doc="fastest AllReduce algorithm for 1 KiB on 64 GPUs (nvlink4), its time (s), and the ring's time (s)")
def _coll_ex_small():
    nv4 = links.get_link("nvlink4")
    n, p = 1 * KiB, 64
    algs = C.APPLICABLE["allreduce"]
    name, t_best = C.best_algorithm("allreduce", n, p, nv4.bandwidth, nv4.latency)
    t_ring = C.collective_time("allreduce", n, p, nv4.bandwidth, nv4.latency, "ring")
    lat_terms = {alg: C.cost_terms("allreduce", p, alg)[0] for alg in algs}
    why = {alg: f"{alg.replace('_', ' ')} pays {lat_terms[alg]:g} latencies at p = {p}, "
                f"against {lat_terms[name]:g} for {name.replace('_', ' ')}" for alg in algs if alg != name}
    return {
        "algorithm": Answer(str(name), choices=tuple(algs), mistakes=why),
        "time": Answer(float(t_best), "s", mistakes=_distinct(t_best, {
            "gave the ring's time: 2(p-1) latencies": t_ring})),
        "ring_time": Answer(t_ring, "s", mistakes=_distinct(t_ring, {
            "gave the fastest algorithm's time, not the ring's": float(t_best)})),
    }


# coll-ex-compose: AllReduce = ReduceScatter + AllGather; the tree's bandwidth coefficient against the ring's
@exercise("coll-ex-compose", CHAPTER, parts=("b_tree_p64", "b_ring_p64"),
          doc="bandwidth coefficients b (of n beta) of the binomial tree and of the ring AllReduce at p = 64")
def _coll_ex_compose():
    p = 64
    b_tree = C.cost_terms("allreduce", p, "tree")[1]
    b_ring = C.cost_terms("allreduce", p, "ring")[1]
    return {
        "b_tree_p64": Answer(b_tree, "1", mistakes=_distinct(b_tree, {
            "counted the Reduce only (lg p): the Broadcast moves the whole vector lg p times again": b_tree / 2,
            "took the ring's 2(p-1)/p: the tree moves whole vectors, not 1/p pieces": b_ring})),
        "b_ring_p64": Answer(b_ring, "1", mistakes=_distinct(b_ring, {
            "counted the reduce-scatter only, (p-1)/p: the all-gather adds as much": b_ring / 2,
            "took the p -> infinity limit 2": 2.0,
            "used p - 1 whole steps, 2(p-1), without dividing by p": 2.0 * (p - 1)})),
    }


# coll-ex-overlap: 16 DGX H100-like nodes, 4 GiB AllReduce: phases added, pipelined, and the NIC floor
@exercise("coll-ex-overlap", CHAPTER, parts=("added", "pipelined", "nic_floor"),
          doc="two-level AllReduce of 4 GiB on 16 nodes x 8 GPUs (topology.cluster, NDR NICs): time (s) with the "
              "phases added, pipelined (best chunk count), and the inter-node bandwidth term 2(N-1)/N n/(g B_NIC)")
def _coll_ex_overlap():
    n, N, g = 4 * GiB, 16, 8
    bi, ai, be, ae = C.hierarchical.cluster_link_parameters("ib-ndr", g)
    added = C.hierarchical_time("allreduce", n, N, g, bi, ai, be, ae, chunks=1)
    piped = C.hierarchical_time("allreduce", n, N, g, bi, ai, be, ae)
    floor = C.cost_terms("allreduce", N, "ring")[1] * n / g / be
    flat_one_nic = C.collective_time("allreduce", n, N * g, be, ae)
    return {
        "added": Answer(added, "s", mistakes=_distinct(added, {
            "sent all n bytes across the network on every rail, not n/g": (
                C.collective_time("reducescatter", n, g, bi, ai) + C.collective_time("allreduce", n, N, be, ae)
                + C.collective_time("allgather", n, g, bi, ai)),
            "priced a flat ring over all 128 GPUs through one NIC per node": flat_one_nic})),
        "pipelined": Answer(piped, "s", mistakes=_distinct(piped, {
            "added the phases: the pipeline overlaps them": added,
            "took the bandwidth floor alone: the pipeline still pays its fill and latencies": floor})),
        "nic_floor": Answer(floor, "s", mistakes=_distinct(floor, {
            "forgot to divide by g: each rail carries n/g": floor * g,
            "used the bidirectional NIC rate": floor / 2})),
    }


# coll-ex-nvls: NVLink SHARP as NCCL achieves it on 4 and 8 H100
@exercise("coll-ex-nvls", CHAPTER, parts=("busbw_nvls_p8", "gain_p8", "gain_p4"),
          doc="NCCL model, DGX H100, 8 GiB AllReduce: NVLS busbw on 8 GPUs (B/s), and host-based time over NVLS time "
              "on 8 and on 4 GPUs")
def _coll_ex_nvls():
    n = 8 * GiB
    net8, host8 = C.in_network_achieved("allreduce", n, 8, machine="dgx-h100")
    nv4 = links.get_link("nvlink4")
    peak = C.bus_bandwidth("allreduce", n / C.in_network_time("allreduce", n, 8, nv4.bandwidth, nv4.latency), 8)
    g8 = C.in_network_gain("allreduce", n, 8, machine="dgx-h100")
    g4 = C.in_network_gain("allreduce", n, 4, machine="dgx-h100")
    return {
        "busbw_nvls_p8": Answer(net8.busbw, "B/s", rtol=0.03, mistakes=_distinct(net8.busbw, {
            "used the line-rate model (in_network_time): NVLS does not reduce for free": peak,
            "gave algbw, not busbw": net8.algbw})),
        "gain_p8": Answer(g8, "1", rtol=0.03, mistakes=_distinct(g8, {
            "compared with the line-rate NVLS model (in_network_time)":
                host8.time / C.in_network_time("allreduce", n, 8, nv4.bandwidth, nv4.latency),
            "inverted the ratio": 1 / g8})),
        "gain_p4": Answer(g4, "1", rtol=0.03, mistakes=_distinct(g4, {
            "assumed NVLS always helps (gain of 8 GPUs)": g8,
            "inverted the ratio": 1 / g4})),
    }


# coll-ex-code: write the alpha-beta time of Rabenseifner's AllReduce; graded against collectives.collective_time
_RAB_KINDS = {
    "single": "there is one GPU",
    "two": "there are two GPUs",
    "large": "there are four or more GPUs and the message is large",
    "small": "the message is small (the latency term dominates)",
    "bad_p": "the number of GPUs is not a power of two",
    "bad_size": "the message size is zero or negative",
    "bad_link": "the bandwidth is zero or negative, or the latency is negative",
}
_RAB_MISTAKES = {
    "counted lg p latencies in all: each half, the recursive halving and the recursive doubling, takes lg p steps":
        lambda n, p, a, bw: math.log2(p) * a + 2 * (p - 1) / p * n / bw,
    "sent the whole message in every step (that is recursive doubling, lg p steps of n bytes)":
        lambda n, p, a, bw: math.log2(p) * (a + n / bw),
    "took the ring's 2(p - 1) latencies: halving and doubling need only 2 lg p steps":
        lambda n, p, a, bw: 2 * (p - 1) * a + 2 * (p - 1) / p * n / bw,
    "halved the bytes: each half moves (p - 1)/p of the message, 2(p - 1)/p n in all":
        lambda n, p, a, bw: 2 * math.log2(p) * a + (p - 1) / p * n / bw,
}


@coding_exercise("coll-ex-code", CHAPTER, "rabenseifner_allreduce_time(n, p, alpha, bandwidth)", _RAB_KINDS,
                 unit="s", rtol=1e-6, variants=seed_variant,
                 doc="a function returning the alpha-beta time (s) of Rabenseifner's AllReduce (recursive-halving "
                     "ReduceScatter, then recursive-doubling AllGather) of n bytes on p GPUs, p a power of two, with "
                     "per-message latency alpha (s) and per-direction bandwidth (B/s); ValueError on invalid input")
def _coll_ex_code(seed=0):
    def ok(kind, n, p, a, bw):
        return case(kind, (n, p, a, bw), C.collective_time("allreduce", n, p, bw, a, algorithm="rabenseifner"), "s",
                    {d: f(n, p, a, bw) for d, f in _RAB_MISTAKES.items()}, rtol=1e-6)

    cases = [ok("single", 1e9, 1, 5e-6, 100e9), ok("two", 1e8, 2, 5e-6, 25e9),
             ok("large", 2.6e9, 8, 5e-6, 300e9), ok("large", 1e9, 64, 10e-6, 50e9),
             ok("small", 4096, 16, 5e-6, 100e9), ok("small", 256, 4, 2e-6, 25e9)]
    rng = np.random.default_rng(seed)
    for _ in range(3):
        p = int(rng.choice([4, 8, 16, 32, 64, 128, 256]))
        n = float(np.round(10 ** rng.uniform(8, 10.5), -3))
        alpha, bw = float(rng.choice([1e-6, 3e-6, 1e-5])), float(rng.choice([25e9, 50e9, 100e9, 450e9]))
        cases.append(ok("large", n, p, alpha, bw))
    cases.append(ok("small", float(rng.choice([64, 512, 2048])), int(rng.choice([8, 16, 64])),
                    float(rng.choice([2e-6, 5e-6])), float(rng.choice([50e9, 100e9]))))
    cases += [case(k, args, raises=True) for k, args in (
        ("bad_p", (1e9, 6, 5e-6, 100e9)), ("bad_p", (1e9, 0, 5e-6, 100e9)), ("bad_p", (1e9, 2.5, 5e-6, 100e9)),
        ("bad_size", (0.0, 8, 5e-6, 100e9)), ("bad_size", (-1e6, 8, 5e-6, 100e9)),
        ("bad_link", (1e9, 8, 5e-6, 0.0)), ("bad_link", (1e9, 8, -1e-6, 100e9)))]
    return cases
