"""Dual-GPU boards: cited power, clock and cooling figures next to the single cards they doubled.

Data with sources for the rendering chapter (re-exported by :mod:`interconnect.rendering`):
GeForce GTX 590 (2011), GTX 690 (2012), Radeon HD 7990 (2013) and R9 295X2 (2014). SI
units: watts, hertz.

References
----------
PCI-SIG, *PCI Express Card Electromechanical Specification*: 75 W from an x16 slot, 75 W
per 6-pin and 150 W per 8-pin auxiliary connector (as quoted by PC Perspective, below).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["DualGPUBoard", "dual_gpu_boards", "dual_gpu_board", "dual_board_table"]

# ----------------------------------------------------------------------------------
# Dual-GPU boards: power, heat, clocks
# ----------------------------------------------------------------------------------
_PCIE_SLOT_W = 75.0
_CONNECTOR_W = {"6-pin": 75.0, "8-pin": 150.0}
_PCPER_295X2 = ("PC Perspective, 'The AMD Radeon R9 295X2 8GB Graphics Card Review' p.2 "
                "(pcper.com/2014/04/the-amd-radeon-r9-295x2-8gb-graphics-card-review/2/): "
                "two 8-pin connectors are 'supposed to be limited to just 375 watts ... "
                "75 watts from the PCIe slot, 150 watts from each power connection'")


@dataclass(frozen=True)
class DualGPUBoard:
    """A dual-GPU board next to the single card whose GPU it carries twice.

    Attributes
    ----------
    name : str
        Catalog key, e.g. ``"gtx690"``.
    label, single_label : str
        The dual board and the single card compared with it.
    year : int
        Launch year of the dual board.
    gpu : str
        GPU chip (two per board).
    board_power : float
        Rated board power of the dual board, W (TDP / typical board power as stated).
    single_power : float
        Rated board power of one single card, W.
    dual_clock, single_clock : float
        GPU clocks compared, Hz (``clock_kind`` says which clock).
    clock_kind : str
        "base", "boost" or "maximum" (the clock the vendor quoted for both).
    connectors, single_connectors : tuple of str
        Auxiliary power connectors ("6-pin"/"8-pin") of each board.
    cooling : str
    source : str
        Where each figure comes from.
    notes : str
        Conflicts and unverified items.
    """

    name: str
    label: str
    single_label: str
    year: int
    gpu: str
    board_power: float
    single_power: float
    dual_clock: float
    single_clock: float
    clock_kind: str
    connectors: tuple
    single_connectors: tuple
    cooling: str
    source: str
    notes: str = ""

    @property
    def two_cards_power(self) -> float:
        """Power of two single cards, W."""
        return 2.0 * self.single_power

    @property
    def power_per_gpu(self) -> float:
        """Board power per GPU on the dual board, W."""
        return self.board_power / 2.0

    @property
    def power_saving(self) -> float:
        """Fraction of two single cards' rated power the dual board saves (negative: uses more)."""
        return 1.0 - self.board_power / self.two_cards_power

    @property
    def power_per_slot(self) -> float:
        """W through one PCIe x16 slot position for the dual board (one board, one slot)."""
        return self.board_power

    @property
    def single_power_per_slot(self) -> float:
        """W per PCIe x16 slot position with two single cards (one card per slot)."""
        return self.single_power

    @property
    def heat_ratio(self) -> float:
        """Heat one board must shed, dual / single (W per board over W per board)."""
        return self.board_power / self.single_power

    @property
    def clock_reduction(self) -> float:
        """1 - dual_clock / single_clock: how much the dual board's GPUs were slowed (negative: faster)."""
        return 1.0 - self.dual_clock / self.single_clock

    @property
    def spec_power_limit(self) -> float:
        """PCIe CEM ceiling for the board's connectors, W: 75 (slot) + 75 per 6-pin + 150 per 8-pin."""
        return _PCIE_SLOT_W + sum(_CONNECTOR_W[c] for c in self.connectors)

    @property
    def exceeds_spec(self) -> bool:
        """True if the rated board power is above :attr:`spec_power_limit`."""
        return self.board_power > self.spec_power_limit


