"""Collective schedules: a collective as transfers between ranks.

:func:`schedule` turns a collective into transfers between ranks; the same
:class:`Schedule` drives both :func:`interconnect.netsim.simulate_collective` (timing on a
graph) and :func:`run_collective` (the arithmetic on numpy arrays), so the schedule the
book times is the schedule shown to be correct. Which algorithms have a schedule, and
what each builder is called, is read from the registry
(:mod:`interconnect.collectives.algorithms`).

Each transfer moves a contiguous range of *units* of the vector (``pieces x chunks``
equal units) and either overwrites or adds into the destination. A transfer starts when
(i) every earlier-round transfer that wrote into the range it sends, at its source, has
arrived (data dependency); (ii) its source's sends of the same chunk index in the
source's previous sending round, and its destination's receives of that chunk index in
the destination's previous receiving round, have arrived (ports: a rank sends one
message and receives one message per round, as in the alpha-beta model); and (iii) the
previous chunk of the same message has arrived (chunks of a message go one after
another, so chunking pipelines a chain). Receivers buffer incoming data, so a transfer
never waits for its destination to have sent what it will overwrite. ``nbytes`` follows
nccl-tests, as in :mod:`interconnect.collectives`.

Builders
--------
Each builder has the signature ``builder(op, p, chunks, root)`` and returns
``(arrays, phases, pieces, out_of_place, dep_ptr, dep_idx)``; ``dep_ptr`` and
``dep_idx`` are ``None`` when the dependencies follow from the generic rule above.

References
----------
R. Thakur, R. Rabenseifner and W. Gropp, "Optimization of Collective Communication
Operations in MPICH", IJHPCA 19(1):49-66, 2005.
P. Patarasuk and X. Yuan, "Bandwidth optimal all-reduce algorithms for clusters of
workstations", J. Parallel Distrib. Comput. 69(2):117-124, 2009.
J. Pješivac-Grbović et al., "Performance analysis of MPI collective operations",
Cluster Computing 10(2):127-143, 2007 (pipelined chain broadcast).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._validate import as_count

__all__ = [
    "Schedule", "schedule", "run_collective", "ring", "recursive_doubling_allreduce", "halving_doubling",
    "binomial_broadcast", "chain_broadcast", "binomial_reduce", "pairwise_alltoall", "all_at_once_alltoall",
]

@dataclass(frozen=True, eq=False, repr=False)
class Schedule:
    """A collective as transfers between ranks (shared by simulation and execution).

    The vector is cut into ``units = pieces * chunks`` equal units (piece-major).
    Transfer ``i`` moves units ``[lo[i], hi[i])`` of its source's buffer into units
    ``[dst_lo[i], dst_lo[i] + hi[i] - lo[i])`` of its destination's, adding when
    ``reduce[i]``, overwriting otherwise. Transfers are sorted by ``round``; within a
    round every transfer reads the state left by the earlier rounds. ``deps`` (CSR:
    ``dep_ptr``, ``dep_idx``) are the transfers that must have arrived first.

    Attributes
    ----------
    op, algorithm : str
    p, chunks, pieces, units, root : int
    out_of_place : bool
        True for alltoall: sends read the input, receives write the output.
    round, src, dst, lo, hi, dst_lo, chunk, phase : ndarray of int
    reduce : ndarray of bool
    phases : tuple of str
        Names indexed by ``phase`` (e.g. ``"reduce-scatter"``, ``"allgather"``).
    """

    op: str
    algorithm: str
    p: int
    chunks: int
    pieces: int
    root: int
    out_of_place: bool
    round: np.ndarray
    src: np.ndarray
    dst: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    dst_lo: np.ndarray
    chunk: np.ndarray
    reduce: np.ndarray
    phase: np.ndarray
    phases: tuple
    dep_ptr: np.ndarray
    dep_idx: np.ndarray

    @property
    def units(self):
        return self.pieces * self.chunks

    @property
    def n_rounds(self):
        return int(self.round.max()) + 1 if self.round.size else 0

    def __len__(self):
        return int(self.src.size)

    def __repr__(self):
        return (f"Schedule(op={self.op!r}, algorithm={self.algorithm!r}, p={self.p}, chunks={self.chunks}, "
                f"transfers={len(self)}, rounds={self.n_rounds})")

    def deps(self, i):
        """Dependencies of transfer ``i`` as a tuple of transfer indices."""
        return tuple(self.dep_idx[self.dep_ptr[i]:self.dep_ptr[i + 1]].tolist())

    def transfer_bytes(self, nbytes):
        """Bytes of each transfer for a collective of ``nbytes`` (nccl-tests convention)."""
        return float(nbytes) * (self.hi - self.lo) / self.units

    def to_flows(self, nbytes, ranks):
        """The schedule as a list of :class:`interconnect.netsim.Flow` between the nodes ``ranks``."""
        from ..netsim import Flow

        b = self.transfer_bytes(nbytes)
        return [Flow(ranks[s], ranks[d], float(x), 0.0, self.deps(i), self.phases[ph])
                for i, (s, d, x, ph) in enumerate(zip(self.src.tolist(), self.dst.tolist(), b, self.phase.tolist()))]


class _Builder:
    """Accumulates messages (each split into ``chunks`` transfers) in round order."""

    def __init__(self, p, chunks, pieces):
        self.p, self.c, self.pieces = p, chunks, pieces
        self.rows = []
        self.phases = []

    def add(self, rnd, src, dst, a, b, reduce, phase, dst_a=None):
        """Message of pieces ``[a, b)`` from ``src`` to ``dst`` (to pieces from ``dst_a``)."""
        if phase not in self.phases:
            self.phases.append(phase)
        ph = self.phases.index(phase)
        c = self.c
        m = b - a
        dst_a = a if dst_a is None else dst_a
        for k in range(c):
            self.rows.append((rnd, src, dst, a * c + k * m, a * c + (k + 1) * m, dst_a * c + k * m, k, reduce, ph))

    def arrays(self):
        cols = list(zip(*self.rows)) if self.rows else [()] * 9
        names = ("round", "src", "dst", "lo", "hi", "dst_lo", "chunk", "reduce", "phase")
        out = {n: np.array(col, dtype=bool if n == "reduce" else np.int64) for n, col in zip(names, cols)}
        if out["round"].size and np.any(np.diff(out["round"]) < 0):
            raise AssertionError("schedule rows must be added in round order")
        return out, tuple(self.phases)


def _csr(owner, dep, n, dedupe=True):
    """CSR (ptr, idx) from pairs ``owner[k] depends on dep[k]``.

    With ``dedupe`` the pairs are deduplicated and each owner's deps sorted; without it
    they are only grouped by owner (stable), which is enough when there are no duplicates.
    """
    owner = np.asarray(owner, dtype=np.int64)
    dep = np.asarray(dep, dtype=np.int64)
    if owner.size and dedupe:
        key = np.sort(owner * max(n, 1) + dep)
        key = key[np.concatenate(([True], key[1:] != key[:-1]))]
        owner, dep = key // max(n, 1), key % max(n, 1)
    elif owner.size:
        order = np.argsort(owner, kind="stable")
        owner, dep = owner[order], dep[order]
    ptr = np.concatenate(([0], np.cumsum(np.bincount(owner, minlength=n)))).astype(np.int64)
    return ptr, dep


def _generic_deps(a, out_of_place, p):
    """The dependency rule of the module docstring, for any schedule (Python loop over transfers)."""
    rnd, src, dst, lo, hi, dlo, chunk = (a[k] for k in ("round", "src", "dst", "lo", "hi", "dst_lo", "chunk"))
    n = rnd.size
    owners, deps = [], []
    w_lo = [np.empty(0, dtype=np.int64) for _ in range(p)]
    w_hi = [np.empty(0, dtype=np.int64) for _ in range(p)]
    w_id = [np.empty(0, dtype=np.int64) for _ in range(p)]
    last_round = [-1] * p   # the latest earlier round in which each rank sent
    last_recv = [-1] * p    # ... and received
    sends, recvs = {}, {}   # (rank, round) -> (ids, chunks)
    bounds = np.flatnonzero(np.diff(rnd)) + 1
    for ids in np.split(np.arange(n), bounds) if n else []:
        for t in ids.tolist():
            r = int(src[t])
            if not out_of_place and w_id[r].size:
                hit = (w_lo[r] < hi[t]) & (w_hi[r] > lo[t])
                for d in w_id[r][hit].tolist():
                    owners.append(t)
                    deps.append(d)
            for rk, last, book in ((r, last_round, sends), (int(dst[t]), last_recv, recvs)):
                if last[rk] >= 0:
                    pid, pch = book[(rk, last[rk])]
                    for d in pid[pch == chunk[t]].tolist():
                        owners.append(t)
                        deps.append(d)
            if chunk[t] > 0:
                owners.append(t)
                deps.append(t - 1)
        this = int(rnd[ids[0]])
        for r in np.unique(src[ids]).tolist():
            sel = ids[src[ids] == r]
            sends[(r, this)] = (sel, chunk[sel])
            last_round[r] = this
        for r in np.unique(dst[ids]).tolist():
            sel = ids[dst[ids] == r]
            recvs[(r, this)] = (sel, chunk[sel])
            last_recv[r] = this
            w_lo[r] = np.concatenate((w_lo[r], dlo[sel]))
            w_hi[r] = np.concatenate((w_hi[r], dlo[sel] + hi[sel] - lo[sel]))
            w_id[r] = np.concatenate((w_id[r], sel))
    return _csr(np.array(owners, dtype=np.int64), np.array(deps, dtype=np.int64), n)


def ring(op, p, c, root=0):
    """Ring reduce-scatter / allgather / allreduce, built and wired with numpy (for large p).

    Transfer id = (step * p + sender) * chunks + chunk. Equal, transfer for transfer, to
    the generic rule (tests check this).
    """
    n_rs = p - 1 if op in ("allreduce", "reducescatter") else 0
    n_ag = p - 1 if op in ("allreduce", "allgather") else 0
    steps = n_rs + n_ag
    n = steps * p * c
    ids = np.arange(n, dtype=np.int64)
    g = ids // (p * c)
    r = (ids // c) % p
    k = ids % c
    is_rs = g < n_rs
    s = np.where(is_rs, g, g - n_rs)
    piece = np.where(is_rs, (r - s - 1) % p, (r - s) % p)
    lo = piece * c + k
    prev = (r - 1) % p
    owners, deps = [], []
    m = g > 0                                           # data: what the previous sender wrote into r
    owners.append(ids[m])
    deps.append((((g - 1) * p + prev) * c + k)[m])
    m = g > 0                                           # ports: r's previous send, same chunk (it is
    owners.append(ids[m])                               # also r+1's previous receive)
    deps.append(ids[m] - p * c)
    if n_rs and n_ag:                                   # data: the reduce-scatter write of the same piece
        m = (~is_rs) & (s >= 2)
        owners.append(ids[m])
        deps.append((((s - 2) * p + prev) * c + k)[m])
    m = k > 0                                           # channel: previous chunk of the message
    owners.append(ids[m])
    deps.append(ids[m] - 1)
    ptr, idx = _csr(np.concatenate(owners), np.concatenate(deps), n, dedupe=False)  # distinct by construction
    phases = tuple(x for x, on in (("reduce-scatter", n_rs), ("allgather", n_ag)) if on)
    arrays = dict(round=g, src=r, dst=(r + 1) % p, lo=lo, hi=lo + 1, dst_lo=lo, chunk=k, reduce=is_rs,
                  phase=np.where(is_rs | (n_rs == 0), 0, 1).astype(np.int64))
    return arrays, phases, p, False, ptr, idx


def _done(b, pieces, out_of_place):
    arrays, phases = b.arrays()
    return arrays, phases, pieces, out_of_place, None, None


def recursive_doubling_allreduce(op, p, c, root=0):
    """Exchange the whole vector with rank XOR 2^s, lg p steps (p a power of two)."""
    b = _Builder(p, c, 1)
    for s in range((p - 1).bit_length()):
        for r in range(p):
            b.add(s, r, r ^ (1 << s), 0, 1, True, "exchange")
    return _done(b, 1, False)


def halving_doubling(op, p, c, root=0):
    """Recursive-halving reduce-scatter (allreduce, reducescatter), then recursive-doubling
    allgather (allreduce, allgather), p a power of two: Rabenseifner's allreduce."""
    lg = (p - 1).bit_length()
    b = _Builder(p, c, p)
    rnd = 0
    if op != "allgather":
        for s in range(lg):
            mask = p >> (s + 1)
            for r in range(p):
                base = r & ~(2 * mask - 1)
                mine_low = (r & mask) == 0
                a = base + mask if mine_low else base   # send the half the partner keeps
                b.add(rnd, r, r ^ mask, a, a + mask, True, "reduce-scatter")
            rnd += 1
    if op != "reducescatter":
        for s in range(lg):
            mask = 1 << s
            for r in range(p):
                base = r & ~(mask - 1)
                b.add(rnd, r, r ^ mask, base, base + mask, False, "allgather")
            rnd += 1
    return _done(b, p, False)


