"""Checkers for the chapter "The three walls" (book/why/three_walls)."""

from .. import devices, links, memory, parallel
from . import Answer, exercise

CHAPTER = "book/why/three_walls"
_US = 1e-6


def _f_h100():
    """The chapter's F_H100: the H100's measured GEMM ceiling, the fraction of peak its kernels reach."""
    return parallel.ceiling_fraction("H100")


# walls-ex-memory: model states of a 13B model, in total and per GPU with ZeRO-2 over 8 GPUs
@exercise("walls-ex-memory", CHAPTER, parts=("total", "zero2_per_gpu", "fits_v100"),
          doc="bytes of model states in total and per GPU with ZeRO stage 2 over 8 GPUs; "
              "whether that fits a 32 GB V100")
def _walls_ex_memory():
    total = memory.training_memory(13e9)["total"]
    stage2 = memory.training_memory(13e9, dp=8, zero_stage=2)["total"]
    stage3 = memory.training_memory(13e9, dp=8, zero_stage=3)["total"]
    fits = "yes" if stage2 < devices.get_gpu("V100").memory else "no"
    return {
        "total": Answer(total, "B", mistakes={
            "counted only the 16-bit weights and gradients (4Ψ), not Adam's 12Ψ": 4 * 13e9}),
        "zero2_per_gpu": Answer(stage2, "B", mistakes={
            "split everything by 8 (that is stage 3)": stage3,
            "split nothing (that is plain data parallelism)": total}),
        "fits_v100": Answer(fits, choices=("yes", "no"), mistakes={
            {"yes": "no", "no": "yes"}[fits]: "compare 2Ψ + 14Ψ/8 with 32 GB: stage 2 keeps the 16-bit weights whole"}),
    }


# walls-ex-compute: days to train 7B on 2T tokens on 512 H100s at 40 % and 50 % MFU
@exercise("walls-ex-compute", CHAPTER, parts=("days_40", "days_50"),
          doc="training time in days at 40 % and 50 % MFU")
def _walls_ex_compute():
    flops = parallel.model_flops_per_token(7e9) * 2e12
    peak = devices.get_gpu("H100").peak_flops
    out = {}
    for part, u in (("days_40", 0.4), ("days_50", 0.5)):
        d = flops / (512 * u * peak) / 86400
        out[part] = Answer(d, "1", mistakes={
            "used 2N FLOPs per token (forward only) instead of 6N": d / 3,
            "used the sparse peak, twice the dense figure": d / 2,
            "left the answer in seconds or hours instead of days": d * 24})
    return out


# walls-ex-overlap: efficiency and speedup of a 300 ms + 120 ms step on 16 GPUs, with and without overlap
@exercise("walls-ex-overlap", CHAPTER,
          parts=("efficiency", "speedup", "efficiency_half", "speedup_half", "min_overlap"),
          doc="efficiency and 16-GPU speedup without and with 50 % overlap, "
              "and the smallest overlap that hides the AllReduce")
def _walls_ex_overlap():
    e0 = parallel.efficiency(0.300, 0.120, overlap=0.0)
    e5 = parallel.efficiency(0.300, 0.120, overlap=0.5)
    wrong = 0.300 / 0.120  # comm / compute inverted
    return {
        "efficiency": Answer(e0, "1", mistakes={
            "took the communication share 120/420 or 1 − 120/300": 1 - 0.120 / 0.300}),
        "speedup": Answer(16 * e0, "1", mistakes={"forgot the efficiency: 16 GPUs give 16 × efficiency": 16.0}),
        "efficiency_half": Answer(e5, "1", mistakes={"left the step without overlap": e0}),
        "speedup_half": Answer(16 * e5, "1", mistakes={"left the step without overlap": 16 * e0}),
        "min_overlap": Answer(0.120 / 0.300, "1", mistakes={
            "inverted the ratio (compute over communication)": wrong,
            "took the communication share of the step, 120/420": 0.120 / 0.420}),
    }


# walls-ex-mfu: PaLM 540B MFU with 6N and with the attention term
@exercise("walls-ex-mfu", CHAPTER, parts=("mfu_6n", "mfu_attention"),
          doc="MFU of PaLM 540B with 6N FLOPs per token and with the attention term")
def _walls_ex_mfu():
    f6n = parallel.model_flops_per_token(540e9)
    fatt = parallel.model_flops_per_token(540e9, n_layers=118, d_model=48 * 256, seq_len=2048)
    m6 = parallel.mfu(238.3e3, f6n, 6144, 275e12)
    ma = parallel.mfu(238.3e3, fatt, 6144, 275e12)
    return {
        "mfu_6n": Answer(m6, "1", rtol=0.002, mistakes={"used 2N (forward only) instead of 6N": m6 / 3}),
        "mfu_attention": Answer(ma, "1", rtol=0.002, mistakes={
            "left out the attention term": m6, "used 2N (forward only) instead of 6N": ma / 3}),
    }


