"""Checkers for the chapter "Putting it together: planning a cluster" (book/parallel/planning)."""

from dataclasses import replace

from .. import devices, memory, parallel, scenarios
from ..parallel import Cluster
from . import Answer, exercise

CHAPTER = "book/parallel/planning"


# ---- the chapter's state: the scenario its setup cells use too ----------------------

def _limit():
    """The chapter's memory limit: 80 GiB GPUs less 4 GiB for context, buffers, fragmentation."""
    return scenarios.planning().memory_limit


def _gpt3(**kw):
    return replace(scenarios.planning().model, **kw)


def _clusters():
    cl = scenarios.planning().clusters
    return {"pcie": cl["8×A100 PCIe + HDR"], "a100": cl["DGX A100 + HDR"], "h100": cl["DGX H100 + NDR"]}


# planning-ex-units: memory per GPU of the DGX H100 plan for GPT-3 175B on 2,048 GPUs (the chapter plans 1,024),
# and the room left on an H100
def _vary_units(rng):
    """Per-student numbers: the GPUs planned for."""
    return {"gpus": int(rng.choice([256, 512, 4096]))}


@exercise("planning-ex-units", CHAPTER, parts=("memory", "left"), variants=_vary_units,
          doc="memory per GPU of the DGX H100 plan for GPT-3 175B on 2,048 GPUs, and the room left on an 80 GiB "
              "H100 (bytes)")
def _planning_ex_units(gpus=2048):
    mem = float(parallel.plan(_gpt3(), _clusters()["h100"], gpus, _limit()).best[2])
    cap = float(devices.get_gpu("H100").memory)
    return {"memory": Answer(mem, "B"),
            "left": Answer(cap - mem, "B", mistakes={
                "took the H100's \"80 GB\" as 80e9 bytes; HBM capacity is binary: 80 GiB": 80e9 - mem,
                "subtracted from the planner's 76 GiB limit, not from the GPU's 80 GiB": _limit() - mem})}


# planning-ex-zero3: DP communication time and memory per GPU for ZeRO 0-3, DGX A100 winner
@exercise("planning-ex-zero3", CHAPTER, parts=("dp_comm", "memory", "stage_that_changes_traffic", "traffic_ratio"),
          doc="DP communication time and memory per GPU for ZeRO stages 0-3 (arrays of 4), which stage changes "
              "the traffic, and its traffic over stage 0's")
def _planning_ex_zero3():
    m, c = _gpt3(), _clusters()["a100"]
    lay = parallel.plan(m, c, 1024, _limit()).best[0]
    t = [float(parallel.dp_comm_time(m, replace(lay, zero_stage=z), c)) for z in range(4)]
    mem = [float(parallel.layout_memory(m, replace(lay, zero_stage=z))) for z in range(4)]
    r = t[3] / t[0]
    return {"dp_comm": Answer(t, "s"), "memory": Answer(mem, "B"),
            "stage_that_changes_traffic": Answer("3", choices=("0", "1", "2", "3"), mistakes={
                "1": "ZeRO-1 shards the optimizer states, not the traffic: "
                     "a ReduceScatter plus an AllGather is an AllReduce",
                "2": "ZeRO-2 shards the gradients, but still moves one ReduceScatter and one AllGather, an AllReduce"}),
            "traffic_ratio": Answer(r, "1", mistakes={
                "2: ZeRO-3 adds one AllGather of the parameters, half an AllReduce, not a whole one": 2.0 * r / 1.5})}


# planning-ex-recompute: planner with full recomputation (no SP) against selective + SP, 512 DGX A100 GPUs (the
# chapter plans 1,024)
def _vary_recompute(rng):
    """Per-student numbers: the GPUs planned for."""
    return {"gpus": int(rng.choice([128, 256, 2048, 4096]))}


@exercise("planning-ex-recompute", CHAPTER, parts=("mfu_full", "mfu_selective", "memory_full", "memory_selective",
                                                    "higher_mfu"), variants=_vary_recompute,
          doc="MFU and memory per GPU of the winner on 512 DGX A100 GPUs with full and with selective "
              "recomputation; which has the higher MFU")
