"""Checkers for the chapter "Applications" (book/practice/applications)."""

from .. import applications as A
from .. import collectives as C
from .. import devices, links, parallel, scenarios
from .. import memory as M
from ..units import GB
from . import Answer, exercise

CHAPTER = "book/practice/applications"
WEIGHTS_70B = 2 * 70e9          # Llama 2 70B in BF16


# ---- the chapter's state: the scenario its cells use too ---------------------------

def _limit():
    """The chapter's usable memory per 80 GiB H100 (memory_limit: 76 GiB)."""
    return scenarios.applications().memory_limit


def _price():
    """p5.48xlarge on-demand, USD per instance-hour (the chapter's PRICE["p5.48xlarge"])."""
    return scenarios.applications().price["p5.48xlarge"]


def _h100():
    return devices.get_gpu("H100")


def _peak():
    """The chapter's peak_h100: achieved FLOP/s on large GEMMs, the H100's measured GEMM ceiling."""
    return _h100().peak_flops * parallel.ceiling_fraction("H100")


def _decode(link_name, tp=8, batch=1, context=4096):
    lk, h = links.get_link(link_name), _h100()
    return A.decode_step(70e9, 80, 8192, tp, lk.bandwidth, lk.latency, h.memory_bandwidth, batch=batch,
                         kv_bytes=M.kv_cache_bytes(80, 8, 128, context, batch), peak_flops=_peak())


