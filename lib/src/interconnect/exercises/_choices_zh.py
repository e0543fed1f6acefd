"""Chinese explanations of the wrong *choices* (``check(..., lang="zh")``), by their English text.

An explanation says which choices are wrong, so it is the answer in other words. Like the chapter
checkers (``_<chapter>.py``), this module is left out of the student edition
(``tools/student_edition.py`` drops every ``exercises/_*.py``); there the sealed key carries each
explanation in both languages, encrypted with its choice (:func:`interconnect.exercises.seal`),
and a student reads it only by giving that choice. ``tests/test_exercises_zh.py`` requires every
explanation a checker gives to have Chinese text here, and ``tests/test_student_edition.py`` that
the student library holds none of them in plain text.

Explanations that a checker computes (a memory size, a latency count) are translated by
:data:`PATTERNS`, so that a new number in the English needs no new translation.
"""

from __future__ import annotations

import re

WHY = {
    # book/why/primer
    "compared algorithm bandwidths, which fall with p even on perfect links; compare bus bandwidths":
        "比较的是算法带宽，即使链路完美，它也随 p 增大而下降；应比较总线带宽",
    # book/why/three_walls
    "compare 2Ψ + 14Ψ/8 with 32 GB: stage 2 keeps the 16-bit weights whole":
        "把 2Ψ + 14Ψ/8 与 32 GB 比较：第 2 阶段仍保留完整的 16 位权重",
    # book/history/rendering
    "same frame rate, but AFR keeps one GPU's render time as latency":
        "帧率相同，但 AFR 的延迟仍是一块 GPU 的渲染时间",
    "AFR gives both cards the same number of frames, so it runs at twice the slower card's rate":
        "AFR 给两张卡分配同样多的帧，所以帧率是较慢那张卡的两倍",
    "even interleave gives both cards the same number of lines: the slow card sets the pace":
        "均匀交错给两张卡分配同样多的扫描线：由慢卡决定节奏",
    # book/history/pcie
    "the headline is before FLIT overhead: 16 × 64 GT/s / 8 × 2 = 256 GB/s exactly":
        "宣传数字未扣除 FLIT 开销：16 × 64 GT/s / 8 × 2 正好是 256 GB/s",
    "one direction of x16 is 16 × 64 GT/s / 8 = 128 GB/s; the headline adds both":
        "x16 的一个方向是 16 × 64 GT/s / 8 = 128 GB/s；宣传数字把两个方向相加",
    "one direction after FLIT overhead is about 121 GB/s; the headline is raw and adds both":
        "扣除 FLIT 开销后一个方向约为 121 GB/s；宣传数字是原始速率，且把两个方向相加",
    "PIX is at most one bridge (a shared switch); these pairs cross two lower switches and the upper one":
        "PIX 至多经过一个桥（共用一颗交换芯片）；这些 GPU 对要经过两颗下层交换芯片和一颗上层交换芯片",
    "the pairs now meet in the upper switch, below the root complex: no host bridge is crossed":
        "这些 GPU 对现在在上层交换芯片处汇合，位于根复合体之下：不经过主机桥",
    "NODE crosses two host bridges of one NUMA node; these pairs cross none":
        "NODE 要经过同一个 NUMA 节点的两个主机桥；这些 GPU 对一个也不经过",
    "SYS crosses the socket link; these GPUs are on the same socket": "SYS 要经过插槽链路；这些 GPU 在同一个插槽上",
    "one hop of this ring is not a bridged pair: the slowest hop decides":
        "这个环有一跳不是桥接器相连的 GPU 对：由最慢的一跳决定",
    "no pair of this machine has PIX: its GPUs do not share a PCIe switch":
        "这台机器上没有 PIX 的 GPU 对：它的 GPU 不共用 PCIe 交换芯片",
    "no pair of this machine has PXB: its GPUs do not share a PCIe switch":
        "这台机器上没有 PXB 的 GPU 对：它的 GPU 不共用 PCIe 交换芯片",
    "no pair of this machine has PHB: look up each hop of the ring in the matrix":
        "这台机器上没有 PHB 的 GPU 对：请在矩阵中逐一查找环的每一跳",
    "no hop of this ring leaves its CPU socket: NODE crosses the host bridges within one socket only":
        "这个环没有一跳离开其 CPU 插槽：NODE 只经过同一插槽内的主机桥",
    "a GPU's own x16 link carries one flow; the shared links above it carry four":
        "GPU 自己的 x16 链路只承载一条流；它上方的共享链路承载四条",
    "with one UPI link the socket link (20.8 GB/s) is narrower than the switch uplink":
        "只有一条 UPI 链路时，插槽链路（20.8 GB/s）比交换芯片的上行链路更窄",
    "three UPI links are wider than one PCIe 4.0 x16 uplink, so the uplink limits":
        "三条 UPI 链路比一条 PCIe 4.0 x16 上行链路更宽，因此瓶颈在上行链路",
    # book/history/nvlink
    "the literal reading gives nine times NVIDIA's per-GPU figure": "按字面理解，得到的是 NVIDIA 每块 GPU 数字的九倍",
    "that gives 18 x 900 GB/s = 16.2 TB/s per direction per GPU": "那样每块 GPU 单向就有 18 x 900 GB/s = 16.2 TB/s",
    "then a GPU would have 450 GB/s per direction, half the library's nvlink5":
        "那样一块 GPU 单向只有 450 GB/s，是本库 nvlink5 的一半",
    # book/history/rdma_clusters
    "the NVLink phases move n over 8 GPUs at NVLink speed; the network phase is the largest":
        "NVLink 阶段以 NVLink 的速度在 8 块 GPU 之间搬运 n；网络阶段耗时最长",
    # book/stack/physical_links
    "more lanes do not beat twice the rate per lane: 16 × 8 GT/s = 8 × 16 GT/s, same code":
        "更多的通道胜不过每通道翻倍的速率：16 × 8 GT/s = 8 × 16 GT/s，编码相同",
    "a newer generation on half the lanes only ties: 8 × 16 GT/s = 16 × 8 GT/s, same code":
        "新一代只用一半的通道只能打平：8 × 16 GT/s = 16 × 8 GT/s，编码相同",
    # book/stack/protocols
    "SHM would read 'via SHM/...': a copy staged through host shared memory; no line of this log says so":
        "若是 SHM，会显示 'via SHM/...'：经主机共享内存中转的拷贝；这份日志没有一行这样写",
    "'NET/IB...' is the network (RDMA verbs through the NIC); it joins ranks on different nodes":
        "'NET/IB...' 是网络（经网卡的 RDMA verbs）；它连接不同节点上的 rank",
    "'NET/Socket' would be TCP through the kernel; this log's network lines name the IB transport":
        "'NET/Socket' 是经内核的 TCP；这份日志的网络行写的是 IB 传输",
    "'P2P/...' is the GPUs' own peer-to-peer path (NVLink or PCIe), used only inside one node":
        "'P2P/...' 是 GPU 之间自己的点对点路径（NVLink 或 PCIe），只在一个节点内使用",
    "GDRDMA at the end of a NET line means GPUDirect RDMA: the NIC reads and writes GPU memory, no copy through "
    "host memory":
        "NET 行末尾的 GDRDMA 表示 GPUDirect RDMA：网卡直接读写 GPU 显存，不经主机内存拷贝",
    "same socket without NVLink would be PHB; these pairs cross the socket link":
        "同一插槽且没有 NVLink 的是 PHB；这些 GPU 对要经过插槽链路",
    "PIX is a shared PCIe switch; these pairs cross the socket link":
        "PIX 是共用一颗 PCIe 交换芯片；这些 GPU 对要经过插槽链路",
    # book/stack/other_fabrics
    "AWS does not say 1.28 TB/s is per direction; if it is both added, this doubles every bandwidth term":
        "AWS 没有说 1.28 TB/s 是单向的；如果它是两个方向之和，这样会使每个带宽项翻倍",
    "that assumes the figure adds both directions, which AWS does not say either":
        "这假定该数字是两个方向之和，而 AWS 同样没有这样说",
    # book/parallel/data_parallel
    "compare the tokens per GPU with the NDR break-even (the data-parallel ring crosses the network), not with "
    "NVLink's":
        "应把每块 GPU 的 token 数与 NDR 的盈亏平衡点比较（数据并行的环要经过网络），而不是与 NVLink 的比较",
    # book/parallel/tensor_parallel
    "compare a·α with b·n/B from cost_terms": "用 cost_terms 比较 a·α 与 b·n/B",
    "compare the TP shares at tp_overlap = 0: the machine whose step has more TP time to hide gains more":
        "比较 tp_overlap = 0 时的张量并行占比：一步中可掩盖的张量并行时间越多的机器，收益越大",
    "the planner rejects any t larger than gpus_per_node (8): the TP group would leave NVLink":
        "规划器拒绝任何大于 gpus_per_node（8）的 t：张量并行组会超出 NVLink",
    # book/parallel/pipeline_parallel
    "GPipe pays only the fill and the drain, 2(p-1) transfers, whatever m is":
        "无论 m 是多少，GPipe 只付出填充和排空的 2(p-1) 次传输",
    "interleaving sends v times the messages, but its warm-up slack keeps its slope constant for short transfers":
        "交错调度发送 v 倍的消息，但传输较短时，预热阶段的空闲时间使其斜率保持不变",
    # book/parallel/expert_parallel
    "more NICs in total do not help: each GPU still sends through its own one NIC, and on four nodes three "
    "quarters of its bytes cross the network instead of half":
        "网卡总数更多也无济于事：每块 GPU 仍只经自己的一块网卡发送，而在四个节点上它有四分之三的字节"
        "要经过网络，而不是一半",
    "the share of bytes that cross the network differs: half on two nodes, three quarters on four":
        "经过网络的字节占比不同：两个节点时是一半，四个节点时是四分之三",
    # book/parallel/reliability
    "halving the checkpoint gains less: the best interval shrinks with it, so the checkpoint overhead falls only "
    "by about 1/sqrt(2); the restart is paid in full every failure":
        "把检查点时间减半收益较小：最佳间隔也随之缩短，所以检查点开销只降到约 1/sqrt(2)；"
        "而重启时间每次故障都要全额付出",
    "the job MTBF halves with twice the GPUs, so goodput drops and the time falls by less than half":
        "GPU 数翻倍时作业的 MTBF 减半，所以有效吞吐下降，耗时的减少不到一半",
    # book/parallel/planning
    "without recomputation ZeRO-1 does not fit": "不做重计算时 ZeRO-1 放不下",
    "the TP AllReduces on the intra-node link are on the critical path of every layer; the network carries only "
    "the PP sends and the exposed DP traffic":
        "节点内链路上的张量并行 AllReduce 位于每一层的关键路径上；网络只承载流水线并行的发送和暴露在外的数据并行流量",
    "an NVL72 rack has 72 GPUs per NVLink domain, so tp = 16 would stay on NVLink; the planner rejects it because "
    "16 does not divide Llama 3's 8 key-value heads":
        "NVL72 机柜每个 NVLink 域有 72 块 GPU，所以 tp = 16 仍在 NVLink 之内；规划器拒绝它，"
        "是因为 16 不能整除 Llama 3 的 8 个键值头",
    "layouts with tp > 8 are rejected before their memory is computed: tp must divide the 8 key-value heads":
        "tp > 8 的布局在计算显存之前就被拒绝了：tp 必须整除 8 个键值头",
    "full recomputation repeats the forward pass: a third more arithmetic and more TP AllReduces, so it lowers "
    "MFU although it saves memory":
        "完全重计算要重复前向：运算量多出三分之一，张量并行 AllReduce 也更多，所以它虽然节省显存，却会降低 MFU",
    "ZeRO-1 shards the optimizer states, not the traffic: a ReduceScatter plus an AllGather is an AllReduce":
        "ZeRO-1 切分的是优化器状态，而不是通信量：一次 ReduceScatter 加一次 AllGather 就是一次 AllReduce",
    "ZeRO-2 shards the gradients, but still moves one ReduceScatter and one AllGather, an AllReduce":
        "ZeRO-2 切分了梯度，但仍要做一次 ReduceScatter 和一次 AllGather，即一次 AllReduce",
    # book/practice/operations
    "tensor parallelism's AllReduces move to PCIe and sit on the critical path of every layer; the pipeline "
    "sends one activation per microbatch and stage":
        "张量并行的 AllReduce 移到了 PCIe 上，并位于每一层的关键路径上；流水线每个微批次、每个阶段只发送一次激活值",
    "the GPUs could take more than the slowest earlier stage delivers": "GPU 能处理的多于之前最慢环节所能供给的",
    "compare the storage rate with the CPU decode rate: storage is not the slowest stage":
        "把存储速率与 CPU 解码速率比较：存储不是最慢的环节",
    "100 GbE is 12.5 GB/s, several thousand clips/s: it is not the slowest stage":
        "100 GbE 是 12.5 GB/s，每秒可达数千个片段：它不是最慢的环节",
    "eight PCIe 5.0 x16 links carry about 500 GB/s: copies are not the slowest stage":
        "八条 PCIe 5.0 x16 链路约可承载 500 GB/s：拷贝不是最慢的环节",
    "'P2P/...' is the GPUs' peer-to-peer path (NVLink or PCIe), used only inside one node":
        "'P2P/...' 是 GPU 之间的点对点路径（NVLink 或 PCIe），只在一个节点内使用",
    "SHM would read 'via SHM/...': a copy staged through host shared memory":
        "若是 SHM，会显示 'via SHM/...'：经主机共享内存中转的拷贝",
    "'NET/IB' would be RDMA verbs through the InfiniBand NICs; read the NET line of this log again":
        "'NET/IB' 是经 InfiniBand 网卡的 RDMA verbs；请再读一遍这份日志的 NET 行",
    "'NET/Socket' is TCP through the kernel's network stack, used between nodes":
        "'NET/Socket' 是经内核网络协议栈的 TCP，用于节点之间",
    # book/practice/serving
    "at TP 2 the weights take almost all of each GPU's memory: the cache holds few sequences, and each decode step "
    "reads half of the model per GPU":
        "TP 2 时权重几乎占满每块 GPU 的显存：缓存只能容纳很少的序列，而且每个解码步每块 GPU 要读取半个模型",
    "one replica at TP 8 spends more of every prefill and decode step in its 160 AllReduces over 8 GPUs; two "
    "replicas of TP 4 do the same work with smaller groups, side by side":
        "TP 8 的单个副本在每个预填充步和解码步中，有更多时间花在跨 8 块 GPU 的 160 次 AllReduce 上；"
        "两个 TP 4 的副本用更小的组并排完成同样的工作",
    "the best colocated layout needs more GPUs than the disaggregated one": "最佳共置布局需要的 GPU 比分离布局多",
    # The design tasks' explanations (interconnect.exercises.design): which constraint a configuration
    # violates; several are joined with "; " (why_zh translates each)
    "it meets every constraint, but it is not within the exercise's margin of the best configuration that does: "
    "search further": "它满足全部约束，但与满足约束的最优配置相比，超出了题目给定的余量：请继续搜索",
    # book/why/three_walls: walls-ex-design
    "with this link the efficiency stays below the target: the AllReduce takes too long next to the compute":
        "用这条链路，效率仍低于目标：与计算相比，AllReduce 耗时太长",
    "this link keeps the efficiency above the target, but a slower (cheaper) link of the list does too":
        "这条链路能让效率达到目标，但列表中一条更慢（更便宜）的链路也能做到",
    # book/history/rdma_clusters: rdma-ex-design
    "its bisection bandwidth is below the target: the spine tier is too thin for this traffic":
        "其对分带宽低于目标：对这种流量来说，脊交换机层太薄了",
    "it meets the bisection target, but a design with fewer switches meets it too":
        "它满足对分带宽目标，但交换机更少的设计也能满足",
    # book/stack/topology: topo-ex-design
    "its bisection bandwidth is below the target": "其对分带宽低于目标",
    "its diameter is longer than the limit": "其直径超过了上限",
    "it meets both constraints, but another torus of the list meets them with fewer cables":
        "它满足两项约束，但列表中另一种环面用更少的线缆也能满足",
    # book/parallel/planning: planning-ex-design (parallel.plan's rules, in words)
    "the tensor-parallel group would leave the node's NVLink": "张量并行组会超出节点内的 NVLink",
    "tp does not divide the attention heads": "tp 不能整除注意力头数",
    "tp does not divide the key-value heads": "tp 不能整除键值头数",
    "pp does not divide the layers": "pp 不能整除层数",
    "more pipeline stages than layers": "流水线阶段数多于层数",
    "the global batch does not split into dp data-parallel ranks": "全局批次不能均分到 dp 个数据并行 rank 上",
    "it does not fit in the memory limit": "超出了显存上限",
    "tp times pp does not divide the GPUs": "tp 乘以 pp 不能整除 GPU 数",
    "it fits, but its step is more than 10 % slower than the best layout's: look at which of its communication "
    "the step exposes": "它放得下，但每步耗时比最优布局慢 10 % 以上：看看这一步暴露了它的哪部分通信",
}

