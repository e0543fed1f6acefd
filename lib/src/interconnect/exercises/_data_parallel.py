"""Checkers for the chapter "Data parallelism" (book/parallel/data_parallel)."""

from dataclasses import replace

import numpy as np

from .. import collectives as C
from .. import devices, links, memory, scenarios
from .. import parallel as P
from ..catalog import traces
from ..units import GB, MB
from . import Answer, exercise

CHAPTER = "book/parallel/data_parallel"

# the chapter's efficiencies: f = each GPU's measured GEMM ceiling (parallel.ceiling_fraction), and the
# link efficiency of the step-time model, fitted on the 2021 Megatron-LM runs on DGX A100
GEMM = {g: P.ceiling_fraction(g) for g in ("A100", "H100")}
COMM = P.CALIBRATED_COMM_EFFICIENCY


# ---- the chapter's state: the scenario its setup cells use too ----------------------

def _models():
    dp = scenarios.data_parallel()
    return dp.models["6.7B"], dp.models["13B"]


def _bw_pcie():
    """The effective ring bandwidth per GPU on the chapter's two-socket PCIe 4.0 tree (`bw_pcie`)."""
    return scenarios.data_parallel().bw_pcie


def _pcie_machine():
    """machines["PCIe 4.0 tree"]: eight A100s in one box behind the simulated PCIe tree."""
    return scenarios.data_parallel().machines["PCIe 4.0 tree"]


def _hdr_machine():
    """machines[_names[2]]: eight nodes of one A100 each, one HDR NIC per node (netsim ring)."""
    return scenarios.data_parallel().machines["8 nodes × 1 GPU, InfiniBand HDR 4x"]


def _wire_bytes(model, dp, zero_stage):
    """Bytes one GPU sends per step for gradient/ZeRO traffic (parallel.dp_wire_bytes)."""
    return P.dp_wire_bytes(model, P.Layout(dp=dp, tp=1, pp=1, zero_stage=zero_stage))


# dp-ex-bytes: bytes each GPU sends per step in the ring AllReduce, 13B model, BF16, p = 64, 8, 1024
def _vary_bytes(rng):
    """Per-student numbers: the model, a name in catalog.models (the book's is the chapter's 13B)."""
    return {"model": str(rng.choice(["llama2-7b", "llama3-8b", "llama2-70b", "mixtral-8x7b", "gpt3-175b"]))}


@exercise("dp-ex-bytes", CHAPTER, parts=("p64", "p8", "p1024"), variants=_vary_bytes,
          doc="bytes each GPU sends per step (per direction) in the ring AllReduce of a 13B model's BF16 "
              "gradients on 64, 8 and 1,024 GPUs")
def _dp_ex_bytes(model="13B"):
    from ..catalog import models as catalog_models

    n = _models()[1].params if model == "13B" else catalog_models.get(model).params
    out = {}
    for p in (64, 8, 1024):
        _, b, _ = C.cost_terms("allreduce", p, "ring")
        out[f"p{p}"] = Answer(b * 2 * n, "B", mistakes={
            "counted parameters, not 2-byte BF16 gradients": b * n,
            "used 4-byte FP32 gradients; the exercise says BF16": b * 4 * n,
            "sent the whole gradient to each of the p - 1 others (naive exchange), not a ring": (p - 1) * 2 * n})
    return out


# dp-ex-breakeven: break-even tokens per GPU on H100 over NDR and NVLink 4 (p = 1024), tokens per GPU
@exercise("dp-ex-breakeven", CHAPTER, parts=("ndr", "nvlink4", "per_gpu", "compute_bound"),
          doc="break-even tokens per GPU (H100 at its measured GEMM ceiling, p = 1024) over NDR and NVLink 4; "
              "tokens per GPU of a 4M-token batch on 1,024 GPUs; is DP over NDR compute-bound there (yes/no)")
