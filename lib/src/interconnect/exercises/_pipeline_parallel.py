"""Checkers for the chapter "Pipeline parallelism" (book/parallel/pipeline_parallel)."""

from .. import parallel
from . import Answer, exercise

CHAPTER = "book/parallel/pipeline_parallel"


def _least_m(p, v, target):
    m = p if v > 1 else 1
    while parallel.pipeline_bubble_fraction(p, m, v) > target:
        m += p if v > 1 else 1
    return m


# pp-ex-bubble: microbatches for a bubble <= 5 % with p = 16, 1F1B and interleaved v = 4
@exercise("pp-ex-bubble", CHAPTER, parts=("m_1f1b", "m_interleaved"),
          doc="least m for a bubble of at most 5 % of the ideal time, p = 16, 1F1B and interleaved v = 4")
def _pp_ex_bubble():
    p = 16
    m1, m4 = _least_m(p, 1, 0.05), _least_m(p, 4, 0.05)
    return {
        "m_1f1b": Answer(m1, "1", rtol=0, mistakes={"used p instead of p - 1": 20 * p}),
        "m_interleaved": Answer(m4, "1", rtol=0, mistakes={
            "forgot that m must be a multiple of p": (p - 1) * 20 / 4,
            "rounded down to a multiple of p: the bubble is then above 5 %": m4 - p}),
    }


# pp-ex-share: idle share of the step for an 8-stage 1F1B pipeline with 24 microbatches
@exercise("pp-ex-share", CHAPTER, doc="idle share of the step, (p-1)/(m+p-1), for p = 8, m = 24")
def _pp_ex_share():
    p, m = 8, 24
    b = parallel.pipeline_bubble_fraction(p, m)
    return Answer(b / (1 + b), "1", mistakes={"gave bubble over ideal time, (p-1)/m, not idle over total": b})
