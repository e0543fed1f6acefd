"""Checkers for the chapter "Confusable concepts" (book/practice/distinctions)."""

import numpy as np

from .. import collectives as C
from .. import devices, links
from .. import parallel as P
from ..units import TB, GiB, MiB, bidirectional, per_direction
from . import Answer, exercise

CHAPTER = "book/practice/distinctions"


def _distinct(value, mistakes, rtol=0.02):
    """Keep only the mistakes a right answer cannot be confused with (> 2.5 rtol away): a variant's numbers
    can make a slip harmless."""
    v = float(value)
    return {d: w for d, w in mistakes.items() if abs(float(w) - v) > 2.5 * rtol * abs(v)}


# dis-ex-units: an 800 Gb/s port in bytes/s, and the time to send 10 GiB through it
def _vary_units(rng):
    """Per-student numbers: the port (a catalog name) and the buffer in GiB."""
    return {"port": str(rng.choice(["eth-200g", "eth-400g", "eth-800g"])), "gib": int(rng.choice([4, 10, 16, 40, 64]))}


@exercise("dis-ex-units", CHAPTER, parts=("bandwidth", "time"), variants=_vary_units,
          doc="bandwidth of an 800 Gb/s port (B/s per direction) and the time to send 10 GiB at that rate (s)")
def _dis_ex_units(port="eth-800g", gib=10):
    bw = links.get_link(port).bandwidth
    return {
        "bandwidth": Answer(bw, "B/s"),
        "time": Answer(gib * GiB / bw, "s", mistakes={
            "took GiB as GB (10^9 bytes each)": gib * 1e9 / bw,
            "divided bytes by bits per second (the port's Gb/s instead of its bytes/s)": gib * GiB / (8 * bw)}),
    }


# dis-ex-bidir: NVLink 5 "1.8 TB/s" per GPU: per direction, and an 8-GPU 4 GiB ring AllReduce
def _vary_bidir(rng):
    """Per-student numbers: the buffer (GiB) and the GPUs in the ring."""
    return {"gib": int(rng.choice([1, 2, 8, 16])), "gpus": int(rng.choice([4, 16, 72]))}


@exercise("dis-ex-bidir", CHAPTER, parts=("per_direction", "allreduce"), variants=_vary_bidir,
          doc="NVLink 5 per-GPU bandwidth per direction (B/s) and the 8-GPU ring AllReduce time of 4 GiB (s)")
def _dis_ex_bidir(gib=4, gpus=8):
    nv5 = links.get_link("nvlink5")
    bw = per_direction(1.8 * TB)
    n = gib * GiB
    t = C.collective_time("allreduce", n, gpus, bw, nv5.latency)
    a_ring, _, _ = C.cost_terms("allreduce", gpus, "ring")
    return {
        "per_direction": Answer(bw, "B/s"),
        "allreduce": Answer(t, "s", mistakes={
            "used the bidirectional 1.8 TB/s: a ring sends one way on each link":
                C.collective_time("allreduce", n, gpus, bidirectional(bw), nv5.latency),
            "used n/B (one send) instead of the ring's 2(p-1)/p n/B": a_ring * nv5.latency + n / bw}),
    }


# dis-ex-scale: a 4 MiB AllReduce over 8 GPUs, NVLink 4 node against 8 NDR nodes (the chapter tabulates
# 64 KiB and 256 MiB)
def _vary_scale(rng):
    """Per-student numbers: the message in MiB and the number of GPUs."""
    return {"mib": int(rng.choice([1, 2, 8, 16, 32])), "gpus": int(rng.choice([4, 8, 16]))}


@exercise("dis-ex-scale", CHAPTER, parts=("scale_up", "scale_out", "ratio"), variants=_vary_scale,
          doc="8-GPU ring AllReduce of 4 MiB inside an NVLink 4 node and over NDR (s), and the ratio")
def _dis_ex_scale(mib=4, gpus=8):
    nv4, ndr = links.get_link("nvlink4"), links.get_link("ib-ndr")
    n = mib * MiB
    up = C.collective_time("allreduce", n, gpus, nv4.bandwidth, nv4.latency)
    out = C.collective_time("allreduce", n, gpus, ndr.bandwidth, ndr.latency)
    _, b_ring, _ = C.cost_terms("allreduce", gpus, "ring")
    return {
        "scale_up": Answer(up, "s", mistakes=_distinct(up, {
            "took MiB as MB": C.collective_time("allreduce", mib * 1e6, gpus, nv4.bandwidth, nv4.latency),
            "left out the latency term 2(p-1) alpha": b_ring * n / nv4.bandwidth})),
        "scale_out": Answer(out, "s", mistakes=_distinct(out, {
            "took MiB as MB": C.collective_time("allreduce", mib * 1e6, gpus, ndr.bandwidth, ndr.latency),
            "left out the latency term 2(p-1) alpha": b_ring * n / ndr.bandwidth})),
        "ratio": Answer(out / up, "1", mistakes=_distinct(out / up, {
            "inverted the ratio (scale-up over scale-out)": up / out,
            "took the bandwidth ratio: at this size the latency terms still count": nv4.bandwidth / ndr.bandwidth})),
    }


