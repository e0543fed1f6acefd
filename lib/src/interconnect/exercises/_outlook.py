"""Checkers for the chapter "Summary and outlook" (book/practice/outlook)."""

import numpy as np

from .. import collectives as C
from .. import devices, links
from .. import parallel as P
from .. import signalling as S
from ..units import per_direction
from . import Answer, exercise

CHAPTER = "book/practice/outlook"

#: NVIDIA's announced NVLink 6 figure per Rubin GPU, both directions added (CES, January 2026).
NV6_BIDIR = 3.6e12


# out-ex-nvlink6: the announced 3.6 TB/s per GPU, per direction, against NVLink 5 and PCIe 6.0 x16
@exercise("out-ex-nvlink6", CHAPTER, parts=("per_direction", "vs_nvlink5", "vs_pcie6"),
          doc="NVLink 6's announced 3.6 TB/s per GPU per direction (B/s), and its ratio to NVLink 5 and PCIe 6.0 x16")
def _out_ex_nvlink6():
    bw = per_direction(NV6_BIDIR)
    nv5, pcie6 = links.get_link("nvlink5").bandwidth, links.get_link("pcie6x16").bandwidth
    both = "compared NVIDIA's bidirectional 3.6 TB/s with a per-direction figure: halve it first"
    return {
        "per_direction": Answer(bw, "B/s", mistakes={
            "took the announced 3.6 TB/s as per direction; NVIDIA adds both directions": NV6_BIDIR}),
        "vs_nvlink5": Answer(bw / nv5, "1", mistakes={both: NV6_BIDIR / nv5}),
        "vs_pcie6": Answer(bw / pcie6, "1", mistakes={
            both: NV6_BIDIR / pcie6,
            "used PCIe 6.0's raw 128 GB/s; the catalog's 121 GB/s is what is left after the flit's CRC and FEC":
                bw / (16 * 64e9 / 8)}),
    }


# out-ex-bytes-per-flop: PCIe bytes per FLOP of the V100 and the H100, and the yearly growth of each quantity
# (the chapter tabulates the NVLink bytes per FLOP)
def _vary_bytes_per_flop(rng):
    """Per-student numbers: the older and the newer GPU."""
    old, new = [("V100", "A100"), ("A100", "H100"), ("V100", "B200"), ("A100", "B200")][int(rng.integers(0, 4))]
    return {"old": old, "new": new}


@exercise("out-ex-bytes-per-flop", CHAPTER, parts=("old", "new", "bw_growth", "flops_growth"),
          variants=_vary_bytes_per_flop,
          doc="bytes per FLOP of the host link (PCIe per direction / dense peak) of V100 and H100, and the yearly "
              "growth factors of PCIe bandwidth and peak FLOP/s from 2017 to 2022")
def _out_ex_bytes_per_flop(old="V100", new="H100"):
    v, h = devices.get_gpu(old), devices.get_gpu(new)
    bv, bh = links.get_link(v.pcie).bandwidth, links.get_link(h.pcie).bandwidth
    years = h.year - v.year
    bidir = "used the bidirectional PCIe figure; the book's ratio uses bandwidth per direction"
    total = "gave the total ratio over the years, not the factor per year (take the root)"
    linear = "averaged the growth linearly (ratio - 1) / years + 1; growth compounds: take the root"
    nvl = "used the NVLink bandwidth; the question asks for the host link, PCIe"

    def growth(r):
        slips = {total: r, linear: (r - 1) / years + 1}
        return {k: w for k, w in slips.items() if abs(w / r ** (1 / years) - 1) > 0.05}

    return {
        "old": Answer(bv / v.peak_flops, "1", mistakes={bidir: 2 * bv / v.peak_flops,
                                                         nvl: links.get_link(v.nvlink).bandwidth / v.peak_flops}),
        "new": Answer(bh / h.peak_flops, "1", mistakes={
            bidir: 2 * bh / h.peak_flops,
            nvl: links.get_link(h.nvlink).bandwidth / h.peak_flops,
            "used the datasheet's sparse FLOP/s (twice the dense figure)": bh / (2 * h.peak_flops)}),
        "bw_growth": Answer((bh / bv) ** (1 / years), "1", mistakes=growth(bh / bv)),
        "flops_growth": Answer((h.peak_flops / v.peak_flops) ** (1 / years), "1",
                               mistakes=growth(h.peak_flops / v.peak_flops)),
    }


def _cpo_parts():
    e = {p.name: p.pj_per_bit for p in S.energy_table()}
    bw = links.get_link("eth-800g").bandwidth
    ends = 16_384 * 2 * 2                      # GPUs x (GPU-leaf, leaf-spine) links x two ends
    plug = ends * float(S.link_power(bw, e["800G pluggable (industry, per Broadcom)"]))
    cpo = ends * float(S.link_power(bw, e["Broadcom Bailly CPO (51.2T)"]))
    return plug, cpo


