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
}

# chapters whose every diagnosed mistake must have Chinese text (tests/test_exercises_zh.py)
COMPLETE_CHAPTERS = ["book/why/three_walls", "book/why/primer"]
