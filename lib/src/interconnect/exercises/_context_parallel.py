"""Checkers for the chapter "Context parallelism and long sequences" (book/parallel/context_parallel)."""

from dataclasses import replace

from .. import catalog, parallel
from ..parallel.machines import machine
from . import Answer, exercise

CHAPTER = "book/parallel/context_parallel"


# cp-ex-kv: K, V bytes per forward ring step, Llama 3 70B at 65,536 tokens, TP = 8, CP = 8
@exercise("cp-ex-kv", CHAPTER, parts=("kv_step", "hidden_step", "layer_forward"),
          doc="bytes one GPU receives per forward ring step (one rank's K, V block), the bytes of that block's "
              "hidden states 2 (s/cp) h for comparison, and the K, V bytes a GPU sends per layer in the forward pass")
def _cp_ex_kv():
    ll = replace(catalog.models.get("llama3-70b"), seq_len=65536, global_batch=64)
    lay = parallel.Layout(dp=1, tp=8, pp=1, cp=8)
    kv = parallel.cp_kv_bytes(ll, lay)                     # the whole sequence's K, V on one TP rank
    step = kv / lay.cp
    tokens = ll.seq_len / lay.cp
    hidden = 2 * tokens * ll.hidden
    forward = (lay.cp - 1) * step                          # cp - 1 blocks pass each rank
    return {
        "kv_step": Answer(step, "B", mistakes={
            "8 KV heads on the rank: either TP was forgotten (it splits the 8 KV heads, one per rank) or the 64 "
            "query heads were taken for K and V (8 per TP rank; with GQA only the KV heads carry keys and values)":
                step * lay.tp,
            "counted K or V, not both": step / 2}),
        "hidden_step": Answer(hidden, "B", mistakes={"counted elements, not 2-byte BF16 values": hidden / 2}),
        "layer_forward": Answer(forward, "B", mistakes={
            "counted cp blocks; a rank's own block does not travel, cp - 1 do": lay.cp * step,
            "gave one step's block, not all cp - 1 of the forward pass": step}),
    }


# cp-ex-minseq: least tokens per GPU for the ring to hide, NVLink 4 against one NDR NIC, Llama 3 405B
@exercise("cp-ex-minseq", CHAPTER, parts=("nvlink", "ib", "ratio"),
          doc="tokens per GPU (s / cp) at which a forward ring step's causal attention covers its K, V transfer, "
              "Llama 3 405B on DGX H100: CP in a node (TP = 1, CP = 8) and across nodes (TP = 8, CP = 16), "
              "and their ratio ib / nvlink")
def _cp_ex_minseq():
    ll, h100 = catalog.models.get("llama3-405b"), machine("dgx-h100")
    lays = {"nvlink": parallel.Layout(dp=1, tp=1, pp=1, cp=8), "ib": parallel.Layout(dp=1, tp=8, pp=1, cp=16)}
    c = {k: parallel.cp_min_tokens(ll, lay, h100) for k, lay in lays.items()}
    # peak FLOP/s and links at their peak rate, with NCCL's latency of a send (nccl=None: no NCCL model)
    peak = replace(h100, comm_efficiency=1.0, attention_efficiency=1.0, nccl=None,
                   intra_latency=h100.collective_time("sendrecv", 0, 2, 1),
                   inter_latency=h100.collective_time("sendrecv", 0, 2, h100.gpus_per_node))
    out = {}
    for k, lay in lays.items():
        out[k] = Answer(c[k], "1", mistakes={
            "counted the full block's FLOPs; a causal mask computes half of each block":
                parallel.cp_min_tokens(ll, lay, h100, causal=False),
            "took multi-head attention's K, V (128 heads) instead of GQA's 8": c[k] * ll.heads / ll.n_kv_heads,
            "used the peak FLOP/s and link bandwidth instead of the measured efficiencies":
                parallel.cp_min_tokens(ll, lay, peak)})
    out["ratio"] = Answer(c["ib"] / c["nvlink"], "1", mistakes={
        "inverted the ratio: nvlink / ib": c["nvlink"] / c["ib"]})
    return out


# cp-ex-ulysses: ring against Ulysses, bytes per GPU per layer (forward + backward), Llama 3 70B, 32K, TP = 1
@exercise("cp-ex-ulysses", CHAPTER, parts=("ring", "ulysses", "max_cp"),
          doc="bytes one GPU sends per layer and sequence, forward and backward, with ring attention and with "
              "Ulysses at cp = 8 (Llama 3 70B, 32,768 tokens, TP = 1, FlashAttention); the largest Ulysses degree")
def _cp_ex_ulysses():
    ll = replace(catalog.models.get("llama3-70b"), seq_len=32768, global_batch=8)
    lay = parallel.Layout(dp=1, tp=1, pp=1, cp=8, flash_attention=True)
    per = ll.global_batch * ll.layers                       # microbatches x layers in the step
    ring = parallel.wire_bytes(parallel.cp_traffic(ll, lay)) / per
    uly = parallel.wire_bytes(parallel.ulysses_traffic(ll, lay)) / per
    frac = (lay.cp - 1) / lay.cp
    return {
        "ring": Answer(ring, "B", mistakes={
            "counted the forward AllGather only; the backward pass gathers K, V again and reduce-scatters dK, dV":
                ring / 3,
            "counted the whole vector, not the (cp - 1)/cp a rank sends": ring / frac}),
        "ulysses": Answer(uly, "B", mistakes={
            "counted the forward pass only; the backward pass runs both AllToAlls in reverse": uly / 2,
            "counted all a rank holds, not the (cp - 1)/cp it sends": uly / frac}),
        "max_cp": Answer(ll.n_kv_heads, "1", rtol=0, mistakes={
            "took the 64 query heads; with GQA the 8 KV heads must be split too": ll.heads}),
    }


# cp-ex-balance: the busiest rank's causal work over the average, contiguous blocks and 2 cp chunks, cp = 8
@exercise("cp-ex-balance", CHAPTER, parts=("contiguous", "balanced"),
          doc="max over mean of the causal attention work per rank, cp = 8, s = 131,072, contiguous blocks "
              "and the 2 cp-chunk assignment")
def _cp_ex_balance():
    s, cp = 131072, 8
    flat = parallel.causal_work(s, cp, balanced=False)
    bal = parallel.causal_work(s, cp)
    return {
        "contiguous": Answer(float(flat.max() / flat.mean()), "1", mistakes={
            "gave the last rank's work over the first's, not over the mean": float(flat.max() / flat.min())}),
        "balanced": Answer(float(bal.max() / bal.mean()), "1")}
