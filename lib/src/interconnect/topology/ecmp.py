"""Equal-cost multipath: how many routes the routing rule has to choose from."""

from __future__ import annotations

from .paths import _routes

__all__ = ["ecmp_count"]


def ecmp_count(g, a, b, weight="latency", transit=None):
    """Number of equal-cost shortest paths from ``a`` to ``b``, without listing them.

    The size of the set :func:`interconnect.topology.all_shortest_paths` yields (and
    netsim's ``routing="ecmp"`` hashes flows over), counted by dynamic programming over
    the shortest-path DAG of one Dijkstra run: the count at a node is the sum of the
    counts at its equal-cost predecessors, 1 at ``a``. Linear in the DAG's edges,
    where listing the paths is linear in their number (astronomical on a large torus).

    Parameters
    ----------
    g : networkx.Graph
    a, b : node
        Distinct nodes of ``g``.
    weight, transit
        As in :func:`interconnect.topology.path` (the same routing rule: least latency in
        integer femtoseconds, then fewest hops).

    Returns
    -------
    int
        An exact Python int, >= 1.

    Raises
    ------
    ValueError
        Unknown node, ``a == b``, a bad weight, or no path.

    References
    ----------
    D. Thaler, C. Hopps, "Multipath Issues in Unicast and Multicast Next-Hop Selection",
    RFC 2991, 2000 (ECMP); counting shortest paths on the DAG of a Dijkstra or BFS run,
    e.g. U. Brandes, "A faster algorithm for betweenness centrality", J. Math. Sociol.
    25(2), 2001 (the path counts sigma).

    Examples
    --------
    In a k-ary fat tree, ``(k/2)^2`` equal-cost paths join hosts of different pods (one
    per core switch) and ``k/2`` join hosts under different edge switches of one pod
    (Al-Fares et al. 2008):

    >>> from interconnect.topology import fat_tree, ring
    >>> g = fat_tree(4)
    >>> ecmp_count(g, "h0", "h15"), ecmp_count(g, "h0", "h2"), ecmp_count(g, "h0", "h1")
    (4, 2, 1)
    >>> ecmp_count(ring(4), "gpu0", "gpu2")            # both ways round
    2
    """
    _, sp, ib = _routes(g, a, b, weight, transit)
    return int(sp.count(ib))
