"""Beyond NVIDIA: the scale-up and scale-out fabrics of other accelerators, with sources.

AMD Infinity Fabric (xGMI) on the MI250X and MI300X, Intel Gaudi's on-die RoCE ports,
Google's TPU inter-chip interconnect (ICI), AWS Trainium2's NeuronLink, the UALink 1.0
scale-up standard and the Ultra Ethernet 1.0 transport. Each entry is a :class:`Fabric`:
one link, one port or one device's full complement, with its per-direction bandwidth where
a primary source gives one, the figure exactly as the source prints it and whether that
figure is per direction or both directions added.

These records are kept apart from the link catalog (:func:`interconnect.links.catalog`),
whose listings, tables and timeline the chapters print: adding them there would change
those outputs. Their bandwidths are in the same units and on the same convention, so the
collectives are costed on them with the same model as on NVLink, e.g. a ring AllReduce
over one MI300X xGMI link::

    collective_time("allreduce", n, 8, get_fabric("xgmi-mi300x-link").bandwidth, alpha)

Conventions
-----------
* **Units.** SI base units (bytes/s, seconds), ``GB = 1e9`` bytes, as in
  :mod:`interconnect.catalog.links`.
* **Per direction.** ``bandwidth`` is what one end can push to the other while the other
  pushes the same back; ``bidirectional_bandwidth`` is ``2 * bandwidth``, derived, never
  stored. ``quoted`` is the source's own figure and ``quoted_as`` says what it is:
  ``"per direction"``, ``"bidirectional"`` (halved into ``bandwidth``) or ``"unstated"``
  (the source does not say; ``bandwidth`` is then ``None``: we do not guess).
* **Scope.** ``scope`` says what the figure covers (one link, one port, all of one
  device's links); ``links`` is the number of links or ports it sums over and
  ``per_link_bandwidth`` one of them, per direction. A per-device sum over links to
  *different* peers (an xGMI mesh, a torus) is not what one peer pair gets.
* **Source.** ``source`` starts with the key of the entry in ``book/references.bib``,
  then says where in it the numbers are (as :mod:`interconnect.catalog.measurements`).
* **Latency.** ``None`` where no primary source gives a figure (most of these);
  otherwise ``latency_basis`` is one of :data:`interconnect.links.LATENCY_BASES`.
* **Year.** First product (vendor fabrics) or specification release (standards).

Examples
--------
>>> mi = get_fabric("xgmi-mi300x")
>>> mi.bandwidth / 1e9, mi.bidirectional_bandwidth / 1e9, mi.links, mi.per_link_bandwidth / 1e9
(448.0, 896.0, 7, 64.0)
>>> get_fabric("neuronlink-v3-trn2").bandwidth is None   # 1.28 TB/s, direction not stated
True
"""

from __future__ import annotations

from dataclasses import dataclass

from .._validate import as_count, as_positive, choice, lookup
from .links import LATENCY_BASES

__all__ = ["Fabric", "FABRICS", "KINDS", "QUOTED_AS", "VENDORS", "get_fabric", "fabrics", "names"]

#: What a fabric is for: GPU-to-GPU in a node or pod, the network between them, or a
#: transport protocol without a line rate of its own.
KINDS = ("scale-up", "scale-out", "transport")
#: What the source's own figure (``Fabric.quoted``) is.
QUOTED_AS = ("per direction", "bidirectional", "unstated")
#: The vendors or bodies :func:`fabrics` can filter on.
VENDORS = ("AMD", "Intel", "Google", "AWS", "UALink Consortium", "Ultra Ethernet Consortium")