def _serve(tp, link_name, context):
    # the chapter's serve(): the largest batch whose KV cache fits next to the weights
    b = int((tp * _limit() - WEIGHTS_70B) // (M.kv_cache_bytes(80, 8, 128, 1) * context))
    return b, _decode(link_name, tp, b, context)


def _nodes(name):
    return scenarios.applications().nodes[name]


def _llama70():
    return scenarios.applications().model


# app-ex-kv: KV cache of Llama 2 70B, 16 sequences of 8,192 tokens, and the smallest TP group
def _vary_kv(rng):
    """Per-student numbers: the sequences and their length in tokens (kept within one 8-GPU node)."""
    return {"sequences": int(rng.choice([4, 8, 24, 32])), "tokens": int(rng.choice([4096, 16384]))}


@exercise("app-ex-kv", CHAPTER, parts=("kv_per_token", "kv_total", "min_gpus"), variants=_vary_kv,
          doc="KV cache bytes per token and for 16 x 8,192 tokens of Llama 2 70B, and the smallest TP group "
              "(1, 2, 4 or 8 H100s, 76 GiB usable) that holds it with the weights")
def _app_ex_kv(sequences=16, tokens=8192):
    kv1 = M.kv_cache_bytes(80, 8, 128, 1)
    kv = M.kv_cache_bytes(80, 8, 128, tokens, sequences)
    need = next(t for t in (1, 2, 4, 8) if t * _limit() >= WEIGHTS_70B + kv)
    mha = "counted the 64 query heads; with grouped-query attention only the 8 key-value heads are cached"
    only_k = "forgot the factor 2: both a key and a value vector are cached per head"
    return {"kv_per_token": Answer(kv1, "B", mistakes={mha: M.kv_cache_bytes(80, 64, 128, 1), only_k: kv1 / 2}),
            "kv_total": Answer(kv, "B", mistakes={mha: M.kv_cache_bytes(80, 64, 128, tokens, sequences),
                                                  only_k: kv / 2}),
            "min_gpus": Answer(float(need), "1", rtol=1e-9, generic=(), mistakes={
                k: v for k, v in {"sized for the weights alone; the KV cache needs room too":
                                  float(next(t for t in (1, 2, 4, 8) if t * _limit() >= WEIGHTS_70B))}.items()
                if v != need})}


# app-ex-decode: TP communication per token, t = 8, batch 16 (the chapter prints batch 1), NVLink 4 and PCIe 5.0,
# and its share on PCIe
def _vary_decode(rng):
    """Per-student numbers: the batch and the tensor-parallel degree."""
    return {"batch": int(rng.choice([4, 32, 64])), "tp": int(rng.choice([4, 8]))}


@exercise("app-ex-decode", CHAPTER, parts=("comm_nvlink", "comm_pcie", "share_pcie"), variants=_vary_decode,
          doc="tensor-parallel communication per decoded token (s) of Llama 2 70B at t = 8, batch 16, on NVLink 4 "
              "and PCIe 5.0 x16, and its share of the token on PCIe")
def _app_ex_decode(batch=16, tp=8):
    nv, pc = _decode("nvlink4", tp, batch), _decode("pcie5x16", tp, batch)
    msg = 2 * batch * 8192                      # 2bh bytes per AllReduce
    out = {}
    for part, d, name in (("comm_nvlink", nv, "nvlink4"), ("comm_pcie", pc, "pcie5x16")):
        lk = links.get_link(name)
        one_ar = C.collective_time("allreduce", msg, tp, lk.bandwidth, lk.latency)
        slips = {"counted one AllReduce per layer; there are two (after attention and after the MLP)": 80 * one_ar,
                 "counted the latency once per AllReduce; a ring pays it 2(t - 1) times":
                     2 * 80 * (lk.latency + 2 * (tp - 1) / tp * msg / lk.bandwidth)}
        out[part] = Answer(d.comm, "s", mistakes={k: v for k, v in slips.items() if abs(v / d.comm - 1) > 0.05})
    out["share_pcie"] = Answer(pc.comm_share, "1", mistakes={
        "divided by the weight-read time instead of the whole token": pc.comm / pc.weights})
    return out


# app-ex-halo: crossover edge and share at n = 256 for a halo of width 2 on NDR
@exercise("app-ex-halo", CHAPTER, parts=("crossover", "share_256"),
          doc="crossover subdomain edge (cells) for a width-2 FP64 halo on an H100 with one NDR port, "
              "and the halo share of a step at n = 256")
def _app_ex_halo():
    ndr, h = links.get_link("ib-ndr"), _h100()
    args = (ndr.bandwidth, ndr.latency, h.memory_bandwidth)
    n_star = A.halo_crossover(*args, halo=2)
    share = A.halo_step(256, *args, halo=2).comm_share
    return {"crossover": Answer(n_star, "1", generic=(), mistakes={
                # a halo of width 1 and a doubled (bidirectional) bandwidth give nearly the same n*
                "halved the halo bytes per unit of bandwidth: a halo one cell wide (a 13-point stencil needs two "
                "layers), or the bidirectional NIC bandwidth (each halo message uses one direction)":
                    A.halo_crossover(*args, halo=1),
                "exchanged one face instead of six": A.halo_crossover(*args, halo=2, faces=1)}),
            "share_256": Answer(share, "1", mistakes={
                "used a halo one cell wide": A.halo_step(256, *args, halo=1).comm_share,
                "gave halo over update time, not halo over the whole step":
                    A.halo_step(256, *args, halo=2).comm / A.halo_step(256, *args, halo=2).compute})}


# app-ex-shuffle: 400 GB AllToAll on 8 GPUs, NVLink 4 and PCIe 5.0, alpha-beta
def _vary_shuffle(rng):
    """Per-student numbers: the table's size (GB) and the GPUs."""
    return {"gb": float(rng.choice([100, 250, 800, 1000])), "gpus": int(rng.choice([4, 8]))}


@exercise("app-ex-shuffle", CHAPTER, parts=("nvlink", "pcie"), variants=_vary_shuffle,
          doc="alpha-beta time (s) of the AllToAll shuffle of 400 GB over 8 GPUs on NVLink 4 and on PCIe 5.0 x16")
def _app_ex_shuffle(gb=400.0, gpus=8):
    out = {}
    d, p = gb * GB, gpus
    for part, name in (("nvlink", "nvlink4"), ("pcie", "pcie5x16")):
        lk = links.get_link(name)
        t = C.collective_time("alltoall", d / p, p, lk.bandwidth, lk.latency, "direct")
        out[part] = Answer(t, "s", mistakes={
            "sent the whole table through each GPU's link; each rank sends only the D/p it holds":
                C.collective_time("alltoall", d, p, lk.bandwidth, lk.latency, "direct"),
            "forgot that each GPU keeps 1/p of its rows: it sends (p - 1)/p of D/p":
                d / p / lk.bandwidth + (p - 1) * lk.latency})
    return out


# app-ex-cost: 300 B tokens on 64 nodes: cost on NVLink nodes and break-even price of PCIe nodes
@exercise("app-ex-cost", CHAPTER, parts=("cost_nvlink", "breakeven_pcie"),
          doc="cost ($) of 300 B tokens on 64 NVLink H100 nodes at the p5.48xlarge price, and the price per "
              "node-hour ($) below which PCIe nodes are cheaper")
def _app_ex_cost():
    m = _llama70()
    st_nv = parallel.plan(m, _nodes("NVLink nodes, 8 NICs"), 512, _limit()).best[1]
    st_pc = parallel.plan(m, _nodes("PCIe nodes, 8 NICs"), 512, _limit()).best[1]
    steps = 300e9 / (m.global_batch * m.seq_len)
    t_nv, t_pc = steps * st_nv.total, steps * st_pc.total
    cost = A.job_cost(t_nv, 64, _price())
    return {"cost_nvlink": Answer(cost, "$", mistakes={
                "priced per GPU-hour as if it were per instance-hour (8 GPUs per instance)": 8 * cost,
                "priced one instance, not 64": cost / 64}),
            "breakeven_pcie": Answer(_price() * t_nv / t_pc, "$", mistakes={
                "inverted the ratio: the slower cluster must be cheaper, by t_nvlink / t_pcie": _price() * t_pc / t_nv,
                "gave the break-even price per GPU-hour, not per node-hour": _price() * t_nv / t_pc / 8})}


# app-ex-serve: 16,384-token contexts on one p5.48xlarge: batch, tokens/s, $ per million tokens
@exercise("app-ex-serve", CHAPTER, parts=("batch", "tokens_per_s", "usd_per_million"),
          doc="largest batch of 16,384-token sequences of Llama 2 70B on 8 H100s (t = 8, NVLink 4), its tokens/s, "
              "and the cost ($) of a million tokens at the p5.48xlarge price")
def _app_ex_serve():
    b, d = _serve(8, "nvlink4", 16384)
    usd = _price() / (d.tokens_per_second * 3600) * 1e6
    return {"batch": Answer(float(b), "1", rtol=1e-9, generic=(), mistakes={
                "left out the weights: the KV cache shares the 8 x 76 GiB with 140 GB of weights":
                    float(int(8 * _limit() // (M.kv_cache_bytes(80, 8, 128, 1) * 16384)))}),
            "tokens_per_s": Answer(d.tokens_per_second, "1", mistakes={
                "gave the tokens per second of one sequence, not of the whole batch": 1 / d.total}),
            "usd_per_million": Answer(usd, "$", mistakes={
                "used the price per GPU-hour for the whole 8-GPU instance": usd / 8})}
