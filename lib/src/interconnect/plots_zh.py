"""Chinese text of the figures' titles, axis labels, legends and notes (``plots.set_language("zh")``).

Explorers' titles and slider labels (``interconnect.widgets``) go through the same table.
Keys are the English strings exactly as the library passes them to ``interconnect.plots._``
(a template with ``{name}`` fields where the figure formats a number in; the caller formats
the translation). A string with no entry is drawn in English; ``plots.missing_translations()``
lists those a session drew. Terms follow the book's glossary (单向 per direction, 双向 both
directions added, 集合通信, 张量并行, 流水线气泡 ...).
"""

MESSAGES = {
    # interconnect.viz.explorers.three_walls: dp_scaling_explorer
    "Data-parallel training of a {size}B-parameter model": "{size}B 参数模型的数据并行训练",
    "GPUs": "GPU 数量",
    "share of one step": "占一步的比例",
    "speedup over one GPU": "相对单卡的加速比",
    "ideal (no communication)": "理想情况（无通信）",
    "with ring AllReduce": "使用环形 AllReduce",
    "chosen number of GPUs": "所选 GPU 数量",
    "compute": "计算",
    "AllReduce (exposed)": "AllReduce（未被重叠）",
    "one step on {p} GPUs over {link}": "{p} 块 GPU 经 {link} 完成一步",
    "compute {compute}, AllReduce {comm}\nefficiency {eff}, speedup {speedup}×":
        "计算 {compute}，AllReduce {comm}\n效率 {eff}，加速比 {speedup}×",
    "Data-parallel efficiency explorer": "数据并行效率探索器",
    "compute per step (one GPU)": "每步计算时间（单卡）",
    "link per GPU": "每块 GPU 的链路",
    "latency per message": "每条消息的延迟",
    "number of GPUs": "GPU 数量",
    # interconnect.viz.explorers.collectives: allreduce_explorer
    "AllReduce time": "AllReduce 耗时",
    "message size n": "消息大小 n",
    "time": "时间",
    "fastest in library": "库中最快的算法",
    "bus bandwidth (per direction)": "总线带宽（单向）",
    "AllReduce across nodes": "跨节点 AllReduce",
}