@dataclass(frozen=True)
class Fabric:
    """One non-NVIDIA link, port or per-device fabric, and where its numbers come from.

    Attributes
    ----------
    name : str
        Catalog key, lower case (``"xgmi-mi300x"``).
    vendor : str
        One of :data:`VENDORS`.
    label : str
        Human-readable name.
    kind : str
        One of :data:`KINDS`.
    year : int
        First product (vendor fabrics) or specification release (standards).
    bandwidth : float or None
        Bytes/s **per direction** over ``scope``; None where no primary source gives a
        per-direction figure (see ``quoted_as``) or, for a transport, no line rate exists.
    scope : str
        What ``bandwidth`` covers (one link, one port, all of one device's links).
    source : str
        The ``book/references.bib`` key first, then where in it the numbers are.
    quoted : float or None
        The source's own figure for ``scope``, bytes/s, as printed.
    quoted_as : str or None
        One of :data:`QUOTED_AS`; None when ``quoted`` is None.
    links : int or None
        Links or ports ``bandwidth`` sums over.
    per_link_bandwidth : float or None
        One of those links, bytes/s per direction.
    lanes : int or None
        Lanes per direction of one link.
    lane_rate : float or None
        Bits per second per lane per direction, as the source names it.
    topology : str
        How the devices are wired (mesh, torus, all-to-all, switched).
    domain : int or None
        Devices in one scale-up domain (node, pod) as the source gives it.
    latency : float or None
        Seconds, where a primary source gives one; its basis in ``latency_basis``.
    latency_basis : str or None
        One of :data:`interconnect.links.LATENCY_BASES` when ``latency`` is set.
    latency_label : str
        The basis in a short phrase.
    gpu : str or None
        The device name in :mod:`interconnect.catalog.gpus` this applies to, where it has one.
    notes : str
        Caveats: what could not be verified, derived figures, conflicting sources.
    """

    name: str
    vendor: str
    label: str
    kind: str
    year: int
    bandwidth: float | None
    scope: str
    source: str
    quoted: float | None = None
    quoted_as: str | None = None
    links: int | None = None
    per_link_bandwidth: float | None = None
    lanes: int | None = None
    lane_rate: float | None = None
    topology: str = ""
    domain: int | None = None
    latency: float | None = None
    latency_basis: str | None = None
    latency_label: str = ""
    gpu: str | None = None
    notes: str = ""

    def __post_init__(self):
        choice("vendor", self.vendor, VENDORS)
        choice("kind", self.kind, KINDS)
        as_count("year", self.year, 1)
        for field in ("bandwidth", "quoted", "per_link_bandwidth", "lane_rate", "latency"):
            value = getattr(self, field)
            if value is not None:
                as_positive(field, value, "s" if field == "latency" else "bytes/s")
        for field in ("links", "lanes", "domain"):
            if getattr(self, field) is not None:
                as_count(field, getattr(self, field), 1)
        if (self.quoted is None) != (self.quoted_as is None):
            raise ValueError(f"{self.name}: quoted and quoted_as go together")
        if self.quoted_as is not None:
            choice("quoted_as", self.quoted_as, QUOTED_AS)
            expected = {"per direction": self.quoted, "bidirectional": self.quoted / 2,
                        "unstated": None}[self.quoted_as]
            if self.bandwidth != expected:
                raise ValueError(f"{self.name}: bandwidth={self.bandwidth!r} does not follow from "
                                 f"quoted={self.quoted!r} ({self.quoted_as}); expected {expected!r}")
        if (self.latency is None) != (self.latency_basis is None):
            raise ValueError(f"{self.name}: latency and latency_basis go together")
        if self.latency_basis is not None:
            choice("latency_basis", self.latency_basis, LATENCY_BASES)
        if not self.source.split():
            raise ValueError(f"{self.name}: source must start with a references.bib key")

    @property
    def bib_key(self) -> str:
        """The ``book/references.bib`` key the source starts with."""
        return self.source.split()[0]

    @property
    def bidirectional_bandwidth(self) -> float | None:
        """Both directions added, bytes/s: ``2 * bandwidth`` (None where ``bandwidth`` is)."""
        return None if self.bandwidth is None else 2.0 * self.bandwidth

    @property
    def raw_bandwidth(self) -> float | None:
        """``lanes * lane_rate / 8`` per link, times ``links``; None without lanes or rate."""
        if self.lanes is None or self.lane_rate is None:
            return None
        return self.lanes * self.lane_rate / 8.0 * (self.links or 1)


GB = 1e9
_MI250 = ("amd_rocm_mi250_arch (AMD, ROCm documentation, 'AMD Instinct MI250 microarchitecture': "
          "Infinity Fabric links 16 wide at 25 GT/s, 50 GB/s peak per link")
_MI250_NOTE = ("The ROCm page describes the MI250 (CDNA 2, two GCDs per OAM); the MI250X has the same "
               "package and links and differs in active compute units, which that page does not "
               "state separately. Each GCD is one GPU device to software. Year: MI250X first shipped "
               "in 2021 (Frontier, OLCF), from the product launch, not from this source.")
_MI300 = ("amd2023mi300x (AMD Instinct MI300X data sheet: 7 Infinity Fabric links, 128 GB/s peak "
          "bidirectional each, 896 GB/s aggregate); amd_rocm_mi300_arch (ROCm documentation, MI300 "
          "node-level architecture: seven links per GPU form a fully connected 8-GPU system)")
