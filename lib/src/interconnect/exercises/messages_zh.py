"""Chinese text of the checker's verdicts (``check(..., lang="zh")``).

Every sentence a verdict is made of is a template here, keyed as in
:data:`interconnect.exercises.verdicts.TEMPLATES`; the units, the generic mistakes and each
exercise's own diagnosed mistakes are translated by their English text. A mistake with no
Chinese text yet is shown in English inside the Chinese verdict;
``tests/test_exercises_zh.py`` lists every one that is missing, chapter by chapter, and
requires the chapters in ``COMPLETE_CHAPTERS`` (every chapter, once translated) to have none.

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
# Numeric parts only: the explanation of a wrong *choice* says which choices are wrong, so the
# student edition keeps it sealed (encrypted with the choice) and a plain translation here
# would leak it; choices' explanations stay English until they are sealed in both languages.
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
    "sharded only the optimizer states' 12 Psi": "只切分了优化器状态的 12 Psi",
    # book/parallel/tensor_parallel: tp-ex-decode
    "divided by the weight-read time alone, not by the token's whole time":
        "只除以了读权重的时间，而不是一个 token 的总时间",
    "counted one AllReduce per layer, not two": "每层只算了一次 AllReduce，而不是两次",
    "read the weights at the HBM peak, not at the bandwidth a decode kernel reaches "
    "(applications.decode_step's weights)":
        "按 HBM 峰值带宽读取权重，而不是按解码内核实际达到的带宽（applications.decode_step 的 weights）",
    "gave the two-step time per token, not the saving": "给出的是两步算法每个 token 的时间，而不是节省的时间",
    "gave the saving per AllReduce, not per token (2 l AllReduces)":
        "给出的是每次 AllReduce 节省的时间，而不是每个 token 节省的时间（2l 次 AllReduce）",
    # book/parallel/expert_parallel: ep-ex-imbalance
    "gave the expert-level imbalance; rank_loads sums the experts on each GPU first":
        "给出的是专家级的不均衡度；rank_loads 会先把每块 GPU 上各专家的负载相加",
}

# The design tasks' explanations (interconnect.exercises.design): a wrong configuration is told which
# constraint it violates, in words shared by many configurations, so unlike other choices' explanations
# their translation gives nothing away.
MISTAKES.update({
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
})

# chapters whose every diagnosed mistake must have Chinese text (tests/test_exercises_zh.py)
COMPLETE_CHAPTERS = ["book/why/three_walls", "book/why/primer"]
