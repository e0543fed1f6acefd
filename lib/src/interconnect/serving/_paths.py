"""GPU-to-GPU paths the serving models send over, costed by :mod:`interconnect.transfer`.

``"nvlink"``: :func:`~interconnect.transfer.p2p_copy` through the machine's NVSwitch;
``"pcie"``: :func:`~interconnect.transfer.p2p_copy` through a PCIe switch; ``"rdma"``:
:func:`~interconnect.transfer.gpudirect_rdma` between two machines, each GPU on its own NIC;
a ``(bandwidth, latency)`` pair: :func:`~interconnect.transfer.p2p_copy` over one link of
that bandwidth and latency (:func:`~interconnect.topology.ring` of two GPUs).
"""

from __future__ import annotations

from functools import lru_cache

from .._validate import as_positive, choice

#: The paths costed by name.
KV_PATHS = ("nvlink", "pcie", "rdma")


def _machine_links(machine):
    """(nvlink name, nic name) of a machine preset, or None for a Cluster."""
    if isinstance(machine, str):
        from ..parallel.machines import MACHINES

        m = MACHINES.get(machine.strip().lower())
        if m is not None:
            return m.nvlink, m.nic
    return None


@lru_cache(maxsize=64)
def _graph(kind, a, b):
    from .. import topology

    if kind == "nvlink":
        return topology.nvswitch(2, link=a), "gpu0", "gpu1"
    if kind == "pcie":
        return topology.pcie_tree(2, 1, 1, gpu_link=a, uplink=a), "gpu0", "gpu1"
    if kind == "rdma":
        return topology.cluster(2, gpus_per_node=1, nvlink=a, nic=b), "n0.gpu0", "n1.gpu0"
    return topology.ring(2, bandwidth=a, latency=b), "gpu0", "gpu1"


def _transfer(kind, a, b, nbytes):
    """(seconds, mechanism) of one GPU-to-GPU transfer of ``nbytes``."""
    from .. import transfer

    g, src, dst = _graph(kind, a, b)
    if kind == "rdma":
        t = transfer.gpudirect_rdma(g, src, dst, nbytes)
        return t.time, t.mechanism
    t = transfer.p2p_copy(g, src, dst, nbytes)
    return t.time, ("alpha-beta link" if kind == "pair" else t.mechanism)


def _path(link, machine, pcie):
    """(kind, a, b) for :func:`_graph` from a path name or a (bandwidth, latency) pair."""
    if isinstance(link, tuple) and len(link) == 2:
        bw = float(as_positive("bandwidth", link[0], "bytes/s (per direction)"))
        lat = float(link[1])
        if not lat >= 0:
            raise ValueError(f"latency={link[1]!r} is not allowed; latency must be >= 0 seconds")
        return "pair", bw, lat
    if not isinstance(link, str):
        raise ValueError(f"link={link!r} is not allowed; allowed: {', '.join(KV_PATHS)} or a "
                         "(bandwidth bytes/s, latency s) pair")
    kind = choice("link", link, KV_PATHS)
    if kind == "pcie":
        return "pcie", pcie, None
    names = _machine_links(machine)
    if names is None:
        from .steps import as_machine

        cl = as_machine(machine)
        return ("pair", cl.intra_bandwidth, cl.intra_latency) if kind == "nvlink" else \
            ("pair", cl.inter_bandwidth, cl.inter_latency)
    return (kind, names[0], None) if kind == "nvlink" else (kind, names[0], names[1])


@lru_cache(maxsize=64)
def _affine(kind, a, b):
    """(latency s, seconds per byte) of the path: every transfer model here is affine in the bytes."""
    t0, _ = _transfer(kind, a, b, 0.0)
    t1, _ = _transfer(kind, a, b, 1e9)
    return t0, (t1 - t0) / 1e9


def send_time(machine, nbytes, across_nodes):
    """Seconds to send ``nbytes`` from one GPU to another of the machine: over NVLink within a
    node (``across_nodes=False``), GPUDirect RDMA otherwise; affine, from :func:`_affine`."""
    kind, a, b = _path("rdma" if across_nodes else "nvlink", machine, None)
    lat, per_byte = _affine(kind, a, b)
    return lat + nbytes * per_byte
