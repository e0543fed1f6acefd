# ruff: noqa: E501  (tool output is kept line for line; its lines are as long as the tool printed them)
"""Real tool output for trace-reading exercises: each trace with the machine, the tool and its source.

A trace is an excerpt of what a tool printed on a real machine, kept line for line as it was
posted in a public place (a GitHub issue of NVIDIA's NCCL or nccl-tests, or a comment on
another project), with the URL, the date it was posted where the thread shows one, and the
date it was read. Lines of the post that the exercise does not need are left out, never
edited: an excerpt holds whole lines only (trailing spaces dropped). The chapters print a trace and ask what it says;
the checkers in :mod:`interconnect.exercises` read the same trace with the parsers below, so
an answer is computed from the text the student reads, not typed in.

Tools
-----
* ``nvidia-smi topo -m``: the GPU-by-GPU matrix of what each pair's path crosses
  (:func:`topo_labels`, and :data:`interconnect.topology.TOPO_LEGEND` for the labels).
* nccl-tests ``all_reduce_perf``: one row per message size with the time and the algorithm and
  bus bandwidths in GB/s (:func:`nccl_tests_rows`, :func:`nccl_tests_header`).
* ``NCCL_DEBUG=INFO``: NCCL's log of the communicator (ranks, nodes), the rings and trees of
  each channel and the transport of each connection (:func:`nccl_log`).

Examples
--------
>>> t = get("a100-pcie-nvbridge-topo")
>>> gpus, labels = topo_labels(t.text)
>>> labels[0][1], labels[0][4]
('NV12', 'SYS')
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .._validate import lookup

__all__ = ["Trace", "TRACES", "get", "names", "topo_labels", "nccl_tests_header", "nccl_tests_rows",
           "nccl_log", "transport_kind", "TOOLS", "ACCESSED"]

#: The tools a trace may come from.
TOOLS = ("nvidia-smi topo -m", "nccl-tests all_reduce_perf", "NCCL_DEBUG=INFO")

#: The date the sources below were read.
ACCESSED = "2026-12-04"


@dataclass(frozen=True)
class Trace:
    """One excerpt of real tool output, with its provenance.

    Attributes
    ----------
    name : str
        Catalog key, e.g. ``"a100-pcie-nvbridge-topo"``.
    tool : str
        One of :data:`TOOLS`.
    system : str
        The machine, as the post describes it.
    text : str
        The excerpt: whole lines, as posted.
    source : str
        The ``book/references.bib`` key first, then where in it.
    url : str
        Where the post is.
    posted : str or None
        The date of the post (ISO), where the thread shows one.
    accessed : str
        The date it was read (ISO).
    """

    name: str
    tool: str
    system: str
    text: str
    source: str
    url: str
    posted: str | None = None
    accessed: str = ACCESSED

    def __post_init__(self):
        if self.tool not in TOOLS:
            raise ValueError(f"tool={self.tool!r} is not a known tool; expected one of {TOOLS}")
        if not self.text.strip():
            raise ValueError(f"text of trace {self.name!r} is empty; expected the tool's output")

    @property
    def bib_key(self) -> str:
        """The ``book/references.bib`` key the source starts with."""
        return self.source.split()[0]

    def __str__(self):
        return self.text


_ENTRIES = (
    Trace("a100-pcie-nvbridge-topo", "nvidia-smi topo -m",
          "8 x A100 (PCIe cards, NVLink bridges in pairs), two CPU sockets",
          """\
        GPU0    GPU1    GPU2    GPU3    GPU4    GPU5    GPU6    GPU7    CPU Affinity    NUMA Affinity
