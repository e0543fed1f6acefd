"""Checkers for the chapter "Selection and operations" (book/practice/operations)."""

import re
from dataclasses import replace

import numpy as np

from .. import collectives as C
from .. import devices, links, netsim, parallel, scenarios
from .. import operations as O
from .. import topology as T
from ..catalog import traces
from ..parallel import Layout
from ..parallel.machines import comm_efficiency_of
from ..units import GB, MB
from . import Answer, exercise

CHAPTER = "book/practice/operations"


# ---- the chapter's state: the scenario its cells use too ---------------------------

def _cluster(name):
    return scenarios.operations().clusters[name]


def _m13():
    return scenarios.operations().model


def _workloads():
    return scenarios.operations().workloads


# ops-ex-power: DGX H100 nodes per 40 kW rack and the GPUs' share of a node's maximum
def _vary_power(rng):
    """Per-student numbers: the rack's power budget (W)."""
    return {"budget": float(rng.choice([25e3, 35e3, 50e3, 60e3, 80e3]))}


@exercise("ops-ex-power", CHAPTER, parts=("nodes_per_rack", "gpu_share"), variants=_vary_power,
          doc="DGX H100 systems (10.2 kW max) in a 40 kW rack, and the share of 8 x 700 W GPUs in a node's maximum")
def _ops_ex_power(budget=40e3):
    node = 10.2e3
    gpus = 8 * devices.get_gpu("H100").power
    n = int(np.floor(budget / node))
    share = gpus / node
    slips = {"rounded up: a rack cannot be loaded beyond its power budget": int(np.ceil(budget / node)),
             "sized the rack for the GPUs alone (8 x 700 W), not for the whole node": int(np.floor(budget / gpus))}
    return {"nodes_per_rack": Answer(n, "1", rtol=0, generic=(), mistakes={k: v for k, v in slips.items() if v != n}),
            "gpu_share": Answer(share, "1", mistakes={
                "counted one GPU, not eight": devices.get_gpu("H100").power / node})}


# ops-ex-loader: video pipeline throughput, binding stage, CPU cores needed
@exercise("ops-ex-loader", CHAPTER, parts=("throughput", "binding", "cores_needed"),
          doc="throughput (samples/s) of a video data pipeline, the stage that binds, and the cores that stop "
              "decoding from binding")
def _ops_ex_loader():
    video = dict(sample_bytes=2 * MB, decoded_bytes=12 * MB, storage_bandwidth=5 * GB,
                 network_bandwidth=links.get_link("eth-100g").bandwidth, cpu_cores=64, decode_rate=20.0,
                 h2d_bandwidth=8 * links.get_link("pcie5x16").bandwidth, gpu_rate=8 * 250.0)
    st = O.loader_stages(**video)
    thr, bind = O.pipeline_throughput(st)
    others = min(v for k, v in st.items() if k != "decode")
    cores = int(np.ceil(others / video["decode_rate"]))
    # the mistakes, each computed as the slip would compute it
    one_pcie = O.loader_stages(**{**video, "h2d_bandwidth": links.get_link("pcie5x16").bandwidth})
    stored = O.loader_stages(**{**video, "decoded_bytes": video["sample_bytes"]})
    thr_mistakes = {
        "took the GPUs' rate; the pipeline runs at its slowest stage": st["gpu"],
        "counted one PCIe link for the host-to-device copies, not one per GPU": O.pipeline_throughput(one_pcie)[0],
        "used the stored size for the host-to-device copy; the decoded tensors cross PCIe":
            O.pipeline_throughput(stored)[0]}
    thr_mistakes = {k: v for k, v in thr_mistakes.items() if abs(v / thr - 1) > 0.05}
    why = {"gpu": "the GPUs could take more than the slowest earlier stage delivers",
           "storage": "compare the storage rate with the CPU decode rate: storage is not the slowest stage",
           "network": "100 GbE is 12.5 GB/s, several thousand clips/s: it is not the slowest stage",
           "h2d": "eight PCIe 5.0 x16 links carry about 500 GB/s: copies are not the slowest stage",
           "decode": "compare the decode rate with the storage rate"}
    return {"throughput": Answer(float(thr), "1", mistakes=thr_mistakes),
            "binding": Answer(bind, choices=O.STAGES, mistakes={k: v for k, v in why.items() if k != bind}),
            "cores_needed": Answer(cores, "1", rtol=0.02, generic=(), mistakes={
                k: v for k, v in {
                    "sized the CPUs for the storage rate; the next-slowest stage is another one":
                        int(np.ceil(st["storage"] / video["decode_rate"])),
                    "sized the CPUs for the GPUs' rate; the next-slowest stage is another one":
                        int(np.ceil(st["gpu"] / video["decode_rate"]))}.items() if v != cores})}


# ops-ex-placement: 64 MB AllReduce of 8 GPUs in one node and split 4 + 4 over two nodes
@exercise("ops-ex-placement", CHAPTER, parts=("one_node", "split", "ratio"),
          doc="netsim time (s) of a 64 MB ring AllReduce of 8 GPUs in one node and split over two, and the ratio")