_MI300_NOTE = ("The per-link 128 GB/s and the 896 GB/s aggregate are the figures the catalog's MI300X "
               "and MI325X GPU records already carry from the data sheets; the stored data sheet was "
               "not re-opened here. Lanes and lane rate (x16 at 32 GT/s in secondary sources, "
               "e.g. Schieffer et al. on the MI300A) are not recorded: no primary source at hand. "
               "No latency: AMD publishes none.")
_GAUDI = ("intel_gaudi_network_config (Intel Gaudi documentation, 'Intel Gaudi Network "
          "Configuration': 21 scale-up and 3 scale-out ports per Gaudi 3 at 200 Gb/s, Gaudi 2 the same "
          "at 100 Gb/s; per-direction and bidirectional figures both printed)")
_GAUDI_NOTE = ("RoCE v2 over Ethernet ports integrated on the die (24 in all); in an HLS box the 21 "
               "scale-up ports go 3 to each of the 7 other accelerators (all-to-all), the 3 scale-out "
               "ports leave the box through OSFP to leaf switches. Ethernet framing and RoCE headers "
               "come out of the MAC rate. No latency figure published.")
_TPU_NOTE_V4 = ("Per-link and per-chip ICI bandwidth NOT recorded: the Cloud TPU v4 page gives none, "
                "and the paper's figures could not be checked against a stored copy (secondary "
                "summaries give 400 Gb/s per link per direction, i.e. 50 GB/s - unverified). Pod of "
                "4,096 chips in 4x4x4 cubes (64 chips, electrical ICI inside) joined by optical "
                "circuit switches (OCS) that rewire the torus between jobs.")