GPU0     X      NV12    NODE    NODE    SYS     SYS     SYS     SYS     0-31,64-95      0
GPU1    NV12     X      NODE    NODE    SYS     SYS     SYS     SYS     0-31,64-95      0
GPU2    NODE    NODE     X      NV12    SYS     SYS     SYS     SYS     0-31,64-95      0
GPU3    NODE    NODE    NV12     X      SYS     SYS     SYS     SYS     0-31,64-95      0
GPU4    SYS     SYS     SYS     SYS      X      NV12    NODE    NODE    32-63,96-127    1
GPU5    SYS     SYS     SYS     SYS     NV12     X      NODE    NODE    32-63,96-127    1
GPU6    SYS     SYS     SYS     SYS     NODE    NODE     X      NV12    32-63,96-127    1
GPU7    SYS     SYS     SYS     SYS     NODE    NODE    NV12     X      32-63,96-127    1""",
          "nccltests_issue178 (NVIDIA/nccl-tests issue #178, the reporter's 'GPUDirect communication matrix')",
          "https://github.com/NVIDIA/nccl-tests/issues/178", "2023-11-17"),
    Trace("rtx4090-x4-allreduce", "nccl-tests all_reduce_perf",
          "4 x GeForce RTX 4090 (PCIe 4.0 x16 cards) in one server (host 7773x), on the peer-to-peer driver the "
          "repository publishes",
          """\
./build/all_reduce_perf -b 256M -e 2G -f 2 -g 4
# nThread 1 nGpus 4 minBytes 268435456 maxBytes 2147483648 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0
#
# Using devices
#  Rank  0 Group  0 Pid  19124 on 7773x device  0 [0000:85:00] NVIDIA GeForce RTX 4090
#  Rank  1 Group  0 Pid  19124 on 7773x device  1 [0000:86:00] NVIDIA GeForce RTX 4090
#  Rank  2 Group  0 Pid  19124 on 7773x device  2 [0000:89:00] NVIDIA GeForce RTX 4090
#  Rank  3 Group  0 Pid  19124 on 7773x device  3 [0000:8d:00] NVIDIA GeForce RTX 4090
#
#                                                              out-of-place                       in-place
#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong
#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)
   268435456      67108864     float     sum      -1    15654   17.15   25.72      0    15658   17.14   25.72      0
   536870912     134217728     float     sum      -1    31194   17.21   25.82      0    31183   17.22   25.83      0
  1073741824     268435456     float     sum      -1    62077   17.30   25.95      0    62057   17.30   25.95      0""",
          "tinygrad_p2p_issue36 (tinygrad/open-gpu-kernel-modules issue #36, a comment's all_reduce_perf run; "
          "the 2 GiB row is left out)",
          "https://github.com/tinygrad/open-gpu-kernel-modules/issues/36"),
    Trace("ib-2x4-nccl-info", "NCCL_DEBUG=INFO",
          "2 nodes (kolyoz1, kolyoz2) x 4 GPUs, InfiniBand through NCCL's IB plugin (IBext)",
          """\
kolyoz1:27225:27907 [3] NCCL INFO comm 0x558b580881d0 rank 3 nRanks 8 nNodes 2 localRanks 4 localRank 3 MNNVL 0
kolyoz1:27225:27907 [3] NCCL INFO Trees [0] -1/-1/-1->3->2 [1] 0/-1/-1->3->2 [2] -1/-1/-1->3->1 [3] 0/7/-1->3->-1 [4] -1/-1/-1->3->2 [5] 0/-1/-1->3->2 [6] -1/-1/-1->3->1 [7] 0/-1/-1->3->7
kolyoz1:27225:27907 [3] NCCL INFO P2P Chunksize set to 131072
kolyoz1:27223:27908 [1] NCCL INFO Channel 00/0 : 1[1] -> 2[2] via P2P/CUMEM
kolyoz1:27224:27909 [2] NCCL INFO Channel 00/0 : 2[2] -> 3[3] via P2P/CUMEM
kolyoz2:25172:25828 [1] NCCL INFO Channel 00/0 : 5[1] -> 6[2] via P2P/CUMEM
kolyoz2:25146:25827 [0] NCCL INFO Channel 00/0 : 3[3] -> 4[0] [receive] via NET/IBext_v8/0/GDRDMA""",
          "nccltests_issue252 (NVIDIA/nccl-tests issue #252, the reporter's NCCL_DEBUG=INFO log)",
          "https://github.com/NVIDIA/nccl-tests/issues/252"),
    Trace("ib-2x8-nccl-rings", "NCCL_DEBUG=INFO",
          "2 nodes x 8 GPUs (16 ranks), InfiniBand",
          """\
