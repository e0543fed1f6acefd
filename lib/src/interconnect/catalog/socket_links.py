"""CPU-to-CPU socket links: Intel QPI/UPI and AMD Infinity Fabric (xGMI), with their counts.

A two-socket server joins its CPUs by several socket links, and every byte a GPU under one
socket sends to a GPU or to memory under the other crosses them. Each record here is one
kind of link as one server CPU runs it: the bandwidth of *one* link per direction, and how
many such links join the two sockets of a two-socket server built on that CPU.
:func:`interconnect.topology.pcie_tree` takes a record's name (``socket_link=``).

Conventions
-----------
* **Bandwidth** is per link, per direction, bytes/s: the transfer rate times the data bytes
  each transfer carries in one direction. Intel's QPI/UPI carries 64 data bits in an 80-bit
  flit over 20 lanes, i.e. 2 bytes per transfer per direction (QPI 6.4 GT/s is quoted as
  "12.8 GB/s in each direction"); AMD states its Infinity Fabric links the same way, "a
  16-wide link (two bytes per transaction)". Protocol overhead (coherence messages,
  headers) is not subtracted: these are peaks, like every link figure of the catalog.
* **links** is the number of links between the two sockets of a two-socket server with
  that CPU, as the vendor documents it (a CPU may have more links for 4- and 8-socket
  systems).
* **Latency** is not stored: no vendor publishes a socket-link figure on the catalog's
  latency basis (see :data:`interconnect.topology.SOCKET_LINK_LATENCY`).

References
----------
HP, "Intel QuickPath architecture" technology brief (QPI: 2 bytes per transfer per direction).
Intel ARK (``intel_ark_xeon`` in the book's references): Xeon E5-2698 v4 (2 QPI links,
9.6 GT/s), Xeon Platinum 8168 (3 UPI links), Xeon Platinum 8480+ (4 UPI links, 16 GT/s).
AMD, ROCm documentation, "AMD Instinct MI100 microarchitecture" (2P EPYC: three Infinity
Fabric links, up to 18 GT/s) and "AMD Instinct MI250 microarchitecture" (16-wide link, two
bytes per transaction). Lenovo Press LP1852 (EPYC 9004: up to four xGMI links at 32 Gb/s).
"""

from __future__ import annotations

from dataclasses import dataclass

from .._validate import as_count, as_positive, lookup
from ..units import GB

__all__ = ["SocketLink", "SOCKET_LINKS", "get_socket_link"]

_INTEL_FLIT = ("20 lanes per direction, 64 data bits per 80-bit flit: 2 bytes per transfer per "
               "direction (HP 'Intel QuickPath architecture' technology brief: QPI 6.4 GT/s = "
               "12.8 GB/s in each direction)")


@dataclass(frozen=True)
class SocketLink:
    """One kind of CPU-to-CPU link and how many join the two sockets of a server.

    Attributes
    ----------
    name : str
        Catalog key (``"upi-10.4"``).
    label : str
        Human-readable name.
    cpu : str
        The server CPU the count is documented for.
    transfer_rate : float
        Transfers per second per lane.
    bandwidth : float
        One link, one direction, bytes/s (peak).
    links : int
        Links between the two sockets of a two-socket server with this CPU.
    year : int
        First product year of the CPU.
    source : str
    notes : str
    """

    name: str
    label: str
    cpu: str
    transfer_rate: float
    bandwidth: float
    links: int
    year: int
    source: str
    notes: str = ""

    def __post_init__(self):
        as_positive("transfer_rate", self.transfer_rate, "transfers/s")
        as_positive("bandwidth", self.bandwidth, "bytes/s")
        as_count("links", self.links, 1)

    @property
    def total_bandwidth(self) -> float:
        """All ``links`` together, one direction, bytes/s."""
        return self.links * self.bandwidth


def _intel(name, label, cpu, gts, links, year, source, notes=""):
    return SocketLink(name, label, cpu, gts * 1e9, gts * 2 * GB, links, year,
                      f"{source}; {_INTEL_FLIT}", notes)


