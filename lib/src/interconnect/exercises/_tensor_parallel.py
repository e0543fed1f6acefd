"""Checkers for the chapter "Tensor parallelism" (book/parallel/tensor_parallel)."""

from dataclasses import replace

from .. import applications as A
from .. import collectives as C
from .. import devices, links, memory, scenarios
from .. import parallel as P
from ..units import GiB
from . import Answer, exercise

CHAPTER = "book/parallel/tensor_parallel"


# tp-ex-bytes: Llama 2 70B TP AllReduce message, its time on NVLink 4, latency- or bandwidth-bound
def _vary_tp_bytes(rng):
    """Per-student numbers: the sequence length s and hidden size h (microbatch 1, t = 8)."""
    return {"s": int(rng.choice([2048, 4096, 8192])), "h": int(rng.choice([4096, 5120, 8192, 12288]))}


@exercise("tp-ex-bytes", CHAPTER, parts=("message", "time", "bound"), variants=_vary_tp_bytes,
          doc="bytes of one TP AllReduce (2sbh), its ring time on NVLink 4 (s), latency- or bandwidth-bound")
def _tp_ex_bytes(s=4096, h=8192):
    nv4 = links.get_link("nvlink4")
    n = 2 * s * 1 * h
    a, b, _ = C.cost_terms("allreduce", 8, "ring")
    t = C.collective_time("allreduce", n, 8, nv4.bandwidth, nv4.latency)
    bound = "bandwidth" if b * n / nv4.bandwidth > a * nv4.latency else "latency"
    return {
        "message": Answer(n, "B", rtol=0, mistakes={"counted elements (sbh), not 2-byte BF16 values": n // 2}),
        # "at the link's peak" also reads as the bandwidth term alone: the tolerance accepts both readings
        "time": Answer(t, "s", rtol=max(0.02, 1.2 * a * nv4.latency / t), mistakes={
            "used n/B (one send) instead of the ring's 2(t-1)/t n/B": n / nv4.bandwidth + a * nv4.latency,
            "used the bidirectional bandwidth: a ring sends one way per link":
                a * nv4.latency + b * n / (2 * nv4.bandwidth)}),
        "bound": Answer(bound, choices=("latency", "bandwidth"), mistakes={
            ("latency" if bound == "bandwidth" else "bandwidth"): "compare a·α with b·n/B from cost_terms"}),
    }


# tp-ex-crossover: ring AllReduce crossover size on NVLink 4, PCIe 5.0 x16, NDR for a 2-GPU group (the chapter
# gives the 8-GPU crossovers; 4 and 16 GPUs would repeat them, NVLink 4 having twice NDR's alpha * B)
def _vary_crossover(rng):
    """Per-student numbers: the size of the tensor-parallel group."""
    return {"gpus": int(rng.choice([3, 6, 12, 32]))}


@exercise("tp-ex-crossover", CHAPTER, parts=("nvlink4", "pcie5", "ndr"), variants=_vary_crossover,
          doc="message size (B) where the 2-GPU ring AllReduce's latency and bandwidth terms are equal")
def _tp_ex_crossover(gpus=2):
    a, b, _ = C.cost_terms("allreduce", gpus, "ring")
    a8, b8, _ = C.cost_terms("allreduce", 8, "ring")
    out = {}
    for part, name in (("nvlink4", "nvlink4"), ("pcie5", "pcie5x16"), ("ndr", "ib-ndr")):
        link = links.get_link(name)
        ns = a * link.latency * link.bandwidth / b
        out[part] = Answer(ns, "B", mistakes={
            "forgot the ring coefficients (took n* = αB)": link.latency * link.bandwidth,
            "kept the chapter's 8 GPUs: the crossover n* = p α B grows with the group":
                a8 * link.latency * link.bandwidth / b8} if gpus != 8 else {
            "forgot the ring coefficients (took n* = αB)": link.latency * link.bandwidth})
    return out


# ---- the chapter's state: the scenario its setup cells use too ----------------------

def _gpt3():
    return scenarios.tensor_parallel().model


def _layout(**kw):
    return replace(scenarios.tensor_parallel().layout, **kw)


def _machine(name):
    return scenarios.tensor_parallel().machines[name]


# tp-ex-count: TP AllReduce-equivalents per GPU per step for GPT-3 175B with 16 pipeline stages (the chapter
# counts p = 8; p = 12 would give its count again, for full recomputation), selective and full
# recomputation, and the TP time with full recomputation
def _vary_count(rng):
    """Per-student numbers: the number of pipeline stages (a divisor of GPT-3's 96 layers)."""
    return {"pp": int(rng.choice([4, 6, 24, 32]))}


@exercise("tp-ex-count", CHAPTER, parts=("selective", "full", "time_full"), variants=_vary_count,
          doc="TP AllReduce(-equivalent)s one GPU runs per step, GPT-3 175B, t = 8, p = 16, m = 64, selective and "
              "full recomputation (counts), and tp_comm_time with full recomputation (s)")
def _tp_ex_count(pp=16):
    gpt3, dgx = _gpt3(), _machine("DGX A100, NVLink 3")
    sel, full = _layout(pp=pp), _layout(pp=pp, recompute="full")
    m = sel.microbatches(gpt3.global_batch)
    # one AllReduce of 2sbh bytes as the machine prices it (Cluster.collective_time: on this calibrated
    # DGX A100 a ring at the fitted NVLink 3 rate); tp_comm_time is a whole number of them
    n_tp = 2 * gpt3.seq_len * sel.microbatch * gpt3.hidden
    one = dgx.collective_time("allreduce", n_tp, sel.tp)
    t_sel, t_full = P.tp_comm_time(gpt3, sel, dgx), P.tp_comm_time(gpt3, full, dgx)
    n_sel, n_full = round(t_sel / one), round(t_full / one)
    return {
        "selective": Answer(n_sel, "1", rtol=0, mistakes={
            "counted the forward pass only (2 per layer): the backward pass has 2 more": n_sel // 2,
            "counted all 96 layers: one GPU holds only the l/p layers of its stage": n_sel * sel.pp,
            "counted one microbatch, not all m of the step": n_sel // m}),
        "full": Answer(n_full, "1", rtol=0, mistakes={
            "doubled the count: full recomputation repeats only the forward pass (2 more per layer, not 4)":
                2 * n_sel,
            "counted all 96 layers: one GPU holds only the l/p layers of its stage": n_full * sel.pp}),
        "time_full": Answer(t_full, "s", mistakes={
            "priced the selective count: full recomputation adds the forward's AllReduces again": t_sel,
            "took full recomputation as doubling the AllReduces": 2 * t_sel}),
    }


# tp-ex-memory: does GPT-3 175B (t = p = 8, b = 1, selective) fit on 80 GiB GPUs with and without SP?
@exercise("tp-ex-memory", CHAPTER, parts=("with_sp", "without_sp", "fits_with_sp", "fits_without_sp"),
          doc="bytes per GPU from layout_memory (model states + first-stage activations) with and without sequence "
              "parallelism, and whether each fits in 80 GiB, an \"80 GB\" GPU (yes/no)")
def _tp_ex_memory():
    gpt3 = _gpt3()
    out = {}
    for key, sp in (("with_sp", True), ("without_sp", False)):
        lay = _layout(sequence_parallel=sp)
        mem = P.layout_memory(gpt3, lay)
        states = memory.training_memory(P.stage_params(gpt3, lay), lay.dp, lay.zero_stage)["total"]
        out[key] = Answer(mem, "B", mistakes={
            "forgot the model states: gave the activations only": mem - states,
            "forgot the activations: gave the model states only": states})
        fits = "yes" if mem < 80 * GiB else "no"
        out["fits_" + key] = Answer(fits, choices=("yes", "no"), mistakes={
            ("no" if fits == "yes" else "yes"):
                f"layout_memory gives {mem / GiB:.1f} GiB against the 80 GiB of the GPU"})
    return out


# tp-ex-tp16: t = 16, p = 4 against t = 8, p = 8 for GPT-3 175B on HGX H100 nodes of 8 GPUs with NDR
@exercise("tp-ex-tp16", CHAPTER,
          parts=("step_t8", "step_t16", "share_t8", "share_t16", "mfu_t8", "mfu_t16", "plan"),
          doc="step time (s), TP share of the step and MFU (fractions) of GPT-3 175B with t=8,p=8 and t=16,p=4 on "
              "8-GPU H100 nodes with NDR; does parallel.plan accept or reject t = 16")
def _tp_ex_tp16():
    gpt3, hgx, dgx = _gpt3(), _machine("HGX H100, NVLink 4"), _machine("DGX A100, NVLink 3")
    out = {}
    for tp_, pp_ in ((8, 8), (16, 4)):
        lay = _layout(tp=tp_, pp=pp_)
        s = P.step_time(gpt3, lay, hgx)
        s_dgx = P.step_time(gpt3, lay, dgx)
        out[f"step_t{tp_}"] = Answer(s.total, "s", mistakes={
            "used the chapter's DGX A100 cluster, not H100 nodes": s_dgx.total})
        out[f"share_t{tp_}"] = Answer(s.shares()["tp_comm"], "1", mistakes={
            "gave TP time over compute time, not over the whole step": s.tp_comm / s.compute})
        out[f"mfu_t{tp_}"] = Answer(s.mfu, "1", mistakes={
            "used the chapter's DGX A100 cluster, not H100 nodes": s_dgx.mfu})
    pl = P.plan(gpt3, hgx, 64, 80 * GiB)
    verdict = "accepted" if any(row[0].tp == 16 for row in pl.ranked) else "rejected"
    out["plan"] = Answer(verdict, choices=("accepted", "rejected"), mistakes={
        ("accepted" if verdict == "rejected" else "rejected"):
            "the planner rejects any t larger than gpus_per_node (8): the TP group would leave NVLink"})
    return out


# tp-ex-decode: Llama 2 70B decode at batch 1 on 4 GPUs (the chapter decodes GPT-3 175B on 8): TP share of a token,
# and what a 2-step AllReduce saves
DECODE_MODELS = {"llama2-13b": (13, 40, 5120), "llama2-70b": (70, 80, 8192), "gpt3-175b": (175, 96, 12288)}


def _vary_decode(rng):
    """Per-student numbers: the model (parameters in billions, layers, hidden size) and the TP degree."""
    name = str(rng.choice(list(DECODE_MODELS)))
    tp = int(rng.choice([8] if name == "gpt3-175b" else [4, 8]))
    params, layers, hidden = DECODE_MODELS[name]
    return {"params_billion": params, "layers": layers, "hidden": hidden, "tp": tp}


@exercise("tp-ex-decode", CHAPTER, parts=("share_nvlink4", "share_pcie5", "saving_nvlink4"), variants=_vary_decode,
          doc="Llama 2 70B (80 layers, h = 8,192) decoding at batch 1 with t = 4: fraction of a token's time (TP comm "
              "+ weight read) that is TP communication on NVLink 4 and PCIe 5.0; seconds per token saved on NVLink 4 "
              "by an AllReduce of 2 latency steps with the ring's bandwidth term")
def _tp_ex_decode(params_billion=70, layers=80, hidden=8192, tp=4):
    params = params_billion * 1e9
    h100 = devices.get_gpu("H100")
    n = 2 * hidden
    nv4 = links.get_link("nvlink4")
    # the chapter's weight read: applications.decode_step, at the streaming bandwidth of serving.stream_bandwidth
    weights_time = A.decode_step(params, layers, hidden, tp, nv4.bandwidth, nv4.latency, h100.memory_bandwidth).weights
    at_peak = 2 * params / tp / h100.memory_bandwidth
    a, b, _ = C.cost_terms("allreduce", tp, "ring")
    out = {}
    for key, name in (("nvlink4", "nvlink4"), ("pcie5", "pcie5x16")):
        l = links.get_link(name)
        ring = 2 * layers * C.collective_time("allreduce", n, tp, l.bandwidth, l.latency)
        two_step = 2 * layers * (2 * l.latency + b * n / l.bandwidth)
        share = ring / (ring + weights_time)
        mistakes = {
            "divided by the weight-read time alone, not by the token's whole time": ring / weights_time,
            "counted one AllReduce per layer, not two": (ring / 2) / (ring / 2 + weights_time),
            "read the weights at the HBM peak, not at the bandwidth a decode kernel reaches "
            "(applications.decode_step's weights)": ring / (ring + at_peak)}
        # a small share is close to its ratio ring / weights: diagnose only the mistakes that stand apart
        out["share_" + key] = Answer(share, "1", mistakes={k: w for k, w in mistakes.items()
                                                           if abs(w - share) > 0.05 * share})
        if key == "nvlink4":
            out["saving_nvlink4"] = Answer(ring - two_step, "s", mistakes={
                "gave the two-step time per token, not the saving": two_step,
                "gave the saving per AllReduce, not per token (2 l AllReduces)": (ring - two_step) / (2 * layers)})
    return out


# tp-ex-overlap: Llama 3 70B, t = 8: exposed TP time with and without overlap on DGX H100, and who gains more
@exercise("tp-ex-overlap", CHAPTER, parts=("exposed_0", "exposed_78", "speedup_h100", "speedup_a100", "gains_more"),
          doc="Llama 3 70B, the TP-overlap section's layout: exposed TP seconds per step on DGX H100 at tp_overlap 0 "
              "and 7/8; step-time speed-up from tp_overlap 0 to 7/8 on DGX H100 and on DGX A100 (ratios); which "
              "machine gains more (a100/h100)")
def _tp_ex_overlap():
    s = scenarios.tensor_parallel_overlap()
    lay0, lay78 = s.layout, replace(s.layout, tp_overlap=7 / 8)
    st = {(name, x): P.step_time(s.model, lay, cl)
          for name, cl in s.machines.items() for x, lay in ((0, lay0), (78, lay78))}
    h0, h78 = st["DGX H100", 0], st["DGX H100", 78]
    # the same layout on the chapter's older H100 machine, efficiencies calibrated on 2021 Megatron-LM step times
    calibrated = P.step_time(s.model, lay78, _machine("HGX H100, NVLink 4"))
    speed = {k: st[name, 0].total / st[name, 78].total for k, name in (("h100", "DGX H100"), ("a100", "DGX A100"))}
    mixed = "used the calibrated Cluster.from_links machine, not the machine preset machine('dgx-h100')"
    win = "h100" if speed["h100"] > speed["a100"] else "a100"
    return {
        "exposed_0": Answer(h0.tp_comm, "s", mistakes={
            "gave the TP share of the step, not seconds": h0.shares()["tp_comm"]}),
        "exposed_78": Answer(h78.tp_comm, "s", mistakes={
            "gave the hidden part (tp_comm_hidden), not what stays exposed": h78.tp_comm_hidden,
            mixed: calibrated.tp_comm}),
        "speedup_h100": Answer(speed["h100"], "1", mistakes={
            "divided the other way: the speed-up is the time without overlap over the time with it":
                1 / speed["h100"],
            mixed: P.step_time(s.model, lay0, _machine("HGX H100, NVLink 4")).total / calibrated.total}),
        "speedup_a100": Answer(speed["a100"], "1", mistakes={
            "divided the other way: the speed-up is the time without overlap over the time with it":
                1 / speed["a100"]}),
        "gains_more": Answer(win, choices=("a100", "h100"), mistakes={
            ("a100" if win == "h100" else "h100"):
                "compare the TP shares at tp_overlap = 0: the machine whose step has more TP time to hide gains more"}),
    }


# tp-ex-fp8: Llama 3 70B on DGX H100 with half the TP communication overlapped (the chapter works tp_overlap 0):
# TP share of the step in BF16 and FP8, and its growth
def _vary_fp8(rng):
    """Per-student numbers: the overlapped fraction of the TP communication and the machine."""
    return {"overlap": float(rng.choice([0.25, 0.75])), "machine": str(rng.choice(["DGX H100", "DGX B200"]))}


@exercise("tp-ex-fp8", CHAPTER, parts=("share_bf16", "share_fp8", "growth"), variants=_vary_fp8,
          doc="Llama 3 70B, the FP8 section's layout with tp_overlap 0.5 on DGX H100: the exposed TP share of the "
              "step in BF16 and in FP8 (fractions), and the factor by which it grows (FP8 share over BF16 share)")
def _tp_ex_fp8(overlap=0.5, machine="DGX H100"):
    s = scenarios.tensor_parallel_fp8()
    cl = s.machines[machine]
    layout = replace(s.layout, tp_overlap=overlap)
    s16 = P.step_time(s.model, layout, cl)
    s8 = P.step_time(s.model, replace(layout, fp8=True), cl)
    share16, share8 = s16.shares()["tp_comm"], s8.shares()["tp_comm"]
    # the TP seconds are the same in both, so the share grows by exactly the step's speed-up
    # the reader who halves the whole compute (2x FP8 peak, no casts, attention and logits too)
    halved = s16.tp_comm / (s16.total - s16.compute / 2)
    # the reader who also halves the TP bytes (as if the collectives moved FP8)
    half_bytes = (s8.tp_comm / 2) / (s8.total - s8.tp_comm / 2)
    no_overlap = replace(s.layout, tp_overlap=0.0)
    return {
        "share_bf16": Answer(share16, "1", mistakes={
            "took the TP share with tp_overlap = 1 (nothing exposed)":
                P.step_time(s.model, replace(s.layout, tp_overlap=1.0), cl).shares()["tp_comm"],
            "took the chapter's case, tp_overlap = 0: here part of the TP communication is hidden":
                P.step_time(s.model, no_overlap, cl).shares()["tp_comm"]}),
        "share_fp8": Answer(share8, "1", mistakes={
            "halved all the compute (2x the FP8 peak), not the linear GEMMs at the measured ceiling ratio": halved,
            "halved the TP bytes too: the tensor-parallel collectives stay 16-bit": half_bytes,
            "took the chapter's case, tp_overlap = 0: here part of the TP communication is hidden":
                P.step_time(s.model, replace(no_overlap, fp8=True), cl).shares()["tp_comm"]}),
        "growth": Answer(share8 / share16, "1", mistakes={
            "compared the TP time with the compute only, not with the whole step": s16.compute / s8.compute,
            "halved all the compute (2x the FP8 peak), not the linear GEMMs at the measured ceiling ratio":
                halved / share16,
            "divided the other way: the growth is the FP8 share over the BF16 share": share16 / share8}),
    }