#: Every record, in catalog order (vendor, then year).
FABRICS = (
    Fabric("if-mi250x-gcd", "AMD", "Infinity Fabric, MI250X GCD to GCD (in package)", "scale-up", 2021,
           200 * GB, "the two GCDs of one OAM, 4 links", _MI250 + "; the two GCDs of an OAM joined by four "
           "links, 200 GB/s peak, 400 GB/s bidirectional)",
           quoted=400 * GB, quoted_as="bidirectional", links=4, per_link_bandwidth=50 * GB,
           lanes=16, lane_rate=25e9, topology="two GCDs in one package", domain=2, gpu=None,
           notes=_MI250_NOTE),
    Fabric("xgmi-mi250x-link", "AMD", "Infinity Fabric (xGMI), MI250X inter-package link", "scale-up", 2021,
           50 * GB, "one link", _MI250 + ", 100 GB/s bidirectional; node of 4 OAMs = 8 GCDs, GCD pairs 0-4 "
           "and 2-6 joined by two links)",
           quoted=100 * GB, quoted_as="bidirectional", links=1, per_link_bandwidth=50 * GB,
           lanes=16, lane_rate=25e9,
           topology="4 OAMs (8 GCDs), peer GCDs joined by one or two links: not uniform", domain=8,
           notes=_MI250_NOTE + " A GCD-to-GCD path between packages gets one link (50 GB/s per "
           "direction) or two (100); collectives see the slowest hop of their ring."),
    Fabric("xgmi-mi300x-link", "AMD", "Infinity Fabric (xGMI), MI300X one link", "scale-up", 2023,
           64 * GB, "one link (one peer pair)", _MI300,
           quoted=128 * GB, quoted_as="bidirectional", links=1, per_link_bandwidth=64 * GB,
           topology="8 GPUs fully connected, one link per peer pair", domain=8, gpu="MI300X",
           notes=_MI300_NOTE + " This is what one peer pair gets, and what one ring of a ring "
           "collective runs over."),
    Fabric("xgmi-mi300x", "AMD", "Infinity Fabric (xGMI), MI300X (7 links)", "scale-up", 2023,
           448 * GB, "all 7 links of one GPU, to 7 different peers", _MI300,
           quoted=896 * GB, quoted_as="bidirectional", links=7, per_link_bandwidth=64 * GB,
           topology="8 GPUs fully connected, one link per peer pair", domain=8, gpu="MI300X",
           notes=_MI300_NOTE + " A sum over links to 7 different peers: reaching it needs all 7 "
           "busy at once (all-to-all, or several rings on disjoint links), unlike NVLink through "
           "NVSwitch where one peer can get the whole of it. The MI325X has the same 7 links and "
           "896 GB/s (its GPU record)."),
    Fabric("gaudi2-scale-up", "Intel", "Gaudi 2 on-die RoCE, scale-up (21 x 100 GbE)", "scale-up", 2022,
           262.5 * GB, "21 scale-up ports of one Gaudi 2", _GAUDI,
           quoted=525 * GB, quoted_as="bidirectional", links=21, per_link_bandwidth=12.5 * GB,
           topology="HLS-2: 8 accelerators all-to-all, 3 ports per peer pair", domain=8,
           notes=_GAUDI_NOTE + " Year: Gaudi 2 launch (May 2022), not from this source."),
    Fabric("gaudi2-scale-out", "Intel", "Gaudi 2 on-die RoCE, scale-out (3 x 100 GbE)", "scale-out", 2022,
           37.5 * GB, "3 scale-out ports of one Gaudi 2", _GAUDI,
           quoted=75 * GB, quoted_as="bidirectional", links=3, per_link_bandwidth=12.5 * GB,
           topology="Ethernet leaf/spine", notes=_GAUDI_NOTE),
    Fabric("gaudi3-scale-up", "Intel", "Gaudi 3 on-die RoCE, scale-up (21 x 200 GbE)", "scale-up", 2024,
           525 * GB, "21 scale-up ports of one Gaudi 3", _GAUDI,
           quoted=1050 * GB, quoted_as="bidirectional", links=21, per_link_bandwidth=25 * GB,
           topology="HLS-3: 8 accelerators all-to-all, 3 ports per peer pair", domain=8,
           notes=_GAUDI_NOTE + " One peer pair gets 3 ports = 75 GB/s per direction; Intel's own "
                               "all-to-all peak per Gaudi 3 across boxes is 75 GB/s. Year: launch "
                               "(Intel Vision, April 2024), not from this source."),
    Fabric("gaudi3-scale-out", "Intel", "Gaudi 3 on-die RoCE, scale-out (3 x 200 GbE)", "scale-out", 2024,
           75 * GB, "3 scale-out ports of one Gaudi 3", _GAUDI,
           quoted=150 * GB, quoted_as="bidirectional", links=3, per_link_bandwidth=25 * GB,
           topology="Ethernet leaf/spine; an HLS-3 box bundles 24 ports into OSFP (4 x 200 Gb/s)",
           notes=_GAUDI_NOTE),
    Fabric("tpu-v4-ici", "Google", "TPU v4 inter-chip interconnect (ICI)", "scale-up", 2020,
           None, "one chip's 6 torus links",
           "jouppi2023tpuv4 (ISCA 2023: 4,096-chip supercomputer, 3D torus of 4x4x4 blocks joined by "
           "optical circuit switches); google_tpu_v4 (Cloud TPU v4: 4,096 chips per pod, direct links "
           "to nearest neighbours in 3 dimensions, configurable as a 3D torus; all-reduce bandwidth "
           "1.1 PB/s and bisection 24 TB/s per pod)",
           links=6, topology="3D torus (twisted tori possible), 4x4x4 cubes joined by OCS", domain=4096,
           notes=_TPU_NOTE_V4 + " Year: deployed 2020, per the paper."),
    Fabric("tpu-v5p-ici", "Google", "TPU v5p inter-chip interconnect (ICI)", "scale-up", 2023,
           600 * GB, "one chip, all its ICI links", "google_tpu_v5p (Cloud TPU v5p: bidirectional ICI "
           "bandwidth per chip 1,200 GB/s; 8,960 chips per pod; 3D torus)",
           quoted=1200 * GB, quoted_as="bidirectional", links=6,
           topology="3D torus, cubes of 4x4x4 joined by OCS; largest slice 16x16x24", domain=8960,
           notes="Earlier versions of the same page print 'Interchip Interconnect BW 4800 Gbps' = 600 GB/s, "
                 "which matches 1,200 GB/s bidirectional only if read per direction, as here. links=6 are "
                 "the six torus neighbours; Google does not state a per-link figure (600 / 6 = 100 GB/s "
                 "per link per direction would be our derivation, so per_link_bandwidth is left unset). "
                 "Year: announced December 2023, not from this source."),
    Fabric("neuronlink-v3-trn2", "AWS", "Trainium2 NeuronLink-v3", "scale-up", 2024,
           None, "one Trainium2 chip",
           "aws_neuron_trainium2 (AWS Neuron documentation, Trainium2 architecture: NeuronLink-v3 "
           "1.28 TB/s bandwidth per chip; memory pool up to 64 chips)",
           quoted=1280 * GB, quoted_as="unstated", links=4,
           topology="4x4 2D torus of 16 chips in a trn2.48xlarge; a Trn2 UltraServer joins 4 of them "
                    "(64 chips) over NeuronLink", domain=64,
           notes="AWS does not say whether 1.28 TB/s is per direction or both added, so bandwidth is "
                 "left None and no collective is costed on it. links=4 from the Neuron NKI "
                 "architecture guide (4 NeuronLink-v3 per device); the 4x4 torus from the Neuron "
                 "training best-practices page; 64 chips = the documented memory-pool size. "
                 "Year: Trn2 general availability (December 2024), not from this source."),
    Fabric("ualink-1.0-x4", "UALink Consortium", "UALink 200G 1.0, x4 port", "scale-up", 2025,
           100 * GB, "one x4 link (port), 4 lanes",
           "ualink2025_spec1 (UALink 200G 1.0 Specification, ratified 8 April 2025: 200 Gb/s per lane, "
           "212.5 Gb/s signalling, x1/x2/x4 links, up to 1,024 accelerators per pod); ualink2025_qa "
           "(target switch port-to-port latency with 400G ports: <= 150 ns for a 25T switch)",
           links=1, per_link_bandwidth=100 * GB, lanes=4, lane_rate=200e9,
           topology="accelerators through UALink switches", domain=1024,
           latency=150e-9, latency_basis="spec",
           latency_label="target switch port-to-port, 25T switch (UALink Q&A)",
           notes="bandwidth = 4 lanes x 200 Gb/s / 8 per direction (each serial lane carries one "
                 "direction, as for Ethernet); 200 Gb/s is the data rate, 212.5 Gb/s the signalling "
                 "rate. The consortium's own per-port figure was not seen, so quoted is unset. The "
                 "latency is a switch target, not an end-to-end figure (50T < 200 ns, 100T < 250 ns)."),
    Fabric("uet-1.0", "Ultra Ethernet Consortium", "Ultra Ethernet 1.0 (UET transport)", "transport", 2025,
           None, "a transport over standard Ethernet; no line rate of its own",
           "uec2025_spec1 (Ultra Ethernet Specification 1.0, June 2025: Ultra Ethernet Transport, RDMA "
           "over Ethernet and IP, multipath and packet spraying, new congestion control)",
           topology="scale-out Ethernet/IP networks",
           notes="UE 1.0 specifies a transport (UET) and options across the stack on top of IEEE 802.3 "
                 "Ethernet and IP; it defines no new line rate, so bandwidth is None: the line rates "
                 "are Ethernet's (the eth-* entries of interconnect.links). No latency is specified."),
)

