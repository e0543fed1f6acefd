"""Pipeline schedules: the order each stage runs its tasks in, and their simulated times.

See :mod:`interconnect.pipeline` for the model and its references.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

import numpy as np

from .._validate import as_count, as_nonnegative, as_positive

__all__ = ["KINDS", "SPLIT_KINDS", "Task", "schedule", "stage_order"]

#: Schedule kinds whose backward pass is one task: GPipe, 1F1B, interleaved 1F1B.
KINDS = ("gpipe", "1f1b", "interleaved")

#: Schedule kinds that split the backward pass into ``B`` (activation gradient) and
#: ``W`` (weight gradient): ZB-H1 (Qi et al. 2024) and DualPipe (DeepSeek-AI 2024).
SPLIT_KINDS = ("zb-h1", "dualpipe")


@dataclass(frozen=True)
class Task:
    """One pass of one microbatch through one model chunk on one stage.

    Attributes
    ----------
    stage : int
        Pipeline stage (device), 0 is the first.
    microbatch : int
        Microbatch index, 0 to ``m - 1``.
    chunk : int
        Model chunk on that stage, 0 to ``v - 1`` (always 0 for GPipe, 1F1B and ZB-H1). For
        DualPipe the direction: 0 for the microbatches that enter at stage 0, 1 for those
        that enter at the last stage.
    kind : {"F", "B", "W"}
        Forward pass, backward pass, or weight-gradient pass. In the schedules of
        :data:`SPLIT_KINDS` a ``"B"`` that has a ``"W"`` of the same microbatch and chunk on
        its stage computes the activation gradient only; one that has none is a whole
        backward pass, as in the other schedules.
    start, end : float
        Times, in the unit of ``t_forward``.

    Examples
    --------
    >>> t = schedule("1f1b", 4, 8)[0]
    >>> t.stage, t.microbatch, t.kind, t.start, t.end
    (0, 0, 'F', 0.0, 1.0)
    """

    stage: int
    microbatch: int
    chunk: int
    kind: str
    start: float
    end: float

    @property
    def duration(self):
        """``end - start``.

        Examples
        --------
        >>> schedule("1f1b", 4, 8)[-1].duration     # a backward pass: twice the forward by default
        2.0
        """
        return self.end - self.start


def _check_kind(kind):
    if kind not in KINDS + SPLIT_KINDS:
        raise ValueError(f"kind={kind!r} is unknown; allowed: {', '.join(KINDS + SPLIT_KINDS)}")


def stage_order(kind, stages, microbatches, chunks=1):
    """The order in which each stage runs its tasks, without times.

    Parameters
    ----------
    kind : {"gpipe", "1f1b", "interleaved"}
        * ``"gpipe"``: all forward passes, then all backward passes, microbatches in
          order (Huang et al. 2019, Fig. 2);
        * ``"1f1b"``: PipeDream-Flush; stage ``s`` (0-based) first runs
          ``min(p - s - 1, m)`` warm-up forward passes, then alternates one forward and
          one backward pass, then drains the remaining backward passes (Narayanan et al.
          2021, sec. 2.2.1, Fig. 4 top);
        * ``"interleaved"``: each stage holds ``v`` chunks; chunk ``c`` of stage ``s`` is
          virtual stage ``c p + s``. Microbatches go through the chunks in groups of
          ``p``; stage ``s`` warms up with ``2 (p - s - 1) + (v - 1) p`` forward passes,
          then alternates, then drains (sec. 2.2.2, Fig. 4 bottom; the order of
          Megatron-LM's ``forward_backward_pipelining_with_interleaving``);
        * ``"zb-h1"``: zero-bubble ZB-H1 (Qi et al. 2024, sec. 2.1, Fig. 3 top). 1F1B with
          the backward pass split into ``B`` and ``W``; stage ``s`` warms up with
          ``p - s`` forward passes, then runs ``s`` rounds of ``B, F`` whose ``W`` it
          defers, then ``B, W, F`` rounds, drains with ``B, W``, and ends with the ``s``
          deferred ``W`` passes, which fill the tail of the bubble. Every stage then
          holds at most ``p`` microbatches, 1F1B's peak (the job list of PaddlePaddle's
          ``pipeline_scheduler_ZBH1`` pass, with each whole backward split into B, W);
        * ``"dualpipe"``: DualPipe (DeepSeek-AI 2024, sec. 3.2.1, Fig. 5): half of the
          microbatches enter at stage 0 (chunk 0), the other half at stage ``p - 1``
          (chunk 1), so every stage holds two model chunks (twice 1F1B's parameters).
          The order is the eight steps of ``DualPipe.step`` in the reference
          implementation, with its ``enable_zb`` backward passes split into ``B`` and a
          later ``W``.
    stages : int
        p, >= 1; even for ``"dualpipe"``.
    microbatches : int
        m, >= 1; a multiple of ``p`` for ``"interleaved"``; at least ``p`` for
        ``"zb-h1"``; even and at least ``2 p`` for ``"dualpipe"`` (the reference code's
        ``num_chunks % 2 == 0 and num_chunks >= num_ranks * 2``).
    chunks : int
        v, >= 1; must be 1 unless ``kind == "interleaved"``.

    Returns
    -------
    list of list of tuple
        ``order[s]`` is stage ``s``'s tasks as ``(kind, microbatch, chunk)``. Besides
        ``"F"`` and ``"B"``, the split schedules use ``"W"`` (weight gradient, of a ``"B"``
        that computed the activation gradient only), ``"BW"`` (a whole backward pass,
        ``B`` and ``W`` in one task) and ``"F&B"`` (DualPipe's forward and backward pass of
        two microbatches overlapped in one block; its ``microbatch`` and ``chunk`` are
        pairs, forward first).

    Examples
    --------
    1F1B on 2 stages with 3 microbatches: stage 0 warms up with one extra forward pass, then
    alternates:

    >>> stage_order("1f1b", 2, 3)[0]
    [('F', 0, 0), ('F', 1, 0), ('B', 0, 0), ('F', 2, 0), ('B', 1, 0), ('B', 2, 0)]

    ZB-H1 on the same pipeline: the last stage defers the ``W`` of microbatch 0 to the end:

    >>> [f"{k}{j}" for k, j, _ in stage_order("zb-h1", 2, 3)[1]]
    ['F0', 'B0', 'F1', 'B1', 'W1', 'F2', 'B2', 'W2', 'W0']
    """
    _check_kind(kind)
    p = int(as_count("stages", stages))
    m = int(as_count("microbatches", microbatches))
    v = int(as_count("chunks", chunks))
    if kind != "interleaved" and v != 1:
        raise ValueError(f"chunks={chunks!r} is not allowed for kind={kind!r}; allowed 1 "
                         "(only the interleaved schedule has several chunks per stage)")
    if kind == "interleaved" and m % p:
        raise ValueError(f"microbatches={microbatches!r} is not allowed for the interleaved schedule with "
                         f"stages={stages!r}; allowed: multiples of {p} (Narayanan et al. 2021, sec. 2.2.2)")
    if kind == "zb-h1":
        if m < p:
            raise ValueError(f"microbatches={microbatches!r} is not allowed for ZB-H1 with stages={stages!r}; "
                             f"allowed: >= {p} (one microbatch per stage at least)")
        return [_zb_h1_order(p, m, s) for s in range(p)]
    if kind == "dualpipe":
        if p % 2:
            raise ValueError(f"stages={stages!r} is not allowed for DualPipe; allowed: even numbers >= 2 "
                             "(DeepSeek-AI 2024, Table 2)")
        if m % 2 or m < 2 * p:
            raise ValueError(f"microbatches={microbatches!r} is not allowed for DualPipe with stages={stages!r}; "
                             f"allowed: even numbers >= {2 * p} (the reference DualPipe.step asserts this)")
        return [_dualpipe_order(p, m, r) for r in range(p)]
    order = []
    for s in range(p):
        if kind == "gpipe":
            order.append([("F", j, 0) for j in range(m)] + [("B", j, 0) for j in range(m)])
            continue
        if kind == "1f1b":
            fwd = [("F", j, 0) for j in range(m)]
            bwd = [("B", j, 0) for j in range(m)]
            warm = min(p - s - 1, m)
        else:  # interleaved: virtual microbatch k -> (microbatch, chunk), as in Megatron-LM
            total = m * v
            group = p * v

            def mb(k, group=group):
                return (k // group) * p + k % p

            fwd = [("F", mb(k), (k % group) // p) for k in range(total)]
            bwd = [("B", mb(k), v - 1 - (k % group) // p) for k in range(total)]
            warm = min(2 * (p - s - 1) + (v - 1) * p, total)
        seq = list(fwd[:warm])
        for i in range(len(fwd) - warm):
            seq += [fwd[warm + i], bwd[i]]
        seq += bwd[len(fwd) - warm:]
        order.append(seq)
    return order


def _zb_h1_order(p, m, s):
    """ZB-H1's order on stage ``s``: the job list of PaddlePaddle's ZBH1 pass, B and W split."""
    seq = [("F", j, 0) for j in range(p - s)]          # warm-up, one more F than 1F1B
    f, b = p - s, 0
    for _ in range(s):                                   # B whose W is deferred to the end
        seq += [("B", b, 0), ("F", f, 0)]
        b, f = b + 1, f + 1
    for _ in range(m - p):                               # steady state: B, W, F
        seq += [("B", b, 0), ("W", b, 0), ("F", f, 0)]
        b, f = b + 1, f + 1
    for _ in range(p - s):                               # drain
        seq += [("B", b, 0), ("W", b, 0)]
        b += 1
    seq += [("W", j, 0) for j in range(s)]               # the deferred W fill the tail
    return seq


def _dualpipe_order(p, m, rank):
    """DualPipe's order on ``rank``: the eight steps of ``DualPipe.step`` (deepseek-ai/DualPipe).

    Phase 0/1 of the reference code is the direction XOR "rank in the second half"; the
    microbatches of direction ``d`` are ``d m/2`` to ``(d + 1) m/2 - 1``, in order. A
    backward pass with ``enable_zb`` becomes ``B`` and a later ``W`` (the reference's
    ``WeightGradStore``, first in first out); one without is a whole backward ``BW``.
    """
    half, hm = p // 2, m // 2
    hr = min(rank, p - 1 - rank)
    second = int(rank >= half)
    middle = rank in (half - 1, half)
    nf, nb, wq, seq = [0, 0], [0, 0], deque(), []

    def fwd(phase):
        d = phase ^ second
        j = d * hm + nf[d]
        nf[d] += 1
        return ("F", j, d)

    def bwd(phase, zb=False):
        d = phase ^ second
        j = d * hm + nb[d]
        nb[d] += 1
        if zb:
            wq.append((j, d))
            return ("B", j, d)
        return ("BW", j, d)

    def wgt():
        j, d = wq.popleft()
        return ("W", j, d)

    def both(phase0, phase1):
        (_, jf, df), (_, jb, db) = fwd(phase0), bwd(phase1)
        return ("F&B", (jf, jb), (df, db))

    seq += [fwd(0) for _ in range(2 * (half - hr - 1))]          # step 1: nF0
    for _ in range(hr + 1):                                         # step 2: nF0F1
        seq += [fwd(0), fwd(1)]
    for _ in range(half - hr - 1):                                  # step 3: nB1W1F1, zero bubble
        seq += [bwd(1, zb=True), wgt(), fwd(1)]
    for i in range(hm - p + hr + 1):                                # step 4: nF0B1F1B0
        if i == 0 and middle:                                       # not overlapped, as the reference
            seq += [fwd(0), bwd(1)]
        else:
            seq.append(both(0, 1))
        seq.append(both(1, 0))
    for _ in range(half - hr - 1):                                  # step 5: nB1F1B0
        seq += [bwd(1), both(1, 0)]
    zb = False
    for i in range(hr + 1):                                         # step 6: nB1B0, second half zero bubble
        if i == (hr + 1) // 2 and hr % 2 == 1:
            zb = True
        seq.append(bwd(1, zb))
        if i == (hr + 1) // 2 and hr % 2 == 0:
            zb = True
        seq.append(bwd(0, zb))
    for _ in range(half - hr - 1):                                  # step 7: nWB0
        seq += [wgt(), bwd(0, zb=True)]
    seq += [wgt() for _ in range(hr + 1)]                           # step 8: nW
    assert not wq and nf == [hm, hm] and nb == [hm, hm]
    return seq


def schedule(kind, stages, microbatches, chunks=1, t_forward=1.0, t_backward=2.0, t_comm=0.0,
             t_weight=None, t_overlap=None):
    """Simulate a pipeline schedule and return its tasks with start and end times.

    Parameters
    ----------
    kind : {"gpipe", "1f1b", "interleaved", "zb-h1", "dualpipe"}
        The schedule; see :func:`stage_order` for the order each stage follows.
    stages : int
        Pipeline stages p, >= 1 (even for ``"dualpipe"``).
    microbatches : int
        Microbatches per step m, >= 1 (a multiple of ``p`` for ``"interleaved"``, >= p
        for ``"zb-h1"``, even and >= 2 p for ``"dualpipe"``).
    chunks : int
        Model chunks per stage v of the interleaved schedule, >= 1 (1 for the others).
    t_forward, t_backward : float
        Forward and backward time of one microbatch through one *whole stage*, > 0
        (any time unit; the default 1 : 2 is the usual ratio, the backward pass doing
        twice the matrix multiplications). With ``v`` chunks each chunk takes ``1/v``
        of it. ``t_backward`` is the whole backward pass, ``B`` and ``W`` together.
    t_comm : float
        Time to send one microbatch's activations (forward) or gradients (backward) from
        one stage to the next, >= 0, same unit. Transfers run beside compute (a stage
        may compute while its sends are in flight); each one delays only the task that
        waits for it.
    t_weight : float, optional
        Time of the weight-gradient pass ``W`` of the split schedules, ``0 < t_weight <
        t_backward``; the activation-gradient pass ``B`` takes ``t_backward - t_weight``.
        Default ``t_backward / 2``: with the default ``t_backward = 2 t_forward`` this is
        Qi et al.'s (2024) ``T_F = T_B = T_W``. Ignored by GPipe, 1F1B and interleaved.
    t_overlap : float, optional
        DualPipe only: time of one forward pass and one whole backward pass of two
        microbatches run overlapped (the "F&B" of DeepSeek-AI 2024, Table 2), between
        ``max(t_forward, t_backward)`` (perfect overlap) and ``t_forward + t_backward``
        (none). Default ``t_forward + t_backward``: the overlap hides DualPipe's
        all-to-all communication behind computation, which this model does not
        simulate, and the two passes' computation itself does not shrink.

    Returns
    -------
    list of Task
        Sorted by stage, then start time. An overlapped DualPipe pair is an ``"F"`` and a
        ``"B"`` task with the same start and end on one stage.

    Raises
    ------
    ValueError
        Naming the parameter, its value and the allowed range.

    References
    ----------
    Huang et al. (2019); Narayanan et al. (2021), sec. 2.2; Qi et al. (2024), sec. 2;
    DeepSeek-AI (2024), sec. 3.2.1.

    Examples
    --------
    >>> from interconnect.pipeline import busy_time, makespan
    >>> tasks = schedule("1f1b", 4, 8)           # p = 4 stages, m = 8 microbatches
    >>> len(tasks), makespan(tasks)             # 2 p m tasks; (m + p - 1) (t_f + t_b)
    (64, 33.0)

    Splitting the backward pass into B and W (1 time unit each here) lets ZB-H1 fill most
    of the bubble: ``(p - 1)(F + B - 2W) = 3`` time units are left of 1F1B's 9:

    >>> zb = schedule("zb-h1", 4, 8)
    >>> len(zb), makespan(zb) - busy_time(zb)
    (96, 3.0)
    >>> try:
    ...     schedule("zb-h1", 4, 8, t_weight=2.0)
    ... except ValueError as e:
    ...     print(e)
    t_weight=2.0 is not allowed; allowed 0 < t_weight < t_backward = 2.0
    """
    order = stage_order(kind, stages, microbatches, chunks)
    tf = float(as_positive("t_forward", t_forward, "(time)"))
    tb = float(as_positive("t_backward", t_backward, "(time)"))
    tc = float(as_nonnegative("t_comm", t_comm, "(time)"))
    if np.ndim(t_forward) or np.ndim(t_backward) or np.ndim(t_comm):
        raise ValueError("t_forward, t_backward and t_comm must be single numbers, not arrays")
    p, v = len(order), int(chunks)
    dur = {"F": tf / v, "B": tb / v}
    if kind in SPLIT_KINDS:
        tw = tb / 2 if t_weight is None else float(as_positive("t_weight", t_weight, "(time)"))
        if np.ndim(tw) or not tw < tb:
            raise ValueError(f"t_weight={t_weight!r} is not allowed; allowed 0 < t_weight < t_backward = {tb!r}")
        tfb = tf + tb if t_overlap is None else float(as_positive("t_overlap", t_overlap, "(time)"))
        if np.ndim(tfb) or not max(tf, tb) <= tfb <= tf + tb:
            raise ValueError(f"t_overlap={t_overlap!r} is not allowed; allowed max(t_forward, t_backward) = "
                             f"{max(tf, tb)!r} to t_forward + t_backward = {tf + tb!r}")
        dur = {"F": tf, "B": tb - tw, "W": tw, "BW": tb, "F&B": tfb}
    end = {}  # (kind, stage, microbatch, chunk) -> end time
    free = [0.0] * p
    nxt = [0] * p
    tasks = []
    remaining = sum(len(o) for o in order)

    def deps(k, s, j, c):
        """(key, crosses a link) of each task that must end first."""
        if kind == "dualpipe":  # chunk c is the direction; position along it
            pos, step = (s, 1) if c == 0 else (p - 1 - s, -1)
            if k == "F":
                return [] if pos == 0 else [(("F", s - step, j, c), True)]
            if k == "W":
                return [(("B", s, j, c), False)]
            out = [(("F", s, j, c), False)]
            if pos < p - 1:
                out.append((("B", s + step, j, c), True))
            return out
        if k == "W":
            return [(("B", s, j, c), False)]
        vs = c * p + s  # virtual stage
        if k == "F":
            if vs == 0:
                return []
            ps, pc = (s - 1, c) if s > 0 else (p - 1, c - 1)
            return [(("F", ps, j, pc), ps != s)]
        out = [(("F", s, j, c), False)]
        if vs < p * v - 1:
            ns, nc = (s + 1, c) if s < p - 1 else (0, c + 1)
            out.append((("B", ns, j, nc), ns != s))
        return out

    while remaining:
        progress = False
        for s in range(p):
            while nxt[s] < len(order[s]):
                k, j, c = order[s][nxt[s]]
                parts = [("F", j[0], c[0]), ("B", j[1], c[1])] if k == "F&B" else \
                    [("B" if k == "BW" else k, j, c)]
                d = [x for pk, pj, pc in parts for x in deps(pk, s, pj, pc)]
                if any(key not in end for key, _ in d):
                    break
                ready = max([end[key] + (tc if cross else 0.0) for key, cross in d], default=0.0)
                start = max(free[s], ready)
                stop = start + dur[k]
                for pk, pj, pc in parts:
                    end[(pk, s, pj, pc)] = stop
                    tasks.append(Task(s, pj, pc, pk, start, stop))
                free[s] = stop
                nxt[s] += 1
                remaining -= 1
                progress = True
        if not progress:  # pragma: no cover - the orders above never deadlock
            raise RuntimeError(f"schedule {kind!r} deadlocked; this is a bug in stage_order")
    return sorted(tasks, key=lambda t: (t.stage, t.start))


