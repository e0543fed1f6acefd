"""Pipeline schedules as data: GPipe, 1F1B (PipeDream-Flush), interleaved 1F1B, and the
schedules that split the backward pass, zero-bubble ZB-H1 and DualPipe.

A schedule is a list of :class:`Task` records, one per forward (``"F"``) or backward
(``"B"``) pass of one microbatch through one model chunk on one pipeline stage, with its
start and end time. The schedules of :data:`SPLIT_KINDS` also have weight-gradient
(``"W"``) tasks: they split the backward pass into ``B``, the gradient of the
activations, which the previous stage waits for, and ``W``, the gradient of the weights,
which nobody waits for and which can run later (Qi et al. 2024).

The times are not drawn by hand: :func:`schedule` fixes, for every stage, the *order*
in which the schedule runs its tasks, and then simulates the dependencies

* the forward pass of a microbatch on stage ``s`` starts after its forward pass on
  stage ``s - 1`` has ended, plus ``t_comm`` to send the activations across;
* its backward pass on stage ``s`` starts after its backward pass on stage ``s + 1``
  has ended, plus ``t_comm`` to send the gradient back; on the last stage after its own
  forward pass (DualPipe's second direction runs from the last stage to the first);
* a weight-gradient pass ``W`` runs after the same microbatch's ``B`` on the same stage;
* a stage runs one task at a time, in the schedule's order -- except the overlapped
  forward-and-backward pairs of DualPipe, which run together as one block.

Every start time is then the earliest one these rules allow, so the idle time that is
left -- the pipeline bubble -- is *measured* from the tasks (:func:`bubble_fraction_measured`)
and can be compared with the closed form of
:func:`interconnect.parallel.pipeline_bubble_fraction`.

Times are in whatever unit ``t_forward``, ``t_backward`` and ``t_comm`` are given in
(seconds in the book's worked examples; the default ``t_forward = 1`` makes the unit
"one forward pass of one microbatch through one stage").

References
----------
Y. Huang et al., "GPipe: Efficient Training of Giant Neural Networks using Pipeline
Parallelism", NeurIPS 2019 (arXiv:1811.06965).
D. Narayanan et al., "PipeDream: Generalized Pipeline Parallelism for DNN Training",
SOSP 2019; D. Narayanan et al., "Memory-Efficient Pipeline-Parallel DNN Training",
ICML 2021 (arXiv:2006.09503), PipeDream-Flush.
D. Narayanan et al., "Efficient Large-Scale Language Model Training on GPU Clusters
Using Megatron-LM", SC21 (arXiv:2104.04473), sec. 2.2 (1F1B and interleaved 1F1B).
P. Qi, X. Wan, G. Huang and M. Lin, "Zero Bubble Pipeline Parallelism", ICLR 2024
(arXiv:2401.10241), sec. 2 and Fig. 3 (ZB-H1).
DeepSeek-AI, "DeepSeek-V3 Technical Report", arXiv:2412.19437 (2024), sec. 3.2.1, Fig. 5
and Table 2 (DualPipe); the reference implementation github.com/deepseek-ai/DualPipe,
``dualpipe/dualpipe.py`` (``DualPipe.step``) and its README's bubble table.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

import numpy as np

from ._validate import as_count, as_nonnegative, as_positive

__all__ = ["KINDS", "SPLIT_KINDS", "Task", "schedule", "stage_order", "makespan", "exposed_transfers",
           "busy_time", "bubble_time", "bubble_closed_form", "bubble_fraction_measured",
           "in_flight"]

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


def _check_tasks(tasks):
    tasks = list(tasks)
    if not tasks or not all(isinstance(t, Task) for t in tasks):
        raise ValueError("tasks must be a non-empty list of Task, as returned by schedule()")
    return tasks


def makespan(tasks):
    """Time from the first task's start to the last task's end (one pipeline flush).

    Parameters
    ----------
    tasks : list of Task

    Returns
    -------
    float
        Same unit as the tasks' times.

    Examples
    --------
    >>> makespan(schedule("gpipe", 4, 8)), makespan(schedule("interleaved", 4, 8, chunks=2))
    (33.0, 28.5)
    """
    tasks = _check_tasks(tasks)
    return max(t.end for t in tasks) - min(t.start for t in tasks)


def exposed_transfers(kind, stages, microbatches, chunks=1, t_forward=1.0, dt=1e-3):
    """How many stage-to-stage transfer times a step's makespan grows by: the slope ``d makespan / d t_comm``.

    Measured at short transfers: the makespan of :func:`schedule` with ``t_comm = dt``
    minus the one with ``t_comm = 0``, over ``dt`` (backward passes take ``2 t_forward``).
    The step-time model charges all ``2 m v`` transfers
    (:func:`interconnect.parallel.pp_comm_time`); a schedule whose slope is smaller hides
    some of them behind other microbatches' work.

    Parameters
    ----------
    kind : {"gpipe", "1f1b", "interleaved"}
    stages, microbatches, chunks : int
        p, m and v, as in :func:`schedule`.
    t_forward : float
        Forward-pass time, > 0.
    dt : float
        The small transfer time the slope is measured with, > 0.

    Returns
    -------
    float
        Transfers on the critical path.

    Examples
    --------
    >>> round(exposed_transfers("gpipe", 4, 16)), round(exposed_transfers("1f1b", 4, 16))
    (6, 28)
    """
    dt = as_positive("dt", dt)
    a = makespan(schedule(kind, stages, microbatches, chunks=chunks, t_forward=t_forward, t_backward=2 * t_forward))
    b = makespan(schedule(kind, stages, microbatches, chunks=chunks, t_forward=t_forward, t_backward=2 * t_forward,
                          t_comm=dt))
    return (b - a) / dt


def _busy_per_stage(tasks):
    """Busy time of each stage: the length of the union of its tasks' intervals.

    Tasks that overlap in time on one stage (DualPipe's overlapped F&B pairs) count once;
    for tasks that do not overlap this is the sum of their durations, added in order.
    """
    per, reach = {}, {}
    for t in sorted(tasks, key=lambda t: t.stage):     # stable: each stage keeps the tasks' order
        r = reach.get(t.stage)
        if r is None or t.start >= r:
            per[t.stage] = per.get(t.stage, 0.0) + t.duration
            reach[t.stage] = t.end
        elif t.end > r:
            per[t.stage] += t.end - r
            reach[t.stage] = t.end
    return per


def busy_time(tasks):
    """Compute time of the busiest stage: the ideal step time with no bubble.

    For GPipe, 1F1B, interleaved 1F1B and ZB-H1 every stage is equally busy,
    ``m (t_forward + t_backward)``. An overlapped pair of tasks (DualPipe's F&B) counts
    once, for the time the pair takes.

    Examples
    --------
    >>> busy_time(schedule("1f1b", 4, 8))        # m (t_f + t_b) = 8 x 3
    24.0
    """
    tasks = _check_tasks(tasks)
    return max(_busy_per_stage(tasks).values())


def bubble_time(tasks, stage=None):
    """Idle time of a stage during the step: the makespan less its busy time.

    Parameters
    ----------
    tasks : list of Task
    stage : int, optional
        One stage; default the stage that idles longest. For every schedule but DualPipe
        with ``t_overlap < t_forward + t_backward`` all stages idle equally long.

    Returns
    -------
    float
        Same unit as the tasks' times; compare with :func:`bubble_closed_form`.

    Examples
    --------
    1F1B's bubble is ``(p - 1)(F + B) = 3 x 3``; DualPipe's ``(p/2 - 1)(F&B + B - 3W) = 1 x 2``
    with ``F = W = 1``, ``B = 2`` and no gain from the overlap (``F&B = F + B``):

    >>> bubble_time(schedule("1f1b", 4, 8)), bubble_time(schedule("dualpipe", 4, 8))
    (9.0, 2.0)
    """
    tasks = _check_tasks(tasks)
    per = _busy_per_stage(tasks)
    span = makespan(tasks)
    if stage is not None:
        s = int(as_count("stage", stage, minimum=0))
        if s not in per:
            raise ValueError(f"stage={stage!r} is not in the schedule; allowed 0 to {max(per)}")
        return span - per[s]
    return span - min(per.values())


def bubble_closed_form(kind, stages, microbatches=None, chunks=1, t_forward=1.0, t_backward=2.0,
                       t_weight=None, t_overlap=None):
    """The papers' closed form of a schedule's bubble, in time (no transfers).

    * GPipe and 1F1B: ``(p - 1)(F + B)`` (Huang et al. 2019; Narayanan et al. 2021,
      sec. 2.2.1; the "1F1B" row of DeepSeek-AI 2024, Table 2);
    * interleaved 1F1B: ``(p - 1)(F + B) / v`` (Narayanan et al. 2021, sec. 2.2.2);
    * ZB-H1: ``(p - 1)(F + B - 2W)``, B the whole backward pass (the "ZB1P" row of
      DeepSeek-AI 2024, Table 2); in Qi et al.'s (2024) notation, where ``T_B`` is the
      activation gradient alone, ``(p - 1)(T_F + T_B - T_W)``, a third of 1F1B's
      ``(p - 1)(T_F + T_B + T_W)`` when ``T_F = T_B = T_W``. The simulated ZB-H1 meets it
      when ``W <= F`` and ``W <= B - W``;
    * DualPipe: ``(p/2 - 1)(F&B + B - 3W)`` (DeepSeek-AI 2024, Table 2), the bubble of
      the stages that idle longest. The simulated DualPipe meets it when the forward, the
      activation gradient and the weight gradient take equally long, ``F = B - W = W``,
      the assumption of the paper's figure, for any ``F&B``.

    Parameters
    ----------
    kind : {"gpipe", "1f1b", "interleaved", "zb-h1", "dualpipe"}
    stages : int
        p, >= 1 (even for DualPipe).
    microbatches : int, optional
        Unused: the closed forms do not depend on m. Accepted so that the arguments of
        :func:`schedule` can be passed unchanged.
    chunks, t_forward, t_backward, t_weight, t_overlap
        As in :func:`schedule`, with the same defaults.

    Returns
    -------
    float
        Same unit as the times.

    Examples
    --------
    >>> [bubble_closed_form(k, 4) for k in ("1f1b", "zb-h1", "dualpipe")]
    [9.0, 3.0, 2.0]
    """
    _check_kind(kind)
    p = int(as_count("stages", stages))
    v = int(as_count("chunks", chunks))
    tf = float(as_positive("t_forward", t_forward, "(time)"))
    tb = float(as_positive("t_backward", t_backward, "(time)"))
    tw = tb / 2 if t_weight is None else float(as_positive("t_weight", t_weight, "(time)"))
    tfb = tf + tb if t_overlap is None else float(as_positive("t_overlap", t_overlap, "(time)"))
    if kind in ("gpipe", "1f1b", "interleaved"):
        return (p - 1) * (tf + tb) / v
    if kind == "zb-h1":
        return (p - 1) * (tf + tb - 2 * tw)
    if p % 2:
        raise ValueError(f"stages={stages!r} is not allowed for DualPipe; allowed: even numbers >= 2")
    return (p // 2 - 1) * (tfb + tb - 3 * tw)


def bubble_fraction_measured(tasks):
    """Measured bubble over ideal compute time: ``(makespan - ideal) / ideal``.

    ``ideal`` is :func:`busy_time`, so with ``t_comm = 0`` this equals
    ``(p - 1) / (v m)`` (Narayanan et al. 2021, sec. 2.2), the quantity of
    :func:`interconnect.parallel.pipeline_bubble_fraction`. It is *not* the share of
    the step spent idle, which is ``bubble / (1 + bubble)``.

    Parameters
    ----------
    tasks : list of Task

    Returns
    -------
    float
        >= 0.

    Examples
    --------
    The measured bubble meets the closed form ``(p - 1) / (v m)`` of Narayanan et al. (2021):
    ``3/8`` for 1F1B, half that with two interleaved chunks:

    >>> bubble_fraction_measured(schedule("1f1b", 4, 8))
    0.375
    >>> bubble_fraction_measured(schedule("interleaved", 4, 8, chunks=2))
    0.1875
    """
    ideal = busy_time(tasks)
    return (makespan(tasks) - ideal) / ideal


def in_flight(tasks, stage=None):
    """Peak number of microbatches whose activations a stage holds at once.

    A microbatch's activations for a chunk are held from the start of its forward pass
    to the end of its backward pass on that stage. With ``v`` chunks each chunk holds
    ``1/v`` of the stage's layers, so the count is in units of one microbatch through
    the *whole stage*: ``(held chunk-microbatch pairs) / v``.

    Parameters
    ----------
    tasks : list of Task
    stage : int, optional
        One stage; default the peak over all stages (stage 0 for these schedules).

    Returns
    -------
    float
        ``m`` for GPipe, ``min(p, m)`` for 1F1B (Narayanan et al. 2021, sec. 2.2.1),
        ``p + (p - 1)/v`` for interleaved 1F1B with ``m > p``, ``p`` for ZB-H1 (Qi et al.
        2024, sec. 2.1), ``p + 1`` for DualPipe (DeepSeek-AI 2024, Table 2).

    Notes
    -----
    Where a schedule has weight-gradient tasks, a microbatch's activations are held until
    the end of its ``W`` (which needs the layer inputs), not of its ``B``. ``v`` is the
    number of chunks each microbatch passes through on the stage: ``v`` for interleaved
    1F1B, 1 for DualPipe, whose two chunks each hold a whole stage's layers and each
    microbatch passes through one of them.

    Examples
    --------
    GPipe holds all ``m = 8`` microbatches, 1F1B ``p = 4``, interleaved 1F1B ``p + (p - 1)/v``:

    >>> [in_flight(schedule(k, 4, 8, chunks=v)) for k, v in (("gpipe", 1), ("1f1b", 1), ("interleaved", 2))]
    [8.0, 4.0, 5.5]

    ZB-H1 keeps 1F1B's ``p``; DualPipe holds one more:

    >>> in_flight(schedule("zb-h1", 4, 8)), in_flight(schedule("dualpipe", 4, 8))
    (4.0, 5.0)
    """
    tasks = _check_tasks(tasks)
    visits = {}
    for t in tasks:
        visits.setdefault((t.stage, t.microbatch), set()).add(t.chunk)
    v = max(len(c) for c in visits.values())
    w_end = {(t.stage, t.microbatch, t.chunk): t.end for t in tasks if t.kind == "W"}
    stages = sorted({t.stage for t in tasks})
    if stage is not None:
        s = int(as_count("stage", stage, minimum=0))
        if s not in stages:
            raise ValueError(f"stage={stage!r} is not in the schedule; allowed 0 to {stages[-1]}")
        stages = [s]
    best = 0
    for s in stages:
        events = [(t.start, 1) if t.kind == "F" else (w_end.get((s, t.microbatch, t.chunk), t.end), -1)
                  for t in tasks if t.stage == s and t.kind != "W"]
        events.sort(key=lambda e: (e[0], e[1]))  # a release at time t before an allocation at t
        held = peak = 0
        for _, d in events:
            held += d
            peak = max(peak, held)
        best = max(best, peak)
    return best / v


def __getattr__(name):
    # the Gantt chart is drawn by the presentation layer; the old name imports it on first use
    if name == "plot_gantt":
        from .viz.timelines import plot_gantt

        return plot_gantt
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
