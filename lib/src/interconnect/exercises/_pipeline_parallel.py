"""Checkers for the chapter "Pipeline parallelism" (book/parallel/pipeline_parallel)."""

from dataclasses import replace

import numpy as np

from .. import links, parallel, pipeline
from . import Answer, coding_exercise, exercise
from .coding import case, seed_variant

CHAPTER = "book/parallel/pipeline_parallel"


def _least_m(p, v, target):
    m = p if v > 1 else 1
    while parallel.pipeline_bubble_fraction(p, m, v) > target:
        m += p if v > 1 else 1
    return m


# pp-ex-bubble: microbatches for a bubble <= 5 % with p = 16, 1F1B and interleaved v = 4
def _vary_bubble(rng):
    """Per-student numbers: pipeline stages and the largest bubble allowed (a fraction of the ideal time)."""
    return {"stages": int(rng.choice([8, 12, 16, 24, 32])), "max_bubble": float(rng.choice([0.04, 0.05, 0.1]))}


@exercise("pp-ex-bubble", CHAPTER, parts=("m_1f1b", "m_interleaved"), variants=_vary_bubble,
          doc="least m for a bubble of at most 5 % of the ideal time, p = 16, 1F1B and interleaved v = 4")
def _pp_ex_bubble(stages=16, max_bubble=0.05):
    p, x = stages, max_bubble
    m1, m4 = _least_m(p, 1, x), _least_m(p, 4, x)
    no_multiple = int(np.ceil((p - 1) / (4 * x) - 1e-9))
    mistakes_4 = {"rounded down to a multiple of p: the bubble is then above the limit": m4 - p}
    if no_multiple != m4:
        mistakes_4["forgot that m must be a multiple of p"] = no_multiple
    return {
        "m_1f1b": Answer(m1, "1", rtol=0, mistakes={"used p instead of p - 1": int(np.ceil(p / x - 1e-9))}),
        "m_interleaved": Answer(m4, "1", rtol=0, mistakes=mistakes_4),
    }


# pp-ex-share: idle share of the step for an 8-stage 1F1B pipeline with 24 microbatches
def _vary_share(rng):
    """Per-student numbers: pipeline stages and microbatches per step."""
    return {"stages": int(rng.choice([4, 8, 12, 16])), "microbatches": int(rng.choice([8, 16, 24, 32, 48, 64]))}


@exercise("pp-ex-share", CHAPTER, variants=_vary_share, doc="idle share of the step, (p-1)/(m+p-1), for p = 8, m = 24")
def _pp_ex_share(stages=8, microbatches=24):
    p, m = stages, microbatches
    b = parallel.pipeline_bubble_fraction(p, m)
    return Answer(b / (1 + b), "1", mistakes={"gave bubble over ideal time, (p-1)/m, not idle over total": b})


# ---- the chapter's state, rebuilt as its setup cells build it ------------------------

def _gpt3_175b():
    """The 175B validation row of the chapter: model, layout, m, and t_micro on Cluster.dgx_a100()."""
    row = next(r for r in parallel.VALIDATION_ROWS if r.name == "175B selective")
    model, layout = row.model, parallel.validation_layout(row)
    m = layout.microbatches(model.global_batch)
    step = parallel.step_time(model, layout, parallel.Cluster.dgx_a100())
    t_micro = (step.compute + step.tp_comm) / m   # one microbatch through one stage, forward + backward
    return model, layout, m, t_micro


def _exposed_transfers(kind, p, m, v=1, tf=1.0, dc=1e-3):
    """How many transfer times the makespan grows by, per unit of t_comm (the chapter's slope)."""
    a = pipeline.makespan(pipeline.schedule(kind, p, m, chunks=v, t_forward=tf, t_backward=2 * tf))
    b = pipeline.makespan(pipeline.schedule(kind, p, m, chunks=v, t_forward=tf, t_backward=2 * tf, t_comm=dc))
    return (b - a) / dc


# pp-ex-bytes: bytes across one stage boundary per step, per direction, whole tensor and per GPU with s/g
@exercise("pp-ex-bytes", CHAPTER, parts=("whole", "per_gpu_sg", "time_whole", "time_sg"),
          doc="bytes per step and direction across one stage boundary of the 175B example, whole tensor and per GPU "
              "with scatter/gather, and their times (s) on one HDR card at its per-direction peak")
