"""Checkers for the chapter "Serving large models" (book/practice/serving)."""

from dataclasses import replace

import numpy as np

from .. import serving as S
from ..catalog import models
from ..parallel.machines import machine
from . import Answer, coding_exercise, exercise
from .coding import case, seed_variant

CHAPTER = "book/practice/serving"


def _link(cl):
    """(bandwidth collectives reach, per-step latency) of a machine's NVLink, as the decode model uses it."""
    return cl.intra_bandwidth * cl.comm_efficiency, cl.intra_latency


# srv-ex-kv: Llama 3 70B on 8 H100 (TP 8): KV bytes per token per GPU, BF16 and FP8; sequences that fit
@exercise("srv-ex-kv", CHAPTER, parts=("per_gpu_bf16", "per_gpu_fp8", "sequences"),
          doc="bytes of one token's KV cache on one GPU of a TP-8 group of H100s for Llama 3 70B, with a BF16 and "
              "with an FP8 cache; sequences of 8,192 tokens the paged cache holds with BF16 weights and an FP8 cache")
def _srv_ex_kv():
    m = models.get("llama3-70b")
    bf16, fp8 = S.kv_bytes_per_token(m, tp=8), S.kv_bytes_per_token(m, tp=8, kv_bytes=1)
    seqs = S.kv_capacity(m, "H100", tp=8, kv_bytes=1, context=8192).sequences
    return {
        "per_gpu_bf16": Answer(bf16, "B", mistakes={
            "gave the whole token's cache; TP 8 splits the 8 KV heads, one per GPU": bf16 * 8,
            "counted the keys or the values, not both": bf16 / 2}),
        "per_gpu_fp8": Answer(fp8, "B", mistakes={"gave the whole token's cache, not one GPU's share": fp8 * 8}),
        "sequences": Answer(seqs, "1", rtol=0.005, mistakes={
            "kept a BF16 cache (2 bytes per element)": S.kv_capacity(m, "H100", tp=8, context=8192).sequences,
            "forgot the 10 % of memory the engine holds back":
                S.kv_capacity(m, "H100", tp=8, kv_bytes=1, reserve=0.0, context=8192).sequences}),
    }


# srv-ex-bstar: the decode batch at which a dense model's step turns compute-bound (no context), on a DGX B200
# (the chapter prints the DGX H100's)
def _vary_bstar(rng):
    """Per-student numbers: the machine (not the DGX H100, whose b* the chapter prints, nor the DGX A100: no FP8)
    and the dense model."""
    return {"machine_name": str(rng.choice(["dgx-h200", "gb200-nvl72"])),
            "model": str(rng.choice(["llama3-8b", "llama3-70b", "llama2-70b"]))}


@exercise("srv-ex-bstar", CHAPTER, parts=("bf16", "fp8"), variants=_vary_bstar,
          doc="decode batch b* at which the weight GEMMs take as long as reading the weights, Llama 3 70B on a "
              "DGX B200 with TP 8 and no context, BF16 and FP8 weights")
def _srv_ex_bstar(machine_name="dgx-b200", model="llama3-70b"):
    m, h = models.get(model), machine(machine_name)
    peak = replace(h, gemm_gpu=None, gemm_efficiency=1.0, fp8_gemm_efficiency=1.0)
    out = {}
    for key, fp8 in (("bf16", False), ("fp8", True)):
        d = S.decode_step_time(m, h, 1, 0, tp=8, fp8=fp8)
        p = S.decode_step_time(m, peak, 1, 0, tp=8, fp8=fp8)
        out[key] = Answer(d.weights / d.compute, "1", mistakes={
            "used the peak FLOP/s, not the measured GEMM ceiling": p.weights / p.compute})
    return out


