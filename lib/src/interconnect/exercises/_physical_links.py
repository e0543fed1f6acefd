"""Checkers for the chapter "Physical links" (book/stack/physical_links)."""

from .. import links
from .. import signalling as sig
from . import Answer, exercise

CHAPTER = "book/stack/physical_links"


@exercise("phys-ex-pcie", CHAPTER, parts=("pcie4x8", "pcie3x16", "faster_4x8_or_3x16", "pcie2x16", "pcie3x8"),
          doc="usable per-direction bandwidth of four PCIe links, and which of the first two is faster")
def _phys_ex_pcie():
    rate = {name: sig.usable_rate(lanes, gts, enc) for name, lanes, gts, enc in (
        ("pcie4x8", 8, 16e9, "128b/130b"), ("pcie3x16", 16, 8e9, "128b/130b"),
        ("pcie2x16", 16, 5e9, "8b/10b"), ("pcie3x8", 8, 8e9, "128b/130b"))}
    # 128b/130b costs only 1.5 %: a tolerance of 0.5 % still tells it from the raw rate
    out = {k: Answer(v, "B/s", rtol=0.005, mistakes={
        "forgot the line code (lanes × GT/s / 8 is the raw rate, before 8b/10b or 128b/130b)":
            v / sig.encoding_efficiency({"pcie2x16": "8b/10b"}.get(k, "128b/130b"))}) for k, v in rate.items()}
    a, b = rate["pcie4x8"], rate["pcie3x16"]
    winner = "tie" if abs(a - b) <= 1e-9 * b else ("pcie4x8" if a > b else "pcie3x16")
    out["faster_4x8_or_3x16"] = Answer(winner, choices=("pcie4x8", "pcie3x16", "tie"), mistakes={
        "pcie3x16": "more lanes do not beat twice the rate per lane: 16 × 8 GT/s = 8 × 16 GT/s, same code",
        "pcie4x8": "a newer generation on half the lanes only ties: 8 × 16 GT/s = 16 × 8 GT/s, same code"})
    assert links.get_link("pcie4x8").bandwidth > 0  # the catalog entry the exercise confirms with
    return out


# phys-ex-port: 400GBASE-DR4 lane rate, Nyquist frequency and usable port bandwidth
@exercise("phys-ex-port", CHAPTER, parts=("lane_rate", "nyquist", "port"),
          doc="line rate per lane (bit/s), Nyquist frequency (Hz) and usable per-direction bandwidth of 400GBASE-DR4")
def _phys_ex_port():
    baud, code = 53.125e9, "256b/257b+RS(544,514)"
    lane = sig.line_rate(baud, "PAM4")
    port = sig.usable_rate(4, lane, code)
    assert links.get_link("eth-400g").bandwidth > 0  # the catalog entry the exercise checks against
    return {
        "lane_rate": Answer(lane, "b/s", mistakes={
            "took the baud as the bit rate: PAM4 carries 2 bits per symbol": baud}),
        "nyquist": Answer(sig.nyquist_frequency(baud), "Hz", mistakes={
            "used the bit rate (or the baud itself): the Nyquist frequency is half the baud":
                2 * sig.nyquist_frequency(baud)}),
        "port": Answer(port, "B/s", mistakes={
            "forgot the line code (256b/257b + RS(544,514) leaves 16/17 of the line rate)": 4 * lane / 8,
            "took the baud as the bit rate: PAM4 carries 2 bits per symbol": sig.usable_rate(4, baud, code)}),
    }


# phys-ex-optics: optical-module power of 4096 GPUs x 8 ports of 400 Gb/s, pluggable and co-packaged
@exercise("phys-ex-optics", CHAPTER, parts=("pluggable", "co_packaged"),
          doc="power (W) of all optical modules, both directions counted, with pluggable and co-packaged optics")
