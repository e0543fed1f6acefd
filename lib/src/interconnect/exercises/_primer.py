"""Checkers for the chapter "Collectives in one page" (book/why/primer)."""

import numpy as np

from .. import collectives as C
from .. import links
from ..catalog import traces
from ..units import GiB
from . import Answer, coding_exercise, exercise
from .coding import case, seed_variant

CHAPTER = "book/why/primer"


# primer-ex-ring: the ring AllReduce of a 1.3B model's BF16 gradient on 8 GPUs, PCIe 4.0 and NVLink 3
def _vary_ring(rng):
    """Per-student numbers: the model's parameters and the number of GPUs in the ring."""
    return {"params": float(rng.choice([0.35e9, 0.77e9, 1.3e9, 2.7e9, 6.7e9])), "gpus": int(rng.choice([4, 8, 16]))}


@exercise("primer-ex-ring", CHAPTER, parts=("sent_per_gpu", "time_pcie", "time_nvlink"), variants=_vary_ring,
          doc="bytes each GPU sends in a ring AllReduce of the 2.6 GB gradient on 8 GPUs, and its time "
              "on pcie4x16 and on nvlink3 (catalog bandwidth and latency)")
def _primer_ex_ring(params=1.3e9, gpus=8):
    n, p = 2 * params, gpus
    _, b, _ = C.cost_terms("allreduce", p, "ring")
    out = {"sent_per_gpu": Answer(b * n, "B", mistakes={
        "counted the reduce-scatter half only: the all-gather sends as much again": b * n / 2,
        "sent the whole vector twice (2n): each of the 2(p-1) steps sends one chunk n/p": 2 * n})}
    for part, name in (("time_pcie", "pcie4x16"), ("time_nvlink", "nvlink3")):
        link = links.get_link(name)
        t = C.collective_time("allreduce", n, p, link.bandwidth, link.latency)
        out[part] = Answer(t, "s", mistakes={
            "took the gradient as 4 bytes per parameter (FP32), the exercise says BF16":
                C.collective_time("allreduce", 2 * n, p, link.bandwidth, link.latency),
            "used the bidirectional bandwidth: the model needs the per-direction figure":
                C.collective_time("allreduce", n, p, link.bidirectional_bandwidth, link.latency)})
    return out


# primer-ex-busbw: the same AllReduce on 2 and on 16 GPUs: busbw of each, and which uses its links better
@exercise("primer-ex-busbw", CHAPTER, parts=("busbw_2", "busbw_16", "better"),
          doc="bus bandwidths (B/s) of a 4 GiB AllReduce that took 30 ms on 2 GPUs and 52 ms on 16 GPUs, "
              "and which run uses its links better ('2' or '16')")
def _primer_ex_busbw():
    n = 4 * GiB
    out, busbw = {}, {}
    for p, t in ((2, 30e-3), (16, 52e-3)):
        algbw = C.algorithm_bandwidth(n, t)
        busbw[p] = C.bus_bandwidth("allreduce", algbw, p)
        mistakes = {"used the AllGather factor (p-1)/p instead of AllReduce's 2(p-1)/p":
                    C.bus_bandwidth("allgather", algbw, p)}
        if p > 2:  # at p = 2 the AllReduce factor is 1: algbw and busbw coincide
            mistakes["reported algbw n / t: busbw multiplies it by 2(p-1)/p"] = algbw
        out[f"busbw_{p}"] = Answer(busbw[p], "B/s", mistakes=mistakes)
    better = "16" if busbw[16] > busbw[2] else "2"
    other = {"16": "2", "2": "16"}[better]
    out["better"] = Answer(better, choices=("2", "16"), mistakes={
        other: "compared algorithm bandwidths, which fall with p even on perfect links; compare bus bandwidths"})
    return out


# primer-ex-bidir: the H100's "900 GB/s": the bandwidth to use, and the 14 GB gradient's ring AllReduce on 8 GPUs
@exercise("primer-ex-bidir", CHAPTER, parts=("bandwidth", "time"),
          doc="per-direction NVLink 4 bandwidth of an H100 (B/s), and the ring AllReduce time of a 14 GB gradient "
              "on 8 H100s with it and the catalog latency")
