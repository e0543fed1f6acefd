"""Chinese text of the checker's verdicts (``check(..., lang="zh")``).

Every sentence a verdict is made of is a template here, keyed as in
:data:`interconnect.exercises.verdicts.TEMPLATES`; the units, the generic mistakes and each
exercise's own diagnosed mistakes are translated by their English text (a mistake with no
Chinese text would be shown in English inside the Chinese verdict:
``tests/test_exercises_zh.py`` produces every verdict and requires every diagnosed mistake,
in every chapter, to have Chinese text here).

Terms follow the book's glossary: 单向 (per direction), 双向 (both directions added),
GB (10⁹ bytes) against GiB (2³⁰ bytes).
"""

TEMPLATES = {
    "right_choice": "✓ {head}：{choice} 正确。",
    "wrong_choice": "✗ {head}：{choice} 不正确。",
    "likely": "可能的错误：{why}。",
    "try_again": "请再试一次。",
    "right_value": "✓ {head}：{shown} 正确（期望值 {want}{tol}）。",
    "tol_suffix": "，误差 {pct} % 以内",
    "right_value_sealed": "✓ {head}：{shown} 正确（{tol}）。",
    "within": "误差 {pct} % 以内",
    "exactly": "须完全一致",
    "wrong_value": "✗ {head}：{shown} 不正确。可能的错误：{desc}。",
    "unknown": ("✗ {head}：{shown} 不正确，且不符合本检查器已知的任何一种错误。答案的单位是{unit}；"
                "请核对题目的参数后再试。"),
    "unanswered": "✗ {head}：{why}（{what}）。",
    "missing": "未给出答案；每一小题都必须作答",
    "not_yet": "尚未作答；请把 ... 换成你的答案",
    "one_of": "以下之一：{choices}",
    "plain_number": "一个纯数（无单位）",
    "number_in": "一个以{unit}为单位的数",
    "code_right": "✓ {head}：你的函数在全部 {n} 个测试用例上都正确（{tol}）。",
    "code_wrong": "✗ {head}：你的函数在 {n} 个测试用例中有 {k} 个未通过。",
    "code_wrong_value": "{kind}时结果错误。",
    "code_raised": "{kind}时抛出 {exc}，而这是合法输入。",
    "code_error": "{kind}时抛出 {exc}。",
    "code_type": "{kind}时返回 {type}，而不是一个数。",
    "code_nan": "{kind}时返回 NaN 或无穷大。",
    "code_no_raise": "{kind}时返回了一个值：应当抛出 ValueError。",
}

#: Coding exercises: each kind of input, by its English description (``coding.kind_text``).
KINDS = {
    "there is one GPU": "只有一块 GPU",
    "there are two GPUs": "有两块 GPU",
    "there are more than two GPUs and the message is large": "GPU 多于两块且消息很大",
    "the message is small (the latency term dominates)": "消息很小（延迟项占主导）",
    "the latency is zero": "延迟为零",
    "there are four or more GPUs and the message is large": "GPU 有四块或更多且消息很大",
    "the number of GPUs is not a power of two": "GPU 数不是 2 的幂",
    "the message size is zero or negative": "消息大小为零或负数",
    "the number of GPUs is not a whole number of at least 1": "GPU 数不是不小于 1 的整数",
    "the bandwidth is zero or negative, or the latency is negative": "带宽为零或负数，或延迟为负数",
    "the generation is 1 or 2 (8b/10b)": "代数为 1 或 2（8b/10b）",
    "the generation is 3, 4 or 5 (128b/130b)": "代数为 3、4 或 5（128b/130b）",
    "the link has one lane": "链路只有一条通道",
    "the generation is not 1 to 5": "代数不在 1 到 5 之间",
    "the lane count is not 1, 2, 4, 8 or 16": "通道数不是 1、2、4、8 或 16",
    "the pipeline has one stage": "流水线只有一级",
    "the schedule is not interleaved (v = 1)": "调度不交错（v = 1）",
    "there are fewer microbatches than stages": "微批次数少于流水线级数",
    "the schedule is interleaved (v > 1)": "调度交错（v > 1）",
    "p, m or v is not a whole number of at least 1": "p、m 或 v 不是不小于 1 的整数",
    "the schedule is interleaved and m is not a multiple of p": "调度交错且 m 不是 p 的倍数",
    "the model runs on one GPU": "模型运行在一块 GPU 上",
    "the TP degree is at most the number of KV heads": "张量并行度不超过 KV 头数",
    "the TP degree exceeds the number of KV heads": "张量并行度超过 KV 头数",
    "the model has as many KV heads as query heads": "模型的 KV 头数与查询头数相同",
    "the cache is FP8 (1 byte per element)": "缓存为 FP8（每个元素 1 字节）",
}

UNITS = {
    "B": "字节", "B/s": "字节/秒", "B/s both": "字节/秒（两个方向相加）", "b/s": "比特/秒", "Hz": "赫兹",
    "dB": "分贝", "mm": "毫米", "s": "秒", "1": "纯数（无单位）", "FLOP/s": "FLOP/s", "FLOP": "FLOP",
    "W": "瓦", "J": "焦耳", "$": "美元", "frames/s": "帧/秒",
}

# the way a shown value names its direction (interconnect.units.fmt_bandwidth)
SHOWN = {" per direction": " 单向", " bidirectional": " 双向"}

# by the name of the generic mistake (interconnect.exercises.answers.GENERIC_MISTAKES)
GENERIC = {
    "direction": "差了 2 倍：单向与双向之别（双向数字是两个方向之和；除非题目另有说明，本库和答案都用单向带宽）",
    "bits": "差了 8 倍：比特与字节之别（Gb/s 与 GB/s）",
    "gib": "差了 1.07 倍（或 1.05、1.10 倍）：二进制单位（GiB、MiB、TiB）与十进制单位（GB、MB、TB）之别",
    "prefix": ("差了 1000 的整数次幂：单位前缀用错了。答案一律用国际单位制基本单位（字节、秒、字节/秒、FLOP/s）："
               "2.5 µs 写作 2.5e-6，450 GB/s 写作 450e9"),
    "percent": "差了 100 倍：请给出小数（0.85），而不是百分数（85）",
    "minutes": "差了 60 或 3600 倍：用了分钟或小时而不是秒（答案以秒为单位）",
    "sign": "符号错了",
}