# srv-ex-allreduce: one-shot against two-shot and ring on a DGX H100; the largest batch one-shot wins
@exercise("srv-ex-allreduce", CHAPTER, parts=("oneshot_twoshot", "oneshot_ring", "batch"),
          doc="message sizes at which one-shot ties two-shot and the ring on the 8 GPUs of a DGX H100 (NVLink at the "
              "bandwidth collectives reach, the machine's step latency); the largest Llama 3 70B decode batch "
              "whose AllReduce one-shot still wins")
def _srv_ex_allreduce():
    h, m = machine("dgx-h100"), models.get("llama3-70b")
    link, peak = _link(h), (h.intra_bandwidth, h.intra_latency)
    s2 = S.allreduce_crossover(8, "oneshot", "twoshot", link)
    sr = S.allreduce_crossover(8, "oneshot", "ring", link)
    b = int(s2 // (2 * m.hidden))
    return {
        "oneshot_twoshot": Answer(s2, "B", mistakes={
            "used the link's peak bandwidth, not the share collectives reach":
                S.allreduce_crossover(8, "oneshot", "twoshot", peak)}),
        "oneshot_ring": Answer(sr, "B", mistakes={
            "used the link's peak bandwidth, not the share collectives reach":
                S.allreduce_crossover(8, "oneshot", "ring", peak)}),
        "batch": Answer(b, "1", rtol=0, mistakes={
            "counted elements, not 2-byte BF16 values": int(s2 // m.hidden)}),
    }


# srv-ex-batching: continuous batching of Llama 3 70B on half a DGX H100 (TP 4) at 2 requests/s, 2,048 + 512 tokens
# (not the chapter's printed case: TP 8, 1,024 + 256 tokens)
def _vary_batching(rng):
    """Per-student numbers: the TP degree, the arrival rate (requests/s), the prompt and the output lengths."""
    return {"tp": int(rng.choice([4, 8])), "rate": float(rng.choice([1.0, 1.5, 2.0])),
            "prompt": int(rng.choice([512, 2048, 4096])), "output": int(rng.choice([128, 512]))}


@exercise("srv-ex-batching", CHAPTER, parts=("tpot", "ttft", "batch", "max_rate"), variants=_vary_batching,
          doc="TPOT, TTFT and mean running batch of Llama 3 70B on four GPUs of a DGX H100 (TP 4) under continuous "
              "batching at 2 requests/s of 2,048-token prompts and 512 output tokens; the largest sustainable rate")
def _srv_ex_batching(tp=4, rate=2.0, prompt=2048, output=512):
    m = models.get("llama3-70b")
    s = S.continuous_batching(m, "dgx-h100", tp, rate, prompt, output)
    top = S.sustainable_rate(m, "dgx-h100", tp, prompt, output)
    single = S.decode_step_time(m, "dgx-h100", 1, prompt + output // 2, tp=tp).total
    return {  # at a light load the batch-1 step is close to the TPOT: diagnosed only where it is 5 % away
        "tpot": Answer(s.tpot, "s", mistakes={
            "gave the decode step of a single sequence; the running batch is larger": single}
            if abs(single / s.tpot - 1) > 0.05 else {}),
        "ttft": Answer(s.ttft, "s", mistakes={
            "gave the prefill alone; the prompt also waits for an iteration boundary and shares its iteration "
            "with the running decodes": s.prefill} if abs(s.prefill / s.ttft - 1) > 0.05 else {}),
        "batch": Answer(s.batch, "1", mistakes={
            "multiplied the rate by the output tokens only (Little's law needs the time each sequence stays, "
            "output tokens times TPOT)": rate * output}),
        "max_rate": Answer(top, "1"),
    }


_LAYOUTS = {"4 x TP 2": 2, "2 x TP 4": 4, "1 x TP 8": 8}


# srv-ex-layout: which split of 8 GPUs serves the most requests, and which meets a latency target
@exercise("srv-ex-layout", CHAPTER, parts=("best_rate", "rate", "best_latency"),
          doc="of 4 x TP 2, 2 x TP 4 and 1 x TP 8 on one DGX H100 serving Llama 3 70B (1,024-token prompts, 256 "
              "output tokens): the layout with the largest sustainable rate, that rate (requests/s for the whole "
              "node), and the layout with the largest rate whose batch-1 TPOT is under 8 ms")
def _srv_ex_layout():
    m = models.get("llama3-70b")
    rate = {k: (8 // tp) * S.sustainable_rate(m, "dgx-h100", tp, 1024, 256) for k, tp in _LAYOUTS.items()}
    tpot = {k: S.decode_step_time(m, "dgx-h100", 1, 1024, tp=tp).total for k, tp in _LAYOUTS.items()}
    best = max(rate, key=rate.get)
    ok = [k for k in _LAYOUTS if tpot[k] < 8e-3]
    fast = max(ok, key=rate.get)
    why_rate = {
        "4 x TP 2": "at TP 2 the weights take almost all of each GPU's memory: the cache holds few sequences, and "
                    "each decode step reads half of the model per GPU",
        "1 x TP 8": "one replica at TP 8 spends more of every prefill and decode step in its 160 AllReduces over 8 "
                    "GPUs; two replicas of TP 4 do the same work with smaller groups, side by side",
        "2 x TP 4": "two replicas of TP 4 balance cache capacity against AllReduce cost"}
    why_lat = {k: f"its TPOT at batch 1 is {tpot[k] * 1e3:.1f} ms, above 8 ms" for k in _LAYOUTS if k not in ok}
    return {
        "best_rate": Answer(best, choices=tuple(_LAYOUTS), mistakes={k: v for k, v in why_rate.items() if k != best}),
        "rate": Answer(rate[best], "1", mistakes={
            "gave one replica's rate, not the node's": rate[best] / (8 // _LAYOUTS[best])}),
        "best_latency": Answer(fast, choices=tuple(_LAYOUTS),
                               mistakes={k: v for k, v in why_lat.items() if k != fast}),
    }


# srv-ex-kvx: the KV cache of one 8,192-token prompt sent from a TP-8 prefill to a TP-8 decode instance over RDMA
@exercise("srv-ex-kvx", CHAPTER, parts=("bytes_per_gpu", "whole", "layerwise"),
          doc="bytes each GPU sends for the KV cache of one 8,192-token Llama 3 70B prompt (BF16, TP 8 to TP 8, "
              "DGX H100 over GPUDirect RDMA), the time to send it whole after the prefill, and the time left "
              "exposed when it is sent layer by layer during the prefill")
def _srv_ex_kvx():
    m = models.get("llama3-70b")
    whole = S.kv_transfer_time(m, 8192, "rdma", "dgx-h100", tp=8)
    lw = S.kv_transfer_time(m, 8192, "rdma", "dgx-h100", tp=8, layerwise=True)
    return {
        "bytes_per_gpu": Answer(whole.bytes, "B", mistakes={
            "gave the whole prompt's cache; each of the 8 GPUs sends its own shard": whole.total_bytes}),
        "whole": Answer(whole.time, "s", mistakes={
            "sent the whole cache through one NIC; each GPU sends its shard through its own":
                S.kv_transfer_time(m, 8192, "rdma", "dgx-h100", tp=1, decode_tp=1).time}),
        "layerwise": Answer(lw.exposed, "s", mistakes={
            "gave the whole transfer; sent layer by layer it overlaps the prefill, and only the last layer's "
            "share is left": whole.time}),
    }


_SLOS = (0.01, 0.015, 0.02, 0.03, 0.05, 0.1, 0.2)


# srv-ex-disagg: the loosest TPOT objective at which splitting prefill and decode still pays
@exercise("srv-ex-disagg", CHAPTER, parts=("loosest", "gain"),
          doc="Llama 3 70B on DGX H100, TP-8 instances, 2,048-token prompts, 256 output tokens, TTFT objective 1 s, KV "
              "over RDMA layer by layer: the loosest TPOT objective of 10, 15, 20, 30, 50, 100, 200 ms at which "
              "disaggregation serves more requests per GPU, and its gain per GPU at 15 ms")
def _srv_ex_disagg():
    m = models.get("llama3-70b")
    v = {x: S.disagg_pays(m, "dgx-h100", 2048, 256, 1.0, x) for x in _SLOS}
    loosest = max(x for x in _SLOS if v[x].pays)
    first_loss = min((x for x in _SLOS if not v[x].pays), default=None)
    wrong = {} if first_loss is None else {
        "gave the first objective at which it no longer pays": first_loss}
    gain = v[0.015].disaggregated_per_gpu / v[0.015].colocated_per_gpu
    return {"loosest": Answer(loosest, "s", rtol=0.01, mistakes=wrong),
            "gain": Answer(gain, "1", mistakes={"inverted the ratio: colocated / disaggregated": 1 / gain})}


# srv-ex-ep: DeepSeek-V3 wide-EP decode with 64 sequences per GPU (the chapter tabulates 128), NDR DGX H100 vs NVL72
def _vary_ep(rng):
    """Per-student numbers: the sequences per GPU and their context length."""
    return {"batch": int(rng.choice([32, 96, 192, 256])), "context": int(rng.choice([1024, 4096, 8192]))}


@exercise("srv-ex-ep", CHAPTER, parts=("comm_ib", "comm_nvl", "tokens_ib", "tokens_nvl"), variants=_vary_ep,
          doc="DeepSeek-V3 in FP8, 64 sequences of 2,048 tokens per GPU, EP 64: the dispatch and combine time of "
              "one decode step (all MoE layers) on 8 DGX H100 over NDR (node-limited to 4 nodes) and on 64 GPUs of "
              "a GB200 NVL72; output tokens/s per GPU with the AllToAlls overlapped (two micro-batches)")
def _srv_ex_ep(batch=64, context=2048):
    m = models.get("deepseek-v3")
    ib = S.moe_decode_step_time(m, "dgx-h100", batch, context, 64, fp8=True, node_limit=4)
    nvl = S.moe_decode_step_time(m, "gb200-nvl72", batch, context, 64, fp8=True)
    ibo = S.moe_decode_step_time(m, "dgx-h100", batch, context, 64, fp8=True, node_limit=4, overlap=True)
    nvlo = S.moe_decode_step_time(m, "gb200-nvl72", batch, context, 64, fp8=True, overlap=True)
    return {
        "comm_ib": Answer(ib.comm, "s", mistakes={"gave one MoE layer's dispatch and combine, not all 58":
                                                  ib.dispatch + ib.combine}),
        "comm_nvl": Answer(nvl.comm, "s", mistakes={"gave one MoE layer's dispatch and combine, not all 58":
                                                    nvl.dispatch + nvl.combine}),
        "tokens_ib": Answer(ibo.tokens_per_second_per_gpu, "1", mistakes={
            "left the AllToAlls exposed (no second micro-batch)": ib.tokens_per_second_per_gpu,
            "gave the whole EP group's tokens/s, not one GPU's": ibo.tokens_per_second}),
        "tokens_nvl": Answer(nvlo.tokens_per_second_per_gpu, "1", mistakes={
            "left the AllToAlls exposed (no second micro-batch)": nvl.tokens_per_second_per_gpu,
            "gave the whole EP group's tokens/s, not one GPU's": nvlo.tokens_per_second}),
    }


# srv-ex-plan: how many GPUs serve Llama 3 70B at 40 requests/s within 1 s TTFT and 25 ms TPOT on DGX H100
@exercise("srv-ex-plan", CHAPTER, parts=("gpus", "kind", "colocated_gpus"),
          doc="GPUs of serving.plan_serving's best layout for Llama 3 70B at 40 requests/s (2,048-token prompts, 256 "
              "output tokens, TTFT within 1 s, TPOT within 25 ms, DGX H100, KV over RDMA), its kind, and the GPUs "
              "of the best colocated layout")
def _srv_ex_plan():
    m = models.get("llama3-70b")
    pl = S.plan_serving(m, 40.0, 2048, 256, 1.0, 0.025, machines=("dgx-h100",))
    col = next(o for o in pl.ranked if o.kind == "colocated")
    other = "colocated" if pl.best.kind == "disaggregated" else "disaggregated"
    mistakes = {} if col.gpus == pl.best.gpus else {"gave the best colocated layout's GPUs": col.gpus}
    return {
        "gpus": Answer(pl.best.gpus, "1", rtol=0, mistakes=mistakes),
        "kind": Answer(pl.best.kind, choices=("colocated", "disaggregated"), mistakes={
            other: f"the best {other} layout needs more GPUs than the {pl.best.kind} one"}),
        "colocated_gpus": Answer(col.gpus, "1", rtol=0),
    }


# srv-ex-code: write the KV-cache bytes per token on one GPU of a TP group, graded against serving.kv_bytes_per_token
_KV_KINDS = {
    "single": "the model runs on one GPU",
    "split": "the TP degree is at most the number of KV heads",
    "replicated": "the TP degree exceeds the number of KV heads",
    "mha": "the model has as many KV heads as query heads",
    "fp8": "the cache is FP8 (1 byte per element)",
}
_KV_MISTAKES = {
    "forgot the factor 2: each layer caches a key and a value per KV head":
        lambda l, a, g, d, tp, b: l * g * d * b / min(tp, g),
    "used the query heads: with grouped-query attention only the KV heads are cached":
        lambda l, a, g, d, tp, b: 2 * l * a * d * b / min(tp, a),
    "divided by the TP degree beyond the KV heads: a KV head is not split, it is replicated":
        lambda l, a, g, d, tp, b: 2 * l * g * d * b / tp,
    "gave the whole token's cache: TP splits the KV heads over the GPUs":
        lambda l, a, g, d, tp, b: 2 * l * g * d * b,
}
_KV_MODELS = ("llama3-8b", "llama3-70b", "llama3-405b", "llama2-70b", "mixtral-8x7b", "llama2-13b", "gpt3-1.3b")


@coding_exercise("srv-ex-code", CHAPTER, "kv_bytes_per_gpu(layers, heads, kv_heads, head_dim, tp, kv_bytes)",
                 _KV_KINDS, unit="B", rtol=1e-6, variants=seed_variant,
                 doc="a function returning the bytes of one token's KV cache held by one GPU of a TP group, from "
                     "the layers, query heads, KV heads, head size, TP degree and bytes per element")
def _srv_ex_code(seed=0):
    def ok(name, tp, b):
        m = models.get(name)
        args = (m.layers, m.heads, m.n_kv_heads, m.d_head, tp, b)
        kind = ("single" if tp == 1 else "mha" if m.n_kv_heads == m.heads else "fp8" if b == 1
                else "replicated" if tp > m.n_kv_heads else "split")
        return case(kind, args, S.kv_bytes_per_token(m, tp=tp, kv_bytes=b), "B",
                    {d: f(*args) for d, f in _KV_MISTAKES.items()}, rtol=1e-6)

    cases = [ok("llama3-70b", 1, 2), ok("llama3-70b", 8, 2), ok("llama3-8b", 4, 2), ok("llama3-405b", 16, 2),
             ok("mixtral-8x7b", 16, 2), ok("gpt3-1.3b", 4, 2), ok("llama2-13b", 8, 2), ok("llama3-70b", 4, 1)]
    rng = np.random.default_rng(seed)
    for _ in range(4):
        cases.append(ok(str(rng.choice(_KV_MODELS)), int(rng.choice([2, 4, 8, 16, 32])), int(rng.choice([1, 2]))))
    return cases
