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

from .analysis import (
    bubble_closed_form,
    bubble_fraction_measured,
    bubble_time,
    busy_time,
    exposed_transfers,
    in_flight,
    makespan,
)
from .schedules import KINDS, SPLIT_KINDS, Task, schedule, stage_order

__all__ = ["KINDS", "SPLIT_KINDS", "Task", "schedule", "stage_order", "makespan", "exposed_transfers",
           "busy_time", "bubble_time", "bubble_closed_form", "bubble_fraction_measured",
           "in_flight"]


def __getattr__(name):
    # the Gantt chart is drawn by the presentation layer; the old name imports it on first use
    if name == "plot_gantt":
        from ..viz.timelines import plot_gantt

        return plot_gantt
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
