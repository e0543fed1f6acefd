"""Checkers for the chapter "Expert parallelism" (book/parallel/expert_parallel)."""

import numpy as np

from .. import catalog, devices, links, moe, netsim, parallel, topology
from .. import collectives as C
from . import Answer, exercise

CHAPTER = "book/parallel/expert_parallel"


# ep-ex-bytes: dispatch bytes of one GPU, 8,192 tokens, h = 5,120, BF16, top-2, EP = 16
def _vary_ep_bytes(rng):
    """Per-student numbers: tokens per GPU, hidden size, top-k and the EP degree (64 experts)."""
    return {"tokens": int(rng.choice([4096, 8192, 16_384])), "hidden": int(rng.choice([4096, 5120, 7168])),
            "top_k": int(rng.choice([2, 4, 8])), "ep": int(rng.choice([8, 16, 32]))}


@exercise("ep-ex-bytes", CHAPTER, parts=("sent", "leave"), variants=_vary_ep_bytes,
          doc="bytes one GPU sends in the dispatch AllToAll (balanced router), and how many leave the GPU")
def _ep_ex_bytes(tokens=8192, hidden=5120, top_k=2, ep=16):
    T, h, b, k, E = tokens, hidden, 2, top_k, 64
    M = moe.alltoall_matrix(np.full(E, ep * T * k // E), ep=ep, hidden=h, bytes_per_element=b)
    sent = float(M[0].sum())
    leave = sent - float(M[0, 0])
    top1 = "forgot top-k: each token is sent once per chosen expert (k of them)"
    return {"sent": Answer(sent, "B", mistakes={top1: sent / k}),
            "leave": Answer(leave, "B", mistakes={
                top1: leave / k,
                "counted the piece the GPU keeps for itself: (p - 1)/p of the bytes leave, not all": sent,
                "took one piece n/p for what leaves, instead of (p - 1) pieces": sent / ep})}


# ep-ex-capacity: Switch layer, 16,384 tokens top-1 over 128 experts, c = 1.0 and 1.25, skew 0.3
@exercise("ep-ex-capacity", CHAPTER, parts=("capacity_1", "capacity_1_25", "dropped_1", "dropped_1_25"),
          doc="expert capacity at capacity factors 1.0 and 1.25, and the tokens each drops at skew 0.3")
def _ep_ex_capacity():
    T, E = 16384, 128
    loads = moe.route_tokens(T, E, top_k=1, skew=0.3, seed=0)
    cap = {c: moe.capacity(T, E, top_k=1, capacity_factor=c) for c in (1.0, 1.25)}
    drop = {c: moe.dropped_tokens(loads, cap[c]) for c in (1.0, 1.25)}
    out = {"capacity_1": Answer(cap[1.0], "1", rtol=0),
           "capacity_1_25": Answer(cap[1.25], "1", rtol=0, mistakes={
               "forgot the capacity factor: capacity = c × T k / E": cap[1.0]}),
           "dropped_1": Answer(drop[1.0], "1", rtol=0),
           "dropped_1_25": Answer(drop[1.25], "1", rtol=0)}
    # dropped tokens are the excess over capacity, not the tokens of the overloaded experts
    for c, name in ((1.0, "dropped_1"), (1.25, "dropped_1_25")):
        whole = int(np.sum(np.asarray(loads)[np.asarray(loads) > cap[c]]))
        if whole != drop[c]:
            out[name] = Answer(drop[c], "1", rtol=0, mistakes={
                "counted every token of an overloaded expert; only those beyond its capacity are dropped": whole})
    return out


# ep-ex-topk: top-1 against top-2 on eight H100 over NVLink 4, 4,096 tokens per GPU, h = 4,096
@exercise("ep-ex-topk", CHAPTER, parts=("bytes_top1", "bytes_top2", "time_top1", "time_top2", "time_ratio"),
          doc="dispatch bytes per GPU and AllToAll time for top-1 and top-2 on 8 H100 (NVLink 4), and the time ratio")
def _ep_ex_topk():
    nv4 = links.get_link("nvlink4")
    out, n, t = {}, {}, {}
    for k in (1, 2):
        M = moe.alltoall_matrix(moe.dispatch_counts(8 * 4096, 64, 8, top_k=k, seed=0), 8, 4096)
        n[k] = float(M.sum(axis=1)[0])
        t[k] = C.collective_time("alltoall", n[k], 8, nv4.bandwidth, nv4.latency, "direct")
        piece = C.collective_time("alltoall", n[k] / 8, 8, nv4.bandwidth, nv4.latency, "direct")
        out[f"bytes_top{k}"] = Answer(n[k], "B", mistakes={} if k == 1 else {"forgot top-k: bytes scale with k": n[1]})
        out[f"time_top{k}"] = Answer(t[k], "s", mistakes={
            "passed one piece n/p as the AllToAll size; n is all a rank sends, the piece it keeps included": piece})
    r = t[2] / t[1]
    # the latency term does not double: the ratio is just under 2
    tol = min(0.02, 0.4 * abs(2 - r) / r)
    out["time_ratio"] = Answer(r, "1", rtol=tol, mistakes={
        "exactly 2: the latency term (p - 1)α does not grow with the bytes": 2.0} if abs(2 - r) > 2 * tol * r else {})
    return out


# ep-ex-placement: EP = 16 at router skew 0.75 (the chapter and its explorer simulate skews 0, 0.5, 1 and
# 1.5), on two full nodes or on GPUs 0-3 of four nodes
def _vary_placement(rng):
    """Per-student numbers: the router's skew."""
    return {"skew": float(rng.choice([0.25, 0.4, 0.9, 1.25]))}


@exercise("ep-ex-placement", CHAPTER, parts=("time_2nodes", "time_4nodes", "faster"), variants=_vary_placement,
          doc="simulated dispatch time of EP = 16, router skew 0.75, on two full 8-GPU nodes and on half of four "
              "nodes; which is faster")
def _ep_ex_placement(skew=0.75):
    counts = moe.dispatch_counts(16 * 4096, 64, 16, top_k=2, skew=skew, seed=0)
    M = moe.alltoall_matrix(counts, 16, 4096)
    t = {}
    for nodes, gpus in ((2, None), (4, [f"n{j}.gpu{i}" for j in range(4) for i in range(4)])):
        g = topology.cluster(nodes, 8)
        t[nodes] = netsim.simulate(g, moe.alltoall_flows(M, gpus or topology.gpus(g))).makespan
    win = "tie" if abs(t[2] - t[4]) <= 0.01 * t[2] else ("2nodes" if t[2] < t[4] else "4nodes")
    why = {"2nodes": "two nodes send only half of each GPU's bytes over the network, four nodes three quarters",
           "4nodes": "more NICs in total do not help: each GPU still sends through its own one NIC, and on four "
                     "nodes three quarters of its bytes cross the network instead of half",
           "tie": "the share of bytes that cross the network differs: half on two nodes, three quarters on four"}
    return {"time_2nodes": Answer(t[2], "s"), "time_4nodes": Answer(t[4], "s"),
            "faster": Answer(win, choices=("2nodes", "4nodes", "tie"),
                             mistakes={c: w for c, w in why.items() if c != win})}


# ep-ex-crossover: hidden size where dispatch + combine = expert compute, f = 4h, top-2, EP = 8, over one XDR NIC
# per GPU (the chapter gives the NDR crossover; HDR, 200 or 400 GbE would repeat it, for FP8 or BF16)
def _vary_crossover(rng):
    """Per-student numbers: the network port of each GPU and the EP degree."""
    return {"nic": str(rng.choice(["ib-edr", "ib-xdr"])), "ep": int(rng.choice([4, 16, 32]))}


@exercise("ep-ex-crossover", CHAPTER, parts=("h_bf16", "h_fp8"), variants=_vary_crossover,
          doc="hidden size at which the AllToAlls take as long as the experts over XDR, with BF16 and FP8 dispatch")
def _ep_ex_crossover(nic="ib-xdr", ep=8):
    h100, ndr = devices.get_gpu("H100"), links.get_link(nic)
    # the H100 at its measured GEMM ceiling, as the chapter
    kw = dict(n_tokens=4096, ep=ep, top_k=2, peak_flops=h100.peak_flops,
              gemm_efficiency=parallel.ceiling_fraction("H100"))
    hs = 2 ** np.linspace(9, 15, 241)
    out = {}
    for b, name in ((2, "h_bf16"), (1, "h_fp8")):
        sh = np.array([moe.moe_layer_time(hidden=int(h), ffn_hidden=int(4 * h), bandwidth=ndr.bandwidth,
                                          latency=ndr.latency, bytes_per_element=b, **kw)["comm_share"] for h in hs])
        out[name] = (float(np.interp(-0.5, -sh, hs)), float(np.interp(-2 / 3, -sh, hs)))
    res = {}
    for name in ("h_bf16", "h_fp8"):
        h, h_one = out[name]
        m = {"counted the dispatch only: dispatch and combine are two AllToAlls": h_one}
        if name == "h_fp8":
            m["doubled the crossover: the ratio is proportional to b/h, so halving b halves it"] = 2 * out["h_bf16"][0]
            m["left the crossover unchanged: FP8 halves the bytes, "
              "and with them the crossover hidden size"] = out["h_bf16"][0]
        res[name] = Answer(h, "1", mistakes={k: v for k, v in m.items() if abs(v - h) > 0.05 * h})
    return res


# ep-ex-imbalance: GPU-level imbalance for EP = 8, 16, 32, 64 (128 experts, skew 0.8, seed 2, 65,536 tokens, top-4;
# the chapter's own case is 64 experts at skew 1)
def _vary_imbalance(rng):
    """Per-student numbers: the router's skew, its seed and the experts per token."""
    return {"skew": float(rng.choice([0.5, 0.8, 1.2, 1.5])), "seed": int(rng.choice([1, 2, 3, 4])),
            "top_k": int(rng.choice([2, 4]))}


@exercise("ep-ex-imbalance", CHAPTER, parts=("ep8", "ep16", "ep32", "ep64"), variants=_vary_imbalance,
          doc="GPU-level load imbalance (max/mean) for EP = 8, 16, 32 and 64, 128 experts, 65,536 tokens, top-4, "
              "skew 0.8, seed 2")
def _ep_ex_imbalance(skew=0.8, seed=2, top_k=4):
    loads = moe.route_tokens(65536, 128, top_k=top_k, skew=skew, seed=seed)
    expert = float(moe.imbalance(loads))
    out = {}
    for ep in (8, 16, 32, 64):
        v = float(moe.imbalance(moe.rank_loads(loads, ep)))
        m = {"gave the expert-level imbalance; rank_loads sums the experts on each GPU first": expert}
        out[f"ep{ep}"] = Answer(v, "1", rtol=0.01, mistakes={k: w for k, w in m.items() if abs(w - v) > 0.03 * v})
    return out


# ep-ex-nodelimit: DeepSeek-V3's network bytes per token: plain AllToAll, one copy per node, at most 4 nodes
@exercise("ep-ex-nodelimit", CHAPTER, parts=("plain", "per_node", "limited", "bound"),
          doc="bytes per token the FP8 dispatch of DeepSeek-V3 (256 experts, top-8, h = 7,168, 8 nodes) sends across "
              "the network: plain AllToAll, one copy per node, one per node with M = 4; the most with M = 4")
def _ep_ex_nodelimit():
    ds = catalog.models.get("deepseek-v3")
    args = dict(n_experts=ds.num_experts, top_k=ds.top_k, nodes=8, hidden=ds.hidden, bytes_per_element=1)
    plain = moe.cross_node_dispatch(per_node=False, **args)
    node = moe.cross_node_dispatch(**args)
    lim = moe.cross_node_dispatch(node_limit=4, **args)
    every = ds.top_k * ds.hidden     # all k copies, FP8
    bf16 = "used 2 bytes per element; DeepSeek-V3 dispatches in FP8 (1 byte)"
    return {
        "plain": Answer(plain["bytes"], "B", mistakes={
            "counted all k copies: only those for experts on other nodes, (N - 1)/N of them, cross": every,
            bf16: 2 * plain["bytes"]}),
        "per_node": Answer(node["bytes"], "B", mistakes={
            "gave the plain AllToAll (one copy per remote expert): one copy per node sends fewer": plain["bytes"],
            bf16: 2 * node["bytes"]}),
        "limited": Answer(lim["bytes"], "B", mistakes={
            "gave the bound M copies, not the expectation": lim["max_bytes"],
            "used per_node=False: a node limit alone does not change a plain AllToAll": plain["bytes"],
            bf16: 2 * lim["bytes"]}),
        "bound": Answer(lim["max_bytes"], "B", mistakes={
            "counted all k copies: with M = 4 at most 4 leave the node": every}),
    }