swat1-04:2017630:2017675 [6] NCCL INFO comm 0x8ec0ac0 rank 6 nRanks 16 nNodes 2 localRanks 8 localRank 6 MNNVL 0
swat1-04:2017630:2017669 [0] NCCL INFO Channel 00/08 :    0   5   4   7   6   3   2   1   8  13  12  15  14  11  10   9
swat1-04:2017630:2017669 [0] NCCL INFO Channel 01/08 :    0   5   4   7   6   3  10   9   8  13  12  15  14  11   2   1
swat1-04:2017630:2017669 [0] NCCL INFO Channel 02/08 :    0   5   4   7  14  11  10   9   8  13  12  15   6   3   2   1
swat1-04:2017630:2017669 [0] NCCL INFO Channel 03/08 :    0   5  12  15  14  11  10   9   8  13   4   7   6   3   2   1
swat1-04:2017630:2017669 [0] NCCL INFO Channel 04/08 :    0   5   4   7   6   3   2   1   8  13  12  15  14  11  10   9""",
          "nccl_issue1412 (NVIDIA/nccl issue #1412, the reporter's NCCL_DEBUG=INFO log; channels 05 to 07 are "
          "left out)",
          "https://github.com/NVIDIA/nccl/issues/1412"),
    Trace("socket-fallback-nccl-info", "NCCL_DEBUG=INFO",
          "2 nodes x 8 GPUs (16 ranks) whose InfiniBand NICs NCCL did not find ('NET/IB : No device found')",
          """\