# walls-ex-bandwidth: per-direction bandwidth per GPU for 90 % efficiency in the worked example
@exercise("walls-ex-bandwidth", CHAPTER, parts=("bandwidth",),
          doc="per-direction bandwidth per GPU (B/s) that gives 90 % efficiency without overlap")
def _walls_ex_bandwidth():
    peak, f = devices.get_gpu("H100").peak_flops, _f_h100()
    r = parallel.dp_step(7e9, 8, 4 * 4096, peak, 1e12, 5 * _US, gemm_efficiency=f)
    budget = r["compute"] / 9 - 2 * 7 * 5 * _US
    b = 2 * 7 / 8 * 2 * 7e9 / budget
    assert abs(parallel.dp_step(7e9, 8, 4 * 4096, peak, b, 5 * _US, gemm_efficiency=f)["efficiency"] - 0.9) < 1e-3
    assert links.catalog()
    return {"bandwidth": Answer(b, "B/s", mistakes={
        "gave the bidirectional figure (both directions added)": 2 * b,
        "forgot the factor 2 of a ring AllReduce (ReduceScatter + AllGather)": b / 2,
        "allowed T_compute/10 instead of T_compute/9 for 90 % efficiency":
            2 * 7 / 8 * 2 * 7e9 / (r["compute"] / 10 - 2 * 7 * 5 * _US)})}


# walls-ex-strong: strong scaling of the 7B model over NVLink 4, 2 to 64 GPUs
@exercise("walls-ex-strong", CHAPTER, parts=("efficiency_64", "speedup_64"),
          doc="efficiency and speedup on 64 GPUs with the global batch fixed at 16 × 4,096 tokens")
def _walls_ex_strong():
    peak, bw = devices.get_gpu("H100").peak_flops, links.get_link("nvlink4").bandwidth
    f = _f_h100()
    r = parallel.dp_step(7e9, 64, 16 * 4096 / 64, peak, bw, 5 * _US, gemm_efficiency=f)
    weak = parallel.dp_step(7e9, 64, 16 * 4096, peak, bw, 5 * _US, gemm_efficiency=f)
    bidir = parallel.dp_step(7e9, 64, 16 * 4096 / 64, peak, 2 * bw, 5 * _US, gemm_efficiency=f)
    return {
        "efficiency_64": Answer(r["efficiency"], "1", mistakes={
            "kept the tokens per GPU fixed (weak scaling)": weak["efficiency"],
            "used the bidirectional NVLink figure": bidir["efficiency"]}),
        "speedup_64": Answer(r["speedup"], "1", mistakes={
            "kept the tokens per GPU fixed (weak scaling)": weak["speedup"],
            "used the bidirectional NVLink figure": bidir["speedup"]}),
    }


# walls-ex-design: the slowest (cheapest) link of a list that keeps data-parallel efficiency above a target
DESIGN_LINKS = ("pcie4x16", "ib-hdr", "ib-ndr", "pcie5x16", "ib-xdr", "pcie6x16", "nvlink2", "nvlink3", "nvlink4",
                "nvlink5")


def _vary_design(rng):
    """Per-student numbers: GPUs, sequences of 4,096 tokens per GPU per step, and the efficiency target."""
    while True:
        v = {"gpus": int(rng.choice([8, 16, 32, 64])), "sequences": int(rng.choice([1, 2, 4, 8])),
             "target": float(rng.choice([0.8, 0.85, 0.9]))}
        eff = _design_efficiency(v["gpus"], v["sequences"], "nvlink5")
        if eff >= v["target"] and _design_efficiency(v["gpus"], v["sequences"], "pcie4x16") < v["target"]:
            return v


def _design_efficiency(gpus, sequences, name):
    link = links.get_link(name)
    return parallel.dp_step(7e9, gpus, sequences * 4096, devices.get_gpu("H100").peak_flops, link.bandwidth,
                            link.latency, gemm_efficiency=_f_h100())["efficiency"]


@exercise("walls-ex-design", CHAPTER, variants=_vary_design,
          doc="the slowest link of the list that keeps the 7B model's data-parallel efficiency at or above the "
              "target on 16 H100s with 2 x 4,096 tokens per GPU (each link's catalog bandwidth and latency)")
def _walls_ex_design(gpus=16, sequences=2, target=0.85):
    from .design import design_answer

    options, cost = {}, {}
    for name in DESIGN_LINKS:
        eff = _design_efficiency(gpus, sequences, name)
        options[name] = [] if eff >= target else [
            "with this link the efficiency stays below the target: the AllReduce takes too long next to the compute"]
        cost[name] = links.get_link(name).bandwidth
    return design_answer(options, cost, 0.10, too_costly=(
        "this link keeps the efficiency above the target, but a slower (cheaper) link of the list does too"))