def binomial_broadcast(op, p, c, root=0):
    """Binomial tree from the root, ceil(lg p) rounds of the whole vector."""
    b = _Builder(p, c, 1)
    for s in range((p - 1).bit_length()):
        for v in range(min(1 << s, p)):
            if v + (1 << s) < p:
                b.add(s, (v + root) % p, (v + (1 << s) + root) % p, 0, 1, False, "broadcast")
    return _done(b, 1, False)


def chain_broadcast(op, p, c, root=0):
    """Pipelined chain root -> root+1 -> ... (chunks pipeline it)."""
    b = _Builder(p, c, 1)
    for v in range(p - 1):
        b.add(v, (v + root) % p, (v + 1 + root) % p, 0, 1, False, "broadcast")
    return _done(b, 1, False)


def binomial_reduce(op, p, c, root=0):
    """Binomial tree to the root, ceil(lg p) rounds of the whole vector, adding."""
    b = _Builder(p, c, 1)
    for s in range((p - 1).bit_length()):
        for v in range(1 << s, p, 1 << (s + 1)):
            b.add(s, (v + root) % p, (v - (1 << s) + root) % p, 0, 1, True, "reduce")
    return _done(b, 1, False)


def all_at_once_alltoall(op, p, c, root=0):
    """All p(p-1) messages of n/p in one round: they start together and share the links."""
    b = _Builder(p, c, p)
    for i in range(p):
        for j in range(p):
            if i != j:
                b.add(0, i, j, j, j + 1, False, "alltoall", dst_a=i)
    return _done(b, p, True)


