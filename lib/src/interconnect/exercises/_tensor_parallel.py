"""Checkers for the chapter "Tensor parallelism" (book/parallel/tensor_parallel)."""

from .. import collectives as C
from .. import links
from . import Answer, exercise

CHAPTER = "book/parallel/tensor_parallel"


# tp-ex-bytes: Llama 2 70B TP AllReduce message, its time on NVLink 4, latency- or bandwidth-bound
@exercise("tp-ex-bytes", CHAPTER, parts=("message", "time", "bound"),
          doc="bytes of one TP AllReduce (2sbh), its ring time on NVLink 4 (s), latency- or bandwidth-bound")
def _tp_ex_bytes():
    nv4 = links.get_link("nvlink4")
    n = 2 * 4096 * 1 * 8192
    a, b, _ = C.cost_terms("allreduce", 8, "ring")
    t = C.collective_time("allreduce", n, 8, nv4.bandwidth, nv4.latency)
    bound = "bandwidth" if b * n / nv4.bandwidth > a * nv4.latency else "latency"
    return {
        "message": Answer(n, "B", rtol=0, mistakes={"counted elements (sbh), not 2-byte BF16 values": n // 2}),
        "time": Answer(t, "s", mistakes={
            "used n/B (one send) instead of the ring's 2(t-1)/t n/B": n / nv4.bandwidth + a * nv4.latency,
            "used the bidirectional bandwidth: a ring sends one way per link": a * nv4.latency + b * n / (2 * nv4.bandwidth)}),
        "bound": Answer(bound, choices=("latency", "bandwidth"), mistakes={
            ("latency" if bound == "bandwidth" else "bandwidth"): "compare a·α with b·n/B from cost_terms"}),
    }


# tp-ex-crossover: 8-GPU ring AllReduce crossover size on NVLink 4, PCIe 5.0 x16, NDR
@exercise("tp-ex-crossover", CHAPTER, parts=("nvlink4", "pcie5", "ndr"),
          doc="message size (B) where the 8-GPU ring AllReduce's latency and bandwidth terms are equal")
def _tp_ex_crossover():
    a, b, _ = C.cost_terms("allreduce", 8, "ring")
    out = {}
    for part, name in (("nvlink4", "nvlink4"), ("pcie5", "pcie5x16"), ("ndr", "ib-ndr")):
        link = links.get_link(name)
        ns = a * link.latency * link.bandwidth / b
        out[part] = Answer(ns, "B", mistakes={"forgot the ring coefficients (took n* = αB)": link.latency * link.bandwidth})
    return out