#: ``(English pattern, Chinese replacement)`` for the explanations a checker computes.
PATTERNS = [
    (r"(\S+(?: \S+)?) pays (\S+) latencies at p = (\d+), against (\S+) for (.+)",
     r"\1 在 p = \3 时要付出 \2 次延迟，而 \5 只需 \4 次"),
    (r"ZeRO-(\d) needs ([\d.]+) GiB, more than the 76 GiB limit", r"ZeRO-\1 需要 \2 GiB，超过了 76 GiB 的上限"),
    (r"ZeRO-(\d) fits too, but ZeRO-(\d) is the lowest stage that does",
     r"ZeRO-\1 也放得下，但放得下的最低阶段是 ZeRO-\2"),
    (r"with fused attention selective recomputation saves almost nothing \(([\d.]+) GiB\); only full recomputation "
     r"drops the stored activations to the layers' inputs",
     r"使用融合注意力时，选择性重计算几乎省不下显存（\1 GiB）；只有完全重计算才能把保存的激活值减少到各层的输入"),
    (r"its TPOT at batch 1 is ([\d.]+) ms, above 8 ms", r"它在批大小为 1 时的 TPOT 是 \1 ms，高于 8 ms"),
    (r"layout_memory gives ([\d.]+) GiB against the 80 GiB of the GPU",
     r"layout_memory 给出 \1 GiB，而 GPU 的显存是 80 GiB"),
    (r"its (\d+) W is within the (\d+) W its connectors allow", r"它的 \1 W 没有超出其供电接口允许的 \2 W"),
]


def why_zh(text):
    """The Chinese text of a wrong choice's explanation, or ``None`` if there is none."""
    if text in WHY:
        return WHY[text]
    for pattern, zh in PATTERNS:
        m = re.fullmatch(pattern, text)
        if m:
            return m.expand(zh)
    parts = text.split("; ")
    if len(parts) > 1 and all(p in WHY for p in parts):
        return "；".join(WHY[p] for p in parts)   # a design task's several violated constraints
    return None
