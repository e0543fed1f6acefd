"""Design tasks: choose a configuration under constraints, graded by the library's models.

A design exercise lists the configurations a student may propose (each a word, such as
``"tp4-pp2"`` or ``"8x8 torus"``), and for each the constraints it violates (in words) and
its cost (the quantity the exercise minimises: step time, cables, bandwidth bought), all
computed by the chapter's models. :func:`design_answer` turns that into a choice
:class:`~interconnect.exercises.answers.Answer` that accepts *every* configuration that
meets the constraints and costs at most ``margin`` more than the cheapest that does; a
configuration that violates a constraint is told which one, in words; one that meets them
all but costs too much is told so. No verdict holds a number derived from the optimum.
Part of :mod:`interconnect.exercises`.
"""

from __future__ import annotations

from .answers import Answer

#: What a configuration that meets every constraint, but not within the margin, is told.
TOO_COSTLY = ("it meets every constraint, but it is not within the exercise's margin of the best "
              "configuration that does: search further")


def design_answer(options, cost, margin, too_costly=TOO_COSTLY):
    """A choice :class:`Answer` accepting every configuration within ``margin`` of the best.

    Parameters
    ----------
    options : dict
        ``{configuration: [violated constraint, ...]}``; an empty list means it meets them all.
    cost : dict
        ``{configuration: cost}`` for at least every configuration that meets the constraints;
        lower is better.
    margin : float
        Relative margin, 0 <= margin < 1: a feasible configuration with cost at most
        ``(1 + margin)`` times the lowest feasible cost is right.
    too_costly : str
        The explanation for a feasible configuration outside the margin.

    Returns
    -------
    Answer
        ``value`` is the cheapest feasible configuration, ``accept`` the others within the
        margin, ``mistakes`` each other configuration's explanation (its violated
        constraints joined by "; ").
    """
    if not (0 <= margin < 1):
        raise ValueError(f"margin={margin!r} is out of range; expected 0 <= margin < 1")
    feasible = [c for c, why in options.items() if not why]
    if not feasible:
        raise ValueError("no configuration meets the constraints; a design exercise needs at least one")
    best = min(feasible, key=lambda c: (cost[c], list(options).index(c)))
    ok = [c for c in feasible if cost[c] <= (1 + margin) * cost[best]]
    mistakes = {c: "; ".join(why) for c, why in options.items() if why}
    mistakes.update({c: too_costly for c in feasible if c not in ok})
    return Answer(best, choices=tuple(options), accept=tuple(c for c in ok if c != best), mistakes=mistakes)
