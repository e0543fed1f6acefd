"""Checkers for the chapter "Protocols" (book/stack/protocols)."""

import numpy as np

from .. import collectives as C
from .. import links
from .. import topology as topo
from .. import transfer as T
from ..catalog import measurements, traces
from ..units import GiB, KiB, MiB
from . import Answer, exercise

CHAPTER = "book/stack/protocols"


# prot-ex-nvlink-pairs: 256 MiB P2P copies on the DGX-1, one NVLink and two NVLinks
@exercise("prot-ex-nvlink-pairs", CHAPTER, parts=("gpu0_gpu1", "gpu0_gpu4", "ratio"),
          doc="time (s) of a 256 MiB P2P copy GPU0->GPU1 and GPU0->GPU4 on the DGX-1, and their ratio")
def _prot_ex_nvlink_pairs():
    dgx1 = topo.dgx1_hybrid_cube_mesh(with_pcie=True)
    a = T.p2p_copy(dgx1, "gpu0", "gpu1", 256 * MiB).time
    b = T.p2p_copy(dgx1, "gpu0", "gpu4", 256 * MiB).time
    return {"gpu0_gpu1": Answer(a, "s", rtol=0.01), "gpu0_gpu4": Answer(b, "s", rtol=0.01),
            "ratio": Answer(a / b, "1", rtol=0.01, mistakes={"inverted the ratio (GPU0->GPU4 over GPU0->GPU1)": b / a})}


# prot-ex-p2p-matrix: DGX-1 GPU pairs that must be staged through host memory
@exercise("prot-ex-p2p-matrix", CHAPTER, parts=("staged_pairs", "label"),
          doc="number of unordered DGX-1 GPU pairs without peer-to-peer, and their topo_matrix label")
def _prot_ex_p2p_matrix():
    dgx1 = topo.dgx1_hybrid_cube_mesh(with_pcie=True)
    gs, tm = topo.gpus(dgx1), topo.topo_matrix(dgx1)
    staged = [(a, b) for i, a in enumerate(gs) for b in gs[i + 1:] if not T.p2p_supported(dgx1, a, b)]
    labs = sorted({tm.label(a, b) for a, b in staged})
    assert len(labs) == 1
    return {"staged_pairs": Answer(len(staged), "1", rtol=0, mistakes={
                "counted ordered pairs: each pair appears twice": 2 * len(staged)}),
            "label": Answer(labs[0], choices=("SYS", "PHB", "PIX", "NV1", "NV2"), mistakes={
                "PHB": "same socket without NVLink would be PHB; these pairs cross the socket link",
                "PIX": "PIX is a shared PCIe switch; these pairs cross the socket link"})}


# prot-ex-chunks: best chunk count of a host-staged GPU0->GPU6 copy, 64 KiB and 256 MiB
@exercise("prot-ex-chunks", CHAPTER, parts=("best_c_64KiB", "best_c_256MiB"),
          doc="power-of-two chunk count (up to 4096) minimising a host-staged GPU0->GPU6 copy on the DGX-1")
def _prot_ex_chunks():
    dgx1 = topo.dgx1_hybrid_cube_mesh(with_pcie=True)
    cs = [2 ** k for k in range(13)]
    out = {}
    for part, n in (("best_c_64KiB", 64 * KiB), ("best_c_256MiB", 256 * MiB)):
        times = [T.host_staged_copy(dgx1, "gpu0", "gpu6", n, chunks=c).time for c in cs]
        best = cs[int(np.argmin(times))]
        out[part] = Answer(best, "1", rtol=0,
                           mistakes={"took the largest chunk count: each chunk pays the latencies again": 4096}
                           if best != 4096 else {})
    return out


# prot-ex-ddr4: pipelined bounce buffer with DDR4 host memory, against GPUDirect RDMA
@exercise("prot-ex-ddr4", CHAPTER, parts=("bounce_ddr4", "gpudirect"),
          doc="time (s) of the 1 GiB 16-chunk bounce buffer with DDR4 host memory, and of GPUDirect RDMA")
def _prot_ex_ddr4():
    two = topo.cluster(nodes=2, gpus_per_node=8)
    slow = T.bounce_buffer(two, "n0.gpu0", "n1.gpu0", 1 * GiB, chunks=16,
                           host_memory_bandwidth=T.HOST_MEMORY_BANDWIDTH).time
    fast = T.bounce_buffer(two, "n0.gpu0", "n1.gpu0", 1 * GiB, chunks=16).time
    rdma = T.gpudirect_rdma(two, "n0.gpu0", "n1.gpu0", 1 * GiB).time
    mk = {} if abs(fast - slow) <= 0.05 * slow else {"kept the default DDR5 host memory": fast}
    return {"bounce_ddr4": Answer(slow, "s", mistakes=mk), "gpudirect": Answer(rdma, "s")}


# prot-ex-nvls: 8 x H100 AllReduce of 256 MiB, ring against NVLS
@exercise("prot-ex-nvls", CHAPTER, parts=("bytes_ring", "bytes_nvls", "time_ring", "time_nvls", "busbw_ring",
                                          "busbw_nvls", "algbw_measured", "fraction_of_model"),
          doc="(a) bytes sent per GPU, (b) times (s) and busbw (B/s), (c) measured algbw and fraction of the model")
