"""NVLink machines from the DGX-1 to a 576-GPU NVLink domain, and one AllReduce on each.

The machines of the chapter "NVLink and NVSwitch", each with the model that times an
AllReduce on it: the DGX-1 meshes simulated with four rings
(:func:`interconnect.netsim.simulate_rings`), the NVSwitch machines simulated as logical
crossbars (:func:`interconnect.netsim.simulate_collective`), NVLink SHARP in closed form
(:func:`interconnect.collectives.in_network_time`) and a 576-GPU domain as a closed-form
ring (:func:`interconnect.collectives.collective_time`). These are peak models: every link
at its per-direction peak, no protocol or synchronisation cost. The machines that NCCL's
achieved model covers and that published nccl-tests figures check (DGX A100, DGX H100 with
ring and with NVLink SHARP) also carry that model
(:meth:`NVLinkMachine.nccl_allreduce_time`, :func:`interconnect.collectives.nccl_time`),
so a chapter can show peak and achieved side by side. (A small module beside
:mod:`interconnect.topology` and :mod:`interconnect.collectives` while those are being
restructured; it can fold into them afterwards.)
"""

from __future__ import annotations

from dataclasses import dataclass

import networkx as nx

from . import collectives as C
from . import netsim
from . import topology as T
from .links import Link, get_link

__all__ = ["DGX1_V100_RINGS", "DGX1_P100_RINGS", "MODELS", "NVLinkMachine", "dgx1_p100_mesh", "nvlink_machines"]


def _gpus(*idx):
    return tuple(f"gpu{i}" for i in idx)


def _both_ways(*rings):
    return tuple(r for ring in rings for r in (ring, ring[::-1]))


#: Four rings over the DGX-1 V100 hybrid cube mesh that keep all 48 directed NVLinks
#: busy: the doubled-link cycle 0-3-2-1-5-6-7-4 and the single-link cycle
#: 0-1-3-7-5-4-6-2 (one of NVIDIA's "three interwoven rings"), each in both directions.
DGX1_V100_RINGS = _both_ways(_gpus(0, 3, 2, 1, 5, 6, 7, 4), _gpus(0, 1, 3, 7, 5, 4, 6, 2))

#: Four rings over the DGX-1 P100 mesh (one NVLink 1 per neighbour): two Hamiltonian
#: cycles that share no edge, each in both directions.
DGX1_P100_RINGS = _both_ways(_gpus(0, 1, 5, 4, 7, 6, 2, 3), _gpus(0, 2, 1, 3, 7, 5, 6, 4))

#: How each kind of machine is timed, as the chapter's table names it.
MODELS = {"sim-rings": "simulated, 4 rings", "sim": "simulated",
          "sharp": "in_network_time", "closed": "collective_time"}


def dgx1_p100_mesh():
    """The DGX-1 with P100 (2016): the hybrid cube mesh with one NVLink 1 link per pair.

    :func:`interconnect.topology.dgx1_hybrid_cube_mesh` builds the V100 machine, whose two
    extra links per GPU double eight of the sixteen pairs; a P100 has four links, one per
    neighbour, so every pair here is set back to ``count=1`` at one NVLink 1 link.

    Returns
    -------
    networkx.Graph
    """
    one = get_link("nvlink1-link")
    g = T.dgx1_hybrid_cube_mesh(link="nvlink1-link")
    for _, _, d in g.edges(data=True):
        d["count"], d["bandwidth"] = 1, one.bandwidth
    return g