def _dp_ex_breakeven():
    h100 = devices.get_gpu("H100")
    ndr, nv4 = links.get_link("ib-ndr"), links.get_link("nvlink4")
    out = {}
    for part, link in (("ndr", ndr), ("nvlink4", nv4)):
        f = GEMM["H100"]
        ts = P.dp_break_even_tokens(h100.peak_flops, link.bandwidth, 1024, f)
        out[part] = Answer(ts, "1", mistakes={
            "used the bidirectional bandwidth: the ring's B is per direction":
                P.dp_break_even_tokens(h100.peak_flops, link.bidirectional_bandwidth, 1024, f),
            "used the dense peak (f = 1), not the H100's measured GEMM ceiling":
                P.dp_break_even_tokens(h100.peak_flops, link.bandwidth, 1024, 1.0),
            "used the 2021 calibrated GEMM efficiency, not the H100's measured GEMM ceiling":
                P.dp_break_even_tokens(h100.peak_flops, link.bandwidth, 1024, P.CALIBRATED_GEMM_EFFICIENCY),
            "took the link's Gb/s figure as GB/s (bits against bytes)":
                P.dp_break_even_tokens(h100.peak_flops, 8 * link.bandwidth, 1024, f)})
    per_gpu = 4e6 / 1024
    out["per_gpu"] = Answer(per_gpu, "1", mistakes={
        "gave the global batch, not its share per GPU": 4e6,
        "divided by the 8 GPUs of one node, not by all 1,024": 4e6 / 8})
    bound = "yes" if per_gpu > out["ndr"].value else "no"
    out["compute_bound"] = Answer(bound, choices=("yes", "no"), mistakes={
        ("yes" if bound == "no" else "no"):
            "compare the tokens per GPU with the NDR break-even (the data-parallel ring crosses the network), "
            "not with NVLink's"})
    return out


# dp-ex-fp32: efficiency with BF16 and FP32 gradients on the PCIe tree, and the break-even ratio
@exercise("dp-ex-fp32", CHAPTER, parts=("eff_bf16", "eff_fp32", "factor"),
          doc="dp_step efficiency (fraction) of the 6.7B model on the PCIe tree (bw_pcie x calibrated comm "
              "efficiency) at 16,384 tokens per GPU, BF16 and FP32 gradients; factor by which the break-even grows")
def _dp_ex_fp32():
    gpt_6b7, _ = _models()
    a100, pcie4 = devices.get_gpu("A100"), links.get_link("pcie4x16")
    bw = _bw_pcie()

    def eff(g, bandwidth=bw * COMM):
        return P.dp_step(gpt_6b7.params, 8, 16384, a100.peak_flops, bandwidth, pcie4.latency, GEMM["A100"],
                         grad_bytes=g)["efficiency"]

    out = {}
    for part, g in (("eff_bf16", 2.0), ("eff_fp32", 4.0)):
        out[part] = Answer(eff(g), "1", mistakes={
            "used bw_pcie at its peak, not scaled by the calibrated comm efficiency": eff(g, bw),
            "used the PCIe 4.0 x16 link rate, not the simulated ring bandwidth bw_pcie":
                eff(g, pcie4.bandwidth * COMM)})
    t2 = P.dp_break_even_tokens(a100.peak_flops, bw * COMM, 8, GEMM["A100"], grad_bytes=2.0)
    t4 = P.dp_break_even_tokens(a100.peak_flops, bw * COMM, 8, GEMM["A100"], grad_bytes=4.0)
    out["factor"] = Answer(t4 / t2, "1", mistakes={
        "gave the ratio of the efficiencies, not of the break-even tokens":
            out["eff_bf16"].value / out["eff_fp32"].value})
    return out


# dp-ex-zero: 13B model, 20 GB of model states per GPU: which ZeRO stage, at what degree, how many bytes
@exercise("dp-ex-zero", CHAPTER, parts=("stage", "dp", "bytes"),
          doc="the only ZeRO stage whose 13B model states fit in 20 GB per GPU at dp in {8, ..., 128}; "
              "its smallest such dp; the bytes each GPU then sends per step")
def _dp_ex_zero():
    _, gpt_13b = _models()
    degrees = (8, 16, 32, 64, 128)

    def smallest(stage, limit=20e9):
        fits = [d for d in degrees if memory.training_memory(gpt_13b.params, dp=d, zero_stage=stage)["total"] <= limit]
        return fits[0] if fits else None

    stage = min(s for s in range(4) if smallest(s) is not None)
    d = smallest(stage)
    wire = _wire_bytes(gpt_13b, d, stage)
    stage_mistakes = {"stage 2 still keeps the whole 2-byte weights, more than 20 GB for 13B parameters": 2}
    stage_mistakes = {k: v for k, v in stage_mistakes.items() if v != stage}
    dp_mistakes = {"used the whole 40 GB, not the 20 GB allowed for model states": smallest(stage, 40e9)}
    dp_mistakes = {k: v for k, v in dp_mistakes.items() if v is not None and v != d}
    return {
        "stage": Answer(stage, "1", rtol=0, mistakes=stage_mistakes),
        "dp": Answer(d, "1", rtol=0, mistakes=dp_mistakes),
        "bytes": Answer(wire, "B", mistakes={
            "forgot stage 3's extra AllGather of the parameters (took the baseline 2(p-1)/p gN)":
                _wire_bytes(gpt_13b, d, 0),
            "counted parameters, not 2-byte BF16 values": wire / 2}),
    }


