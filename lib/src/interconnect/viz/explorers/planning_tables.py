"""Table and glue helpers of the chapter "Planning a training run" (book/parallel/planning).

Presentation only: short layout labels for narrow tables, and the glued facts of a plan's
winner. The planner itself is :func:`interconnect.parallel.plan`.
"""

from __future__ import annotations

from ...book import glue
from ...units import GB

__all__ = ["short_layout", "glue_best"]


def short_layout(lay):
    """``dp×tp×pp`` and the microbatch (and ``ep`` when > 1), for narrow tables.

    Examples
    --------
    >>> from interconnect.parallel import Layout
    >>> short_layout(Layout(dp=4, tp=8, pp=2, microbatch=2)), short_layout(Layout(dp=8, tp=1, pp=1, ep=4))
    ('4×8×2, b=2', '8×1×1, ep=4')
    """
    return (f"{lay.dp}×{lay.tp}×{lay.pp}" + (f", b={lay.microbatch}" if lay.microbatch > 1 else "")
            + (f", ep={lay.ep}" if lay.ep > 1 else ""))


def glue_best(prefix, p):
    """Glue the winner of a :class:`~interconnect.parallel.Plan` under ``prefix + "_layout"``,
    ``_step``, ``_mfu``, ``_mem``, ``_dominant``, ``_tp_share`` and ``_bubble_share``
    (:func:`interconnect.book.glue`, as formatted text)."""
    lay, st, mem = p.best
    glue(prefix + "_layout", lay.label())
    glue(prefix + "_step", f"{st.total:.1f} s")
    glue(prefix + "_mfu", f"{100 * st.mfu:.1f} %")
    glue(prefix + "_mem", f"{mem / GB:.1f} GB")
    glue(prefix + "_dominant", st.dominant_overhead().replace("_", " "))
    sh = st.shares()
    glue(prefix + "_tp_share", f"{100 * sh['tp_comm']:.0f} %")
    glue(prefix + "_bubble_share", f"{100 * sh['bubble']:.0f} %")
