"""What a failed link, switch or chip costs a collective (chapter "Switching and topology")."""

from __future__ import annotations

import networkx as nx

from ..topology.paths import endpoints
from .collective import simulate_collective

__all__ = ["after_failure"]


def after_failure(g, nbytes, remove_edge=None, remove_node=None, degraded=None, op="allreduce", algorithm="ring",
                  ranks=None, routing="shortest"):
    """The ranks a failure cuts off, and a collective's time before and after it.

    The failure removes one edge, one node, or (``degraded``) leaves a given graph, e.g. a
    machine rebuilt with fewer links. The collective then runs on the survivors: the ranks
    in the largest connected component left.

    Parameters
    ----------
    g : networkx.Graph
        The healthy topology.
    nbytes : float
        Size of the collective, bytes.
    remove_edge : (node, node), optional
        The edge that fails.
    remove_node : node, optional
        The node (switch, chip) that fails.
    degraded : networkx.Graph, optional
        The topology after a failure that only removes bandwidth (replaces ``g`` after the
        removals).
    op, algorithm : str
        The collective and its algorithm (:func:`interconnect.netsim.simulate_collective`).
    ranks : sequence, optional
        Ranks; default the endpoints of ``g``.
    routing : {"shortest", "ecmp"}

    Returns
    -------
    (list, float, float)
        The ranks cut off, the time before (s) and the time after on the survivors (s).
    """
    ranks = list(endpoints(g) if ranks is None else ranks)
    before = simulate_collective(g, op, nbytes, ranks=ranks, algorithm=algorithm, routing=routing).time
    h = g.copy()
    if remove_edge is not None:
        h.remove_edge(*remove_edge)
    if remove_node is not None:
        h.remove_node(remove_node)
    if degraded is not None:
        h = degraded
    alive = max(nx.connected_components(h), key=len)
    cut = [r for r in ranks if r not in alive]
    rest = [r for r in ranks if r in alive]
    after = simulate_collective(h, op, nbytes, ranks=rest, algorithm=algorithm, routing=routing).time
    return cut, before, after