def pairwise_alltoall(op, p, c, root=0):
    """p-1 steps; in step k rank i sends its piece for rank i+k."""
    b = _Builder(p, c, p)
    for k in range(1, p):
        for i in range(p):
            j = (i + k) % p
            b.add(k - 1, i, j, j, j + 1, False, "alltoall", dst_a=i)
    return _done(b, p, True)


def schedule(op, p, algorithm="ring", chunks=1, root=0):
    """The transfers of a collective on ``p`` ranks.

    Parameters
    ----------
    op : str
        An operation with a schedule: ``allreduce``, ``allgather``, ``reducescatter``,
        ``broadcast``, ``reduce``, ``alltoall``.
    p : int
        Ranks, >= 1 (a power of two for ``recursive_doubling`` and ``rabenseifner``).
    algorithm : str
        One of :func:`interconnect.collectives.simulated` ``(op)`` (see
        :data:`interconnect.netsim.DESCRIPTION`). Deprecated spellings, kept for one
        release: ``"direct"`` for alltoall means ``"all_at_once"``, ``"ring"`` for
        broadcast means ``"chain"``.
    chunks : int
        Each message is cut into this many pieces, sent one after another (>= 1).
    root : int
        Root rank of broadcast and reduce, 0..p-1.

    Returns
    -------
    Schedule
        With the algorithm's canonical name.

    Raises
    ------
    ValueError
        For an unknown ``op`` or ``algorithm``, one without a schedule, ``p`` not a
        power of two where needed, and counts or ``root`` out of range.

    Examples
    --------
    A ring allreduce on 4 ranks: 2(p-1) = 6 rounds of p = 4 messages.

    >>> s = schedule("allreduce", 4)
    >>> s
    Schedule(op='allreduce', algorithm='ring', p=4, chunks=1, transfers=24, rounds=6)
    >>> s.phases
    ('reduce-scatter', 'allgather')
    >>> schedule("broadcast", 4, "ring").algorithm      # deprecated spelling of "chain"
    'chain'
    """
    from .algorithms import schedule_algorithm

    row = schedule_algorithm(op, algorithm)
    p = as_count("p", p, minimum=1)
    chunks = as_count("chunks", chunks, minimum=1)
    root = as_count("root", root, minimum=0)
    if root >= p:
        raise ValueError(f"root={root} is out of range; root must be a rank 0..{p - 1}")
    if row.pow2 and p & (p - 1):
        raise ValueError(f"p={p} is not a power of two; algorithm={row.name!r} needs p = 1, 2, 4, 8, ...")
    a, phases, pieces, oop, ptr, idx = row.schedule(row.op, p, chunks, root)
    if ptr is None:
        ptr, idx = _generic_deps(a, oop, p)
    return Schedule(op=row.op, algorithm=row.name, p=p, chunks=chunks, pieces=pieces, root=root, out_of_place=oop,
                    phases=phases or ("",), dep_ptr=ptr, dep_idx=idx, **a)