# dis-ex-ridge: ridge intensities of an A100 for HBM, NVLink 3 and PCIe 4.0 x16 (the chapter computes the H100's)
def _vary_ridge(rng):
    """Per-student numbers: the GPU, with its own NVLink and PCIe (not the H100 or the H200, whose link
    ridges the chapter computes)."""
    return {"gpu": str(rng.choice(["V100", "B200", "GB200"]))}


@exercise("dis-ex-ridge", CHAPTER, parts=("hbm", "nvlink", "pcie"), variants=_vary_ridge,
          doc="A100 ridge intensities peak / bandwidth (FLOP per byte) for HBM, NVLink 3 and PCIe 4.0 x16, "
              "per direction")
def _dis_ex_ridge(gpu="A100"):
    g = devices.get_gpu(gpu)
    out = {"hbm": Answer(P.ridge_intensity(g.peak_flops, g.memory_bandwidth), "1",
                         mistakes={"divided bandwidth by peak (B/F instead of F/B)":
                                   g.memory_bandwidth / g.peak_flops})}
    for part, name in (("nvlink", g.nvlink), ("pcie", g.pcie)):
        lk = links.get_link(name)
        out[part] = Answer(P.ridge_intensity(g.peak_flops, lk.bandwidth), "1", mistakes={
            "used the bidirectional bandwidth (the ridge halves)":
                P.ridge_intensity(g.peak_flops, lk.bidirectional_bandwidth),
            "divided bandwidth by peak (B/F instead of F/B)": lk.bandwidth / g.peak_flops})
    return out


# dis-ex-tp: TP intensity 3h/(t-1), PCIe 5.0 roofline fraction, largest t at the NVLink 4 ridge
@exercise("dis-ex-tp", CHAPTER, parts=("intensity", "pcie5_fraction", "max_tp"),
          doc="TP-8 layer intensity for h = 8192 (FLOP/B), its roofline fraction of H100 peak on PCIe 5.0, "
              "and the largest t with 3h/(t-1) >= the NVLink 4 ridge")
def _dis_ex_tp():
    g = devices.get_gpu("H100")
    nv4, pcie5 = links.get_link("nvlink4"), links.get_link("pcie5x16")
    h = 8192
    i8 = P.tp_comm_intensity(h, 8)
    frac = P.attainable_flops(g.peak_flops, comm_intensity=i8, comm_bandwidth=pcie5.bandwidth) / g.peak_flops
    ridge = P.ridge_intensity(g.peak_flops, nv4.bandwidth)
    t_max = int(np.floor(1 + 3 * h / ridge))
    return {
        "intensity": Answer(i8, "1", mistakes={"used 3h/t instead of 3h/(t-1)": 3 * h / 8}),
        "pcie5_fraction": Answer(frac, "1", mistakes={
            "used the bidirectional PCIe bandwidth": min(1.0, 2 * frac)}),
        "max_tp": Answer(t_max, "1", rtol=0, mistakes={
            "used 3h/t instead of 3h/(t-1)": int(np.floor(3 * h / ridge)),
            "kept to powers of two: the question asks for any integer": 2 ** int(np.floor(np.log2(t_max)))}),
    }


# dis-ex-overlap: DP step times of a 13B model on PCIe 5.0 (no overlap, perfect overlap) and NVLink 4 (no
# overlap); the chapter works the 7B case
def _vary_overlap(rng):
    """Per-student numbers: the model's parameters and the compute time of a step."""
    return {"params": float(rng.choice([3e9, 7e9, 20e9, 30e9])), "compute": float(rng.choice([0.3, 0.5, 0.8, 1.2]))}


@exercise("dis-ex-overlap", CHAPTER, parts=("pcie5_no_overlap", "pcie5_overlap", "nvlink4_no_overlap"),
          variants=_vary_overlap,
          doc="data-parallel step time (s) of a 13B model on 8 GPUs, 0.6 s compute, BF16 gradient AllReduce")
def _dis_ex_overlap(params=13e9, compute=0.6):
    grad = 2 * params

    def comm(name):
        lk = links.get_link(name)
        return C.best_algorithm("allreduce", grad, 8, lk.bandwidth, lk.latency)[1]

    pc, nv = comm("pcie5x16"), comm("nvlink4")
    ov = compute + P.exposed_communication(pc, compute, overlap=1.0)
    return {
        "pcie5_no_overlap": Answer(compute + pc, "s", mistakes={"left out the compute": pc}),
        "pcie5_overlap": Answer(ov, "s", mistakes=_distinct(ov, {
            "took perfect overlap to hide all communication (the step is max(compute, comm))": compute,
            "added the communication as if nothing overlapped": compute + pc})),
        "nvlink4_no_overlap": Answer(compute + nv, "s", mistakes={"left out the compute": nv}),
    }