def _pp_ex_bytes():
    model, layout, m, _ = _gpt3_175b()
    hdr = links.get_link("ib-hdr")
    one = 2 * model.seq_len * layout.microbatch * model.hidden      # 2sbh, one microbatch
    out = {}
    for part, nbytes in (("whole", m * one), ("per_gpu_sg", m * one / layout.tp)):
        out[part] = Answer(nbytes, "B", mistakes={
            "added both directions: forward activations and backward gradients each cross once per direction":
                2 * nbytes,
            "counted one microbatch, not all m of the step": nbytes / m,
            "counted elements (sbh), not 2-byte BF16 values": nbytes / 2})
        t = nbytes / hdr.bandwidth
        out["time_" + ("whole" if part == "whole" else "sg")] = Answer(t, "s", mistakes={
            "ran the link at the calibrated comm efficiency; the exercise asks for the peak":
                t / parallel.CALIBRATED_COMM_EFFICIENCY,
            "timed one microbatch, not all m of the step": t / m})
    return out


# pp-ex-memory: microbatches each stage of a p = 8, m = 64 1F1B pipeline holds at its peak
@exercise("pp-ex-memory", CHAPTER,
          doc="peak microbatches in flight on each stage 0..7 of a 1F1B pipeline with p = 8, m = 64 (an array)")
def _pp_ex_memory():
    p, m = 8, 64
    tasks = pipeline.schedule("1f1b", p, m)
    held = [pipeline.in_flight(tasks, stage=s) for s in range(p)]
    return Answer(held, "1", rtol=0, mistakes={
        "counted only the p - s - 1 warm-up forward passes, not the one that starts the steady state":
            [p - s - 1 for s in range(p)],
        "took GPipe's m microbatches on every stage": [m] * p,
        "gave every stage stage 0's p microbatches": [p] * p})


# pp-ex-faster-gpu: 1F1B bubble with 4x faster GPUs, whole tensor, on HDR and 100 Gb/s Ethernet
@exercise("pp-ex-faster-gpu", CHAPTER, parts=("bubble_hdr", "bubble_eth", "closed_form"),
          doc="measured 1F1B bubble (bubble / ideal compute, a fraction) of the 175B example with t_micro / 4, "
              "no scatter/gather, on HDR and on 100 Gb/s Ethernet, and the closed form (p-1)/m")
def _pp_ex_faster_gpu():
    model, layout, m, t_micro = _gpt3_175b()

    def bubble(name, tm, sg=False):
        cl = parallel.Cluster.dgx_a100(nodes_link=name)
        tc = parallel.pp_comm_time(model, replace(layout, scatter_gather=sg), cl) / (2 * m)
        tasks = pipeline.schedule("1f1b", layout.pp, m, t_forward=tm / 3, t_backward=2 * tm / 3, t_comm=tc)
        return pipeline.bubble_fraction_measured(tasks)

    out = {}
    for part, name in (("bubble_hdr", "ib-hdr"), ("bubble_eth", "eth-100g")):
        out[part] = Answer(bubble(name, t_micro / 4), "1", mistakes={
            "kept the scatter/gather optimisation; the exercise sends the whole tensor":
                bubble(name, t_micro / 4, True),
            "forgot to make the GPUs faster (t_micro, not t_micro / 4)": bubble(name, t_micro)})
    b = parallel.pipeline_bubble_fraction(layout.pp, m)
    out["closed_form"] = Answer(b, "1", mistakes={
        "gave idle over total, (p-1)/(m+p-1), not bubble over ideal time": b / (1 + b),
        "used p instead of p - 1": layout.pp / m})
    return out


# pp-ex-slope: exposed transfers per step (slope of makespan in t_comm), p = 4, m = 4, 8, 16
_SLOPE_M = (4, 8, 16)


@exercise("pp-ex-slope", CHAPTER, parts=("gpipe", "1f1b", "interleaved", "depends_on_m"),
          doc="slope of pipeline.makespan in t_comm (transfer times per step) for p = 4 and m = 4, 8, 16 (arrays), "
              "GPipe, 1F1B and interleaved v = 2; which schedule's slope grows with m")
