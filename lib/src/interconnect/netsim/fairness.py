"""Max-min fair sharing of resources by progressive filling.

At every instant the active flows share the directed links by *max-min fairness*
(Bertsekas and Gallager 1992, sec. 6.5.2): find the resource with the smallest fair share
(remaining capacity / number of unfrozen flows through it), give each unfrozen flow
through it that share, freeze those flows, subtract, repeat.

References
----------
D. Bertsekas and R. Gallager, *Data Networks*, 2nd ed., Prentice Hall, 1992, sec. 6.5.2.
"""

from __future__ import annotations

import numpy as np

__all__ = ["max_min_rates"]


def _maxmin(rows, cols, cap, n_flows):
    """Progressive filling on incidence entries ``(rows[k], cols[k])``.

    ``cols`` index ``cap``. Flows with no entry get ``inf``.
    """
    rate = np.full(n_flows, np.inf)
    if rows.size == 0:
        return rate
    cap = np.asarray(cap, dtype=float)
    present = np.zeros(cap.size, dtype=bool)
    present[cols] = True
    used = np.flatnonzero(present)  # only the resources some flow crosses
    remap = np.empty(cap.size, dtype=np.int64)
    remap[used] = np.arange(used.size)
    lc = remap[cols]
    rem = cap[used].copy()
    n_res = used.size
    lr = rows
    frozen = np.zeros(n_flows, dtype=bool)
    while lr.size:
        n = np.bincount(lc, minlength=n_res)  # unfrozen flows per resource
        with np.errstate(divide="ignore", invalid="ignore"):
            share = np.where(n > 0, rem / np.maximum(n, 1), np.inf)
        m = share.min()
        bott = share <= m * (1.0 + 1e-9)  # the most constrained resources (ties together)
        newly = np.zeros(n_flows, dtype=bool)
        newly[lr[bott[lc]]] = True
        newly &= ~frozen
        rate[newly] = m
        frozen |= newly
        hit = newly[lr]
        rem -= m * np.bincount(lc[hit], minlength=n_res)
        np.maximum(rem, 0.0, out=rem)
        keep = ~hit
        lr, lc = lr[keep], lc[keep]
    return rate


def _maxmin_active(flows, lr, cols, n, cap, present, remap):
    """:func:`_maxmin` for the engine's active flows, with fewer numpy calls per event.

    Flow ``lr[k]`` (of ``0..n-1``) crosses resource ``cols[k]``, the entries listed flow
    after flow; every flow crosses at least one. ``flows`` is ``arange`` of at least
    ``n`` entries; ``present`` (all False) and ``remap`` are scratch arrays of
    ``cap.size``. Gives the same rates as :func:`_maxmin`, bit for bit: the same shares,
    minimum and subtractions on the same resources; a resource whose flows are all frozen
    gets remaining capacity ``inf`` (share ``inf``, which :func:`_maxmin` writes as
    ``n > 0 ? rem / n : inf``), and the last round stops once every flow is frozen.
    """
    present[cols] = True
    used = np.flatnonzero(present)
    present[used] = False
    remap[used] = flows[:used.size] if used.size <= flows.size else np.arange(used.size)
    lc = remap[cols]
    rem = cap[used]
    n_res = used.size
    rate = np.empty(n)
    with np.errstate(divide="ignore"):
        while True:
            share = rem / np.bincount(lc, minlength=n_res)
            m = share.min()
            bott = share <= m * (1.0 + 1e-9)  # the most constrained resources (ties together)
            fb = lr[bott[lc]]
            rate[fb] = m
            newly = np.zeros(n, dtype=bool)
            newly[fb] = True
            hit = newly[lr]
            if hit.all():
                return rate
            rem -= m * np.bincount(lc[hit], minlength=n_res)
            np.maximum(rem, 0.0, out=rem)
            rem[bott] = np.inf  # every flow through a bottleneck is frozen now
            keep = ~hit
            lr, lc = lr[keep], lc[keep]


def max_min_rates(incidence, capacity):
    """Max-min fair rates of flows sharing resources, by progressive filling.

    Parameters
    ----------
    incidence : array_like or scipy.sparse matrix, shape (flows, resources)
        Nonzero where a flow crosses a resource (each flow crosses a resource at most once).
    capacity : array_like, shape (resources,)
        Capacity of each resource, bytes/s, > 0.

    Returns
    -------
    ndarray, shape (flows,)
        Rates in bytes/s; ``inf`` for a flow that crosses no resource.

    Notes
    -----
    Vectorised water-filling: each round computes, with ``numpy.bincount`` over the
    nonzeros, the number of unfrozen flows on every resource and its fair share
    ``remaining / count``; every unfrozen flow through a resource whose share is the
    minimum (to a relative 1e-9) is frozen at that share, and its rate is subtracted
    from every resource it crosses. Each round costs O(nonzeros); the number of rounds
    is the number of distinct bottleneck levels.

    References
    ----------
    Bertsekas and Gallager, *Data Networks*, 2nd ed., 1992, sec. 6.5.2.

    Examples
    --------
    Three links of capacity 1 in a line, one flow across all three and one on each link:
    every flow gets 1/2.

    >>> A = [[1, 1, 1], [1, 0, 0], [0, 1, 0], [0, 0, 1]]
    >>> max_min_rates(A, [1.0, 1.0, 1.0]).tolist()
    [0.5, 0.5, 0.5, 0.5]
    """
    import scipy.sparse as sp

    cap = np.asarray(capacity, dtype=float)
    if cap.ndim != 1 or not np.all(np.isfinite(cap)) or np.any(cap <= 0):
        raise ValueError(f"capacity={capacity!r} is not allowed; "
                         "capacity must be a 1-D array of finite values > 0 bytes/s")
    a = sp.coo_matrix(incidence) if not sp.issparse(incidence) else incidence.tocoo()
    if a.shape[1] != cap.size:
        raise ValueError(f"incidence has {a.shape[1]} columns but capacity has {cap.size} entries; they must match")
    nz = a.data != 0
    return _maxmin(a.row[nz].astype(np.int64), a.col[nz].astype(np.int64), cap, a.shape[0])

