"""What a pipeline schedule costs: makespan, busy and bubble time, exposed transfers,
activations in flight.

See :mod:`interconnect.pipeline` for the model and its references.
"""

from __future__ import annotations

from .._validate import as_count, as_positive
from .schedules import Task, _check_kind, schedule

__all__ = ["makespan", "exposed_transfers", "busy_time", "bubble_time", "bubble_closed_form",
           "bubble_fraction_measured", "in_flight"]


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