def _prot_ex_nvls():
    nv4 = links.get_link("nvlink4")
    n, p = 256 * MiB, 8
    b_ring = C.cost_terms("allreduce", p, "ring")[1] * n
    tr = C.collective_time("allreduce", n, p, nv4.bandwidth, nv4.latency)
    tn = C.in_network_time("allreduce", n, p, nv4.bandwidth, nv4.latency)
    bus = {k: C.bus_bandwidth("allreduce", C.algorithm_bandwidth(n, t), p) for k, t in (("ring", tr), ("nvls", tn))}
    nvls_meas = measurements.get("h200-nvlink4-allreduce-nvls-busbw").value   # the exercise's 480 GB/s
    meas = nvls_meas / C.bus_factor("allreduce", p)
    model = C.algorithm_bandwidth(16 * GiB, C.in_network_time("allreduce", 16 * GiB, p, nv4.bandwidth, nv4.latency))
    return {
        "bytes_ring": Answer(b_ring, "B", mistakes={
            "forgot the factor 2 of AllReduce (reduce-scatter + all-gather)": b_ring / 2,
            "used p instead of p - 1": 2 * n}),
        "bytes_nvls": Answer(n, "B"),
        "time_ring": Answer(tr, "s"), "time_nvls": Answer(tn, "s"),
        "busbw_ring": Answer(bus["ring"], "B/s"), "busbw_nvls": Answer(bus["nvls"], "B/s"),
        "algbw_measured": Answer(meas, "B/s", mistakes={"took busbw as algbw: divide by 2(p-1)/p": nvls_meas}),
        "fraction_of_model": Answer(meas / model, "1", mistakes={
            "took busbw as algbw: divide by 2(p-1)/p": nvls_meas / model}),
    }


# prot-ex-sharp-cluster: 16-rank AllReduce over NDR, ring against SHARP, 1 GiB and 8 KiB
@exercise("prot-ex-sharp-cluster", CHAPTER, parts=("ratio_1GiB", "ratio_8KiB"),
          doc="ring time over SHARP time for a 16-rank NDR AllReduce at 1 GiB and at 8 KiB")
def _prot_ex_sharp_cluster():
    ndr = links.get_link("ib-ndr")
    out = {}
    for part, n in (("ratio_1GiB", 1 * GiB), ("ratio_8KiB", 8 * KiB)):
        tr = C.collective_time("allreduce", n, 16, ndr.bandwidth, ndr.latency)
        ts = C.in_network_time("allreduce", n, 16, ndr.bandwidth, ndr.latency)
        out[part] = Answer(tr / ts, "1", mistakes={"inverted the ratio (SHARP over ring)": ts / tr})
    return out


# prot-ex-nccl-trace: read a real NCCL_DEBUG=INFO log (2 nodes x 4 GPUs on InfiniBand)
_KIND_WHY = {
    "p2p": "'P2P/...' is the GPUs' own peer-to-peer path (NVLink or PCIe), used only inside one node",
    "shm": "SHM would read 'via SHM/...': a copy staged through host shared memory; no line of this log says so",
    "ib": "'NET/IB...' is the network (RDMA verbs through the NIC); it joins ranks on different nodes",
    "socket": "'NET/Socket' would be TCP through the kernel; this log's network lines name the IB transport",
}


@exercise("prot-ex-nccl-trace", CHAPTER, parts=("gpus_per_node", "channels", "intra", "inter", "gdr"),
          doc="from a real NCCL_DEBUG=INFO log: GPUs per node, channels, the transport inside a node and between "
              "nodes ('p2p', 'shm', 'ib', 'socket'), and whether the NIC reads GPU memory directly ('yes', 'no')")
def _prot_ex_nccl_trace():
    log = traces.nccl_log(traces.get("ib-2x4-nccl-info").text)
    per_node = log["local_ranks"]
    node = {r: r // per_node for r in range(log["nranks"])}
    kinds = {("inter" if node[s] != node[d] else "intra"): traces.transport_kind(t)
             for _, s, d, _, t in log["connections"]}
    gdr = "yes" if any(t.endswith("/GDRDMA") for *_, t in log["connections"]
                       if traces.transport_kind(t) in ("ib", "net")) else "no"
    return {
        "gpus_per_node": Answer(per_node, "1", rtol=0, generic=(), mistakes={
            "took nRanks, every rank of the communicator; localRanks counts one node's": log["nranks"]}),
        "channels": Answer(log["n_channels"], "1", rtol=0, generic=()),
        "intra": Answer(kinds["intra"], choices=tuple(_KIND_WHY), mistakes={
            k: v for k, v in _KIND_WHY.items() if k != kinds["intra"]}),
        "inter": Answer(kinds["inter"], choices=tuple(_KIND_WHY), mistakes={
            k: v for k, v in _KIND_WHY.items() if k != kinds["inter"]}),
        "gdr": Answer(gdr, choices=("yes", "no"), mistakes={
            ("no" if gdr == "yes" else "yes"):
                "GDRDMA at the end of a NET line means GPUDirect RDMA: the NIC reads and writes GPU memory, "
                "no copy through host memory" if gdr == "yes" else
                "without GDRDMA on the NET line NCCL stages the data through host memory"}),
    }