def _planning_ex_recompute(gpus=512):
    m, c = _gpt3(), _clusters()["a100"]
    full = parallel.plan(m, c, gpus, _limit(), recompute="full", sequence_parallel=False).best
    sel = parallel.plan(m, c, gpus, _limit()).best
    win = "full" if full[1].mfu > sel[1].mfu else "selective"
    return {"mfu_full": Answer(float(full[1].mfu), "1", rtol=0.01, mistakes={
                "gave the hardware FLOPs utilisation (HFU); MFU does not count the recomputed forward pass":
                    float(full[1].hfu)} if abs(full[1].hfu - full[1].mfu) > 0.03 * full[1].mfu else {}),
            "mfu_selective": Answer(float(sel[1].mfu), "1", rtol=0.01),
            "memory_full": Answer(float(full[2]), "B"), "memory_selective": Answer(float(sel[2]), "B"),
            "higher_mfu": Answer(win, choices=("full", "selective"), mistakes={
                ("full" if win == "selective" else "selective"):
                    "full recomputation repeats the forward pass: a third more arithmetic and more TP AllReduces, "
                    "so it lowers MFU although it saves memory"})}


# planning-ex-network: HDR -> NDR network, or NVLink 3 -> PCIe 4.0 inside the node, GPT-3 on 1,024 A100
@exercise("planning-ex-network", CHAPTER, parts=("time_hdr", "time_ndr", "faster_ndr", "slower_pcie", "matters_more"),
          doc="best step time with HDR and NDR, the fraction NDR saves, the fraction PCIe inside the node costs, "
              "and which link matters more")
def _planning_ex_network():
    m, cl = _gpt3(), _clusters()
    hdr = parallel.plan(m, cl["a100"], 1024, _limit()).best[1].total
    ndr = parallel.plan(m, Cluster.dgx_a100(nodes_link="ib-ndr"), 1024, _limit()).best[1].total
    pcie = parallel.plan(m, cl["pcie"], 1024, _limit()).best[1].total
    faster, slower = 1 - ndr / hdr, pcie / hdr - 1
    more = "intranode" if slower > faster else "network"
    return {"time_hdr": Answer(float(hdr), "s"), "time_ndr": Answer(float(ndr), "s"),
            "faster_ndr": Answer(float(faster), "1", rtol=0.05, mistakes={
                "gave the time ratio NDR/HDR, not the fraction saved 1 - NDR/HDR": float(ndr / hdr)}),
            "slower_pcie": Answer(float(slower), "1", rtol=0.02, mistakes={
                "gave the time ratio PCIe/HDR, not the fraction added PCIe/HDR - 1": float(pcie / hdr)}),
            "matters_more": Answer(more, choices=("network", "intranode"), mistakes={
                ("network" if more == "intranode" else "intranode"):
                    "the TP AllReduces on the intra-node link are on the critical path of every layer; "
                    "the network carries only the PP sends and the exposed DP traffic"})}


# planning-ex-batch: GPT-3 with a global batch of 4,096 and of 1,024 sequences (the chapter plans 1,536) on 2,048 DGX
# H100 GPUs, and the small batch on 512
def _vary_batch(rng):
    """Per-student numbers: the large and the small global batch (sequences), the GPUs, and the fewer GPUs."""
    large, small = [(4096, 1024), (2048, 512), (4096, 512), (2048, 1024)][int(rng.integers(4))]
    return {"large": large, "small": small, "gpus": int(rng.choice([1024, 2048])), "fewer": int(rng.choice([256, 512]))}


@exercise("planning-ex-batch", CHAPTER, parts=("mfu_large", "bubble_large", "mfu_small", "bubble_small",
                                                "mfu_small_fewer"), variants=_vary_batch,
          doc="MFU and bubble share of the best plan for B = 4,096 and 1,024 on 2,048 DGX H100 GPUs, and the MFU of "
              "B = 1,024 on 512")
def _planning_ex_batch(large=4096, small=1024, gpus=2048, fewer=512):
    c = _clusters()["h100"]
    out = {}
    for key, B, n in (("large", large, gpus), ("small", small, gpus), ("small_fewer", small, fewer)):
        st = parallel.plan(_gpt3(global_batch=B), c, n, _limit()).best[1]
        # MFU and bubble are fractions; the chapter prints them as percentages
        out[f"mfu_{key}"] = Answer(float(st.mfu), "1", rtol=0.01)
        if key != "small_fewer":
            out[f"bubble_{key}"] = Answer(float(st.shares()["bubble"]), "1", rtol=0.02)
    return out


