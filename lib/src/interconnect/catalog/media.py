"""Media and line codes as data: line-code efficiencies, reach by medium, energy per bit.

The tables behind :mod:`interconnect.signalling` (which re-exports every name here), each
row with the standard or datasheet it comes from:

* :data:`ENCODINGS`: line codes and FEC as exact fractions, with where they are used;
* :data:`REACH` (:class:`ReachPoint`): how far each medium carries a lane;
* :data:`ENERGY` (:class:`EnergyPoint`): published energy per bit, with date and basis.

SI units: bit/s per lane for line rates, metres, picojoules per bit (the vendors' unit).

References
----------
IEEE Std 802.3-2022, clauses 91 (RS-FEC), 119 (200G/400G PCS, 256b/257b, RS(544,514));
IEEE 802.3bj-2014, 802.3cd-2018, 802.3bs-2017, 802.3cm-2020.
PCI-SIG, *PCI Express Base Specification* 6.x, Flit Mode.
D. Das Sharma et al., "On-Package Memory with Universal Chiplet Interconnect Express
(UCIe)", arXiv:2510.06513 (2025).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from .._validate import choice

__all__ = ["ENCODINGS", "ReachPoint", "MEDIA", "REACH", "media", "reach_table", "EnergyPoint", "ENERGY",
           "energy_table"]

# ----------------------------------------------------------------------------------
# Line codes and FEC
# ----------------------------------------------------------------------------------
_RS544 = Fraction(514, 544)
_RS528 = Fraction(514, 528)
_T257 = Fraction(256, 257)

#: Encoding name -> (data bits per line bit as an exact fraction, where it is used).
ENCODINGS = {
    "8b/10b": (Fraction(8, 10), "PCIe 1.x/2.x, SDR-QDR InfiniBand, 1/10GbE-X, SATA"),
    "64b/66b": (Fraction(64, 66), "10/25/40/100GbE (NRZ), FDR/EDR InfiniBand"),
    "128b/130b": (Fraction(128, 130), "PCIe 3.0-5.0"),
    "256b/257b": (_T257, "transcoding inside IEEE 802.3 RS-FEC PHYs (Clauses 91, 119)"),
    "RS(528,514)": (_RS528, "Clause 91 'KR4' FEC (100GBASE-KR4/CR4), NRZ"),
    "RS(544,514)": (_RS544, "Clause 91/119 'KP4' FEC, PAM4 PHYs"),
    "256b/257b+RS(528,514)": (_T257 * _RS528,
                              "100GBASE-CR4/KR4 lanes (same 25.78125 Gb/s as 64b/66b)"),
    "256b/257b+RS(544,514)": (_T257 * _RS544,
                              "50/100/200G-per-lane PAM4 Ethernet, HDR/NDR/XDR InfiniBand"),
    "PCIe6 flit": (Fraction(242, 256), "PCIe 6.0 Flit Mode: 236 B TLP + 6 B DLP of 256 B"),
    "1b/1b": (Fraction(1, 1), "no line code (PCIe 6.0 at the PHY, NVLink as quoted)"),
}
assert ENCODINGS["256b/257b+RS(544,514)"][0] == Fraction(16, 17)
assert ENCODINGS["256b/257b+RS(528,514)"][0] == Fraction(64, 66)

# ----------------------------------------------------------------------------------
# Reach by medium
# ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class ReachPoint:
    """How far one medium carries one lane at one lane rate.

    Attributes
    ----------
    medium : str
        One of :func:`media`.
    lane_rate : float
        Bits per second per lane (line rate).
    reach : float
        Metres: the standard's "at least" objective or the longest datasheet part.
    name : str
        PHY or product the point comes from.
    source : str
        Standard clause or datasheet.
    verified : bool
        False where the figure could not be checked against a stored primary source.
    """

    medium: str
    lane_rate: float
    reach: float
    name: str
    source: str
    verified: bool = True


#: Media of :data:`REACH`, shortest reach first.
MEDIA = ("passive copper (DAC)", "active copper (ACC)", "multimode fibre",
          "single-mode fibre")

#: Reach table (see each point's source). Board traces are computed, not tabulated:
#: use :func:`interconnect.signalling.trace_reach`.
REACH = (
    ReachPoint("passive copper (DAC)", 25.78125e9, 5.0, "100GBASE-CR4",
               "IEEE 802.3bj-2014 objective: 4 lanes of twinax, 'reach up to at least 5 m'"),
    ReachPoint("passive copper (DAC)", 53.125e9, 3.0, "50GBASE-CR",
               "IEEE 802.3cd-2018: 'one lane of twinaxial copper, reach up to at least 3 m'"),
    ReachPoint("passive copper (DAC)", 106.25e9, 2.0, "NVIDIA LinkX 100G-PAM4 DAC",
               "NVIDIA LinkX 400G/100G-PAM4 cable guide: straight DACs 0.5-2 m, splitters "
               "to 3 m; IEEE 802.3ck-2022 100GBASE-CR1 targets 2 m"),
    ReachPoint("passive copper (DAC)", 212.5e9, 1.0, "200G-per-lane copper",
               "IEEE P802.3dj (200 Gb/s per lane) copper objective of about 1 m, as "
               "commonly reported; not checked against the task force's objectives",
               verified=False),
    ReachPoint("active copper (ACC)", 106.25e9, 5.0, "NVIDIA LinkX LACC",
               "NVIDIA LinkX 400G/100G-PAM4 cable guide: linear active copper 3-5 m"),
    ReachPoint("multimode fibre", 25.78125e9, 100.0, "100GBASE-SR4 (OM4)",
               "IEEE 802.3bm-2015 clause 95: 70 m OM3, 100 m OM4", verified=False),
    ReachPoint("multimode fibre", 53.125e9, 100.0, "400GBASE-SR8 (OM4)",
               "IEEE 802.3cm-2020 clause 138: 70 m OM3, 100 m OM4 (TIA FOTC summary)"),
    ReachPoint("multimode fibre", 106.25e9, 50.0, "NVIDIA MMA4Z00-NS (2x400G SR4)",
               "NVIDIA MMA4Z00-NS twin-port OSFP multimode transceiver datasheet: 50 m"),
    ReachPoint("single-mode fibre", 53.125e9, 10_000.0, "400GBASE-LR8",
               "IEEE 802.3bs-2017 clause 122: at least 10 km (TIA FOTC summary)"),
    ReachPoint("single-mode fibre", 106.25e9, 2_000.0, "NVIDIA MMS4X50-NM (2xFR4)",
               "NVIDIA MMS4X50-NM twin-port OSFP 2xFR4 datasheet: 2 km; IEEE 802.3cu "
               "400GBASE-FR4 likewise"),
)


def media():
    """Media of :data:`REACH`, shortest reach first."""
    return MEDIA


def reach_table(medium=None):
    """Points of :data:`REACH`, all or those of one medium, by lane rate.

    Parameters
    ----------
    medium : str, optional
        One of :func:`media` (case-insensitive); ``None`` gives every point.

    Returns
    -------
    tuple of ReachPoint
        Ordered by medium (shortest reach first), then lane rate.

    Raises
    ------
    ValueError
        If ``medium`` is not one of :func:`media`.

    Examples
    --------
    >>> [p.reach for p in reach_table("passive copper (DAC)")]     # metres, faster lanes reach less
    [5.0, 3.0, 2.0, 1.0]
    """
    pts = REACH
    if medium is not None:
        m = choice("medium", medium, MEDIA)
        pts = tuple(p for p in REACH if p.medium == m)
    return tuple(sorted(pts, key=lambda p: (MEDIA.index(p.medium), p.lane_rate)))


# ----------------------------------------------------------------------------------
# Energy per bit
# ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class EnergyPoint:
    """A published energy per bit of one kind of link.

    Attributes
    ----------
    name : str
    reach_class : str
        "on package", "package to package", "board", "pluggable optics",
        "co-packaged optics", "copper cable".
    pj_per_bit : float
        Picojoules per bit (the figure used in calculations).
    year : int
        Year of the claim or product.
    basis : str
        What the figure includes and how it was obtained (quoted, or derived from
        watts and a rate).
    source : str
    """

    name: str
    reach_class: str
    pj_per_bit: float
    year: int
    basis: str
    source: str


ENERGY = (
    EnergyPoint("UCIe 2.5D (advanced package)", "on package", 0.3, 2025,
                "target for > 16 GT/s (0.25 at <= 16 GT/s), PHY only, interposer or "
                "bridge at 25-55 um bump pitch",
                "Das Sharma, Choudhary, Onufryk, Pelt, arXiv:2510.06513 (Hot "
                "Interconnects 2025)"),
    EnergyPoint("UCIe 2D (standard package)", "on package", 0.6, 2025,
                "target for > 16 GT/s (0.5 at <= 16 GT/s), organic substrate, "
                "100-130 um bumps", "Das Sharma et al., arXiv:2510.06513"),
    EnergyPoint("NVLink-C2C (Grace Hopper)", "package to package", 1.3, 2022,
                "NVIDIA's quoted figure, 40 Gb/s/pin single-ended NRZ without FEC; "
                "what it includes is not stated",
                "NVIDIA blog 'What Is NVLink?' (2023); NVLink-C2C press release (2022)"),
    EnergyPoint("PCIe 5.0 SerDes (implied)", "board", 6.5, 2023,
                "derived: 5 x 1.3 pJ/bit from NVIDIA's 'NVLink [-C2C] is 5 times more "
                "energy efficient than PCIe Gen 5'; the 2022 press release says 25x "
                "with advanced packaging", "NVIDIA blog 'What Is NVLink?' (2023)"),
    EnergyPoint("passive copper cable (DAC), cable only", "copper cable", 0.125, 2023,
                "derived: 0.1 W per end / 800 Gb/s of a twin-port 800G DAC; the "
                "SerDes at each end are extra",
                "NVIDIA LinkX 400G/100G-PAM4 cable guide: 'Power consumption is 0.1 "
                "Watts per end'"),
    EnergyPoint("800G pluggable multimode transceiver", "pluggable optics", 18.75, 2023,
                "derived: 15 W per module / 800 Gb/s; module only, host SerDes extra",
                "NVIDIA MMA4Z00-NS twin-port OSFP datasheet (15 W)"),
    EnergyPoint("800G pluggable (industry, per Broadcom)", "pluggable optics", 18.75, 2023,
                "derived: midpoint of '14-16 W per 800G' for pluggable modules",
                "R. Pancholy (Broadcom), Laser Focus World interview on Bailly, 2023"),
    EnergyPoint("Broadcom Bailly CPO (51.2T)", "co-packaged optics", 6.9, 2023,
                "derived: '5.5 W per 800G' for the co-packaged optical engines",
                "R. Pancholy (Broadcom), Laser Focus World interview on Bailly, 2023"),
)


def energy_table(reach_class=None):
    """Points of :data:`ENERGY`, all or one ``reach_class``, lowest energy first.

    Parameters
    ----------
    reach_class : str, optional
        One of the ``reach_class`` values of :data:`ENERGY`; ``None`` gives every point.

    Returns
    -------
    tuple of EnergyPoint

    Raises
    ------
    ValueError
        If ``reach_class`` is not one of the classes in :data:`ENERGY`.

    Examples
    --------
    >>> [p.pj_per_bit for p in energy_table("on package")]
    [0.3, 0.6]
    """
    pts = ENERGY
    if reach_class is not None:
        classes = tuple(dict.fromkeys(p.reach_class for p in ENERGY))
        rc = choice("reach_class", reach_class, classes)
        pts = tuple(p for p in ENERGY if p.reach_class == rc)
    return tuple(sorted(pts, key=lambda p: p.pj_per_bit))