# Each exercise's own diagnosed mistakes, by their English text (the checkers in _<chapter>.py).
# Numeric parts only: the explanation of a wrong *choice* says which choices are wrong, so its
# Chinese text is in _choices_zh.py, which the student edition leaves out like the checkers; its
# sealed key carries each explanation in both languages, encrypted with the choice.
MISTAKES = {
    # book/why/primer
    "took the datasheet's 900 GB/s, both directions added": "用了规格书上的 900 GB/s，那是两个方向相加的数字",
    "used 900 GB/s, the bidirectional figure: the bandwidth term comes out half as long":
        "用了 900 GB/s 这个双向数字：带宽项因此只算出一半",
    "used one NVLink 4 link (nvlink4-link) instead of the GPU's 18":
        "只用了一条 NVLink 4 链路（nvlink4-link），而不是这颗 GPU 的 18 条",
    "used the AllGather factor (p-1)/p instead of AllReduce's 2(p-1)/p":
        "用了 AllGather 的系数 (p-1)/p，而不是 AllReduce 的 2(p-1)/p",
    "reported algbw n / t: busbw multiplies it by 2(p-1)/p":
        "报的是算法带宽 algbw = n / t：总线带宽 busbw 还要乘以 2(p-1)/p",
    "counted the reduce-scatter half only: the all-gather sends as much again":
        "只算了 ReduceScatter 那一半：AllGather 还要再发送同样多的数据",
    "sent the whole vector twice (2n): each of the 2(p-1) steps sends one chunk n/p":
        "把整个向量发送了两遍（2n）：2(p-1) 步中每一步只发送一块 n/p",
    "took the gradient as 4 bytes per parameter (FP32), the exercise says BF16":
        "把梯度按每个参数 4 字节（FP32）计算，而题目说的是 BF16",
    "used the bidirectional bandwidth: the model needs the per-direction figure": "用了双向带宽：模型需要的是单向带宽",
    # book/why/primer: the trace-reading and derivation exercises
    "divided by the busbw without the ring's 2(p-1)/p: the time is n / algbw":
        "直接除以了总线带宽 busbw，没有去掉环的系数 2(p-1)/p：时间是 n / algbw",
    "divided the algbw: the busbw is the figure to compare with one link":
        "比较的是算法带宽 algbw：能与单条链路相比的是总线带宽 busbw",
    "gave the AllReduce's factor: a ReduceScatter is half of it":
        "给出的是 AllReduce 的系数：ReduceScatter 只有它的一半",
    "gave the ReduceScatter's factor: the AllReduce adds an AllGather that sends as much again":
        "给出的是 ReduceScatter 的系数：AllReduce 还要加上一次 AllGather，再发送同样多的数据",
    "gave the busbw column: algbw is the message size over the time":
        "读的是 busbw 那一列：算法带宽 algbw 是消息大小除以时间",
    "inverted the factor: a rank sends (p - 1)/p of n, so busbw is algbw times (p - 1)/p":
        "系数取反了：每个 rank 发送 n 的 (p - 1)/p，所以 busbw 是 algbw 乘以 (p - 1)/p",
    "kept the algbw of four GPUs: what stays put as p grows is the busbw, each link's rate":
        "沿用了四块 GPU 时的算法带宽 algbw：p 增大时保持不变的是总线带宽 busbw，即每条链路的速率",
    "reported algbw, n / t: busbw multiplies it by (p - 1)/p":
        "报的是算法带宽 algbw = n / t：总线带宽 busbw 还要乘以 (p - 1)/p",
    "took 4 bytes per parameter (FP32); the gradient is BF16":
        "按每个参数 4 字节（FP32）计算，而梯度是 BF16",
    "took the large-p limit 2: at finite p it is 2(p - 1)/p":
        "取了 p 很大时的极限 2：p 有限时系数是 2(p - 1)/p",
    "used the AllGather factor (p-1)/p instead of the AllReduce's 2(p-1)/p":
        "用了 AllGather 的系数 (p-1)/p，而不是 AllReduce 的 2(p-1)/p",
    "used the AllReduce's factor 2(p - 1)/p for a ReduceScatter":
        "对 ReduceScatter 用了 AllReduce 的系数 2(p - 1)/p",
    # book/why/three_walls
    "counted only the 16-bit weights and gradients (4Ψ), not Adam's 12Ψ":
        "只算了 16 位的权重和梯度（4Ψ），漏了 Adam 优化器状态的 12Ψ",
    "allowed T_compute/10 instead of T_compute/9 for 90 % efficiency":
        "要达到 90 % 的效率，通信时间上限应为 T_compute/9，而不是 T_compute/10",
    "forgot the efficiency: 16 GPUs give 16 × efficiency": "忘了效率：16 块 GPU 的加速比是 16 × 效率",
    "forgot the factor 2 of a ring AllReduce (ReduceScatter + AllGather)":
        "漏了环形 AllReduce 的系数 2（ReduceScatter + AllGather）",
    "gave the bidirectional figure (both directions added)": "给出的是双向数字（两个方向相加）",
    "inverted the ratio (compute over communication)": "比值取反了（算成了计算除以通信）",
    "kept the tokens per GPU fixed (weak scaling)": "保持了每块 GPU 的 token 数不变（弱扩展）",
    "left out the attention term": "漏了注意力项",
    "left the answer in seconds or hours instead of days": "答案仍以秒或小时为单位，而不是天",
    "left the step without overlap": "没有考虑一步之内的计算与通信重叠",
    "split everything by 8 (that is stage 3)": "把全部状态都除以 8（那是第 3 阶段）",
    "split nothing (that is plain data parallelism)": "什么都没有切分（那是普通数据并行）",
    "took the communication share 120/420 or 1 − 120/300": "取了通信占比 120/420 或 1 − 120/300",
    "took the communication share of the step, 120/420": "取了这一步中的通信占比 120/420",
    "used 2N (forward only) instead of 6N": "用了 2N（只算前向），而不是 6N",
    "used 2N FLOPs per token (forward only) instead of 6N": "每个 token 用了 2N 次浮点运算（只算前向），而不是 6N",
    "used the bidirectional NVLink figure": "用了 NVLink 的双向数字",
    "used the sparse peak, twice the dense figure": "用了稀疏算力峰值，即稠密数字的两倍",
    # book/history/nvlink
    "added both directions": "把两个方向相加了",
    "compared the bandwidth terms only, 2(p-1)/p: the latency terms decide at this size":
        "只比较了带宽项 2(p-1)/p：在这个消息大小下起决定作用的是延迟项",
    "counted a GPU's links, not a chip's ports": "算的是一块 GPU 的链路数，而不是一颗交换芯片的端口数",
    "counted one chip: a tray holds two": "只算了一颗芯片：一个托盘上有两颗",
    "forgot the factor 2 of the ring (reduce-scatter and all-gather)":
        "漏了环形算法的系数 2（ReduceScatter 和 AllGather）",
    "gave every NVLink pair one link: on the V100 machine eight pairs have two (NV2)":
        "让每一对 NVLink 相连的 GPU 都只有一条链路：在这台 V100 机器上有八对是两条（NV2）",
    "inverted the ratio (library over literal)": "比值取反了（算成了库的数值除以字面数值）",
    "kept the full 450 GB/s: without the chip each GPU loses that chip's links":
        "仍按完整的 450 GB/s 计算：少了这颗芯片，每块 GPU 都会失去连到它的链路",
    "multiplied by the bidirectional per-link figure": "乘以的是每条链路的双向数字",
    "read NV12 as 12 GB/s: it counts twelve bonded links": "把 NV12 读成了 12 GB/s：它表示十二条捆绑在一起的链路",
    "relayed the pairs without NVLink through other GPUs (widest_path) instead of taking the PCIe route":
        "让没有 NVLink 的 GPU 对经由其他 GPU 中转（widest_path），而不是走 PCIe 路径",
    "removed a four-link chip (nvsw1 or nvsw2), not nvsw0 with its five links per GPU":
        "移除的是一颗四链路的芯片（nvsw1 或 nvsw2），而不是每块 GPU 有五条链路连到的 nvsw0",
    "reported algbw (n / t), not busbw": "报的是算法带宽 algbw（n / t），而不是总线带宽 busbw",
    "simulated the cut physical graph: its single-path routing uses one chip per flow, not all remaining links":
        "模拟的是切除后的物理图：它的单路径路由让每条流只经过一颗芯片，而不是用上全部剩余链路",
    "simulated the physical nvl72 graph: its single-path routing uses one 50 GB/s link per flow":
        "模拟的是 nvl72 的物理图：它的单路径路由让每条流只用一条 50 GB/s 的链路",
    "took one link (nvlink5-link), not the whole GPU (nvlink5)":
        "取了一条链路（nvlink5-link），而不是整块 GPU（nvlink5）",
    "took one route (one link) per GPU, not all 18": "每块 GPU 只取了一条路由（一条链路），而不是全部 18 条",
    "took the GPU's whole NVLink bandwidth (six links): one ring uses one link of each GPU per direction":
        "取了 GPU 的全部 NVLink 带宽（六条链路）：一个环在每个方向上只用每块 GPU 的一条链路",
    "took the p -> infinity limit 2, not 2(p-1)/p at this p":
        "取了 p -> infinity 时的极限 2，而不是这个 p 下的 2(p-1)/p",
    "took the widest hop, not the narrowest: a ring goes at the pace of its slowest hop":
        "取了最宽的一跳，而不是最窄的一跳：环的速度取决于它最慢的一跳",
    "used 900 GB/s for the whole GPU, not per link": "把 900 GB/s 当成了整块 GPU 的数字，而它是每条链路的",
    # book/history/pcie
    "compared with the bridge's two directions added: busbw is per direction":
        "比较的对象是桥接器两个方向相加的数字：总线带宽 busbw 是单向的",
    "counted each pair twice (GPU0-GPU4 and GPU4-GPU0 are one pair)":
        "每一对算了两次（GPU0-GPU4 和 GPU4-GPU0 是同一对）",
    "counted every pair: cross-socket (SYS) pairs have no P2P": "算上了所有的对：跨插槽（SYS）的 GPU 对没有 P2P",
    "counted only PIX pairs: PXB pairs also stay below the root complex": "只算了 PIX 对：PXB 对同样不经过根复合体",
    "counted the NODE pairs too: NODE stays inside one socket": "把 NODE 对也算上了：NODE 仍在同一个插槽之内",
    "counted unordered pairs: each pair appears twice, once per direction":
        "算的是无序对：每一对会出现两次，每个方向各一次",
    "did not pipeline (one chunk): the two copies then run one after the other":
        "没有做流水线（只有一块）：两次拷贝于是先后进行",
    "divided by the 256 GB/s headline: it adds both directions and is before FLIT overhead":
        "除以了宣传的 256 GB/s：它是两个方向之和，且未扣除 FLIT 开销",
    "divided by the 256 GB/s headline: it adds both directions and is before FLIT overhead (then 88 % of it)":
        "除以了宣传的 256 GB/s：它是两个方向之和，且未扣除 FLIT 开销（之后还只剩其 88 %）",
    "divided the socket link only: the switch uplink is shared too": "只分摊了插槽链路：交换芯片的上行链路也是共享的",
    "divided the uplink only: the socket link is shared too": "只分摊了上行链路：插槽链路也是共享的",
    "forgot the encoding: lanes × GT/s / 8 is the raw rate, before 128b/130b":
        "忘了编码：lanes × GT/s / 8 是原始速率，尚未扣除 128b/130b",
    "gave the time at peak": "给出的是按峰值计算的时间",
    "gave the usable rate, not what the encoding takes away": "给出的是可用速率，而不是编码占去的部分",
    "halved only once: the generation (8 against 16 GT/s) and the width (x8 against x16) each halve it":
        "只减半了一次：代际（8 对 16 GT/s）和宽度（x8 对 x16）各使它减半",
    "halved the bandwidth only once (generation and width both halve it), or forgot the factor 2 of AllReduce "
    "(reduce-scatter + all-gather)":
        "带宽只减半了一次（代际和宽度都会使它减半），或漏了 AllReduce 的系数 2（ReduceScatter + AllGather）",
    "multiplied by 0.88 instead of dividing: a slower copy takes longer": "乘了 0.88，而不是除以它：拷贝越慢，耗时越长",
    "shared the socket link among all eight flows: the four going back use the other direction":
        "让全部八条流分摊插槽链路：反向的四条用的是另一个方向",
    "staged the copy through host memory: GPU0 and GPU1 share a switch, P2P works":
        "让拷贝经主机内存中转：GPU0 和 GPU1 共用一颗交换芯片，P2P 可用",
    "took one flow alone (path_bandwidth): four flows share the uplink and the socket link":
        "只算了单独一条流（path_bandwidth）：四条流共享上行链路和插槽链路",
    "took the largest chunk count: every chunk pays both copies' latencies again":
        "取了最大的分块数：每一块都要再付一次两次拷贝的延迟",
    "used 8b/10b (20 %): PCIe 3.0 and later use 128b/130b": "用了 8b/10b（20 %）：PCIe 3.0 及以后用的是 128b/130b",
    "used one NVLink 3 link, not the bonded twelve": "用了一条 NVLink 3 链路，而不是捆绑在一起的十二条",
    "used p instead of p - 1 (2 n / b)": "用了 p，而不是 p - 1（2 n / b）",
    "used p instead of p - 1 (2 n / b, every GPU sending the whole vector twice)":
        "用了 p，而不是 p - 1（2 n / b，每块 GPU 把整个向量发送两遍）",
    "used the raw per-direction rate (128 GB/s): FLIT overhead leaves less":
        "用了单向原始速率（128 GB/s）：扣除 FLIT 开销后更少",
    # book/history/rdma_clusters
    "counted leaves only": "只算了叶交换机",
    "counted only the node-to-leaf cables": "只算了节点到叶交换机的线缆",
    "divided by the oversubscription: in one SU the worst cut runs through the leaves, not the spines":
        "除以了超额订阅比：在一个可扩展单元（SU）内，最差的切面穿过叶交换机，而不是脊交换机",
    "forgot the core tier": "忘了核心层",
    "forgot the spine-core tier of the three-tier design": "忘了三层设计中的脊-核心层",
    "kept one uplink per GPU (1:1)": "仍按每块 GPU 一条上行链路（1:1）计算",
    "kept the 1:1 design's spines": "沿用了 1:1 设计的脊交换机",
    "no pipelining (c = 1): the three copies then run one after another": "没有做流水线（c = 1）：三次拷贝于是依次进行",
    "one NIC only: the server figure is eight NICs": "只算了一块网卡：服务器的数字是八块网卡的",
    "the network phase carried the whole 14 GB: each rail AllReduces only n / 8":
        "让网络阶段承载了全部 14 GB：每条轨道只对 n / 8 做 AllReduce",
    "top-of-rack time: on rails the AllToAll's traffic also crosses the spines, but per rail":
        "这是架顶式交换的时间：在轨道网络上，AllToAll 的流量同样要经过脊交换机，只是按轨道分开",
    "used the whole server's bandwidth (or 200 GB/s): one GPU sends through one NIC of 200 Gb/s":
        "用了整台服务器的带宽（或 200 GB/s）：一块 GPU 经由一块 200 Gb/s 的网卡发送",
    # book/history/rendering
    "added the two cards' frame rates: that needs a split weighted by speed; AFR and even interleave give both cards "
    "the same share and run at twice the slower card's rate":
        "把两张卡的帧率相加了：那需要按速度加权分配；AFR 和均匀交错给两张卡分配同样的份额，"
        "帧率是较慢那张卡的两倍",
    "copied half a frame: in AFR a whole frame crosses": "拷贝了半帧：在 AFR 中要传过去的是整帧",
    "copied half a frame: in AFR a whole frame crosses (half the frames, each complete)":
        "拷贝了半帧：在 AFR 中要传过去的是整帧（一半的帧，每帧都完整）",
    "copied one history surface, not two": "拷贝了一个历史缓冲，而不是两个",
    "counted half the history: one surface instead of two (the motion vectors are reused too), or 4 bytes per pixel "
    "instead of FP16 RGBA's 8":
        "历史数据只算了一半：一个缓冲而不是两个（运动矢量同样要复用），或每像素 4 字节，"
        "而不是 FP16 RGBA 的 8 字节",
    "divided by R instead of the mean interval R/2": "除以了 R，而不是平均间隔 R/2",
    "forgot the 75 W from the PCIe slot (the ceiling is 75 W + 150 W per 8-pin connector)":
        "忘了 PCIe 插槽提供的 75 W（上限是 75 W 加上每个 8 针接口 150 W）",
    "gave the board power, not the excess over the ceiling": "给出的是整卡功耗，而不是超出上限的部分",
    "ignored the dependency: two GPUs at 30 ms each give 2 / 30 ms":
        "忽略了依赖关系：两块各需 30 ms 的 GPU 给出的是 2 / 30 ms",
    "inverted the ratio (interval over copy time)": "比值取反了（算成了帧间隔除以拷贝时间）",
    "inverted the ratio (link bandwidth over demand): utilisation is demand / bandwidth":
        "比值取反了（算成了链路带宽除以需求）：利用率是需求 / 带宽",
    "left out the 5 ms pass that reads the history": "漏了读取历史缓冲的那一遍 5 ms",
    "left out the frames themselves (history only)": "漏了帧本身（只算了历史缓冲）",
    "sent every frame across: in two-way AFR only one frame in two (the other GPU's) crosses":
        "把每一帧都传了过去：在双卡 AFR 中每两帧只有一帧（另一块 GPU 渲染的那帧）需要传过去",
    "sent every frame across: in two-way AFR only one frame in two crosses":
        "把每一帧都传了过去：在双卡 AFR 中每两帧只有一帧需要传过去",
    "took the change of interval as R - c instead of |(R - c) - c| = R - 2c":
        "把间隔的变化当成了 R - c，而不是 |(R - c) - c| = R - 2c",
    "took the frame interval as the latency: AFR keeps N frames in flight, so a frame still takes one GPU's whole "
    "render time":
        "把帧间隔当成了延迟：AFR 同时有 N 帧在渲染，所以一帧仍需一块 GPU 的全部渲染时间",
    "took the mean frame interval, not the input-to-display latency": "取了平均帧间隔，而不是从输入到显示的延迟",
    "took the unpaced index: pacing evens out the intervals":
        "取了未做帧节奏控制时的卡顿指数：帧节奏控制会使间隔变均匀",
    "took the unpaced latency: holding frames back to even them out adds latency":
        "取了未做帧节奏控制时的延迟：为使间隔均匀而推迟帧会增加延迟",
    "took the whole board's power: it feeds two GPUs": "取了整张卡的功耗：它要供两块 GPU",
    "took twice the fast card's rate: the slow card holds the pair back": "取了快卡帧率的两倍：慢卡会拖住这一对",
    "took twice the slower card's rate: the adaptive split gives the fast card a larger share":
        "取了较慢那张卡帧率的两倍：自适应划分会给快卡分配更大的份额",
    "used 3 bytes per pixel: the frames are 8-bit RGBA, 4 bytes per pixel":
        "每像素用了 3 字节：帧是 8 位 RGBA，每像素 4 字节",
    # book/stack/collectives
    "added the phases: the pipeline overlaps them": "把各阶段的时间相加了：流水线让它们相互重叠",
    "assumed NVLS always helps (gain of 8 GPUs)": "以为 NVLS 总有收益（取了 8 块 GPU 时的增益）",
    "compared algbw, not busbw, with the link": "拿算法带宽 algbw 而不是总线带宽 busbw 与链路比较",
    "compared with the line-rate NVLS model (in_network_time)": "比较的对象是按线速计算的 NVLS 模型（in_network_time）",
    "counted the Reduce only (lg p): the Broadcast moves the whole vector lg p times again":
        "只算了 Reduce（lg p）：Broadcast 还要把整个向量再搬运 lg p 次",
    "counted the reduce-scatter only, (p-1)/p: the all-gather adds as much":
        "只算了 ReduceScatter，即 (p-1)/p：AllGather 还要再加上同样多",
    "counted the reduce-scatter phase only: the all-gather sends as much again":
        "只算了 ReduceScatter 阶段：AllGather 还要再发送同样多的数据",
    "divided by the bidirectional 900 GB/s: compare with the per-direction peak":
        "除以了双向的 900 GB/s：应与单向峰值比较",
    "forgot to divide by g: each rail carries n/g": "忘了除以 g：每条轨道只承载 n/g",
    "gave algbw, not busbw": "给出的是算法带宽 algbw，而不是总线带宽 busbw",
    "gave the fastest algorithm's time, not the ring's": "给出的是最快算法的耗时，而不是环形算法的",
    "gave the ring's time: 2(p-1) latencies": "给出的是环形算法的耗时：2(p-1) 个延迟",
    "gave the tree lg p terms (a Reduce only), not 2 lg p (Reduce + Broadcast)":
        "树形算法只算了 lg p 项（只有一次 Reduce），而不是 2 lg p（Reduce + Broadcast）",
    "inverted the factor (wrong over right)": "系数取反了（错误值除以正确值）",
    "inverted the ratio": "比值取反了",
    "multiplied by the bus factor: that is busbw, algbw is n / t":
        "乘了总线系数：那是总线带宽 busbw，算法带宽 algbw 是 n / t",
    "passed the 128 MiB shard: nbytes is the AllGather's output":
        "传入的是 128 MiB 的分片：nbytes 是 AllGather 的输出大小",
    "priced a flat ring over all 128 GPUs through one NIC per node":
        "按一个跨全部 128 块 GPU、每个节点只经一块网卡的扁平环来计算",
    "sent all n bytes across the network on every rail, not n/g": "每条轨道都经网络发送了全部 n 字节，而不是 n/g",
    "sent the whole vector in every one of the 2(p-1) steps: each step sends a chunk n/p":
        "2(p-1) 步中每一步都发送了整个向量：每一步只发送一块 n/p",
    "took algbw as busbw (forgot the factor 2(p-1)/p)": "把算法带宽 algbw 当成了总线带宽 busbw（漏了系数 2(p-1)/p）",
    "took n* = alpha B, without the coefficients' differences": "取了 n* = alpha B，没有计入两种算法系数之差",
    "took the bandwidth floor alone: the pipeline still pays its fill and latencies":
        "只取了带宽下限：流水线仍要付出填充时间和各次延迟",
    "took the p -> infinity limit 2n, not 2(p-1)/p n": "取了 p -> infinity 时的极限 2n，而不是 2(p-1)/p n",
    "took the ring's 2(p-1)/p: the tree moves whole vectors, not 1/p pieces":
        "用了环形算法的 2(p-1)/p：树形算法搬运的是整个向量，而不是 1/p 的数据块",
    "used p - 1 whole steps, 2(p-1), without dividing by p": "用了 p - 1 个完整步骤，即 2(p-1)，没有除以 p",
    "used the bidirectional 50 GB/s": "用了双向的 50 GB/s",
    "used the bidirectional NIC rate": "用了网卡的双向速率",
    "used the line-rate model (in_network_time): NVLS does not reduce for free":
        "用了线速模型（in_network_time）：NVLS 的归约并非没有代价",
    # book/stack/topology
    "counted all k^3/4 hosts instead of the half on one side": "算了全部 k^3/4 台主机，而不是一侧的一半",
    "counted all k^3/4 hosts instead of the half on one side (or forgot to divide by r)":
        "算了全部 k^3/4 台主机，而不是一侧的一半（或忘了除以 r）",
    "counted k/2 paths (same pod), not (k/2)^2 across pods":
        "算的是 k/2 条路径（同一 pod 内），而不是跨 pod 的 (k/2)^2 条",
    "counted the wrap-around links a mesh lacks": "算上了网格所没有的回绕链路",
    "counted undirected rings: each appears twice, once per direction":
        "算的是无向环：每个环会出现两次，每个方向各一次",
    "cut one link only: a ring is cut in two places": "只切断了一条链路：切开一个环要切两处",
    "forgot the wrap-around": "忘了回绕",
    "forgot the wrap-around links (2 k^(n-1) b, not k^(n-1) b)": "忘了回绕链路（应为 2 k^(n-1) b，而不是 k^(n-1) b）",
    "forgot the wrap-around links of the cut": "忘了切面上的回绕链路",
    "forgot to divide by the oversubscription r": "忘了除以超额订阅比 r",
    "ignored the wrap-around: each dimension can go either way round": "忽略了回绕：每个维度都可以沿两个方向绕行",
    "kept the wrap-around": "保留了回绕",
    "took the ring's size, not half of it": "取了环的大小，而不是它的一半",
    "used k instead of floor(k/2) per dimension": "每个维度用了 k，而不是 floor(k/2)",
    # book/stack/protocols
    "counted ordered pairs: each pair appears twice": "算的是有序对：每一对会出现两次",
    "forgot the factor 2 of AllReduce (reduce-scatter + all-gather)":
        "漏了 AllReduce 的系数 2（ReduceScatter + AllGather）",
    "inverted the ratio (GPU0->GPU4 over GPU0->GPU1)": "比值取反了（算成了 GPU0->GPU4 除以 GPU0->GPU1）",
    "inverted the ratio (SHARP over ring)": "比值取反了（算成了 SHARP 除以环形算法）",
    "kept the default DDR5 host memory": "沿用了默认的 DDR5 主机内存",
    "took busbw as algbw: divide by 2(p-1)/p": "把总线带宽 busbw 当成了算法带宽 algbw：应除以 2(p-1)/p",
    "took nRanks, every rank of the communicator; localRanks counts one node's":
        "取了 nRanks，即通信器的全部 rank；localRanks 只统计一个节点上的 rank",
    "took the largest chunk count: each chunk pays the latencies again": "取了最大的分块数：每一块都要再付一次延迟",
    "used p instead of p - 1": "用了 p，而不是 p - 1",
    # book/stack/physical_links
    "counted one direction only: each port carries 400 Gb/s each way":
        "只算了一个方向：每个端口每个方向各承载 400 Gb/s",
    "counted one direction only: the energy per bit applies to 1.8 TB/s":
        "只算了一个方向：每比特能耗要按 1.8 TB/s 计算",
    "divided by the five-hop floor instead of one hop's": "除以了五跳的下限，而不是一跳的",
    "forgot that a byte is 8 bits": "忘了一个字节是 8 比特",
    "forgot the 8 ports per GPU": "忘了每块 GPU 有 8 个端口",
    "forgot the line code (16/17 of the line rate is data)": "忘了线路编码（线路速率中只有 16/17 是数据）",
    "forgot the line code (256b/257b + RS(544,514) leaves 16/17 of the line rate)":
        "忘了线路编码（256b/257b + RS(544,514) 之后只剩线路速率的 16/17）",
    "forgot the line code (lanes × GT/s / 8 is the raw rate, before 8b/10b or 128b/130b)":
        "忘了线路编码（lanes × GT/s / 8 是原始速率，尚未扣除 8b/10b 或 128b/130b）",
    "halved the bandwidth: the 1.3 TB/s per mm density already counts both directions":
        "把带宽减半了：每 mm 1.3 TB/s 的密度已经算上了两个方向",
    "kept the single-lane time: four lanes deliver the codewords four times faster":
        "沿用了单通道的时间：四条通道交付码字的速度快四倍",
    "left out the bits-to-bytes step (Gb/s taken as GB/s, or bytes/s not times 8)":
        "漏了比特与字节的换算（把 Gb/s 当成了 GB/s，或字节/秒没有乘以 8）",
    "one codeword only: two are interleaved across the lanes": "只算了一个码字：各通道上交织着两个码字",
    "one hop only: the floor is paid at every hop": "只算了一跳：每一跳都要付出这个下限",
    "took the baud as the bit rate: PAM4 carries 2 bits per symbol": "把波特率当成了比特率：PAM4 每个符号携带 2 比特",
    "used 1.8 TB/s as the per-direction need: it is both directions together":
        "把 1.8 TB/s 当成了单向需求：它是两个方向之和",
    "used loss ∝ f (exponent 1): skin-effect loss grows as √f": "用了 loss ∝ f（指数为 1）：趋肤效应损耗按 √f 增长",
    "used the bit rate (or the baud itself): the Nyquist frequency is half the baud":
        "用了比特率（或波特率本身）：奈奎斯特频率是波特率的一半",
    # book/stack/other_fabrics
    "costed the ring on the 7-link sum (448 GB/s): a ring uses one link per GPU":
        "按 7 条链路之和（448 GB/s）计算环：环在每块 GPU 上只用一条链路",
    "counted 7 rings: the edges left over form a matching, not a ring":
        "算了 7 个环：剩下的边构成一个匹配，而不是一个环",
    "counted each global link from both ends": "每条全局链路从两端各算了一次",
    "cut across a dimension of 4: the cheapest cut halves the longest dimension":
        "沿长度为 4 的维度切开：代价最小的切法是把最长的维度切成两半",
    "divided by the 8 devices of the box, not the 7 peers": "除以了机箱中的 8 个设备，而不是 7 个对端",
    "divided the bidirectional figure by the 7 peers": "把双向数字除以了 7 个对端",
    "forgot the group itself: a h links reach a h other groups, so a h + 1 groups":
        "忘了组本身：a h 条链路通往 a h 个其他组，所以共有 a h + 1 个组",
    "forgot the wrap-around links": "忘了回绕链路",
    "kept Intel's bidirectional figure (1,050 GB/s): halve it": "沿用了 Intel 的双向数字（1,050 GB/s）：应减半",
    "kept the wrap-around links, which the OCS provides only for whole cubes":
        "保留了回绕链路，而 OCS 只为完整的立方体提供回绕链路",
    "ran the 3 rings in one direction only": "3 个环都只沿一个方向运行",
    "took one link (64 GB/s) for the direct algorithm": "直接算法只取了一条链路（64 GB/s）",
    "took one port (25 GB/s): each pair has three": "只取了一个端口（25 GB/s）：每一对之间有三个",
    "used a h groups instead of a h + 1": "用了 a h 个组，而不是 a h + 1 个",
    # book/parallel/context_parallel
    "8 KV heads on the rank: either TP was forgotten (it splits the 8 KV heads, one per rank) or the 64 query heads "
    "were taken for K and V (8 per TP rank; with GQA only the KV heads carry keys and values)":
        "这个 rank 上有 8 个 KV 头：要么忘了张量并行（它把 8 个 KV 头切开，每个 rank 一个），要么把 64 个查询头"
        "当成了 K 和 V（每个张量并行 rank 8 个；采用 GQA 时只有 KV 头携带键和值）",
    "counted K or V, not both": "只算了 K 或 V，而不是两者都算",
    "counted all a rank holds, not the (cp - 1)/cp it sends":
        "算了一个 rank 持有的全部数据，而不是它发送的 (cp - 1)/cp",
    "counted cp blocks; a rank's own block does not travel, cp - 1 do":
        "算了 cp 块；rank 自己的那块不必传输，要传输的是 cp - 1 块",
    "counted elements, not 2-byte BF16 values": "算的是元素个数，而不是 2 字节的 BF16 数值",
    "counted the forward AllGather only; the backward pass gathers K, V again and reduce-scatters dK, dV":
        "只算了前向的 AllGather；反向时还要再次收集 K、V，并对 dK、dV 做 ReduceScatter",
    "counted the forward pass only; the backward pass runs both AllToAlls in reverse":
        "只算了前向；反向时两次 AllToAll 都要反向再做一遍",
    "counted the full block's FLOPs; a causal mask computes half of each block":
        "算了整块的浮点运算量；因果掩码下每块只计算一半",
    "counted the whole vector, not the (cp - 1)/cp a rank sends": "算了整个向量，而不是一个 rank 发送的 (cp - 1)/cp",
    "gave one step's block, not all cp - 1 of the forward pass": "给出的是一步的数据块，而不是前向全部 cp - 1 步的",
    "gave the last rank's work over the first's, not over the mean":
        "给出的是最后一个 rank 的工作量除以第一个 rank 的，而不是除以平均值",
    "inverted the ratio: nvlink / ib": "比值取反了：算成了 nvlink / ib",
    "took multi-head attention's K, V (128 heads) instead of GQA's 8":
        "取了多头注意力的 K、V（128 个头），而不是 GQA 的 8 个",
    "took the 64 query heads; with GQA the 8 KV heads must be split too":
        "取了 64 个查询头；采用 GQA 时 8 个 KV 头也必须切分",
    "used the peak FLOP/s and link bandwidth instead of the measured efficiencies":
        "用了峰值 FLOP/s 和链路带宽，而不是实测的效率",
    # book/parallel/data_parallel
    "a factor of 2: counted both crossings of a ring as this node's (one enters it), or took FP32":
        "差了 2 倍：把环的两次跨越都算在这个节点上（其中一次是进入它），或用了 FP32",
    "compared all bytes sent (wire_bytes), not the network's":
        "比较的是发送的全部字节（wire_bytes），而不是经过网络的字节",
    "counted ZeRO-3's collectives once per step; FSDP runs them every microbatch":
        "ZeRO-3 的集合通信每步只算了一次；FSDP 每个微批次都要做",
    "counted all bytes the GPU sends (wire_bytes), not what crosses its NIC: a ring across nodes runs one channel per "
    "NIC, 1/8 of the bytes each":
        "算了 GPU 发送的全部字节（wire_bytes），而不是经过其网卡的字节："
        "跨节点的环每块网卡跑一个通道，各承担 1/8 的字节",
    "counted only the hop out of the first node; the ring closes, so it comes back once":
        "只算了离开第一个节点的那一跳；环是闭合的，所以还要回来一次",
    "counted parameters, not 2-byte BF16 gradients": "算的是参数个数，而不是 2 字节的 BF16 梯度",
    "counted parameters, not 2-byte BF16 values": "算的是参数个数，而不是 2 字节的 BF16 数值",
    "counted parameters, not 2-byte values": "算的是参数个数，而不是 2 字节的数值",
    "counted the ring lines shown; the '/08' after the channel number is the number of channels":
        "数的是显示出来的环的行数；通道号后面的 '/08' 才是通道数",
    "counted the shard group's NVLink traffic too (wire_bytes), not only the replicas' AllReduce":
        "把分片组的 NVLink 流量也算上了（wire_bytes），而不只是副本之间的 AllReduce",
    "divided by the 8 GPUs of one node, not by all 1,024": "除以了一个节点的 8 块 GPU，而不是全部 1,024 块",
    "divided the global batch by one node's 8 GPUs, not by the 64 data-parallel ranks":
        "把全局批大小除以了一个节点的 8 块 GPU，而不是 64 个数据并行 rank",
    "forgot stage 3's extra AllGather of the parameters (took the baseline 2(p-1)/p gN)":
        "忘了第 3 阶段额外的一次参数 AllGather（取了基线 2(p-1)/p gN）",
    "forgot the ring's latency term 2(p-1)α": "忘了环的延迟项 2(p-1)α",
    "forgot the second AllGather before the backward pass (reshard_after_forward)":
        "忘了反向之前的第二次 AllGather（reshard_after_forward）",
    "gave the global batch, not its share per GPU": "给出的是全局批大小，而不是每块 GPU 分到的份额",
    "gave the ratio of the efficiencies, not of the break-even tokens": "给出的是效率之比，而不是盈亏平衡 token 数之比",
    "left overlap off: the whole gradient reduction is exposed": "没有开启重叠：整个梯度归约都暴露在外",
    "ran the ring at the link's peak, not at the calibrated comm efficiency":
        "让环按链路峰值运行，而不是按校准的通信效率",
    "sent the whole gradient on every channel: each channel's ring carries its share of it":
        "每个通道都发送了整个梯度：每个通道的环只承担其中一份",
    "sent the whole gradient to each of the p - 1 others (naive exchange), not a ring":
        "把整个梯度发给其余 p - 1 个 rank 中的每一个（朴素交换），而不是用环",
    "sharded the model states over all 256 GPUs; HSDP shards over the 8 of a node":
        "把模型状态分片到了全部 256 块 GPU 上；HSDP 只在一个节点的 8 块 GPU 内分片",
    "stage 2 still keeps the whole 2-byte weights, more than 20 GB for 13B parameters":
        "第 2 阶段仍保留完整的 2 字节权重，13B 参数就超过 20 GB",
    "took 3 m over 3 as 3 m": "把 3 m 除以 3 当成了 3 m",
    "took the backward pass of the whole step as the window; only the last microbatch's can hide it":
        "把整步的反向当成了可重叠的时间窗口；只有最后一个微批次的反向能掩盖它",
    "took the link's Gb/s figure as GB/s (bits against bytes)": "把链路的 Gb/s 数字当成了 GB/s（比特与字节之别）",
    "used 4-byte FP32 gradients; the exercise says BF16": "用了 4 字节的 FP32 梯度；题目说的是 BF16",
    "used bw_pcie at its peak, not scaled by the calibrated comm efficiency":
        "按峰值用了 bw_pcie，没有乘以校准的通信效率",
    "used p = 8, the GPUs of one node: the ring runs over all sixteen ranks":
        "用了 p = 8，即一个节点的 GPU 数：环跨越全部十六个 rank",
    "used the 2021 calibrated GEMM efficiency, not the H100's measured GEMM ceiling":
        "用了 2021 年校准的 GEMM 效率，而不是 H100 实测的 GEMM 上限",
    "used the PCIe 4.0 x16 link rate, not the simulated ring bandwidth bw_pcie":
        "用了 PCIe 4.0 x16 的链路速率，而不是模拟得到的环带宽 bw_pcie",
    "used the bidirectional bandwidth: the ring's B is per direction": "用了双向带宽：环的 B 是单向的",
    "used the dense peak (f = 1), not the H100's measured GEMM ceiling":
        "用了稠密峰值（f = 1），而不是 H100 实测的 GEMM 上限",
    "used the whole 40 GB, not the 20 GB allowed for model states": "用了全部 40 GB，而不是留给模型状态的 20 GB",
    # book/parallel/expert_parallel
    "counted all k copies: only those for experts on other nodes, (N - 1)/N of them, cross":
        "算了全部 k 份副本：只有发往其他节点上专家的那些，即其中的 (N - 1)/N，才会跨节点",
    "counted all k copies: with M = 4 at most 4 leave the node": "算了全部 k 份副本：M = 4 时至多 4 份离开节点",
    "counted every token of an overloaded expert; only those beyond its capacity are dropped":
        "算了过载专家的全部 token；只有超出其容量的那些才会被丢弃",
    "counted the dispatch only: dispatch and combine are two AllToAlls": "只算了分发：分发和合并是两次 AllToAll",
    "counted the piece the GPU keeps for itself: (p - 1)/p of the bytes leave, not all":
        "把 GPU 留给自己的那一块也算上了：离开的是 (p - 1)/p 的字节，而不是全部",
    "doubled the crossover: the ratio is proportional to b/h, so halving b halves it":
        "把交叉点加倍了：这个比值与 b/h 成正比，所以 b 减半，交叉点也减半",
    "exactly 2: the latency term (p - 1)α does not grow with the bytes": "正好是 2：延迟项 (p - 1)α 不随字节数增长",
    "forgot the capacity factor: capacity = c × T k / E": "忘了容量因子：capacity = c × T k / E",
    "forgot top-k: bytes scale with k": "忘了 top-k：字节数与 k 成正比",
    "forgot top-k: each token is sent once per chosen expert (k of them)":
        "忘了 top-k：每个 token 要向每个被选中的专家（共 k 个）各发送一次",
    "gave the bound M copies, not the expectation": "给出的是上界 M 份副本，而不是期望值",
    "gave the expert-level imbalance; rank_loads sums the experts on each GPU first":
        "给出的是专家层面的不均衡；rank_loads 先把每块 GPU 上的专家相加",
    "gave the plain AllToAll (one copy per remote expert): one copy per node sends fewer":
        "给出的是普通 AllToAll（每个远端专家一份副本）：每个节点一份副本发送得更少",
    "left the crossover unchanged: FP8 halves the bytes, and with them the crossover hidden size":
        "交叉点保持不变：FP8 使字节数减半，交叉点的隐藏维度也随之减半",
    "passed one piece n/p as the AllToAll size; n is all a rank sends, the piece it keeps included":
        "把一块 n/p 当作 AllToAll 的大小传入；n 是一个 rank 发送的全部数据，包括它自己留下的那块",
    "took one piece n/p for what leaves, instead of (p - 1) pieces": "把离开的数据当成了一块 n/p，而不是 (p - 1) 块",
    "used 2 bytes per element; DeepSeek-V3 dispatches in FP8 (1 byte)":
        "每个元素用了 2 字节；DeepSeek-V3 用 FP8（1 字节）做分发",
    "used per_node=False: a node limit alone does not change a plain AllToAll":
        "用了 per_node=False：仅有节点数限制并不会改变普通 AllToAll",
    # book/parallel/pipeline_parallel
    "added both directions: forward activations and backward gradients each cross once per direction":
        "把两个方向相加了：前向的激活值和反向的梯度各在一个方向上传输一次",
    "counted elements (sbh), not 2-byte BF16 values": "算的是元素个数（sbh），而不是 2 字节的 BF16 数值",
    "counted every one of the 2m transfers, as step_time charges them": "像 step_time 那样把 2m 次传输全部计入",
    "counted every one of the 2mv transfers: the warm-up slack hides many of them":
        "把 2mv 次传输全部计入：预热阶段的空闲时间掩盖了其中许多",
    "counted one microbatch, not all m of the step": "只算了一个微批次，而不是这一步的全部 m 个",
    "counted only the p - s - 1 warm-up forward passes, not the one that starts the steady state":
        "只算了 p - s - 1 次预热前向，漏了开启稳定阶段的那一次",
    "counted the fill only (p - 1), not the fill and the drain": "只算了填充（p - 1），而不是填充加排空",
    "forgot that m must be a multiple of p": "忘了 m 必须是 p 的倍数",
    "forgot to make the GPUs faster (t_micro, not t_micro / 4)": "忘了让 GPU 变快（用了 t_micro，而不是 t_micro / 4）",
    "gave bubble over ideal time, (p-1)/m, not idle over total":
        "给出的是气泡除以理想时间，即 (p-1)/m，而不是空闲时间除以总时间",
    "gave every stage stage 0's p microbatches": "让每个阶段都用了阶段 0 的 p 个微批次",
    "gave idle over total, (p-1)/(m+p-1), not bubble over ideal time":
        "给出的是空闲时间除以总时间，即 (p-1)/(m+p-1)，而不是气泡除以理想时间",
    "kept the scatter/gather optimisation; the exercise sends the whole tensor":
        "保留了 scatter/gather 优化；题目发送的是整个张量",
    "ran the link at the calibrated comm efficiency; the exercise asks for the peak":
        "让链路按校准的通信效率运行；题目要求的是峰值",
    "rounded down to a multiple of p: the bubble is then above the limit": "向下取整到 p 的倍数：这样气泡就超出了限值",
    "timed one microbatch, not all m of the step": "只计了一个微批次的时间，而不是这一步的全部 m 个",
    "took 1F1B's slope": "取了 1F1B 的斜率",
    "took GPipe's 2(p-1) for every schedule": "对每种调度都用了 GPipe 的 2(p-1)",
    "took GPipe's m microbatches on every stage": "让每个阶段都按 GPipe 保存 m 个微批次",
    # book/parallel/planning
    "2: ZeRO-3 adds one AllGather of the parameters, half an AllReduce, not a whole one":
        "2：ZeRO-3 额外增加一次参数 AllGather，相当于半次 AllReduce，而不是一整次",
    "did not split the KV heads over the 8 TP ranks: each holds kv_heads / 8":
        "没有把 KV 头切分到 8 个张量并行 rank 上：每个 rank 持有 kv_heads / 8",
    "gave ZeRO-1's memory: its FP32 gradients are not sharded": "给出的是 ZeRO-1 的显存：它的 FP32 梯度没有分片",
    "gave ZeRO-3's memory, which also shards the 16-bit weights": "给出的是 ZeRO-3 的显存，它连 16 位权重也分片了",
    "gave the hardware FLOPs utilisation (HFU); MFU does not count the recomputed forward pass":
        "给出的是硬件算力利用率（HFU）；MFU 不计重计算的前向",
    "gave the time ratio NDR/HDR, not the fraction saved 1 - NDR/HDR":
        "给出的是时间之比 NDR/HDR，而不是节省的比例 1 - NDR/HDR",
    "gave the time ratio PCIe/HDR, not the fraction added PCIe/HDR - 1":
        "给出的是时间之比 PCIe/HDR，而不是增加的比例 PCIe/HDR - 1",
    "kept no memory free; the exercise leaves 10 % of each GPU's memory":
        "没有留出空闲显存；题目要求每块 GPU 留出 10 % 的显存",
    "subtracted from the planner's 76 GiB limit, not from the GPU's 80 GiB":
        "从规划器的 76 GiB 上限中扣除，而不是从 GPU 的 80 GiB 中扣除",
    "swapped the two machines": "把两台机器弄反了",
    "the NVLink domain's size is the upper limit of tp, not the choice": "NVLink 域的大小是 tp 的上限，而不是要选的值",
    "took the H100's \"80 GB\" as 80e9 bytes; HBM capacity is binary: 80 GiB":
        "把 H100 的“80 GB”当成了 80e9 字节；HBM 容量按二进制计：80 GiB",
    # book/parallel/reliability
    "averaged the two MTBFs (add the failure rates instead)": "对两个 MTBF 取了平均（应把故障率相加）",
    "checkpointed the parameters only (the optimizer state must be saved too)":
        "检查点只保存了参数（优化器状态也必须保存）",
    "counted the gradients too (they are recomputed after a restart, not saved)":
        "把梯度也算上了（重启后会重新计算，不必保存）",
    "forgot the 2 under the root: tau = sqrt(2 delta M), not sqrt(delta M)":
        "漏了根号下的 2：tau = sqrt(2 delta M)，而不是 sqrt(delta M)",
    "gave GPU-seconds, not GPU-hours": "给出的是 GPU 秒，而不是 GPU 时",
    "gave Young's interval for Daly's": "把 Young 的间隔当成了 Daly 的",
    "gave hours, not seconds": "给出的是小时，而不是秒",
    "gave minutes, not seconds": "给出的是分钟，而不是秒",
    "gave the GPUs' share": "给出的是 GPU 所占的份额",
    "gave the failure-free GPU-hours (the work itself)": "给出的是无故障时的 GPU 时（即工作量本身）",
    "gave the failure-free time (work / GPUs), without checkpoints and failures":
        "给出的是无故障时间（工作量 / GPU 数），没有计入检查点和故障",
    "ignored the restart time (it lowers goodput, though it does not move the best interval)":
        "忽略了重启时间（它会降低有效吞吐，尽管不改变最佳间隔）",
    "left out the hosts (GPU failures alone)": "漏了主机（只算了 GPU 故障）",
    "used the per-GPU MTBF instead of the job's (divide it by the number of GPUs)":
        "用了单块 GPU 的 MTBF，而不是整个作业的（应除以 GPU 数）",
    # book/parallel/tensor_parallel
    "compared the TP time with the compute only, not with the whole step":
        "把张量并行时间只与计算时间比较，而不是与整步时间比较",
    "counted all 96 layers: one GPU holds only the l/p layers of its stage":
        "算了全部 96 层：一块 GPU 只持有其所在阶段的 l/p 层",
    "counted one AllReduce per layer, not two": "每层只算了一次 AllReduce，而不是两次",
    "counted the forward pass only (2 per layer): the backward pass has 2 more":
        "只算了前向（每层 2 次）：反向还有 2 次",
    "divided by the weight-read time alone, not by the token's whole time":
        "只除以了读权重的时间，而不是这个 token 的全部时间",
    "divided the other way: the growth is the FP8 share over the BF16 share":
        "除反了：增长倍数是 FP8 下的占比除以 BF16 下的占比",
    "divided the other way: the speed-up is the time without overlap over the time with it":
        "除反了：加速比是不重叠的时间除以重叠后的时间",
    "doubled the count: full recomputation repeats only the forward pass (2 more per layer, not 4)":
        "次数翻倍了：完全重计算只重复前向（每层多 2 次，而不是 4 次）",
    "forgot the activations: gave the model states only": "漏了激活值：只给出了模型状态",
    "forgot the model states: gave the activations only": "漏了模型状态：只给出了激活值",
    "forgot the ring coefficients (took n* = αB)": "漏了环的系数（取了 n* = αB）",
    "gave TP time over compute time, not over the whole step": "给出的是张量并行时间除以计算时间，而不是除以整步时间",
    "gave the TP share of the step, not seconds": "给出的是张量并行在一步中的占比，而不是秒数",
    "gave the hidden part (tp_comm_hidden), not what stays exposed":
        "给出的是被掩盖的部分（tp_comm_hidden），而不是仍然暴露的部分",
    "gave the saving per AllReduce, not per token (2 l AllReduces)":
        "给出的是每次 AllReduce 节省的时间，而不是每个 token 的（2 l 次 AllReduce）",
    "gave the two-step time per token, not the saving": "给出的是每个 token 的两步时间，而不是节省的时间",
    "halved all the compute (2x the FP8 peak), not the linear GEMMs at the measured ceiling ratio":
        "把全部计算都减半了（FP8 峰值的 2x），而不是只让线性层 GEMM 按实测上限之比加速",
    "halved the TP bytes too: the tensor-parallel collectives stay 16-bit":
        "把张量并行的字节数也减半了：张量并行的集合通信仍是 16 位",
    "kept the chapter's 8 GPUs: the crossover n* = p α B grows with the group":
        "沿用了本章的 8 块 GPU：交叉点 n* = p α B 随组的大小增长",
    "priced the selective count: full recomputation adds the forward's AllReduces again":
        "按选择性重计算的次数计算：完全重计算还要再加上一遍前向的 AllReduce",
    "read the weights at the HBM peak, not at the bandwidth a decode kernel reaches (applications.decode_step's "
    "weights)":
        "按 HBM 峰值读取权重，而不是按解码内核实际达到的带宽（applications.decode_step 的 weights）",
    "took full recomputation as doubling the AllReduces": "以为完全重计算会使 AllReduce 次数翻倍",
    "took the TP share with tp_overlap = 1 (nothing exposed)": "取了 tp_overlap = 1 时的张量并行占比（全无暴露）",
    "took the chapter's case, tp_overlap = 0: here part of the TP communication is hidden":
        "取了本章的情形 tp_overlap = 0：这里张量并行通信有一部分被掩盖",
    "used n/B (one send) instead of the ring's 2(t-1)/t n/B": "用了 n/B（发送一次），而不是环的 2(t-1)/t n/B",
    "used the bidirectional bandwidth: a ring sends one way per link": "用了双向带宽：环在每条链路上只沿一个方向发送",
    "used the calibrated Cluster.from_links machine, not the machine preset machine('dgx-h100')":
        "用了校准过的 Cluster.from_links 机器，而不是预设机器 machine('dgx-h100')",
    "used the chapter's DGX A100 cluster, not H100 nodes": "用了本章的 DGX A100 集群，而不是 H100 节点",
    # book/practice/applications
    "counted one AllReduce per layer; there are two (after attention and after the MLP)":
        "每层只算了一次 AllReduce；实际有两次（注意力之后和 MLP 之后各一次）",
    "counted the 64 query heads; with grouped-query attention only the 8 key-value heads are cached":
        "算了 64 个查询头；采用分组查询注意力时，只缓存 8 个键值头",
    "counted the latency once per AllReduce; a ring pays it 2(t - 1) times":
        "每次 AllReduce 只算了一次延迟；环要付出 2(t - 1) 次",
    "divided by the weight-read time instead of the whole token": "除以了读权重的时间，而不是整个 token 的时间",
    "exchanged one face instead of six": "只交换了一个面，而不是六个",
    "forgot that each GPU keeps 1/p of its rows: it sends (p - 1)/p of D/p":
        "忘了每块 GPU 会留下自己的 1/p 行：它发送的是 D/p 的 (p - 1)/p",
    "forgot the factor 2: both a key and a value vector are cached per head":
        "漏了系数 2：每个头既要缓存键向量，也要缓存值向量",
    "gave halo over update time, not halo over the whole step": "给出的是光环交换时间除以更新时间，而不是除以整步时间",
    "gave the break-even price per GPU-hour, not per node-hour": "给出的是每 GPU 时的盈亏平衡价格，而不是每节点时的",
    "gave the tokens per second of one sequence, not of the whole batch":
        "给出的是单个序列每秒的 token 数，而不是整批的",
    "halved the halo bytes per unit of bandwidth: a halo one cell wide (a 13-point stencil needs two layers), or the "
    "bidirectional NIC bandwidth (each halo message uses one direction)":
        "每单位带宽的光环字节数少了一半：光环只取了一个单元宽（13 点模板需要两层），"
        "或用了网卡的双向带宽（每条光环消息只用一个方向）",
    "inverted the ratio: the slower cluster must be cheaper, by t_nvlink / t_pcie":
        "比值取反了：较慢的集群必须更便宜，倍数为 t_nvlink / t_pcie",
    "left out the weights: the KV cache shares the 8 x 76 GiB with 140 GB of weights":
        "漏了权重：KV 缓存要与 140 GB 的权重共用这 8 x 76 GiB",
    "priced one instance, not 64": "只算了一个实例的价格，而不是 64 个",
    "priced per GPU-hour as if it were per instance-hour (8 GPUs per instance)":
        "把每 GPU 时的价格当成了每实例时的（每个实例 8 块 GPU）",
    "sent the whole table through each GPU's link; each rank sends only the D/p it holds":
        "每块 GPU 的链路都发送了整张表；每个 rank 只发送它持有的 D/p",
    "sized for the weights alone; the KV cache needs room too": "只按权重确定规模；KV 缓存也需要空间",
    "used a halo one cell wide": "光环只取了一个单元宽",
    "used the price per GPU-hour for the whole 8-GPU instance": "把每 GPU 时的价格用在了整个 8 GPU 的实例上",
    # book/practice/distinctions
    "added the communication as if nothing overlapped": "把通信时间直接相加，仿佛没有任何重叠",
    "divided bandwidth by peak (B/F instead of F/B)": "用带宽除以了峰值算力（B/F，而不是 F/B）",
    "divided bytes by bits per second (the port's Gb/s instead of its bytes/s)":
        "用字节数除以了比特每秒（用了端口的 Gb/s，而不是它的字节/秒）",
    "inverted the ratio (scale-up over scale-out)": "比值取反了（算成了纵向扩展除以横向扩展）",
    "kept to powers of two: the question asks for any integer": "只考虑了二的幂：题目要求的是任意整数",
    "left out the compute": "漏了计算",
    "left out the latency term 2(p-1) alpha": "漏了延迟项 2(p-1) alpha",
    "took GiB as GB (10^9 bytes each)": "把 GiB 当成了 GB（每个按 10^9 字节计）",
    "took perfect overlap to hide all communication (the step is max(compute, comm))":
        "以为完美重叠能掩盖全部通信（一步的时间是 max(compute, comm)）",
    "took the bandwidth ratio: at this size the latency terms still count":
        "取了带宽之比：在这个大小下延迟项仍然不可忽略",
    "used 3h/t instead of 3h/(t-1)": "用了 3h/t，而不是 3h/(t-1)",
    "used n/B (one send) instead of the ring's 2(p-1)/p n/B": "用了 n/B（发送一次），而不是环的 2(p-1)/p n/B",
    "used the bidirectional 1.8 TB/s: a ring sends one way on each link":
        "用了双向的 1.8 TB/s：环在每条链路上只沿一个方向发送",
    "used the bidirectional PCIe bandwidth": "用了 PCIe 的双向带宽",
    "used the bidirectional bandwidth (the ridge halves)": "用了双向带宽（脊点因此减半）",
    # book/practice/operations
    "averaged the two workloads' break-even prices: the mix's break-even is its total time fast over its total time "
    "slow":
        "对两种负载的盈亏平衡价格取了平均：混合负载的盈亏平衡价格是快集群上的总时间除以慢集群上的总时间",
    "compared one NDR port; the node has eight": "只比较了一个 NDR 端口；节点上有八个",
    "counted one GPU, not eight": "只算了一块 GPU，而不是八块",
    "gave each GPU a whole 100 GbE interface; the node's 8 GPUs share one":
        "给每块 GPU 一整个 100 GbE 接口；节点的 8 块 GPU 共用一个",
    "gave the step-time ratio slow / fast; the break-even price is its inverse, throughput slow / fast":
        "给出的是单步时间之比 slow / fast；盈亏平衡价格是它的倒数，即吞吐之比 slow / fast",
    "left out the communication efficiency (links at their peak)": "漏了通信效率（让链路按峰值运行）",
    "rounded up: a rack cannot be loaded beyond its power budget": "向上取整了：机柜的负载不能超出其功率预算",
    "sized the CPUs for the storage rate; the next-slowest stage is another one":
        "按存储速率确定了 CPU 的规模；次慢的环节不是存储",
    "sized the rack for the GPUs alone (8 x 700 W), not for the whole node":
        "只按 GPU（8 x 700 W）确定机柜的规模，而不是按整个节点",
    "took the GPUs' rate; the pipeline runs at its slowest stage": "取了 GPU 的速率；流水线的速度取决于最慢的环节",
    "used strong scaling (divides by the 8x GPUs): the batch per node is fixed, so this is weak scaling":
        "用了强扩展（除以 8x 的 GPU 数）：每个节点的批大小固定，所以这是弱扩展",
    "used the alpha-beta ring formula with NVLink, ignoring the network hops":
        "用 NVLink 代入 α-β 模型的环公式，忽略了网络跳数",
    "used the median steps: the wall clock pays the mean, stragglers included":
        "用了单步时间的中位数：实际耗时按平均值计，掉队步也包括在内",
    # book/practice/outlook
    "averaged the growth linearly (ratio - 1) / years + 1; growth compounds: take the root":
        "按线性方式平均了增长 (ratio - 1) / years + 1；增长是复合的：应开方",
    "compared NVIDIA's bidirectional 3.6 TB/s with a per-direction figure: halve it first":
        "把 NVIDIA 的双向 3.6 TB/s 与单向数字比较：应先减半",
    "counted one end per link, or only the GPU-to-leaf links: there are 2 links per GPU, each with 2 ends":
        "每条链路只算了一端，或只算了 GPU 到叶交换机的链路：每块 GPU 有 2 条链路，每条有 2 端",
    "dropped the (p - 1)/p factor of the ring": "漏了环的系数 (p - 1)/p",
    "gave the ratio of the two powers, not the watts saved": "给出的是两种功耗之比，而不是节省的瓦数",
    "gave the total ratio over the years, not the factor per year (take the root)":
        "给出的是这些年的总倍数，而不是每年的倍数（应开方）",
    "grew the compute but not the bandwidth": "只让算力增长，带宽没有增长",
    "inverted the ratio: t* grows as compute over bandwidth": "比值取反了：t* 随算力与带宽之比增长",
    "passed the bidirectional bandwidth to link_power: with per-direction bandwidth it already gives the power of "
    "one end":
        "向 link_power 传入了双向带宽：传入单向带宽时它给出的就已经是一端的功耗",
    "sent all n bytes through the NIC; 8/64 of them stay inside the node":
        "让全部 n 字节都经过网卡；其中 8/64 留在节点内",
    "took the announced 3.6 TB/s as per direction; NVIDIA adds both directions":
        "把公布的 3.6 TB/s 当成了单向数字；NVIDIA 把两个方向相加",
    "used Bruck's algorithm (log p rounds that forward data, meant for small messages)":
        "用了 Bruck 算法（log p 轮转发数据，适用于小消息）",
    "used PCIe 6.0's raw 128 GB/s; the catalog's 121 GB/s is what is left after the flit's CRC and FEC":
        "用了 PCIe 6.0 的原始 128 GB/s；目录中的 121 GB/s 是扣除 flit 的 CRC 和 FEC 之后剩下的",
    "used f = 0.5 (the library's old default), not the H100's measured GEMM ceiling":
        "用了 f = 0.5（本库旧的默认值），而不是 H100 实测的 GEMM 上限",
    "used the NVLink bandwidth; the question asks for the host link, PCIe":
        "用了 NVLink 带宽；题目问的是主机链路，即 PCIe",
    "used the bidirectional NVLink bandwidth (the formula takes bandwidth per direction)":
        "用了 NVLink 的双向带宽（公式用的是单向带宽）",
    "used the bidirectional PCIe figure; the book's ratio uses bandwidth per direction":
        "用了 PCIe 的双向数字；本书的比值用的是单向带宽",
    "used the compute growth alone; the bandwidth grows too, so only their ratio 1.5/1.3 counts":
        "只用了算力的增长；带宽也在增长，所以只有两者之比 1.5/1.3 起作用",
    "used the datasheet's sparse FLOP/s (twice the dense figure)": "用了规格书上的稀疏 FLOP/s（稠密数字的两倍）",
    # book/practice/serving
    "counted the keys or the values, not both": "只算了键或值，而不是两者都算",
    "forgot the 10 % of memory the engine holds back": "忘了推理引擎预留的 10 % 显存",
    "gave one MoE layer's dispatch and combine, not all 58": "给出的是一个 MoE 层的分发和合并，而不是全部 58 层的",
    "gave one replica's rate, not the node's": "给出的是一个副本的速率，而不是整个节点的",
    "gave the best colocated layout's GPUs": "给出的是最佳共置布局的 GPU 数",
    "gave the decode step of a single sequence; the running batch is larger":
        "给出的是单个序列的解码步；正在运行的批更大",
    "gave the first objective at which it no longer pays": "给出的是第一个不再划算的目标",
    "gave the prefill alone; the prompt also waits for an iteration boundary and shares its iteration with the running "
    "decodes":
        "只给出了预填充；提示词还要等到迭代边界，并与正在运行的解码共用这次迭代",
    "gave the whole EP group's tokens/s, not one GPU's": "给出的是整个专家并行组的 tokens/s，而不是一块 GPU 的",
    "gave the whole prompt's cache; each of the 8 GPUs sends its own shard":
        "给出的是整个提示词的缓存；8 块 GPU 各自发送自己的分片",
    "gave the whole token's cache, not one GPU's share": "给出的是整个 token 的缓存，而不是一块 GPU 的份额",
    "gave the whole token's cache; TP 8 splits the 8 KV heads, one per GPU":
        "给出的是整个 token 的缓存；TP 8 把 8 个 KV 头切开，每块 GPU 一个",
    "gave the whole transfer; sent layer by layer it overlaps the prefill, and only the last layer's share is left":
        "给出的是整个传输；逐层发送时它与预填充重叠，只剩最后一层的那一份",
    "inverted the ratio: colocated / disaggregated": "比值取反了：算成了共置 / 分离",
    "kept a BF16 cache (2 bytes per element)": "仍用 BF16 缓存（每个元素 2 字节）",
    "left the AllToAlls exposed (no second micro-batch)": "让 AllToAll 暴露在外（没有第二个微批次）",
    "multiplied the rate by the output tokens only (Little's law needs the time each sequence stays, output tokens "
    "times TPOT)":
        "只用输出 token 数乘以速率（Little 定律需要的是每个序列停留的时间，即输出 token 数乘以 TPOT）",
    "sent the whole cache through one NIC; each GPU sends its shard through its own":
        "让整个缓存经一块网卡发送；每块 GPU 经自己的网卡发送自己的分片",
    "used the link's peak bandwidth, not the share collectives reach":
        "用了链路的峰值带宽，而不是集合通信实际达到的那部分",
    "used the peak FLOP/s, not the measured GEMM ceiling": "用了峰值 FLOP/s，而不是实测的 GEMM 上限",
    # the coding exercises (interconnect.exercises.coding)
    "counted the ReduceScatter half only: an AllReduce also runs an AllGather, twice the latencies and the bytes":
        "只算了归约散射那一半：全归约还要做一次全收集，延迟次数和字节数都翻倍",
    "dropped the (p - 1)/p: each of the 2(p - 1) steps sends one chunk of n/p bytes, not the whole message":
        "漏掉了 (p - 1)/p：2(p - 1) 步中每一步只发送一个 n/p 字节的分块，而不是整条消息",
    "counted 2p steps instead of 2(p - 1): a ring of p GPUs needs p - 1 steps per phase":
        "算成了 2p 步而不是 2(p - 1) 步：p 块 GPU 的 ring 每个阶段只需 p - 1 步",
    "forgot the encoding: lanes × GT/s / 8 is the raw rate":
        "忘了编码：通道数 × GT/s / 8 是原始速率",
    "used 128b/130b for every generation: PCIe 1.0 and 2.0 use 8b/10b":
        "所有代都用了 128b/130b：PCIe 1.0 和 2.0 用的是 8b/10b",
    "used 8b/10b for every generation: PCIe 3.0 and later use 128b/130b":
        "所有代都用了 8b/10b：PCIe 3.0 及以后用的是 128b/130b",
    "took the rate to double per generation from PCIe 1.0 (2.5 × 2^(g-1) GT/s): PCIe 3.0 runs at 8 GT/s, not 10":
        "以为速率从 PCIe 1.0 起每代翻倍（2.5 × 2^(g-1) GT/s）：PCIe 3.0 是 8 GT/s，不是 10 GT/s",
    "gave the bubble as a fraction of the whole step (bubble over bubble plus work), not of the ideal time":
        "给出的是气泡占整步时间的比例（气泡除以气泡加计算），而不是占理想时间的比例",
    "ignored the chunks: interleaving divides the bubble by v":
        "忽略了模型块数：交错调度把气泡除以 v",
    "counted p bubbles per stage instead of p - 1":
        "每级算了 p 个气泡而不是 p - 1 个",
    "forgot the factor 2: each layer caches a key and a value per KV head":
        "漏了因子 2：每层每个 KV 头既缓存键也缓存值",
    "used the query heads: with grouped-query attention only the KV heads are cached":
        "用了查询头数：分组查询注意力只缓存 KV 头",
    "divided by the TP degree beyond the KV heads: a KV head is not split, it is replicated":
        "张量并行度超过 KV 头数后仍按它去除：KV 头不会再被切分，而是被复制",
    "gave the whole token's cache: TP splits the KV heads over the GPUs":
        "给出的是整个 token 的缓存：张量并行把 KV 头分到各块 GPU 上",
    # book/history/rdma_clusters: the derivation of the fat tree's counts
    "forgot the core tier's (k/2)^2 switches": "漏了核心层的 (k/2)^2 台交换机",
    "counted k core switches per pod: there are (k/2)^2 in all, shared by the pods":
        "按每个 pod 有 k 台核心交换机来算：核心交换机一共只有 (k/2)^2 台，由所有 pod 共享",
    "counted only the host cables, k^3/4": "只算了主机线缆 k^3/4",
    "forgot the aggregation-core tier": "漏了汇聚层到核心层的那一层线缆",
    "inverted the ratio (hosts per switch)": "比值取反了（算成了每台交换机的主机数）",
    # book/parallel/data_parallel: the derivation of ZeRO's limits
    "took stage 0's limit: without sharding every byte of the 16 Psi stays on each GPU":
        "用了第 0 阶段的上限：不切分时，16 Psi 的每个字节都留在每块 GPU 上",
    "took stage 2's limit: stage 1 keeps the 16-bit gradients whole on every GPU":
        "用了第 2 阶段的上限：第 1 阶段在每块 GPU 上保留完整的 16 位梯度",
    "took stage 1's limit: stage 2 shards the 16-bit gradients too": "用了第 1 阶段的上限：第 2 阶段还会切分 16 位梯度",
    "rounded down: the degree is the smallest integer at least the bound":
        "向下取整了：并行度应是不小于该界限的最小整数",
    "used stage 2's form (14 Psi sharded, 2 Psi whole) for stage 1":
        "对第 1 阶段用了第 2 阶段的公式（切分 14 Psi，完整保留 2 Psi）",
    # book/stack/collectives: coll-ex-code (Rabenseifner's AllReduce)
    "counted lg p latencies in all: each half, the recursive halving and the recursive doubling, takes lg p steps":
        "总共只算了 lg p 次延迟：递归减半和递归倍增这两半各需 lg p 步",
    "sent the whole message in every step (that is recursive doubling, lg p steps of n bytes)":
        "每一步都发送了整条消息（那是递归倍增：lg p 步，每步 n 字节）",
    "took the ring's 2(p - 1) latencies: halving and doubling need only 2 lg p steps":
        "用了 ring 的 2(p - 1) 次延迟：递归减半加递归倍增只需 2 lg p 步",
    "halved the bytes: each half moves (p - 1)/p of the message, 2(p - 1)/p n in all":
        "字节数少算了一半：每一半各传输消息的 (p - 1)/p，总共 2(p - 1)/p n",
}

