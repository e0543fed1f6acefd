"""Pipeline schedules as data: GPipe, 1F1B (PipeDream-Flush) and interleaved 1F1B.

A schedule is a list of :class:`Task` records, one per forward (``"F"``) or backward
(``"B"``) pass of one microbatch through one model chunk on one pipeline stage, with its
start and end time. The times are not drawn by hand: :func:`schedule` fixes, for every
stage, the *order* in which the schedule runs its tasks, and then simulates the
dependencies

* the forward pass of a microbatch on stage ``s`` starts after its forward pass on
  stage ``s - 1`` has ended, plus ``t_comm`` to send the activations across;
* its backward pass on stage ``s`` starts after its backward pass on stage ``s + 1``
  has ended, plus ``t_comm`` to send the gradient back; on the last stage after its own
  forward pass;
* a stage runs one task at a time, in the schedule's order.

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
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._validate import as_count, as_nonnegative, as_positive

__all__ = ["KINDS", "Task", "schedule", "stage_order", "makespan", "exposed_transfers", "busy_time",
           "bubble_fraction_measured",
           "in_flight"]

#: Schedule kinds :func:`schedule` knows.
KINDS = ("gpipe", "1f1b", "interleaved")


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
        Model chunk on that stage, 0 to ``v - 1`` (always 0 unless interleaved).
    kind : {"F", "B"}
        Forward or backward pass.
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
    if kind not in KINDS:
        raise ValueError(f"kind={kind!r} is unknown; allowed: {', '.join(KINDS)}")


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
          Megatron-LM's ``forward_backward_pipelining_with_interleaving``).
    stages : int
        p, >= 1.
    microbatches : int
        m, >= 1; a multiple of ``p`` for ``"interleaved"``.
    chunks : int
        v, >= 1; must be 1 unless ``kind == "interleaved"``.

    Returns
    -------
    list of list of tuple
        ``order[s]`` is stage ``s``'s tasks as ``(kind, microbatch, chunk)``.

    Examples
    --------
    1F1B on 2 stages with 3 microbatches: stage 0 warms up with one extra forward pass, then
    alternates:

    >>> stage_order("1f1b", 2, 3)[0]
    [('F', 0, 0), ('F', 1, 0), ('B', 0, 0), ('F', 2, 0), ('B', 1, 0), ('B', 2, 0)]
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


def schedule(kind, stages, microbatches, chunks=1, t_forward=1.0, t_backward=2.0, t_comm=0.0):
    """Simulate a pipeline schedule and return its tasks with start and end times.

    Parameters
    ----------
    kind : {"gpipe", "1f1b", "interleaved"}
        The schedule; see :func:`stage_order` for the order each stage follows.
    stages : int
        Pipeline stages p, >= 1.
    microbatches : int
        Microbatches per step m, >= 1 (a multiple of ``p`` for ``"interleaved"``).
    chunks : int
        Model chunks per stage v of the interleaved schedule, >= 1 (1 for the others).
    t_forward, t_backward : float
        Forward and backward time of one microbatch through one *whole stage*, > 0
        (any time unit; the default 1 : 2 is the usual ratio, the backward pass doing
        twice the matrix multiplications). With ``v`` chunks each chunk takes ``1/v``
        of it.
    t_comm : float
        Time to send one microbatch's activations (forward) or gradients (backward) from
        one stage to the next, >= 0, same unit. Transfers run beside compute (a stage
        may compute while its sends are in flight); each one delays only the task that
        waits for it.

    Returns
    -------
    list of Task
        Sorted by stage, then start time.

    Raises
    ------
    ValueError
        Naming the parameter, its value and the allowed range.

    References
    ----------
    Huang et al. (2019); Narayanan et al. (2021), sec. 2.2.

    Examples
    --------
    >>> tasks = schedule("1f1b", 4, 8)           # p = 4 stages, m = 8 microbatches
    >>> len(tasks), makespan(tasks)             # 2 p m tasks; (m + p - 1) (t_f + t_b)
    (64, 33.0)
    """
    order = stage_order(kind, stages, microbatches, chunks)
    tf = float(as_positive("t_forward", t_forward, "(time)"))
    tb = float(as_positive("t_backward", t_backward, "(time)"))
    tc = float(as_nonnegative("t_comm", t_comm, "(time)"))
    if np.ndim(t_forward) or np.ndim(t_backward) or np.ndim(t_comm):
        raise ValueError("t_forward, t_backward and t_comm must be single numbers, not arrays")
    p, v = len(order), int(chunks)
    dur = {"F": tf / v, "B": tb / v}
    end = {}  # (kind, stage, microbatch, chunk) -> end time
    free = [0.0] * p
    nxt = [0] * p
    tasks = []
    remaining = sum(len(o) for o in order)

    def deps(k, s, j, c):
        """(key, crosses a link) of each task that must end first."""
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
                d = deps(k, s, j, c)
                if any(key not in end for key, _ in d):
                    break
                ready = max([end[key] + (tc if cross else 0.0) for key, cross in d], default=0.0)
                start = max(free[s], ready)
                stop = start + dur[k]
                end[(k, s, j, c)] = stop
                free[s] = stop
                tasks.append(Task(s, j, c, k, start, stop))
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


def busy_time(tasks):
    """Compute time of the busiest stage: the ideal step time with no bubble.

    For the schedules of :func:`schedule` every stage is equally busy,
    ``m (t_forward + t_backward)``.

    Examples
    --------
    >>> busy_time(schedule("1f1b", 4, 8))        # m (t_f + t_b) = 8 x 3
    24.0
    """
    tasks = _check_tasks(tasks)
    per = {}
    for t in tasks:
        per[t.stage] = per.get(t.stage, 0.0) + t.duration
    return max(per.values())


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
        ``p + (p - 1)/v`` for interleaved 1F1B with ``m > p``.

    Examples
    --------
    GPipe holds all ``m = 8`` microbatches, 1F1B ``p = 4``, interleaved 1F1B ``p + (p - 1)/v``:

    >>> [in_flight(schedule(k, 4, 8, chunks=v)) for k, v in (("gpipe", 1), ("1f1b", 1), ("interleaved", 2))]
    [8.0, 4.0, 5.5]
    """
    tasks = _check_tasks(tasks)
    v = max(t.chunk for t in tasks) + 1
    stages = sorted({t.stage for t in tasks})
    if stage is not None:
        s = int(as_count("stage", stage, minimum=0))
        if s not in stages:
            raise ValueError(f"stage={stage!r} is not in the schedule; allowed 0 to {stages[-1]}")
        stages = [s]
    best = 0
    for s in stages:
        events = [(t.start, 1) if t.kind == "F" else (t.end, -1) for t in tasks if t.stage == s]
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