_MHZ = 1e6
_DUAL_BOARDS = (
    DualGPUBoard(
        name="gtx590", label="NVIDIA GeForce GTX 590", single_label="GeForce GTX 580",
        year=2011, gpu="GF110 (Fermi, 40 nm)", board_power=365.0, single_power=244.0,
        dual_clock=607 * _MHZ, single_clock=772 * _MHZ, clock_kind="base",
        connectors=("8-pin", "8-pin"), single_connectors=("6-pin", "8-pin"),
        cooling="air, dual vapour chambers, one central fan",
        source=("HotHardware, 'NVIDIA GeForce GTX 590: Dual GF110s, One PCB' p.2 "
                "(hothardware.com/reviews/nvidia-geforce-gtx-590-dual-gf110s-one-pcb?page=2): "
                "GTX 580 at 772 MHz, GTX 590 at 607 MHz, 'TDP of 365W', 'a pair of 8-pin' "
                "feeds; The Tech Report GTX 590 review (core clock 'just 607MHz'); GTX 580 "
                "244 W TDP: gamegpu.com GTX 680 page ('the GeForce GTX 580 has 244 W') and "
                "Softpedia 2011-03-11 ('244 Watt TDP of a single GTX 580'); GTX 580 6+8-pin: "
                "game-debate.com"),
        notes=("CONFLICT: Guru3D lists the GTX 580 at 243 W; pre-launch reports (Softpedia "
               "citing SweClockers) said 375 W for the GTX 590, the launch figure is 365 W. "
               "HT4U via Softpedia: hand-picked low-leakage GF110 at 0.96 V vs 1.06 V on the "
               "GTX 580. amdarea51.de measured 431 W under load (not a rating).")),
    DualGPUBoard(
        name="gtx690", label="NVIDIA GeForce GTX 690", single_label="GeForce GTX 680",
        year=2012, gpu="GK104 (Kepler, 28 nm)", board_power=300.0, single_power=195.0,
        dual_clock=915 * _MHZ, single_clock=1006 * _MHZ, clock_kind="base",
        connectors=("8-pin", "8-pin"), single_connectors=("6-pin", "6-pin"),
        cooling="air, two vapour chambers, one central fan",
        source=("Guru3D, 'GeForce GTX 690 review' p.2 (guru3d.com/review/geforce-gtx-690-"
                "review/page-2): 'maximum board power of around 300W with a typical draw of "
                "260~265 Watts', 915 MHz base, 1019 MHz boost; AlienBabelTech GTX 690 p.2 "
                "(base 915 MHz, boost 1019 MHz); GTX 680: Overclock3D review (base 1006 MHz, "
                "boost 1058 MHz), amdarea51.de/ComputerBase (2x 6-pin, 'maximal 195 Watt'), "
                "Hardwareluxx ('100 Prozent, was 195 Watt'); GTX 690 two 8-pin: pcreview.co.uk "
                "launch report"),
        notes=("Boost clocks: 1019 vs 1058 MHz, a 3.7 % reduction (base: 9.0 %). X-bit labs "
               "puts the HD 7990's 375 W '25 % ... higher than specified for the GeForce GTX "
               "690', consistent with 300 W. Both GPUs sit behind a PLX PCIe 3.0 switch on "
               "the board.")),
    DualGPUBoard(
        name="hd7990", label="AMD Radeon HD 7990", single_label="Radeon HD 7970 GHz Edition",
        year=2013, gpu="Tahiti XT2 (GCN, 28 nm)", board_power=375.0, single_power=250.0,
        dual_clock=1000 * _MHZ, single_clock=1050 * _MHZ, clock_kind="boost",
        connectors=("8-pin", "8-pin"), single_connectors=("8-pin", "6-pin"),
        cooling="air, three fans over two heatsinks",
        source=("X-bit labs HD 7990 vs GTX 690 vs Titan p.2 ('specified to consume 375 watts "
                "in 3D applications'); Tom's Hardware news 'Final AMD Radeon HD 7990 "
                "Specifications' (two 8-pin, 'maximum total power consumption of 375 watts'); "
                "Legit Reviews HD 7990 review (Tahiti XT2 at 1000 MHz, 'AMD had to reduce the "
                "core clock by 50MHz versus the single GPU card'); HD 7970 GHz Edition: "
                "HotHardware review (engine 1000 MHz, boost 1050 MHz), Hexus table (TDP 250 W, "
                "8+6-pin); HD 7970 250 W maximum board power: AMD table quoted by Legit Reviews"),
        notes=("The 7990 uses the GHz Edition's Tahiti XT2 bin, so it is compared with the "
               "7970 GHz Edition (boost 1050 MHz). Against the original HD 7970 (925 MHz, "
               "also 250 W) the 7990 is clocked higher. AnandTech's own spec table (base "
               "950 MHz?) was not readable in stored copies: the 7990 base clock is not "
               "confirmed. TechSpot measured its power as 'virtually identical to that of "
               "two 7970 GHz Edition cards' and found it throttles after its thermal limit "
               "(Tom's Hardware R9 295X2 review p.14).")),
    DualGPUBoard(
        name="r9-295x2", label="AMD Radeon R9 295X2", single_label="Radeon R9 290X",
        year=2014, gpu="Hawaii XT (GCN 1.1, 28 nm)", board_power=500.0, single_power=300.0,
        dual_clock=1018 * _MHZ, single_clock=1000 * _MHZ, clock_kind="maximum",
        connectors=("8-pin", "8-pin"), single_connectors=("8-pin", "6-pin"),
        cooling="Asetek closed-loop liquid cooler, 120 mm radiator, plus a fan for VRM/memory",
        source=("HotHardware, 'AMD Radeon R9 295X2 Review: Hawaii x 2' p.2 (GPUs 'up to "
                "1018MHz', 'TDP of 500 watts', closed-loop liquid cooling, dual 8-pin); "
                "AnandTech R9 295X2 review p.2 ('the first 500W card for the company', first "
                "reference card with a closed loop liquid cooler); " + _PCPER_295X2 + "; "
                "R9 290X 'up to 1000 MHz': DigitalVersus R9 290X test and pcmasters.de (AMD "
                "slide: 8+6-pin, 'Boardpower maximal 300 Watt'); Tom's Hardware R9 295X2 p.14 "
                "(specially binned GPUs)"),
        notes=("Uncertain: AMD did not publish a typical board power for the R9 290X in the "
               "sources found ('AMD doesn't say exactly where that lies', DigitalVersus); "
               "300 W is the slide figure reported by pcmasters.de and equals the 8+6-pin "
               "connector ceiling. The 295X2 is the exception that proves the rule: liquid "
               "cooling let it run 1.8 % *faster* than a single air-cooled 290X, at 500 W, "
               "125 W above the 375 W its two 8-pin connectors are specified for (AMD asks "
               "for 28 A per 8-pin rail).")),
)
_BOARDS_BY_NAME = {b.name: b for b in _DUAL_BOARDS}


