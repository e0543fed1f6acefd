"""A collective's simulated time on a topology against the alpha-beta closed form.

The closed form prices a collective as if every rank had one uncontended port: its
bandwidth is the narrowest shortest path between consecutive ranks (ring neighbours,
:func:`interconnect.topology.path_bandwidth`) and its latency the longest such path's
(:func:`interconnect.topology.path_latency`); the time is
:func:`interconnect.collectives.collective_time`. The simulation
(:func:`interconnect.netsim.simulate_collective`) shares the links among the flows, so the
ratio of the two says how much the topology costs beyond that one port.

Used by the chapter "Switching and topology" and its explorer
(:func:`interconnect.viz.explorers.topology.topology_load_explorer`).
"""

from __future__ import annotations

from .. import collectives
from ..topology.paths import endpoints, path_bandwidth, path_latency
from .collective import simulate_collective

__all__ = ["neighbour_closed_form", "simulated_and_closed_form"]


def neighbour_closed_form(g, nbytes, op="allreduce", ranks=None, algorithm="ring"):
    """Alpha-beta time of a collective over one port per rank as wide as the narrowest
    path between ring neighbours.

    Parameters
    ----------
    g : networkx.Graph
        A topology (the library's graph contract).
    nbytes : float
        Size of the collective, bytes (nccl-tests convention).
    op : str
        Collective of :data:`interconnect.collectives.REGISTRY`.
    ranks : sequence, optional
        Ranks in ring order; default :func:`interconnect.topology.endpoints` of ``g``.
    algorithm : str
        Closed-form algorithm of ``op``.

    Returns
    -------
    (float, float)
        The time, s, and the bandwidth ``B`` it used, bytes/s per direction:
        ``min(path_bandwidth(r_i, r_i+1))``, with ``alpha = max(path_latency(r_i, r_i+1))``.

    Examples
    --------
    A ring of 8 GPUs joined by single NVLink 2 links (25 GB/s per direction): a ring
    AllReduce of n = 256 MiB takes ``2 (p - 1) (alpha + n / (p B))`` = 14 (0.6 us + 1.342 ms):

    >>> from interconnect import topology as T
    >>> g = T.ring(8)
    >>> t, bw = neighbour_closed_form(g, 2**28)
    >>> bw / 1e9, round(t * 1e3, 3)
    (25.0, 18.799)
    """
    ranks = list(endpoints(g) if ranks is None else ranks)
    pairs = list(zip(ranks, ranks[1:] + ranks[:1]))
    bw = min(path_bandwidth(g, a, b) for a, b in pairs)
    lat = max(path_latency(g, a, b) for a, b in pairs)
    return collectives.collective_time(op, nbytes, len(ranks), bw, lat, algorithm), bw


def simulated_and_closed_form(g, nbytes, op="allreduce", ranks=None, sim_algorithm="ring", cf_algorithm="ring",
                              routing="shortest", seed=0):
    """Simulate a collective on ``g`` and price it with :func:`neighbour_closed_form`.

    Parameters
    ----------
    g : networkx.Graph
    nbytes : float
        Size of the collective, bytes.
    op : str
        Collective.
    ranks : sequence, optional
        Ranks (ring order); default the endpoints of ``g``.
    sim_algorithm, cf_algorithm : str
        Algorithm simulated and algorithm of the closed form.
    routing : {"shortest", "ecmp"}
        Routing of the simulation.
    seed : int
        Seed of the ECMP hash.

    Returns
    -------
    (interconnect.netsim.CollectiveResult, float, float)
        The simulation, the closed-form time (s) and the bandwidth it used (bytes/s).
    """
    ranks = list(endpoints(g) if ranks is None else ranks)
    sim = simulate_collective(g, op, nbytes, ranks=ranks, algorithm=sim_algorithm, routing=routing, seed=seed)
    closed, bw = neighbour_closed_form(g, nbytes, op, ranks, cf_algorithm)
    return sim, closed, bw