# planning-ex-kv: sequences of 32,768 tokens in the KV cache, Llama 70B on 8 H100 with t = 8, GQA and MHA
@exercise("planning-ex-kv", CHAPTER, parts=("sequences_gqa", "sequences_mha"),
          doc="how many 32,768-token sequences fit in the KV cache with 8 and with 64 KV heads (10 % kept free)")
def _planning_ex_kv():
    h100 = devices.get_gpu("H100")
    weights = 2 * 69e9 / 8  # Llama 2 70B, about 69B parameters, 2 bytes each, split over t = 8
    free, free_all = 0.9 * h100.memory - weights, h100.memory - weights
    out = {}
    for kv, name in ((8, "sequences_gqa"), (64, "sequences_mha")):
        per = memory.kv_cache_bytes(layers=80, kv_heads=kv // 8, head_dim=128, seq_len=32768)
        full = memory.kv_cache_bytes(layers=80, kv_heads=kv, head_dim=128, seq_len=32768)
        v = int(free // per)
        m = {"did not split the KV heads over the 8 TP ranks: each holds kv_heads / 8": int(free // full),
             "kept no memory free; the exercise leaves 10 % of each GPU's memory": int(free_all // per)}
        out[name] = Answer(v, "1", rtol=0, mistakes={k: w for k, w in m.items() if w != v})
    return out


# ---- the 2024 worked examples: Llama 3 405B (scenarios.planning_2024) -----------------

def _meta_layout(zero_stage, recompute="none"):
    """Dubey et al. (2024), Table 4: TP8 PP16 DP64 on 8,192 H100, uneven stages, the 2024 stack."""
    return scenarios.planning_2024().stack.layout(dp=64, tp=8, pp=16, uneven_stages=True, zero_stage=zero_stage,
                                                  recompute=recompute)


# planning-ex-llama-zero: the lowest ZeRO stage that fits Meta's layout without recomputation, and its memory
@exercise("planning-ex-llama-zero", CHAPTER, parts=("zero_stage", "memory", "recompute_with_zero1"),
          doc="the lowest ZeRO stage with which Llama 3 405B on TP8 PP16 DP64 fits in 76 GiB without "
              "recomputation, its memory per GPU (bytes), and the cheapest recomputation that fits with ZeRO-1")
def _planning_ex_llama_zero():
    m = scenarios.planning_2024().model
    limit = parallel.memory_limit_of("H100")
    mem = {z: float(parallel.layout_memory(m, _meta_layout(z))) for z in range(4)}
    z_fit = min(z for z in range(4) if mem[z] <= limit)
    rc_fit = next(rc for rc in ("none", "selective", "full")
                  if parallel.layout_memory(m, _meta_layout(1, rc)) <= limit)
    sel1 = parallel.layout_memory(m, _meta_layout(1, "selective"))
    stage_mistakes = {str(z): f"ZeRO-{z} needs {mem[z] / 2**30:.1f} GiB, more than the 76 GiB limit"
                      for z in range(z_fit)}
    stage_mistakes.update({str(z): f"ZeRO-{z} fits too, but ZeRO-{z_fit} is the lowest stage that does"
                           for z in range(z_fit + 1, 4)})
    return {"zero_stage": Answer(str(z_fit), choices=("0", "1", "2", "3"), mistakes=stage_mistakes),
            "memory": Answer(mem[z_fit], "B", mistakes={
                "gave ZeRO-1's memory: its FP32 gradients are not sharded": mem[1],
                "gave ZeRO-3's memory, which also shards the 16-bit weights": mem[3]}),
            "recompute_with_zero1": Answer(rc_fit, choices=("none", "selective", "full"), mistakes={
                rc: (f"with fused attention selective recomputation saves almost nothing ({sel1 / 2**30:.1f} GiB); "
                     "only full recomputation drops the stored activations to the layers' inputs"
                     if rc == "selective" else "without recomputation ZeRO-1 does not fit")
                for rc in ("none", "selective", "full") if rc != rc_fit})}


# planning-ex-nvl72: Llama 3 405B, 512 sequences, on 1,152 GB200 NVL72 and DGX B200 GPUs
@exercise("planning-ex-nvl72", CHAPTER, parts=("tp", "limit", "dp_exposed_nvl72", "dp_exposed_b200"),
          doc="the tp the planner picks for Llama 3 405B (512 sequences) on 1,152 GB200 NVL72 GPUs, the rule that "
              "stops tp > 8, and the exposed data-parallel communication of the winners on NVL72 and DGX B200 (s)")
def _planning_ex_nvl72():
    s = scenarios.planning_2024()
    m = replace(s.model, global_batch=s.machine_batch)
    nvl = s.plan(1152, "GB200 NVL72", model=m, chunks=(1, 2, 4)).best
    b2 = s.plan(1152, "DGX B200", model=m, chunks=(1, 2, 4)).best
    t_nvl, t_b2 = float(nvl[1].dp_comm_exposed), float(b2[1].dp_comm_exposed)
    return {"tp": Answer(nvl[0].tp, "1", rtol=0, mistakes={
                "the NVLink domain's size is the upper limit of tp, not the choice": 72}),
            "limit": Answer("kv_heads", choices=("kv_heads", "gpus_per_node", "memory"), mistakes={
                "gpus_per_node": "an NVL72 rack has 72 GPUs per NVLink domain, so tp = 16 would stay on NVLink; the "
                                 "planner rejects it because 16 does not divide Llama 3's 8 key-value heads",
                "memory": "layouts with tp > 8 are rejected before their memory is computed: tp must divide the "
                          "8 key-value heads"}),
            "dp_exposed_nvl72": Answer(t_nvl, "s", mistakes={"swapped the two machines": t_b2}),
            "dp_exposed_b200": Answer(t_b2, "s", mistakes={"swapped the two machines": t_nvl})}


# planning-ex-design: choose tp and pp (dp = GPUs / (tp pp)) for GPT-3 175B on 256 DGX H100 GPUs: fits, and within 10 %
# of the best step time of parallel.plan (microbatch 1, ZeRO-1, selective recomputation with sequence parallelism)
DESIGN_TP, DESIGN_PP = (1, 2, 4, 8, 16), (1, 2, 4, 8, 16, 32, 64)


#: parallel.plan's rules for rejecting a layout, in words: (a phrase of its reason, the words a student reads)
RULE_WORDS = (("TP would leave NVLink", "the tensor-parallel group would leave the node's NVLink"),
              ("does not divide heads", "tp does not divide the attention heads"),
              ("does not divide kv_heads", "tp does not divide the key-value heads"),
              ("does not divide layers", "pp does not divide the layers"),
              ("> layers", "more pipeline stages than layers"),
              ("global_batch", "the global batch does not split into dp data-parallel ranks"),
              ("memory", "it does not fit in the memory limit"))


def _rule(reason):
    """A rejected layout's rule in words (parallel.plan's reasons hold the layout's numbers)."""
    for key, words in RULE_WORDS:
        if key in reason:
            return words
    raise RuntimeError(f"no words for the planner's rule {reason!r}")


def _vary_design(rng):
    """Per-student numbers: the GPUs and the machine ('h100': DGX H100 + NDR, 'a100': DGX A100 + HDR)."""
    return {"gpus": int(rng.choice([128, 256, 512])), "machine": str(rng.choice(["h100", "a100"]))}


@exercise("planning-ex-design", CHAPTER, variants=_vary_design,
          doc="a layout 'tp<t>-pp<p>' (t in 1, 2, 4, 8, 16; p in 1, 2, ..., 64; dp = GPUs / (t p)) for GPT-3 175B on "
              "256 DGX H100 GPUs that fits in 76 GiB and whose step time is within 10 % of the best (microbatch 1, "
              "ZeRO-1, selective recomputation with sequence parallelism)")
def _planning_ex_design(gpus=256, machine="h100"):
    from .design import design_answer

    p = parallel.plan(_gpt3(), _clusters()[machine], gpus, _limit(), microbatches=(1,))
    step = {(lay.tp, lay.pp): float(st.total) for lay, st, _ in p.ranked}
    why = {(lay.tp, lay.pp): _rule(reason) for lay, reason in p.rejected}
    options, cost = {}, {}
    for tp in DESIGN_TP:
        for pp in DESIGN_PP:
            name = f"tp{tp}-pp{pp}"
            if gpus % (tp * pp):
                options[name] = ["tp times pp does not divide the GPUs"]
            elif (tp, pp) in step:
                options[name], cost[name] = [], step[tp, pp]
            else:
                options[name] = [why[tp, pp]]
    return design_answer(options, cost, 0.10, too_costly=(
        "it fits, but its step is more than 10 % slower than the best layout's: look at which of its communication "
        "the step exposes"))