# dp-ex-overlap: 6.7B on the PCIe tree, microbatches of 1, 2, 4, 8 sequences, overlap on
_MICRO = (1, 2, 4, 8)


@exercise("dp-ex-overlap", CHAPTER, parts=("exposed", "efficiency"),
          doc="exposed gradient communication (s) and efficiency compute/step (fractions) of the 6.7B model on "
              "the PCIe tree for microbatches of 1, 2, 4, 8 sequences (arrays in that order), ZeRO-2, overlap 1")
def _dp_ex_overlap():
    gpt_6b7, _ = _models()
    cl = _pcie_machine()
    exposed, eff, none_exp, none_eff, whole_exp = [], [], [], [], []
    for b in _MICRO:
        lay = P.Layout(dp=8, tp=1, pp=1, microbatch=b, zero_stage=2, dp_overlap=1.0)
        st = P.step_time(gpt_6b7, lay, cl)
        exposed.append(st.dp_comm_exposed)
        eff.append(st.compute / st.total)
        # no overlap: the whole reduction is exposed
        none_exp.append(st.dp_comm)
        none_eff.append(st.compute / (st.compute + st.dp_comm))
        # the backward pass of the whole step as the window, not that of the last microbatch
        last = st.dp_comm / int(np.ceil(2 * gpt_6b7.params / lay.bucket_bytes))
        whole_exp.append(st.dp_comm - min(st.dp_comm - last, 2 / 3 * st.compute))
    return {
        "exposed": Answer(np.array(exposed), "s", mistakes={
            "left overlap off: the whole gradient reduction is exposed": np.array(none_exp),
            "took the backward pass of the whole step as the window; only the last microbatch's can hide it":
                np.array(whole_exp)}),
        "efficiency": Answer(np.array(eff), "1", mistakes={
            "left overlap off: the whole gradient reduction is exposed": np.array(none_eff)}),
    }


# dp-ex-buckets: 6.7B on eight single-GPU HDR nodes, bucket sizes 1 MB .. 1 GB
_BUCKETS = (1 * MB, 5 * MB, 25 * MB, 100 * MB, 1 * GB)


@exercise("dp-ex-buckets", CHAPTER, parts=("total", "last"),
          doc="gradient communication per step (s, dp_comm_time, ZeRO-0) and the last bucket's AllReduce (s) of "
              "the 6.7B model on eight single-GPU HDR nodes for buckets of 1, 5, 25, 100 MB and 1 GB (arrays)")
def _dp_ex_buckets():
    gpt_6b7, _ = _models()
    cl = _hdr_machine()
    peak = replace(cl, comm_efficiency=1.0, nccl=None)
    total, total_peak, last, last_peak, last_nolat = [], [], [], [], []
    for bucket in _BUCKETS:
        lay = P.Layout(dp=8, tp=1, pp=1, zero_stage=0, bucket_bytes=bucket)
        total.append(P.dp_comm_time(gpt_6b7, lay, cl))
        total_peak.append(P.dp_comm_time(gpt_6b7, lay, peak))
        last.append(C.collective_time("allreduce", bucket, 8, cl.inter_bandwidth * COMM, cl.inter_latency))
        last_peak.append(C.collective_time("allreduce", bucket, 8, cl.inter_bandwidth, cl.inter_latency))
        last_nolat.append(C.collective_time("allreduce", bucket, 8, cl.inter_bandwidth * COMM, 0.0))
    return {
        "total": Answer(np.array(total), "s", mistakes={
            "ran the ring at the link's peak, not at the calibrated comm efficiency": np.array(total_peak)}),
        "last": Answer(np.array(last), "s", mistakes={
            "ran the ring at the link's peak, not at the calibrated comm efficiency": np.array(last_peak),
            "forgot the ring's latency term 2(p-1)α": np.array(last_nolat)}),
    }


# ---- FSDP and HSDP: Llama 3 8B (the catalog's global batch), one sequence per microbatch ------

def _llama8():
    from .. import catalog
    return catalog.models.get("llama3-8b")


# dp-ex-fsdp: FSDP on 64 GPUs: microbatches, bytes per GPU per step, ratio to ZeRO-3's once-per-step count
@exercise("dp-ex-fsdp", CHAPTER, parts=("m", "bytes", "ratio"),
          doc="Llama 3 8B with FSDP on 64 GPUs (zero_stage=3, dp_shard=64, microbatch 1): microbatches per step, "
              "bytes each GPU sends per step (all links), and their ratio to ZeRO-3 counted once per step")