def _pp_ex_slope():
    p = 4
    slopes = {kind: [round(_exposed_transfers(kind, p, mm, 2 if kind == "interleaved" else 1)) for mm in _SLOPE_M]
              for kind in pipeline.KINDS}
    grows = [kind for kind, s in slopes.items() if len(set(s)) > 1]
    assert len(grows) == 1, slopes
    all_msgs = {kind: [2 * mm * (2 if kind == "interleaved" else 1) for mm in _SLOPE_M] for kind in pipeline.KINDS}
    out = {
        "gpipe": Answer(slopes["gpipe"], "1", mistakes={
            "counted the fill only (p - 1), not the fill and the drain": [p - 1] * len(_SLOPE_M),
            "counted every one of the 2m transfers, as step_time charges them": all_msgs["gpipe"]}),
        "1f1b": Answer(slopes["1f1b"], "1", mistakes={
            "took GPipe's 2(p-1) for every schedule": [2 * (p - 1)] * len(_SLOPE_M),
            "counted every one of the 2m transfers, as step_time charges them": all_msgs["1f1b"]}),
        "interleaved": Answer(slopes["interleaved"], "1", mistakes={
            "counted every one of the 2mv transfers: the warm-up slack hides many of them": all_msgs["interleaved"],
            "took 1F1B's slope": slopes["1f1b"]}),
    }
    why = {"gpipe": "GPipe pays only the fill and the drain, 2(p-1) transfers, whatever m is",
           "interleaved": "interleaving sends v times the messages, but its warm-up slack keeps its slope constant "
                          "for short transfers",
           "1f1b": "1F1B's steady state waits for a transfer before nearly every pass, so its slope grows with m"}
    out["depends_on_m"] = Answer(grows[0], choices=pipeline.KINDS,
                                 mistakes={k: v for k, v in why.items() if k != grows[0]})
    return out


# pp-ex-code: write the bubble fraction of GPipe/1F1B and interleaved 1F1B; graded against the library's
_BUBBLE_KINDS = {
    "one_stage": "the pipeline has one stage",
    "plain": "the schedule is not interleaved (v = 1)",
    "few": "there are fewer microbatches than stages",
    "interleaved": "the schedule is interleaved (v > 1)",
    "bad_count": "p, m or v is not a whole number of at least 1",
    "bad_interleave": "the schedule is interleaved and m is not a multiple of p",
}
_BUBBLE_MISTAKES = {
    "gave the bubble as a fraction of the whole step (bubble over bubble plus work), not of the ideal time":
        lambda p, m, v: (p - 1) / (v * m + p - 1),
    "ignored the chunks: interleaving divides the bubble by v": lambda p, m, v: (p - 1) / m,
    "counted p bubbles per stage instead of p - 1": lambda p, m, v: p / (v * m),
}


@coding_exercise("pp-ex-code", CHAPTER, "bubble_fraction(p, m, v=1)", _BUBBLE_KINDS, unit="1", rtol=1e-6,
                 variants=seed_variant,
                 doc="a function returning the pipeline bubble over the ideal compute time for p stages, m "
                     "microbatches and v chunks per stage (1F1B, interleaved when v > 1); ValueError on invalid input")
def _pp_ex_code(seed=0):
    def ok(p, m, v):
        kind = "one_stage" if p == 1 else "interleaved" if v > 1 else "few" if m < p else "plain"
        return case(kind, (p, m, v), parallel.pipeline_bubble_fraction(p, m, v), "1",
                    {d: f(p, m, v) for d, f in _BUBBLE_MISTAKES.items()}, rtol=1e-6)

    cases = [ok(1, 8, 1), ok(4, 16, 1), ok(8, 64, 1), ok(8, 4, 1), ok(16, 1, 1), ok(4, 16, 2), ok(16, 32, 4)]
    rng = np.random.default_rng(seed)
    for _ in range(4):
        p = int(rng.choice([2, 4, 6, 8, 12, 16, 32]))
        v = int(rng.choice([1, 2, 3, 4]))
        m = p * int(rng.integers(1, 9)) if v > 1 else int(rng.integers(1, 129))
        cases.append(ok(p, m, v))
    cases += [case(k, args, raises=True) for k, args in (
        ("bad_count", (0, 8, 1)), ("bad_count", (4, 0, 1)), ("bad_count", (4, 8, 0)), ("bad_count", (4, 8.5, 1)),
        ("bad_interleave", (4, 6, 2)), ("bad_interleave", (8, 12, 4)))]
    return cases