@dataclass(frozen=True, eq=False)
class NVLinkMachine:
    """One NVLink machine and the model that times an AllReduce on it.

    Attributes
    ----------
    name : str
    model : {"sim-rings", "sim", "sharp", "closed"}
        Key of :data:`MODELS`.
    link : Link
        The per-GPU NVLink (all links of one GPU, per direction).
    gpus : int
    graph : networkx.Graph or None
        The topology, for the simulated models.
    rings : tuple of tuple of str or None
        Ring orders, for ``"sim-rings"``.
    nccl : tuple or None
        ``(machine, algorithm)`` of NCCL's achieved model
        (:data:`interconnect.collectives.NCCL_MACHINES` key; ``None`` lets NCCL choose), or
        ``None`` where no NCCL machine preset with a published nccl-tests check exists.
    """

    name: str
    model: str
    link: Link
    gpus: int
    graph: nx.Graph | None = None
    rings: tuple | None = None
    nccl: tuple | None = None

    def allreduce_time(self, nbytes):
        """Seconds for one AllReduce of ``nbytes`` (per GPU) on this machine."""
        if self.model == "sim-rings":
            return netsim.simulate_rings(self.graph, nbytes, [list(r) for r in self.rings]).time
        if self.model == "sim":
            return netsim.simulate_collective(self.graph, "allreduce", nbytes).time
        if self.model == "sharp":
            return C.in_network_time("allreduce", nbytes, self.gpus, self.link.bandwidth, self.link.latency)
        return C.collective_time("allreduce", nbytes, self.gpus, self.link.bandwidth, self.link.latency, "ring")

    def nccl_allreduce_time(self, nbytes):
        """Seconds for one AllReduce of ``nbytes`` as NCCL achieves it
        (:func:`interconnect.collectives.nccl_time`), or ``None`` where :attr:`nccl` is ``None``."""
        if self.nccl is None:
            return None
        machine, algorithm = self.nccl
        return C.nccl_time("allreduce", nbytes, self.gpus, machine=machine, algorithm=algorithm)


def nvlink_machines():
    """The chapter's eight machines, oldest first, as ``{name: NVLinkMachine}``.

    * DGX-1 with 8 P100 (:func:`dgx1_p100_mesh`) and with 8 V100
      (:func:`interconnect.topology.dgx1_hybrid_cube_mesh`), each simulated with four rings;
    * DGX-2 (16 V100), DGX A100 and DGX H100 as NVSwitch crossbars
      (:func:`interconnect.topology.nvswitch`), simulated;
    * DGX H100 with NVLink SHARP (in-network reduction), closed form;
    * GB200 NVL72, a 72-GPU NVLink 5 crossbar (``switches=18`` only labels it), simulated;
    * a 576-GPU NVLink domain, closed-form ring (the second switch level is not modelled).

    The DGX A100 (NCCL's own choice), DGX H100 ring (``algorithm="ring"``) and DGX H100 NVLink
    SHARP (``"nvls"``) also carry NCCL's achieved model (:attr:`NVLinkMachine.nccl`); the
    others have no NCCL preset checked against a published measurement.

    Returns
    -------
    dict
    """
    nv = {g: get_link(f"nvlink{g}") for g in range(1, 6)}
    ms = [
        NVLinkMachine("DGX-1 (8 P100, mesh)", "sim-rings", nv[1], 8, dgx1_p100_mesh(), DGX1_P100_RINGS),
        NVLinkMachine("DGX-1 (8 V100, mesh)", "sim-rings", nv[2], 8, T.dgx1_hybrid_cube_mesh(), DGX1_V100_RINGS),
        NVLinkMachine("DGX-2 (16 V100, NVSwitch)", "sim", nv[2], 16, T.nvswitch(16, "nvlink2")),
        NVLinkMachine("DGX A100 (8 A100, NVSwitch)", "sim", nv[3], 8, T.nvswitch(8, "nvlink3"),
                      nccl=("dgx-a100", None)),
        NVLinkMachine("DGX H100 (8 H100, ring)", "sim", nv[4], 8, T.nvswitch(8, "nvlink4"),
                      nccl=("dgx-h100", "ring")),
        NVLinkMachine("DGX H100 (8 H100, NVLink SHARP)", "sharp", nv[4], 8, nccl=("dgx-h100", "nvls")),
        NVLinkMachine("GB200 NVL72 (72 GPUs)", "sim", nv[5], 72, T.nvswitch(72, link="nvlink5", switches=18)),
        NVLinkMachine("NVLink domain of 576 (ring)", "closed", nv[5], 576),
    ]
    return {m.name: m for m in ms}