_BY_NAME = {f.name: f for f in FABRICS}
if len(_BY_NAME) != len(FABRICS):
    raise RuntimeError("duplicate fabric name")


def names() -> tuple[str, ...]:
    """Every fabric name, in catalog order."""
    return tuple(_BY_NAME)


def get_fabric(name: str) -> Fabric:
    """One fabric record by name (case-insensitive).

    Parameters
    ----------
    name : str
        One of :func:`names`, e.g. ``"xgmi-mi300x"``, ``"gaudi3-scale-up"``, ``"tpu-v5p-ici"``.

    Returns
    -------
    Fabric

    Raises
    ------
    ValueError
        If ``name`` is not a string or not a known fabric; the message names close matches
        and lists the allowed names.

    Examples
    --------
    >>> get_fabric("Gaudi3-Scale-Up").bandwidth / 1e9, get_fabric("gaudi3-scale-up").links
    (525.0, 21)
    >>> try:
    ...     get_fabric("xgmi-mi300")
    ... except ValueError as err:
    ...     print(str(err).split("; ")[:2])
    ["name='xgmi-mi300' is not a known fabric", 'close matches: xgmi-mi300x, xgmi-mi300x-link, xgmi-mi250x-link']
    """
    return lookup(name, _BY_NAME, "fabric", "xgmi-mi300x", f"allowed: {', '.join(_BY_NAME)}", n=3)


def fabrics(kind: str | None = None, vendor: str | None = None) -> tuple[Fabric, ...]:
    """Fabric records, in catalog order, optionally of one kind and one vendor.

    Parameters
    ----------
    kind : str, optional
        One of :data:`KINDS` (case-insensitive).
    vendor : str, optional
        One of :data:`VENDORS` (case-insensitive).

    Returns
    -------
    tuple of Fabric

    Raises
    ------
    ValueError
        For an unknown ``kind`` or ``vendor``.

    Examples
    --------
    >>> [f.name for f in fabrics(vendor="intel", kind="scale-out")]
    ['gaudi2-scale-out', 'gaudi3-scale-out']
    """
    k = None if kind is None else choice("kind", kind, KINDS)
    v = None if vendor is None else choice("vendor", vendor, VENDORS)
    return tuple(f for f in FABRICS if (k is None or f.kind == k) and (v is None or f.vendor == v))