def _ops_ex_placement():
    g = T.cluster(nodes=2)
    one = [f"n0.gpu{i}" for i in range(8)]
    split = [f"n0.gpu{i}" for i in range(4)] + [f"n1.gpu{i}" for i in range(4)]
    t1 = netsim.simulate_collective(g, "allreduce", 64 * MB, ranks=one).time
    t2 = netsim.simulate_collective(g, "allreduce", 64 * MB, ranks=split).time
    nv, ndr = links.get_link("nvlink4"), links.get_link("ib-ndr")
    return {"one_node": Answer(t1, "s", rtol=0.03),
            "split": Answer(t2, "s", rtol=0.03, mistakes={
                "used the alpha-beta ring formula with NVLink, ignoring the network hops":
                    C.collective_time("allreduce", 64 * MB, 8, nv.bandwidth, nv.latency)}),
            "ratio": Answer(t2 / t1, "1", rtol=0.03, mistakes={
                "took the link ratio NVLink / NDR; latencies and the ring's steps change it":
                    nv.bandwidth / ndr.bandwidth} if abs(nv.bandwidth / ndr.bandwidth / (t2 / t1) - 1) > 0.04 else {})}


# ops-ex-scaling: synthetic logs at 2 and 16 nodes, weak-scaling efficiency, MFU, communication share
@exercise("ops-ex-scaling", CHAPTER, parts=("efficiency", "mfu", "comm_share"),
          doc="weak-scaling efficiency of 16 nodes against 2, and MFU and communication share at 16 nodes (fractions)")
def _ops_ex_scaling():
    cl = _cluster("NVLink + NDR IB")
    peak = devices.get_gpu("H100").peak_flops
    res = {}
    for nodes, seed, rate in ((2, 1, 0.0), (16, 2, 0.05)):
        mod = replace(_m13(), global_batch=32 * nodes)
        st = parallel.step_time(mod, Layout(dp=nodes, tp=8, pp=1, dp_overlap=0.5), cl)
        lg = O.synthetic_step_log(st, steps=400, straggler_rate=rate, seed=seed)
        tok = mod.global_batch * mod.seq_len
        res[nodes] = O.analyse_step_log(lg["total"], tok, mod.model_flops() / tok, 8 * nodes, peak,
                                        comm=lg["comm"], warmup=20)
    eff = O.scaling_efficiency(res[2]["mean"], res[16]["mean"], 8)
    # the answers come from a fixed seeded log: a tight tolerance still accepts rounding to 3 digits
    return {"efficiency": Answer(eff, "1", rtol=0.005, mistakes={
                "used strong scaling (divides by the 8x GPUs): the batch per node is fixed, so this is weak scaling":
                    O.scaling_efficiency(res[2]["mean"], res[16]["mean"], 8, mode="strong"),
                "used the median steps: the wall clock pays the mean, stragglers included":
                    res[2]["median"] / res[16]["median"]}),
            "mfu": Answer(res[16]["mfu"], "1", rtol=0.005),
            "comm_share": Answer(res[16]["comm_share"], "1", rtol=0.005)}


# ops-ex-cost: break-even price of the two cheaper clusters against NVLink + NDR for a mix of TP- and PP-heavy
# steps (the chapter tabulates each workload alone)
def _vary_cost(rng):
    """Per-student numbers: how many TP-heavy and PP-heavy steps the job mix runs in turn."""
    return {"tp_steps": int(rng.choice([1, 2, 3])), "pp_steps": int(rng.choice([2, 3, 4]))}


@exercise("ops-ex-cost", CHAPTER, parts=("breakeven_pcie", "breakeven_nvlink_eth", "tolerant"), variants=_vary_cost,
          doc="price fraction below which PCIe + 100 GbE, and NVLink + 100 GbE, give more training per unit of "
              "money than NVLink + NDR for a mix of one TP-heavy and one PP-heavy step; which workload tolerates "
              "the PCIe cluster")
def _ops_ex_cost(tp_steps=1, pp_steps=1):
    wl = _workloads()
    fast = _cluster("NVLink + NDR IB")
    weight = {"TP-heavy": tp_steps, "PP-heavy": pp_steps}

    def mix(cl):
        return sum(n * parallel.step_time(*wl[w], cl).total for w, n in weight.items())

    def alone(cl, w):
        return parallel.step_time(*wl[w], fast).total / parallel.step_time(*wl[w], cl).total

    out = {}
    for part, name in (("breakeven_pcie", "PCIe + 100 GbE"), ("breakeven_nvlink_eth", "NVLink + 100 GbE")):
        cl = _cluster(name)
        be = mix(fast) / mix(cl)
        mean = sum(n * alone(cl, w) for w, n in weight.items()) / (tp_steps + pp_steps)
        out[part] = Answer(be, "1", mistakes={k: v for k, v in {
            "gave the step-time ratio slow / fast; the break-even price is its inverse, throughput slow / fast":
                1 / be,
            "averaged the two workloads' break-even prices: the mix's break-even is its total time fast over "
            "its total time slow": mean}.items() if abs(v - be) > 0.05 * be})
    be_tp, be_pp = alone(_cluster("PCIe + 100 GbE"), "TP-heavy"), alone(_cluster("PCIe + 100 GbE"), "PP-heavy")
    tol = "pp" if be_pp > be_tp else "tp"
    out["tolerant"] = Answer(tol, choices=("tp", "pp"), mistakes={
        ("tp" if tol == "pp" else "pp"): "tensor parallelism's AllReduces move to PCIe and sit on the "
                                         "critical path of every layer; the pipeline sends one activation "
                                         "per microbatch and stage"})
    return out


