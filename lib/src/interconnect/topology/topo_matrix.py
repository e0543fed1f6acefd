"""The GPU-to-GPU matrix of ``nvidia-smi topo -m``."""

from __future__ import annotations

from dataclasses import dataclass, field

import networkx as nx

from .._validate import as_count
from .build import _is_nvlink
from .paths import gpus

__all__ = ["TOPO_LEGEND", "TopoMatrix", "topo_matrix"]

#: ``nvidia-smi topo -m`` legend (driver 4xx and later).
TOPO_LEGEND = (
    ("X", "Self"),
    ("SYS", "Connection traversing PCIe as well as the SMP interconnect between NUMA nodes (e.g., QPI/UPI)"),
    ("NODE", "Connection traversing PCIe as well as the interconnect between PCIe Host Bridges within a NUMA node"),
    ("PHB", "Connection traversing PCIe as well as a PCIe Host Bridge (typically the CPU)"),
    ("PXB", "Connection traversing multiple PCIe bridges (without traversing the PCIe Host Bridge)"),
    ("PIX", "Connection traversing at most a single PCIe bridge"),
    ("NV#", "Connection traversing a bonded set of # NVLinks"),
)

_HTML_COLOURS = {"X": "#eeeeee", "NV": "#cdeee3", "PIX": "#d6e9f8", "PXB": "#e4eef8",
                 "PHB": "#fbe8c8", "NODE": "#fadcc0", "SYS": "#f6cbb5", "-": "#ffffff"}


@dataclass(frozen=True, repr=False)
class TopoMatrix:
    """A GPU-to-GPU connection matrix as ``nvidia-smi topo -m`` prints it.

    Attributes
    ----------
    gpus : list
        GPU node names, in order.
    labels : list of list of str
        ``labels[i][j]``: ``"X"``, ``"NV<k>"``, ``"PIX"``, ``"PXB"``, ``"PHB"``,
        ``"NODE"``, ``"SYS"``, or ``"-"`` where the graph has no NVLink or PCIe route.
    numa : list
        NUMA node (CPU socket) of each GPU, or ``None`` where the graph has no CPUs.
    """

    gpus: list
    labels: list
    numa: list = field(default_factory=list)

    @property
    def names(self):
        return [f"GPU{i}" for i in range(len(self.gpus))]

    def label(self, a, b):
        """Label between GPU nodes ``a`` and ``b``."""
        return self.labels[self.gpus.index(a)][self.gpus.index(b)]

    def __str__(self):
        names = self.names
        w = max(6, max(len(x) for row in self.labels for x in row) + 2, max(map(len, names)) + 2)
        show_numa = any(x is not None for x in self.numa)
        head = " " * w + "".join(n.ljust(w) for n in names) + ("NUMA Affinity" if show_numa else "")
        lines = [head.rstrip()]
        for i, row in enumerate(self.labels):
            cells = "".join((" X" if x == "X" else x).ljust(w) for x in row)
            tail = str(self.numa[i]) if show_numa and self.numa[i] is not None else ""
            lines.append((names[i].ljust(w) + cells + tail).rstrip())
        lines.append("")
        lines.append("Legend:")
        lines.append("")
        for k, text in TOPO_LEGEND:
            lines.append(f"  {k:<4} = {text}")
        return "\n".join(lines)

    def __repr__(self):
        # The text a live notebook or a terminal shows is the matrix itself, as nvidia-smi prints it.
        return str(self)

    def _repr_html_(self):
        names = self.names
        show_numa = any(x is not None for x in self.numa)
        th = "padding:2px 8px;text-align:center;font-family:monospace"
        out = ['<table style="border-collapse:collapse">', "<tr><th></th>"]
        out += [f'<th style="{th}">{n}</th>' for n in names]
        if show_numa:
            out.append(f'<th style="{th}">NUMA</th>')
        out.append("</tr>")
        for i, row in enumerate(self.labels):
            out.append(f'<tr><th style="{th}">{names[i]}</th>')
            for x in row:
                key = "NV" if x.startswith("NV") else x
                bg = _HTML_COLOURS.get(key, "#ffffff")
                out.append(f'<td style="{th};background:{bg};color:#000;border:1px solid #ccc">{x}</td>')
            if show_numa:
                out.append(f'<td style="{th}">{"" if self.numa[i] is None else self.numa[i]}</td>')
            out.append("</tr>")
        out.append("</table>")
        return "".join(out)