def _dp_ex_fsdp():
    llama = _llama8()
    fsdp = P.Layout(dp=64, tp=1, pp=1, zero_stage=3, dp_shard=64)
    z3 = P.Layout(dp=64, tp=1, pp=1, zero_stage=3)
    m = fsdp.microbatches(llama.global_batch)
    sent, once = P.dp_wire_bytes(llama, fsdp), P.dp_wire_bytes(llama, z3)
    tr = P.dp_traffic(llama, fsdp)
    no_regather = P.wire_bytes([t for t in tr if "backward" not in t.what])
    return {
        "m": Answer(m, "1", rtol=0, mistakes={
            "divided the global batch by one node's 8 GPUs, not by the 64 data-parallel ranks":
                llama.global_batch // 8}),
        "bytes": Answer(sent, "B", mistakes={
            "counted ZeRO-3's collectives once per step; FSDP runs them every microbatch": once,
            "forgot the second AllGather before the backward pass (reshard_after_forward)": no_regather,
            "counted parameters, not 2-byte values": sent / 2}),
        "ratio": Answer(sent / once, "1", mistakes={
            "took 3 m over 3 as 3 m": 3 * m}),
    }


# dp-ex-hsdp: FSDP over 256 GPUs against HSDP in nodes of 8: network bytes per GPU, ratio, memory
@exercise("dp-ex-hsdp", CHAPTER, parts=("fsdp", "hsdp", "ratio", "mem_fsdp", "mem_hsdp"),
          doc="Llama 3 8B, ZeRO-3 on 256 GPUs (8 per node): bytes over each GPU's NIC per step (network_bytes) "
              "for FSDP (dp_shard=256) and HSDP (dp_shard=8), their ratio, and layout_memory per GPU of each")
def _dp_ex_hsdp():
    llama = _llama8()
    out, wire = {}, {}
    for name, shard in (("fsdp", 256), ("hsdp", 8)):
        lay = P.Layout(dp=256, tp=1, pp=1, zero_stage=3, dp_shard=shard)
        tr = P.dp_traffic(llama, lay)
        out[name], wire[name] = P.network_bytes(tr, gpus_per_node=8), P.wire_bytes(tr)
        out[f"mem_{name}"] = P.layout_memory(llama, lay)
    answers = {
        "fsdp": Answer(out["fsdp"], "B", mistakes={
            "counted all bytes the GPU sends (wire_bytes), not what crosses its NIC: a ring across nodes runs "
            "one channel per NIC, 1/8 of the bytes each": wire["fsdp"]}),
        "hsdp": Answer(out["hsdp"], "B", mistakes={
            "counted the shard group's NVLink traffic too (wire_bytes), not only the replicas' AllReduce":
                wire["hsdp"]}),
        "ratio": Answer(out["fsdp"] / out["hsdp"], "1", mistakes={
            "compared all bytes sent (wire_bytes), not the network's": wire["fsdp"] / wire["hsdp"]}),
        "mem_fsdp": Answer(out["mem_fsdp"], "B"),
        "mem_hsdp": Answer(out["mem_hsdp"], "B", mistakes={
            "sharded the model states over all 256 GPUs; HSDP shards over the 8 of a node": out["mem_fsdp"]}),
    }
    return answers


# dp-ex-rings-trace: read NCCL's rings from a real NCCL_DEBUG=INFO log (16 ranks on 2 nodes) for a DP AllReduce
def _vary_rings_trace(rng):
    """Per-student numbers: the channel whose ring is read, and the model's parameters."""
    return {"channel": int(rng.integers(1, 4)), "params": float(rng.choice([1.3e9, 2.7e9, 6.7e9, 13e9]))}


@exercise("dp-ex-rings-trace", CHAPTER, parts=("channels", "crossings", "sender", "node_bytes"),
          variants=_vary_rings_trace,
          doc="from a real NCCL_DEBUG=INFO log of 16 ranks on 2 nodes: the channels, how often one ring crosses "
              "between the nodes, the rank that sends into the second node in channel 01, and the bytes a node "
              "sends over the network for a ring AllReduce of a 6.7B model's BF16 gradient")
def _dp_ex_rings_trace(channel=1, params=6.7e9):
    log = traces.nccl_log(traces.get("ib-2x8-nccl-rings").text)
    p, per_node, nch = log["nranks"], log["local_ranks"], log["n_channels"]
    ring = log["rings"][channel]
    hops = list(zip(ring, ring[1:] + ring[:1]))
    cross = [(a, b) for a, b in hops if a // per_node != b // per_node]
    sender = next(a for a, b in cross if a // per_node == 0)
    n = 2 * params                                    # BF16 gradient
    _, b, _ = C.cost_terms("allreduce", p, "ring")    # each ring edge carries b * (n / nch)
    out_edges = sum(1 for a, _ in cross if a // per_node == 0)   # edges leaving node 0 in one ring
    node_bytes = nch * out_edges * b * n / nch
    _, b_local, _ = C.cost_terms("allreduce", per_node, "ring")
    return {
        "channels": Answer(nch, "1", rtol=0, generic=(), mistakes={
            "counted the ring lines shown; the '/08' after the channel number is the number of channels":
                len(log["rings"])} if len(log["rings"]) != nch else {}),
        "crossings": Answer(len(cross), "1", rtol=0, generic=(), mistakes={
            "counted only the hop out of the first node; the ring closes, so it comes back once": len(cross) // 2}),
        "sender": Answer(sender, "1", rtol=0, generic=()),
        "node_bytes": Answer(node_bytes, "B", mistakes={
            "used p = 8, the GPUs of one node: the ring runs over all sixteen ranks":
                nch * out_edges * b_local * n / nch,
            "sent the whole gradient on every channel: each channel's ring carries its share of it": nch * node_bytes,
            "a factor of 2: counted both crossings of a ring as this node's (one enters it), or took FP32":
                2 * node_bytes}),
    }


# dp-ex-zero-derive: from ZeRO's model-state bytes per GPU, the largest model stages 1 and 2 can ever hold in M bytes,
# and the smallest data-parallel degree with which stages 1 and 3 hold a model of psi parameters
def _vary_zero_derive(rng):
    """Per-student numbers: GB per GPU for model states (decimal) and the model's parameters in billions."""
    return {"budget_gb": int(rng.choice([16, 20, 24])), "params_billion": float(rng.choice([2.7, 3.3]))}


@exercise("dp-ex-zero-derive", CHAPTER, parts=("psi_max_stage1", "psi_max_stage2", "min_dp_stage1", "min_dp_stage3"),
          variants=_vary_zero_derive,
          doc="derived from the bytes per GPU of each ZeRO stage (mixed-precision Adam, K = 12): the most parameters "
              "stages 1 and 2 hold in 20 GB per GPU however many GPUs are added, and the smallest data-parallel "
              "degree with which stages 1 and 3 hold a 3B model in 20 GB")
def _dp_ex_zero_derive(budget_gb=20, params_billion=3.0):
    K, M, psi = 12.0, budget_gb * 1e9, params_billion * 1e9
    n1 = int(np.ceil(K * psi / (M - 4 * psi)))
    n3 = int(np.ceil(16 * psi / M))
    # the derived forms agree with the library's model of the stages (memory.training_memory)
    for stage, n in ((1, n1), (3, n3)):
        assert memory.training_memory(psi, dp=n, zero_stage=stage)["total"] <= M
        assert n == 1 or memory.training_memory(psi, dp=n - 1, zero_stage=stage)["total"] > M
    for stage, lim in ((1, M / 4), (2, M / 2)):
        assert memory.training_memory(lim, dp=10**12, zero_stage=stage)["total"] <= M * (1 + 1e-9)
    stage0 = "took stage 0's limit: without sharding every byte of the 16 Psi stays on each GPU"
    n2_form = int(np.ceil(14 * psi / (M - 2 * psi)))
    m1 = {"rounded down: the degree is the smallest integer at least the bound": n1 - 1}
    if n2_form not in (n1, n1 - 1):
        m1["used stage 2's form (14 Psi sharded, 2 Psi whole) for stage 1"] = n2_form
    m3 = {"rounded down: the degree is the smallest integer at least the bound": n3 - 1}
    return {"psi_max_stage1": Answer(M / 4, "1", rtol=0.01, mistakes={
                stage0: M / 16, "took stage 2's limit: stage 1 keeps the 16-bit gradients whole on every GPU": M / 2}),
            "psi_max_stage2": Answer(M / 2, "1", rtol=0.01, mistakes={
                stage0: M / 16, "took stage 1's limit: stage 2 shards the 16-bit gradients too": M / 4}),
            "min_dp_stage1": Answer(n1, "1", rtol=0, mistakes=m1),
            "min_dp_stage3": Answer(n3, "1", rtol=0, mistakes=m3)}