def _primer_ex_bidir():
    nv4 = links.get_link("nvlink4")
    n, p = 14e9, 8
    t = C.collective_time("allreduce", n, p, nv4.bandwidth, nv4.latency)
    return {
        "bandwidth": Answer(nv4.bandwidth, "B/s", mistakes={
            "took the datasheet's 900 GB/s, both directions added": nv4.bidirectional_bandwidth}),
        "time": Answer(t, "s", mistakes={
            "used 900 GB/s, the bidirectional figure: the bandwidth term comes out half as long":
                C.collective_time("allreduce", n, p, nv4.bidirectional_bandwidth, nv4.latency),
            "used one NVLink 4 link (nvlink4-link) instead of the GPU's 18":
                C.collective_time("allreduce", n, p, links.get_link("nvlink4-link").bandwidth, nv4.latency)}),
    }


# primer-ex-trace: read a real all_reduce_perf table (4 x RTX 4090 on PCIe 4.0)
def _vary_trace(rng):
    """Per-student numbers: the table row read (its size: 256 MiB, 512 MiB or 1 GiB) and the model's parameters."""
    return {"size": int(rng.choice([2**28, 2**29, 2**30])),
            "params": float(rng.choice([0.35e9, 0.77e9, 2.7e9, 6.7e9, 13e9]))}


@exercise("primer-ex-trace", CHAPTER, parts=("algbw", "pcie_fraction", "time_4", "time_8"), variants=_vary_trace,
          doc="from a real all_reduce_perf table (4 x RTX 4090): algbw of the 1 GiB row from its size and time (B/s), "
              "the busbw's fraction of a PCIe 4.0 x16 link per direction, and the ring AllReduce time of a 1.3B "
              "model's BF16 gradient at that busbw on the 4 GPUs and on 8 GPUs (s)")
def _primer_ex_trace(size=2**30, params=1.3e9):
    text = traces.get("rtx4090-x4-allreduce").text
    p = traces.nccl_tests_header(text)["nGpus"]
    r = next(r for r in traces.nccl_tests_rows(text) if r["size"] == size)
    algbw = C.algorithm_bandwidth(r["size"], r["time"])
    pcie = links.get_link("pcie4x16")
    busbw = r["busbw"]                       # the table's column: per link, per direction
    n = 2 * params                           # BF16: 2 bytes per parameter
    factor = {q: C.bus_bandwidth("allreduce", 1.0, q) for q in (p, 8)}   # 2(q-1)/q
    t4, t8 = n * factor[p] / busbw, n * factor[8] / busbw
    return {
        "algbw": Answer(algbw, "B/s", rtol=0.01, mistakes={
            "gave the busbw column: algbw is the message size over the time": busbw}),
        "pcie_fraction": Answer(busbw / pcie.bandwidth, "1", rtol=0.01, mistakes={
            "divided the algbw: the busbw is the figure to compare with one link": algbw / pcie.bandwidth}),
        "time_4": Answer(t4, "s", mistakes={
            "divided by the busbw without the ring's 2(p-1)/p: the time is n / algbw": n / busbw,
            "took 4 bytes per parameter (FP32); the gradient is BF16": 2 * t4}),
        "time_8": Answer(t8, "s", mistakes={
            "kept the algbw of four GPUs: what stays put as p grows is the busbw, each link's rate":
                n * factor[p] / busbw,
            "used the AllGather factor (p-1)/p instead of the AllReduce's 2(p-1)/p": t8 / 2}),
    }


# primer-ex-derive: the bus-bandwidth factors derived from the ring, and a ReduceScatter's busbw
def _vary_derive(rng):
    """Per-student numbers: the ranks and the ReduceScatter's time (s)."""
    return {"p": int(rng.choice([4, 8, 32, 64])), "time": float(rng.choice([2e-3, 8e-3, 12e-3]))}


@exercise("primer-ex-derive", CHAPTER, parts=("rs_factor", "ar_factor", "rs_busbw"), variants=_vary_derive,
          doc="busbw / algbw of a ring ReduceScatter and of a ring AllReduce on 16 ranks, derived from the bytes a "
              "rank sends, and the busbw (B/s) of a 1 GiB ReduceScatter on 16 GPUs that took 5 ms")