def _nvlinks_between(g, a, b):
    n = 0
    if g.has_edge(a, b) and _is_nvlink(g.edges[a, b]):
        n += g.edges[a, b]["count"]
    sa = {s: g.edges[a, s]["count"] for s in g.neighbors(a)
          if g.nodes[s].get("kind") == "nvswitch" and _is_nvlink(g.edges[a, s])}
    for s, c in sa.items():
        if g.has_edge(b, s) and _is_nvlink(g.edges[b, s]):
            n += min(c, g.edges[b, s]["count"])
    return n


def _pcie_view(g, a, b):
    return nx.subgraph_view(
        g, filter_node=lambda n: n == a or n == b or g.nodes[n].get("kind") in ("pcie_switch", "cpu"),
        filter_edge=lambda u, v: not _is_nvlink(g.edges[u, v]))


def _pcie_path(g, a, b):
    h = _pcie_view(g, a, b)
    try:
        return nx.shortest_path(h, a, b)
    except (nx.NetworkXNoPath, nx.NodeNotFound):
        return None


def _pcie_class(g, p):
    inner = p[1:-1]
    cpus = [n for n in inner if g.nodes[n].get("kind") == "cpu"]
    if len(cpus) >= 2:
        numas = {g.nodes[c].get("numa", c) for c in cpus}
        return "NODE" if len(numas) == 1 else "SYS"
    if len(cpus) == 1:
        return "PHB"
    sws = [n for n in inner if g.nodes[n].get("kind") == "pcie_switch"]
    return "PIX" if len(sws) <= 1 else "PXB"


def _numa_of(g, gpu):
    h = nx.subgraph_view(
        g, filter_node=lambda n: n == gpu or g.nodes[n].get("kind") in ("pcie_switch", "cpu"),
        filter_edge=lambda u, v: not _is_nvlink(g.edges[u, v]))
    dist = nx.single_source_shortest_path_length(h, gpu)
    cpus = sorted((d, str(n), n) for n, d in dist.items() if g.nodes[n].get("kind") == "cpu")
    if not cpus:
        return None
    c = cpus[0][2]
    return g.nodes[c].get("numa", g.nodes[c].get("index"))


def topo_matrix(g, node=None):
    """The GPU-to-GPU matrix of ``nvidia-smi topo -m`` for one machine of ``g``.

    Rules (after the ``nvidia-smi topo -m`` legend, :data:`TOPO_LEGEND`):

    * ``"X"`` on the diagonal.
    * ``"NV<k>"`` if the pair has NVLinks: ``k`` = direct NVLinks between them plus,
      through NVSwitch nodes they share, the smaller of the two GPUs' link counts to
      each switch. With :func:`nvswitch` this is the GPU's full link count: NV12 on
      DGX A100, NV18 on DGX H100, as nvidia-smi shows.
    * Otherwise by the fewest-hop PCIe route (through PCIe switches and CPUs only):
      ``"SYS"`` if it crosses two CPUs of different NUMA nodes (the socket
      interconnect), ``"NODE"`` if two host bridges of one NUMA node, ``"PHB"`` if one
      host bridge (CPU root complex), ``"PXB"`` if two or more PCIe switches and no
      host bridge, ``"PIX"`` if at most one PCIe switch.
    * ``"-"`` where the graph models neither (e.g. a DGX-1 built without its PCIe
      tree).

    Parameters
    ----------
    g : networkx.Graph
    node : int, optional
        In a cluster, the machine to show (nvidia-smi runs on one machine); default the
        machine of the first GPU.

    Returns
    -------
    TopoMatrix
        ``.labels``, ``.gpus``, ``.numa``; ``print()`` it for the text table, or let a
        notebook render its HTML.

    References
    ----------
    ``nvidia-smi topo -m`` legend, NVIDIA System Management Interface (nvidia-smi)
    documentation; DGX-1 and DGX H100 matrices as reproduced in Microway, "nvidia-smi:
    Control Your GPUs", and NVIDIA DGX H100 user guide.
    """
    all_g = gpus(g)
    if not all_g:
        raise ValueError("the graph has no GPU nodes (kind 'gpu')")
    if node is None:
        node = g.nodes[all_g[0]].get("node")
    else:
        node = as_count("node", node, 0)
        if not any(g.nodes[x].get("node") == node for x in all_g):
            raise ValueError(f"node={node!r} has no GPUs in this graph")
    sel = [x for x in all_g if g.nodes[x].get("node") == node]
    labels = []
    for a in sel:
        row = []
        for b in sel:
            if a == b:
                row.append("X")
                continue
            nv = _nvlinks_between(g, a, b)
            if nv:
                row.append(f"NV{nv}")
                continue
            p = _pcie_path(g, a, b)
            row.append("-" if p is None else _pcie_class(g, p))
        labels.append(row)
    return TopoMatrix(gpus=sel, labels=labels, numa=[_numa_of(g, x) for x in sel])