# ops-ex-fallback: 2 GB hierarchical AllReduce on 16 nodes, NDR rails against a socket fallback
def _vary_fallback(rng):
    """Per-student numbers: the gradient (GB) and the number of nodes."""
    return {"gb": float(rng.choice([0.5, 1.0, 4.0, 8.0])), "nodes": int(rng.choice([4, 8, 32, 64]))}


@exercise("ops-ex-fallback", CHAPTER, parts=("time_ib", "time_socket", "slowdown"), variants=_vary_fallback,
          doc="2 GB hierarchical AllReduce on 16 DGX H100-like nodes over NDR rails and over one shared 100 GbE "
              "interface per node (s), and the slowdown")
def _ops_ex_fallback(gb=2.0, nodes=16):
    nv, ndr, eth = links.get_link("nvlink4"), links.get_link("ib-ndr"), links.get_link("eth-100g")
    eff = comm_efficiency_of("nvlink4")     # NVLink 4's measured ring efficiency, every link
    args = (gb * GB, nodes, 8, nv.bandwidth * eff, nv.latency)
    t_ib = C.hierarchical_allreduce_time(*args, ndr.bandwidth * eff, ndr.latency)
    t_so = C.hierarchical_allreduce_time(*args, eth.bandwidth * eff / 8, eth.latency)
    t_so_unshared = C.hierarchical_allreduce_time(*args, eth.bandwidth * eff, eth.latency)
    return {"time_ib": Answer(t_ib, "s", mistakes={
                "left out the communication efficiency (links at their peak)":
                    C.hierarchical_allreduce_time(gb * GB, nodes, 8, nv.bandwidth, nv.latency, ndr.bandwidth,
                                                  ndr.latency)}),
            "time_socket": Answer(t_so, "s", mistakes={
                "gave each GPU a whole 100 GbE interface; the node's 8 GPUs share one": t_so_unshared}),
            "slowdown": Answer(t_so / t_ib, "1", mistakes={
                "gave each GPU a whole 100 GbE interface; the node's 8 GPUs share one": t_so_unshared / t_ib})}


# ops-ex-trace: a real NCCL_DEBUG=INFO log in which NCCL found no InfiniBand device
_FALLBACK_WHY = {
    "p2p": "'P2P/...' is the GPUs' peer-to-peer path (NVLink or PCIe), used only inside one node",
    "shm": "SHM would read 'via SHM/...': a copy staged through host shared memory",
    "ib": "'NET/IB' would be RDMA verbs through the InfiniBand NICs; read the NET line of this log again",
    "socket": "'NET/Socket' is TCP through the kernel's network stack, used between nodes",
}


@exercise("ops-ex-trace", CHAPTER, parts=("inter", "intra", "gpus_per_node", "bandwidth_ratio"),
          doc="from a real NCCL_DEBUG=INFO log: the transport between nodes and inside a node ('p2p', 'shm', 'ib', "
              "'socket'), the GPUs per node, and how many times more network bandwidth a node has on eight NDR "
              "ports than on one 100 GbE interface")
def _ops_ex_trace():
    log = traces.nccl_log(traces.get("socket-fallback-nccl-info").text)
    line = traces.get("socket-fallback-nccl-info").text.splitlines()
    # the 'rank[device]' pairs give each rank's GPU on its node: ranks 8..15 are GPUs 0..7 of one node
    dev = {int(r): int(d) for ln in line for r, d in re.findall(r"(\d+)\[(\d+)\]", ln)}
    per_node = max(dev.values()) + 1
    kinds = {}
    for _, s, d, _, t in log["connections"]:
        kinds["inter" if s // per_node != d // per_node else "intra"] = traces.transport_kind(t)
    ndr, eth = links.get_link("ib-ndr"), links.get_link("eth-100g")
    ratio = 8 * ndr.bandwidth / eth.bandwidth
    return {
        "inter": Answer(kinds["inter"], choices=tuple(_FALLBACK_WHY), mistakes={
            k: v for k, v in _FALLBACK_WHY.items() if k != kinds["inter"]}),
        "intra": Answer(kinds["intra"], choices=tuple(_FALLBACK_WHY), mistakes={
            k: v for k, v in _FALLBACK_WHY.items() if k != kinds["intra"]}),
        "gpus_per_node": Answer(per_node, "1", rtol=0, generic=()),
        "bandwidth_ratio": Answer(ratio, "1", mistakes={
            "compared one NDR port; the node has eight": ndr.bandwidth / eth.bandwidth}),
    }