_LINKS = (
    _intel("qpi-9.6", "Intel QPI 9.6 GT/s", "Xeon E5-2698 v4 (Broadwell-EP, DGX-1)", 9.6, 2, 2016,
           "Intel ARK, Xeon E5-2698 v4: 2 QPI links, 9.6 GT/s",
           "The DGX-1's two E5-2698 v4 are joined by both links (topology.dgx1_hybrid_cube_mesh)."),
    _intel("upi-10.4", "Intel UPI 10.4 GT/s", "Xeon Platinum 8168 (Skylake-SP, DGX-2)", 10.4, 3, 2017,
           "Intel ARK, Xeon Platinum 8168: 3 UPI links; 10.4 GT/s is Skylake-SP's UPI rate "
           "(the ARK scrape read leaves the speed empty)",
           "Xeon Gold 5100-series parts have 2 links; Platinum and Gold 6100 have 3."),
    _intel("upi2-16", "Intel UPI 2.0 16 GT/s", "Xeon Platinum 8480+/8480C (Sapphire Rapids, DGX H100)",
           16.0, 4, 2023,
           "Intel ARK, Xeon Platinum 8480+: 4 UPI links, 16 GT/s; the DGX H100 uses two Xeon Platinum "
           "8480C (NVIDIA DGX H100 user guide)",
           "Per-link GB/s: Intel publishes the rate and the count, not the bytes; 32 GB/s per "
           "direction assumes QPI/UPI 1's 2 bytes per transfer. Some secondary sources give UPI 2.0 "
           "24 lanes, which would make a link wider; either way four links (128 GB/s or more) are "
           "twice a PCIe 5.0 x16 GPU link, so the socket link does not bind a single GPU's copy."),
    SocketLink("xgmi-rome", "AMD Infinity Fabric (xGMI) 18 GT/s, x16", "AMD EPYC 7002 (Rome, DGX A100)",
               18e9, 16 * 18e9 / 8, 3, 2019,
               "AMD ROCm documentation, 'AMD Instinct MI100 microarchitecture': two EPYC processors "
               "joined by Infinity Fabric at up to 18 GT/s, three links in a 2P configuration; link "
               "width and bytes per transfer as in 'AMD Instinct MI250 microarchitecture' (16-wide "
               "link, two bytes per transaction)",
               "36 GB/s per direction per link (16 lanes x 18 GT/s / 8). AMD's 2P platforms may run "
               "four links instead and give up PCIe lanes; three is the count AMD documents."),
    SocketLink("xgmi-genoa", "AMD Infinity Fabric (xGMI) 32 GT/s, x16", "AMD EPYC 9004 (Genoa)",
               32e9, 16 * 32e9 / 8, 4, 2022,
               "Lenovo Press LP1852, 'Configuring AMD xGMI Links on the Lenovo ThinkSystem SR665 V3 "
               "Server' (2023): 'AMD EPYC 9004 Series Processors support up to four xGMI links with "
               "speeds up to 32Gbps'; the SR665 V3 runs four or, with one link turned into PCIe 5.0 "
               "lanes, three; link width and bytes per transfer as for 'xgmi-rome'",
               "64 GB/s per direction per link (16 lanes x 32 Gb/s / 8); four links, 256 GB/s, are the "
               "platform's maximum, three (192 GB/s) a common build."),
)
SOCKET_LINKS = {link.name: link for link in _LINKS}


def get_socket_link(name):
    """One socket-link record by name (case-insensitive).

    Parameters
    ----------
    name : str
        ``"qpi-9.6"``, ``"upi-10.4"``, ``"upi2-16"``, ``"xgmi-rome"`` or ``"xgmi-genoa"``.

    Returns
    -------
    SocketLink

    Raises
    ------
    ValueError
        For an unknown name; the message lists close matches.

    Examples
    --------
    >>> s = get_socket_link("upi2-16")                  # DGX H100's Sapphire Rapids
    >>> s.links, s.bandwidth / 1e9, s.total_bandwidth / 1e9   # GB/s per direction
    (4, 32.0, 128.0)
    """
    return lookup(name, SOCKET_LINKS, "socket link", "upi-10.4",
                  "list all names with interconnect.catalog.socket_links.SOCKET_LINKS")