def dual_gpu_boards():
    """All dual-GPU boards in the table, oldest first.

    Returns
    -------
    tuple of DualGPUBoard
        GeForce GTX 590 (2011), GTX 690 (2012), Radeon HD 7990 (2013), R9 295X2 (2014),
        each with its single-card counterpart, cited figures and derived ratios
        (``power_saving``, ``clock_reduction``, ``heat_ratio``, ``exceeds_spec``).

    Examples
    --------
    >>> [b.name for b in dual_gpu_boards()]
    ['gtx590', 'gtx690', 'hd7990', 'r9-295x2']
    """
    return _DUAL_BOARDS


def dual_gpu_board(name):
    """One dual-GPU board by key.

    Parameters
    ----------
    name : str
        ``"gtx590"``, ``"gtx690"``, ``"hd7990"`` or ``"r9-295x2"`` (case-insensitive).

    Returns
    -------
    DualGPUBoard

    Raises
    ------
    ValueError
        For an unknown key; the message lists the keys.

    Examples
    --------
    >>> b = dual_gpu_board("R9-295X2")
    >>> b.board_power, b.spec_power_limit, b.exceeds_spec        # W: 75 + 2 x 150
    (500.0, 375.0, True)
    """
    if not isinstance(name, str) or name.strip().lower() not in _BOARDS_BY_NAME:
        raise ValueError(f"name={name!r} is not a known dual-GPU board; allowed: "
                         f"{', '.join(_BOARDS_BY_NAME)}")
    return _BOARDS_BY_NAME[name.strip().lower()]


def dual_board_table():
    """The comparison as a list of dicts (one per board), in SI units and ratios.

    Keys: ``name``, ``board``, ``versus``, ``year``, ``board_power_W``,
    ``two_cards_W``, ``power_per_gpu_W``, ``power_saving``, ``heat_ratio``,
    ``clock_kind``, ``dual_clock_Hz``, ``single_clock_Hz``, ``clock_reduction``,
    ``spec_limit_W``, ``exceeds_spec``, ``cooling``. The ``_W``/``_Hz`` keys carry the
    unit in the name (unlike the record's fields, ``board_power`` and ``spec_power_limit``)
    because the rendering chapter prints them by these names.

    Examples
    --------
    >>> row = dual_board_table()[1]
    >>> row["name"], row["board_power_W"], round(row["power_saving"], 3)
    ('gtx690', 300.0, 0.231)
    """
    return [{"name": b.name, "board": b.label, "versus": b.single_label, "year": b.year,
             "board_power_W": b.board_power, "two_cards_W": b.two_cards_power,
             "power_per_gpu_W": b.power_per_gpu, "power_saving": b.power_saving,
             "heat_ratio": b.heat_ratio, "clock_kind": b.clock_kind,
             "dual_clock_Hz": b.dual_clock, "single_clock_Hz": b.single_clock,
             "clock_reduction": b.clock_reduction, "spec_limit_W": b.spec_power_limit,
             "exceeds_spec": b.exceeds_spec, "cooling": b.cooling}
            for b in _DUAL_BOARDS]
