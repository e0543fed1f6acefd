"""Checkers for the chapter "Serving large models" (book/practice/serving)."""

from dataclasses import replace

from .. import serving as S
from ..catalog import models
from ..parallel.machines import machine
from . import Answer, exercise

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


# srv-ex-bstar: the decode batch at which a dense model's step turns compute-bound (no context)
@exercise("srv-ex-bstar", CHAPTER, parts=("bf16", "fp8"),
          doc="decode batch b* at which the weight GEMMs take as long as reading the weights, Llama 3 70B on a "
              "DGX H100 with TP 8 and no context, BF16 and FP8 weights")
def _srv_ex_bstar():
    m, h = models.get("llama3-70b"), machine("dgx-h100")
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


# srv-ex-batching: continuous batching of Llama 3 70B on a DGX H100 at 10 requests/s
@exercise("srv-ex-batching", CHAPTER, parts=("tpot", "ttft", "batch", "max_rate"),
          doc="TPOT, TTFT and mean running batch of Llama 3 70B on a DGX H100 (TP 8) under continuous batching at "
              "10 requests/s of 1,024-token prompts and 256 output tokens; the largest sustainable rate")
def _srv_ex_batching():
    m = models.get("llama3-70b")
    s = S.continuous_batching(m, "dgx-h100", 8, 10.0, 1024, 256)
    rate = S.sustainable_rate(m, "dgx-h100", 8, 1024, 256)
    return {
        "tpot": Answer(s.tpot, "s", mistakes={
            "gave the decode step of a single sequence; the running batch is larger":
                S.decode_step_time(m, "dgx-h100", 1, 1024 + 128, tp=8).total}),
        "ttft": Answer(s.ttft, "s", mistakes={
            "gave the prefill alone; the prompt also waits for an iteration boundary and shares its iteration "
            "with the running decodes": s.prefill}),
        "batch": Answer(s.batch, "1", mistakes={
            "multiplied the rate by the output tokens only (Little's law needs the time each sequence stays, "
            "output tokens times TPOT)": 10.0 * 256}),
        "max_rate": Answer(rate, "1"),
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