# out-ex-cpo: optics power of 16,384 GPUs x 2 links x 2 ends at 800G, pluggable vs CPO
@exercise("out-ex-cpo", CHAPTER, parts=("pluggable", "cpo", "saving"),
          doc="optics power (W) of a 16,384-GPU two-tier fat tree at 800G with pluggable modules and with CPO, "
              "and the saving")
def _out_ex_cpo():
    plug, cpo = _cpo_parts()
    half = "counted one end per link, or only the GPU-to-leaf links: there are 2 links per GPU, each with 2 ends"
    double = ("passed the bidirectional bandwidth to link_power: with per-direction bandwidth it already gives "
              "the power of one end")
    return {
        "pluggable": Answer(plug, "W", mistakes={half: plug / 2, double: 2 * plug}),
        "cpo": Answer(cpo, "W", mistakes={half: cpo / 2, double: 2 * cpo}),
        "saving": Answer(plug - cpo, "W", mistakes={half: (plug - cpo) / 2,
                                                    "gave the ratio of the two powers, not the watts saved":
                                                        plug / cpo}),
    }


# out-ex-breakeven: DP break-even in 2022 and 2030 at compute x1.5/yr and bandwidth x1.3/yr
@exercise("out-ex-breakeven", CHAPTER, parts=("t_2022", "t_2030", "factor", "years_to_double"),
          doc="DP break-even tokens per GPU (8 GPUs, H100 GEMM ceiling) for the H100 in 2022 and projected to "
              "2030 (compute x1.5, "
              "bandwidth x1.3 per year), the growth factor, and the years until it doubles")
def _out_ex_breakeven():
    h = devices.get_gpu("H100")
    bw = links.get_link(h.nvlink).bandwidth
    f = P.ceiling_fraction("H100")          # the chapter's f: the H100's measured GEMM ceiling
    t22 = P.dp_break_even_tokens(h.peak_flops, bw, 8, f)
    t30 = P.dp_break_even_tokens(h.peak_flops * 1.5 ** 8, bw * 1.3 ** 8, 8, f)
    bidir = "used the bidirectional NVLink bandwidth (the formula takes bandwidth per direction)"
    half = "used f = 0.5 (the library's old default), not the H100's measured GEMM ceiling"
    return {
        "t_2022": Answer(t22, "1", mistakes={
            bidir: P.dp_break_even_tokens(h.peak_flops, 2 * bw, 8, f),
            half: P.dp_break_even_tokens(h.peak_flops, bw, 8, 0.5),
            "dropped the (p - 1)/p factor of the ring": t22 * 8 / 7}),
        "t_2030": Answer(t30, "1", mistakes={
            bidir: P.dp_break_even_tokens(h.peak_flops * 1.5 ** 8, 2 * bw * 1.3 ** 8, 8, f),
            half: P.dp_break_even_tokens(h.peak_flops * 1.5 ** 8, bw * 1.3 ** 8, 8, 0.5),
            "grew the compute but not the bandwidth": P.dp_break_even_tokens(h.peak_flops * 1.5 ** 8, bw, 8, f)}),
        "factor": Answer(t30 / t22, "1", mistakes={
            "inverted the ratio: t* grows as compute over bandwidth": t22 / t30}),
        "years_to_double": Answer(np.log(2) / np.log(1.5 / 1.3), "1", mistakes={
            "used the compute growth alone; the bandwidth grows too, so only their ratio 1.5/1.3 counts":
                np.log(2) / np.log(1.5)}),
    }


# out-ex-domain: MoE dispatch AllToAll in a 64-GPU NVLink 5 domain vs NIC-bound across 8 nodes (XDR)
@exercise("out-ex-domain", CHAPTER, parts=("t_domain", "t_nodes", "speedup"),
          doc="dispatch AllToAll time (s) of 8,192 tokens x top-2 x 7,168 x BF16 on 64 GPUs in one NVLink 5 domain, "
              "the NIC-bound time over eight 8-GPU nodes with XDR, and the ratio")
def _out_ex_domain():
    n = 8192 * 2 * 7168 * 2
    nv5, xdr = links.get_link("nvlink5"), links.get_link("ib-xdr")
    t_dom = C.collective_time("alltoall", n, 64, nv5.bandwidth, nv5.latency, "direct")
    t_nod = (64 - 8) / 64 * n / xdr.bandwidth
    return {
        "t_domain": Answer(t_dom, "s", mistakes={
            "used Bruck's algorithm (log p rounds that forward data, meant for small messages)":
                C.collective_time("alltoall", n, 64, nv5.bandwidth, nv5.latency, "bruck")}),
        "t_nodes": Answer(t_nod, "s", mistakes={
            "sent all n bytes through the NIC; 8/64 of them stay inside the node": n / xdr.bandwidth}),
        "speedup": Answer(t_nod / t_dom, "1", mistakes={"inverted the ratio": t_dom / t_nod}),
    }