def _bounds(length, pieces, chunks):
    """Unit boundaries: ``length`` split like ``np.array_split`` into pieces, each into chunks."""
    pb = np.array([0] + [x.size for x in np.array_split(np.empty(length), pieces)]).cumsum()
    out = [0]
    for a, b in zip(pb[:-1], pb[1:]):
        sub = np.array([x.size for x in np.array_split(np.empty(b - a), chunks)]).cumsum() + a
        out.extend(sub.tolist())
    return np.array(out, dtype=np.int64)


def run_collective(arrays, op, algorithm="ring", chunks=1, root=0):
    """Execute a collective's schedule on numpy arrays, one per rank.

    The schedule is the one :func:`interconnect.netsim.simulate_collective` times (same
    steps, chunks and partners), executed round by round: each transfer copies (or adds)
    its units of the source's buffer, as they stood after the previous round, into the
    destination's.

    Parameters
    ----------
    arrays : sequence of 1-D ndarray
        One array per rank, all of the same length. For ``allgather`` each is the
        rank's own piece; for ``alltoall`` piece ``j`` (of ``len / p``, which must be
        whole) goes to rank ``j``.
    op, algorithm, chunks, root
        As for :func:`interconnect.netsim.simulate_collective`.

    Returns
    -------
    list
        Per rank: ``allreduce`` and ``broadcast``: the full vector; ``allgather``: the
        concatenation of all pieces; ``reducescatter``: piece ``r`` of the sum, as
        ``np.array_split(total, p)[r]``; ``alltoall``: piece ``i`` from rank ``i``;
        ``reduce``: the sum at the root and ``None`` elsewhere.

    Examples
    --------
    >>> out = run_collective([np.arange(4) * (r + 1) for r in range(4)], "allreduce")
    >>> out[2].tolist()
    [0, 10, 20, 30]
    """
    from .algorithms import schedule_algorithm

    row = schedule_algorithm(op, algorithm)
    op, algorithm = row.op, row.name
    if isinstance(arrays, np.ndarray) and arrays.ndim >= 1:
        arrays = list(arrays)
    try:
        arrs = [np.asarray(a) for a in arrays]
    except TypeError:
        raise ValueError(f"arrays={arrays!r} is not a sequence of arrays; give one 1-D array per rank") from None
    if not arrs:
        raise ValueError("arrays is empty; give one 1-D array per rank")
    if any(a.ndim != 1 for a in arrs) or len({a.shape for a in arrs}) != 1:
        raise ValueError(f"arrays have shapes {[a.shape for a in arrs]}; give 1-D arrays all of one length")
    p, length = len(arrs), arrs[0].size
    dtype = np.result_type(*arrs)
    sch = schedule(op, p, algorithm, chunks, root)
    if op == "allgather":
        bufs = [np.zeros(p * length, dtype=dtype) for _ in range(p)]
        for r, a in enumerate(arrs):
            bufs[r][r * length:(r + 1) * length] = a
        length = p * length
    else:
        bufs = [a.astype(dtype, copy=True) for a in arrs]
    if op == "alltoall" and length % p:
        raise ValueError(f"arrays have length {length}, not a multiple of p={p}; alltoall needs equal pieces")
    edges = _bounds(length, sch.pieces, sch.chunks)
    out = bufs
    if sch.out_of_place:
        out = [np.zeros(length, dtype=dtype) for _ in range(p)]
        for r in range(p):  # the piece a rank keeps
            a, b = edges[r * sch.chunks], edges[(r + 1) * sch.chunks]
            out[r][a:b] = bufs[r][a:b]
    rnd = sch.round
    cuts = np.flatnonzero(np.diff(rnd)) + 1
    for ids in (np.split(np.arange(len(sch)), cuts) if len(sch) else []):
        msgs = [bufs[sch.src[t]][edges[sch.lo[t]]:edges[sch.hi[t]]].copy() for t in ids]
        for t, m in zip(ids, msgs):
            d0 = sch.dst_lo[t]
            a, b = edges[d0], edges[d0 + sch.hi[t] - sch.lo[t]]
            if sch.reduce[t]:
                out[sch.dst[t]][a:b] += m
            else:
                out[sch.dst[t]][a:b] = m
    if op == "reducescatter":
        return [out[r][edges[r * sch.chunks]:edges[(r + 1) * sch.chunks]] for r in range(p)]
    if op == "reduce":
        return [out[r] if r == root else None for r in range(p)]
    return out