<cluster_name>:919:1150 [0] NCCL INFO Channel 01/0 : 8[0] -> 15[7] via P2P/IPC/read
<cluster_name>:919:1150 [0] NCCL INFO Channel 02/0 : 8[0] -> 15[7] via P2P/IPC/read
<cluster_name>:926:1151 [7] NCCL INFO Channel 03/0 : 15[7] -> 6[6] [send] via NET/Socket/3
<cluster_name>:926:1151 [7] NCCL INFO Channel 07/0 : 15[7] -> 6[6] [send] via NET/Socket/3
<cluster_name>:921:1146 [2] NCCL INFO Channel 00/0 : 10[2] -> 9[1] via P2P/IPC/read
<cluster_name>:923:1147 [4] NCCL INFO Channel 00/0 : 12[4] -> 11[3] via P2P/IPC/read""",
          "nccl_issue952 (NVIDIA/nccl issue #952, 'NCCL INFO NET/IB : No device found', a comment's log)",
          "https://github.com/NVIDIA/nccl/issues/952", "2023-08-09"),
)

#: Every trace by name.
TRACES = {t.name: t for t in _ENTRIES}


def names() -> list[str]:
    """Every trace name, sorted."""
    return sorted(TRACES)


def get(name: str) -> Trace:
    """The trace ``name``; a ValueError names the close ones for a typo."""
    return lookup(name, TRACES, "trace", "a100-pcie-nvbridge-topo",
                  "list all names with interconnect.catalog.traces.names()")


# ---- parsers ---------------------------------------------------------------------------

_TOPO_CELL = re.compile(r"^(X|NV\d+|PIX|PXB|PHB|NODE|SYS)$")


def topo_labels(text):
    """``(gpus, labels)`` of an ``nvidia-smi topo -m`` matrix: the GPU names in order and
    ``labels[i][j]`` (``"X"``, ``"NV12"``, ``"NODE"``, ...) between GPU ``i`` and GPU ``j``.
    Rows and columns of NICs and the affinity columns are left out."""
    lines = [ln for ln in text.splitlines() if ln.strip()]
    head = lines[0].split()
    cols = [c for c in head if re.fullmatch(r"GPU\d+", c)]
    if not cols:
        raise ValueError("text holds no 'GPU0 GPU1 ...' header; expected nvidia-smi topo -m output")
    rows = {}
    for ln in lines[1:]:
        cells = ln.split()
        if cells and re.fullmatch(r"GPU\d+", cells[0]):
            row = cells[1:1 + len(cols)]
            if len(row) < len(cols) or not all(_TOPO_CELL.match(c) for c in row):
                raise ValueError(f"row {cells[0]!r} does not hold {len(cols)} topo labels: {ln!r}")
            rows[cells[0]] = row
    if list(rows) != cols:
        raise ValueError(f"rows {list(rows)} do not match the columns {cols}")
    return cols, [rows[c] for c in cols]


def nccl_tests_header(text):
    """The settings line of an nccl-tests run as a dict (``nGpus``, ``minBytes``, ...; numbers as int)."""
    for ln in text.splitlines():
        if "nThread" in ln and "nGpus" in ln:
            out = {}
            for k, v in re.findall(r"(\w[\w ]*?):?\s+(\d+)(?:\(\w+\))?(?=\s|$)", ln.lstrip("# ")):
                out[k.strip()] = int(v)
            return out
    raise ValueError("text holds no 'nThread ... nGpus ...' line; expected nccl-tests output")


def nccl_tests_rows(text):
    """The rows of an nccl-tests table, out-of-place columns: a list of dicts with ``size``
    (bytes), ``count``, ``type``, ``redop``, ``time`` (seconds), ``algbw`` and ``busbw``
    (bytes/s: the table's GB/s times 1e9)."""
    rows = []
    for ln in text.splitlines():
        cells = ln.split()
        if len(cells) >= 9 and not ln.lstrip().startswith("#") and cells[0].isdigit() and cells[1].isdigit():
            rows.append({"size": int(cells[0]), "count": int(cells[1]), "type": cells[2], "redop": cells[3],
                         "time": float(cells[5]) * 1e-6, "algbw": float(cells[6]) * 1e9,
                         "busbw": float(cells[7]) * 1e9})
    if not rows:
        raise ValueError("text holds no nccl-tests table rows")
    return rows


_COMM = re.compile(r"NCCL INFO comm \S+ rank (\d+) nRanks (\d+) nNodes (\d+) localRanks (\d+)")
_RING = re.compile(r"NCCL INFO Channel (\d+)/(\d+) :((?:\s+\d+)+)\s*$")
_CONN = re.compile(r"NCCL INFO Channel (\d+)/\d+ : (\d+)\[\d+\] -> (\d+)\[\d+\](?: \[(send|receive)\])? via (\S+)")
_TREES = re.compile(r"NCCL INFO Trees((?: \[\d+\] \S+)+)")


def nccl_log(text):
    """What an ``NCCL_DEBUG=INFO`` excerpt says, as a dict.

    ``nranks``, ``nnodes``, ``local_ranks`` (from a ``comm ... nRanks`` line, else None);
    ``rings``: ``{channel: [ranks in ring order]}`` from the ``Channel cc/nn :`` lines;
    ``n_channels``: the ``nn`` of those lines, else the number of channels a ``Trees`` line
    lists, else None; ``connections``: ``[(channel, src, dst, direction or None, transport)]``
    from the ``... -> ... via TRANSPORT`` lines.
    """
    out = {"nranks": None, "nnodes": None, "local_ranks": None, "rings": {}, "n_channels": None,
           "connections": []}
    for ln in text.splitlines():
        if m := _COMM.search(ln):
            out["nranks"], out["nnodes"], out["local_ranks"] = (int(m.group(i)) for i in (2, 3, 4))
        elif m := _RING.search(ln):
            out["rings"][int(m.group(1))] = [int(x) for x in m.group(3).split()]
            out["n_channels"] = int(m.group(2))
        elif m := _CONN.search(ln):
            out["connections"].append((int(m.group(1)), int(m.group(2)), int(m.group(3)), m.group(4), m.group(5)))
        elif (m := _TREES.search(ln)) and out["n_channels"] is None:
            out["n_channels"] = len(re.findall(r"\[\d+\]", m.group(1)))
    return out


def transport_kind(transport):
    """The kind of a connection's transport in an NCCL log: ``"p2p"`` (``P2P/...``: the GPUs'
    own peer-to-peer path, NVLink or PCIe), ``"shm"`` (staged through host shared memory),
    ``"ib"`` (``NET/IB...``: RDMA verbs), ``"socket"`` (``NET/Socket``: TCP), or ``"net"``
    (another network plugin)."""
    t = transport.upper()
    if t.startswith("P2P"):
        return "p2p"
    if t.startswith("SHM"):
        return "shm"
    if t.startswith("NET/IB"):
        return "ib"
    if t.startswith("NET/SOCKET"):
        return "socket"
    if t.startswith("NET/"):
        return "net"
    raise ValueError(f"transport={transport!r} is not an NCCL transport; expected P2P/..., SHM/... or NET/...")