def _phys_ex_optics():
    traffic = 4096 * 8 * 2 * 400e9 / 8  # bytes/s, both directions of every port
    table = {p.reach_class: p.pj_per_bit for p in sig.energy_table()}
    out = {}
    for part, cls in (("pluggable", "pluggable optics"), ("co_packaged", "co-packaged optics")):
        w = sig.link_power(traffic, table[cls])
        out[part] = Answer(w, "W", mistakes={
            "counted one direction only: each port carries 400 Gb/s each way": w / 2,
            "forgot the 8 ports per GPU": w / 8,
            "left out the bits-to-bytes step (Gb/s taken as GB/s, or bytes/s not times 8)": w * 8})
    return out


# phys-ex-fec: RS(544,514) latency floor over five hops, hops per NDR network latency, 4-lane interleaved floor
@exercise("phys-ex-fec", CHAPTER, parts=("five_hops", "hops_per_ndr_latency", "four_lane_hop"),
          doc="FEC floor over 5 single-lane hops (s), hops that add up to the catalog's NDR latency, "
              "floor per 4-lane hop (s)")
def _phys_ex_fec():
    one = sig.fec_block_time(5440, 106.25e9)
    port = sig.fec_block_time(2 * 5440, 4 * 106.25e9)
    net = links.get_link("ib-ndr").latency
    return {
        "five_hops": Answer(5 * one, "s", mistakes={"one hop only: the floor is paid at every hop": one}),
        "hops_per_ndr_latency": Answer(net / one, "1", mistakes={
            "divided by the five-hop floor instead of one hop's": net / (5 * one)}),
        "four_lane_hop": Answer(port, "s", mistakes={
            "kept the single-lane time: four lanes deliver the codewords four times faster": one,
            "one codeword only: two are interleaved across the lanes": sig.fec_block_time(5440, 4 * 106.25e9)}),
    }


# phys-ex-cross: PAM4 crossover loss when loss grows as sqrt(f)
@exercise("phys-ex-cross", CHAPTER, doc="channel loss (dB) above which PAM4 pays off when loss ∝ √f")
def _phys_ex_cross():
    return Answer(sig.pam4_crossover_loss_db(0.5), "dB", mistakes={
        "used loss ∝ f (exponent 1): skin-effect loss grows as √f": sig.pam4_crossover_loss_db(1.0)})


# phys-ex-wall: lanes and edge for 1.8 TB/s bidirectional, UCIe edge, and power at 10 and 1 pJ/bit
@exercise("phys-ex-wall", CHAPTER, parts=("lanes", "serdes_edge_mm", "ucie_edge_mm", "power_10pj", "power_1pj"),
          doc="(a) lanes per direction and mm of edge for 1.8 TB/s bidirectional, (b) mm of UCIe edge, (c) watts")
def _phys_ex_wall():
    total, code = 1.8e12, "256b/257b+RS(544,514)"
    need = total / 2  # bytes/s per direction
    per_lane = sig.usable_rate(1, 212.5e9, code)
    per_mm = sig.bandwidth_wall(1.0, 2.0, 212.5e9, code)
    both = "used 1.8 TB/s as the per-direction need: it is both directions together"
    raw = "forgot the line code (16/17 of the line rate is data)"
    out = {
        "lanes": Answer(need / per_lane, "1", mistakes={both: total / per_lane, raw: need / (212.5e9 / 8)}),
        "serdes_edge_mm": Answer(need / per_mm, "mm", mistakes={both: total / per_mm, raw: need / (2 * 212.5e9 / 8)}),
        "ucie_edge_mm": Answer(total / 1.3e12, "mm", mistakes={
            "halved the bandwidth: the 1.3 TB/s per mm density already counts both directions": need / 1.3e12}),
    }
    for part, e in (("power_10pj", 10.0), ("power_1pj", 1.0)):
        w = sig.link_power(total, e)
        out[part] = Answer(w, "W", mistakes={
            "counted one direction only: the energy per bit applies to 1.8 TB/s": w / 2,
            "forgot that a byte is 8 bits": w / 8})
    return out