def _primer_ex_derive(p=16, time=5e-3):
    rs, ar = C.bus_factor("reducescatter", p), C.bus_factor("allreduce", p)
    algbw = C.algorithm_bandwidth(1 * GiB, time)
    return {
        "rs_factor": Answer(rs, "1", rtol=0.001, mistakes={
            "inverted the factor: a rank sends (p - 1)/p of n, so busbw is algbw times (p - 1)/p": 1 / rs,
            "gave the AllReduce's factor: a ReduceScatter is half of it": ar}),
        "ar_factor": Answer(ar, "1", rtol=0.001, mistakes={
            "gave the ReduceScatter's factor: the AllReduce adds an AllGather that sends as much again": rs,
            "took the large-p limit 2: at finite p it is 2(p - 1)/p": 2.0}),
        "rs_busbw": Answer(rs * algbw, "B/s", mistakes={
            "reported algbw, n / t: busbw multiplies it by (p - 1)/p": algbw,
            "used the AllReduce's factor 2(p - 1)/p for a ReduceScatter": ar * algbw}),
    }


# primer-ex-code: write the alpha-beta time of a ring AllReduce; graded against collectives.collective_time
_RING_KINDS = {
    "single": "there is one GPU",
    "two": "there are two GPUs",
    "many": "there are more than two GPUs and the message is large",
    "small": "the message is small (the latency term dominates)",
    "no_latency": "the latency is zero",
    "bad_size": "the message size is zero or negative",
    "bad_p": "the number of GPUs is not a whole number of at least 1",
    "bad_link": "the bandwidth is zero or negative, or the latency is negative",
}
_RING_MISTAKES = {
    "counted the ReduceScatter half only: an AllReduce also runs an AllGather, twice the latencies and the bytes":
        lambda n, p, a, bw: (p - 1) * a + (p - 1) / p * n / bw,
    "dropped the (p - 1)/p: each of the 2(p - 1) steps sends one chunk of n/p bytes, not the whole message":
        lambda n, p, a, bw: 2 * (p - 1) * a + 2 * n / bw,
    "counted 2p steps instead of 2(p - 1): a ring of p GPUs needs p - 1 steps per phase":
        lambda n, p, a, bw: 2 * p * a + 2 * (p - 1) / p * n / bw,
}


@coding_exercise("primer-ex-code", CHAPTER, "ring_allreduce_time(n, p, alpha, bandwidth)", _RING_KINDS, unit="s",
                 rtol=1e-6, variants=seed_variant,
                 doc="a function returning the alpha-beta time (s) of a ring AllReduce of n bytes on p GPUs, with "
                     "per-message latency alpha (s) and per-direction bandwidth (B/s); ValueError on invalid input")
def _primer_ex_code(seed=0):
    def ok(kind, n, p, a, bw):
        return case(kind, (n, p, a, bw), C.collective_time("allreduce", n, p, bw, a), "s",
                    {d: f(n, p, a, bw) for d, f in _RING_MISTAKES.items()}, rtol=1e-6)

    cases = [ok("single", 1e9, 1, 5e-6, 100e9), ok("two", 1e8, 2, 5e-6, 25e9),
             ok("many", 2.6e9, 8, 5e-6, 300e9), ok("many", 1e9, 64, 10e-6, 50e9),
             ok("small", 4096, 16, 5e-6, 100e9), ok("small", 256, 4, 2e-6, 25e9),
             ok("no_latency", 1e9, 4, 0.0, 100e9)]
    rng = np.random.default_rng(seed)
    for _ in range(3):
        p = int(rng.choice([3, 4, 6, 8, 16, 32, 72, 128]))
        n = float(np.round(10 ** rng.uniform(8, 10.5), -3))
        alpha, bw = float(rng.choice([1e-6, 3e-6, 1e-5])), float(rng.choice([25e9, 50e9, 100e9, 450e9]))
        cases.append(ok("many", n, p, alpha, bw))
    cases.append(ok("small", float(rng.choice([64, 512, 2048])), int(rng.choice([8, 16, 64])),
                    float(rng.choice([2e-6, 5e-6])), float(rng.choice([50e9, 100e9]))))
    cases += [case(k, args, raises=True) for k, args in (
        ("bad_size", (0.0, 8, 5e-6, 100e9)), ("bad_size", (-1e6, 8, 5e-6, 100e9)),
        ("bad_p", (1e9, 0, 5e-6, 100e9)), ("bad_p", (1e9, 2.5, 5e-6, 100e9)),
        ("bad_link", (1e9, 8, 5e-6, 0.0)), ("bad_link", (1e9, 8, -1e-6, 100e9)))]
    return cases
