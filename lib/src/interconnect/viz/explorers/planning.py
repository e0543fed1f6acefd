"""Explorers of the chapter "Putting it together: planning a cluster" (``book/parallel/planning.ipynb``).

Presentation only: the training memory is :func:`interconnect.parallel.layout_memory_breakdown`
(whose total is :func:`interconnect.parallel.layout_memory`), the KV cache
:func:`interconnect.memory.kv_cache_bytes` through :func:`interconnect.parallel.inference_memory`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from ... import devices, parallel, plots
from ...catalog import models as catalog_models
from ...parallel import Layout
from ...parallel import machines as _machines
from ...units import GB, GiB
from ...widgets import Explorer, Param

__all__ = ["memory_calculator_explorer", "MemoryPreset", "memory_presets"]

#: Activation strategies offered by :func:`memory_calculator_explorer`: label -> (recompute,
#: sequence_parallel). Full recomputation keeps only each layer's input, the same with or
#: without sequence parallelism in :func:`interconnect.memory.activation_memory`.
_MEM_ACTIVATIONS = {
    "store all": ("none", False),
    "store all + SP": ("none", True),
    "selective": ("selective", False),
    "selective + SP": ("selective", True),
    "full recompute": ("full", False),
}

#: The value of a layout slider that takes the preset's own degree.
PRESET = "preset"
_DIMS = ("dp", "tp", "pp", "cp", "ep")


@dataclass(frozen=True)
class MemoryPreset:
    """A model of the memory calculator with the layout it is shown on.

    Attributes
    ----------
    model : ModelConfig
    kv_heads, head_dim : int
        What one token stores per layer in the KV cache is ``2 kv_heads head_dim`` values
        (:func:`interconnect.memory.kv_cache_bytes`).
    layout : dict
        ``dp``, ``tp``, ``pp``, ``cp``, ``ep`` of the preset's layout.
    stack : str or None
        A :func:`interconnect.parallel.machines.stack` whose switches (fused attention,
        FP32 gradients) the layout takes; None: :class:`Layout`'s defaults (the 2021 stack).
    source : str
        Where the layout comes from.
    """

    model: object
    kv_heads: int
    head_dim: int
    layout: dict
    stack: str | None
    source: str


def memory_presets():
    """name -> :class:`MemoryPreset`: GPT-3 175B on the chapter's example layout and the
    2024 presets of :mod:`interconnect.catalog.models` on published layouts.

    Layouts: Llama 3 405B TP8 PP16 DP64 on 8,192 H100 (Dubey et al. 2024, Table 4); Llama 3
    8B DP8 and 70B TP4 PP8 DP2 and DeepSeek-V3 TP2 PP8 EP64 DP64 as NVIDIA's Megatron-Bridge
    25.09 tables ran them on DGX H100 (without their virtual pipeline stages); Mixtral 8x7B,
    whose training layout none of the book's sources prints, on an example TP2 PP4 CP2 EP8
    DP8. KV cache: grouped-query attention's 8 key-value heads of 128 (Llama 3, Mixtral);
    DeepSeek-V3's multi-head latent attention caches one latent of ``kv_lora_rank +
    qk_rope_head_dim`` = 576 values per token and layer, shared by all heads and not split
    by tensor parallelism, written here as one "head" of 288 keys and 288 values.

    Examples
    --------
    >>> p = memory_presets()["Llama 3 405B"]
    >>> p.layout, p.stack
    ({'dp': 64, 'tp': 8, 'pp': 16, 'cp': 1, 'ep': 1}, 'megatron-core-2024')
    """
    def lay(dp, tp, pp, cp=1, ep=1):
        return {"dp": dp, "tp": tp, "pp": pp, "cp": cp, "ep": ep}

    core, nemo = "megatron-core-2024", "NVIDIA Megatron-Bridge 25.09, DGX H100"
    ds = catalog_models.get("deepseek-v3")
    rows = (
        ("gpt3-175b", 96, 128, lay(8, 8, 4), None, "the chapter's example layout, 2021 stack"),
        ("llama3-8b", 8, 128, lay(8, 1, 1), core, nemo),
        ("llama3-70b", 8, 128, lay(2, 4, 8), core, nemo + " (without VP5)"),
        ("llama3-405b", 8, 128, lay(64, 8, 16), core, "Dubey et al. 2024, Table 4, 8,192 H100"),
        ("mixtral-8x7b", 8, 128, lay(8, 2, 4, cp=2, ep=8), core, "an example layout (none published)"),
        ("deepseek-v3", 1, (ds.kv_lora_rank + ds.qk_rope_head_dim) // 2, lay(64, 2, 8, ep=64), core,
         nemo + " (without VP4)"),
    )
    out = {}
    for key, kv, hd, layout, stack, src in rows:
        m = catalog_models.get(key)
        out[m.name] = MemoryPreset(m, kv, hd, layout, stack, src)
    return out


def _as_preset(v):
    if isinstance(v, MemoryPreset):
        return v
    cfg, kv, hd = v   # the old form: (ModelConfig, kv_heads, head_dim) on the chapter's example layout
    return MemoryPreset(cfg, kv, hd, {"dp": 8, "tp": 8, "pp": 4, "cp": 1, "ep": 1}, None, "example layout")


def _slider(v):
    return "as published" if v == PRESET else str(v)


def memory_calculator_explorer(models=None, default_model="Llama 3 405B",
                               gpu_names=("V100", "A100", "H100", "H200", "B200", "GB200", "MI300X"),
                               default_gpu="H100", y_max_gib=200.0):
    """Memory per GPU of training and of inference, as stacked bars against the GPU's
    capacity (chapter "Putting it together: planning a cluster").

    Training bar (the fullest pipeline stage, :func:`interconnect.parallel.layout_memory_breakdown`):
    the stage's parameters, gradients and the 12 bytes per parameter of mixed-precision
    Adam, partitioned by ZeRO over the ``dp * cp`` ranks (experts over their
    expert-data-parallel ranks), and the activations of the microbatches in flight under
    1F1B, for the model's own attention (grouped-query or latent), MLP (SwiGLU, experts)
    and sequence of ``seq_len / cp`` tokens per GPU. A 2024 preset takes the switches of
    Megatron-Core (fused attention, gradients kept and reduced in FP32); GPT-3 those of
    :class:`Layout` (no fused attention, 16-bit gradients). Inference bar: 16-bit weights
    (``2 * model.params``) split over ``tp * pp`` and the KV cache of the serving batch
    (:func:`interconnect.parallel.inference_memory`). A bar "fits" when it is at most
    :func:`interconnect.parallel.memory_limit_of` the GPU (its memory less 4 GiB, the
    planner's limit). Sizes are drawn in GiB (2**30 bytes); the table gives GB (1e9 bytes)
    as well.

    Sliders: model, GPU, ZeRO stage, activation strategy (recomputation, sequence
    parallelism), dp, tp, pp, cp, ep ("as published": the preset's own degree), microbatch,
    serving batch and context. The static book varies the model and the ZeRO stage, each
    model on its published layout.

    Parameters
    ----------
    models : dict, optional
        name -> :class:`MemoryPreset` (or ``(ModelConfig, kv_heads, head_dim)``, shown on
        ``dp=8 tp=8 pp=4``); default :func:`memory_presets`.
    default_model : str
        A key of ``models``.
    gpu_names : sequence of str
        Names for :func:`interconnect.devices.get_gpu`.
    default_gpu : str
        One of ``gpu_names``.
    y_max_gib : float
        Fixed top of the axis, GiB; larger bars are clipped and say so.
    """
    models = memory_presets() if models is None else {k: _as_preset(v) for k, v in dict(models).items()}
    if default_model not in models:
        raise ValueError(f"default_model={default_model!r} is not one of {list(models)}")
    if default_gpu not in gpu_names:
        raise ValueError(f"default_gpu={default_gpu!r} is not in gpu_names {tuple(gpu_names)}")
    gpus = {n: devices.get_gpu(n) for n in gpu_names}
    top = float(y_max_gib)
    train_parts = [("params", "parameters (16-bit)"), ("grads", "gradients"),
                   ("optimizer", "optimizer: FP32 master + Adam m, v"), ("activations", "activations")]
    infer_parts = [("weights", "weights (16-bit)"), ("kv_cache", "KV cache (inference)")]
    colors = {"params": plots.PALETTE[0], "grads": plots.PALETTE[5], "optimizer": plots.PALETTE[1],
              "activations": plots.PALETTE[2], "weights": plots.PALETTE[0], "kv_cache": plots.PALETTE[4]}
    hatches = {"grads": "..", "optimizer": "//", "activations": "xx", "kv_cache": "\\\\"}

    def make_figure():
        # narrow and tall, large type: the static frame stays readable scaled to a 390 px phone
        fig = plots.plt.figure(figsize=(6.4, 7.0))
        gs = fig.add_gridspec(2, 1, height_ratios=(3.0, 1.35))
        ax, tx = fig.add_subplot(gs[0]), fig.add_subplot(gs[1])
        ax.set_ylabel("memory per GPU (GiB = 2³⁰ bytes)", fontsize=11)
        ax.set_xlim(-0.5, 2.9)
        ax.set_ylim(0, top)
        ax.set_xticks([0, 1], ["training", "inference"], fontsize=11)
        ax.grid(axis="x", visible=False)
        tx.axis("off")
        bars = {}
        for k, label in train_parts:
            bars[("t", k)] = ax.bar([0], [0.0], width=0.62, color=colors[k], hatch=hatches.get(k), edgecolor="white",
                                    label=label)[0]
        for k, label in infer_parts:
            bars[("i", k)] = ax.bar([1], [0.0], width=0.62, color=colors[k], hatch=hatches.get(k), edgecolor="white",
                                    label=label if k != "weights" else None)[0]
        (cap,) = ax.plot([-0.4, 1.4], [0, 0], color=plots.PALETTE[3], lw=2, linestyle="--",
                         label="the GPU's memory")
        tot = {s: ax.text(x, 0, "", ha="center", va="bottom", fontsize=10, fontweight="bold",
                          bbox=dict(boxstyle="square,pad=0.1", fc="white", ec="none"))
               for s, x in (("t", 0), ("i", 1))}
        ax.legend(loc="upper right", fontsize=9, framealpha=1.0)
        head = ax.set_title(" ", fontsize=11)
        left = tx.text(0.0, 1.0, "", va="top", ha="left", fontsize=9.5, family="monospace", transform=tx.transAxes)
        right = tx.text(0.56, 1.0, "", va="top", ha="left", fontsize=9.5, family="monospace",
                        transform=tx.transAxes)

        def update(model, gpu, zero_stage, activations, dp, tp, pp, cp, ep, microbatch, batch, context):
            pre = models[model]
            cfg, g = pre.model, gpus[gpu]
            limit = parallel.memory_limit_of(gpu)   # the GPU's memory less 4 GiB, as the planner
            dims = {d: pre.layout.get(d, 1) if v == PRESET else v
                    for d, v in zip(_DIMS, (dp, tp, pp, cp, ep))}
            recompute, sp = _MEM_ACTIVATIONS[activations]
            kw = dict(microbatch=microbatch, recompute=recompute, sequence_parallel=sp, zero_stage=zero_stage,
                      uneven_stages=True, **{d: dims[d] for d in ("cp", "ep")})
            try:
                if pre.stack is None:
                    lay = Layout(dp=dims["dp"], tp=dims["tp"], pp=dims["pp"], **kw)
                else:
                    lay = _machines.stack(pre.stack).layout(dims["dp"], dims["tp"], dims["pp"], **kw)
                # a global batch with m = 4 pp microbatches, so 1F1B keeps pp of them in flight
                tr = parallel.layout_memory_breakdown(
                    replace(cfg, global_batch=microbatch * dims["dp"] * dims["pp"] * 4), lay)
                kv = parallel.inference_memory(cfg, pre.kv_heads, pre.head_dim, dims["tp"], dims["pp"], batch,
                                               context)["kv_cache"]
                error = None
            except ValueError as exc:
                lay, error = None, str(exc)
            if error is None:
                weights = 2.0 * cfg.params / (dims["tp"] * dims["pp"])
                inf = {"weights": weights, "kv_cache": kv, "total": weights + kv}
            else:
                tr = dict.fromkeys(("params", "grads", "optimizer", "activations", "total", "stage_params"), 0.0)
                inf = dict.fromkeys(("weights", "kv_cache", "total"), 0.0)
            for side, parts, vals in (("t", train_parts, tr), ("i", infer_parts, inf)):
                y = 0.0
                for k, _ in parts:
                    hgt = vals[k] / GiB
                    b = bars[(side, k)]
                    lo, hi = min(y, top), min(y + hgt, top)
                    b.set_y(lo)
                    b.set_height(hi - lo)
                    y += hgt
                t = tot[side]
                t.set_position((0 if side == "t" else 1, min(y, top * 0.9)))
                fits = vals["total"] <= limit
                t.set_text("" if error else f"{vals['total'] / GiB:.1f} GiB{' (off scale)' if y > top else ''}\n"
                                            f"{'fits' if fits else 'does NOT fit'}")
                t.set_color("black" if fits else plots.PALETTE[3])
            c = g.memory / GiB
            cap.set_ydata([c, c])
            shape = " ".join(f"{d}={dims[d]}" for d in _DIMS if d in ("dp", "tp", "pp") or dims[d] > 1)
            head.set_text(f"{model} on {g.name} ({c:.0f} GiB, {limit / GiB:.0f} GiB usable)\n"
                          f"{shape} b={microbatch}, ZeRO-{zero_stage}, {activations}")
            if error:
                left.set_text("not a valid layout:\n" + "\n".join(
                    error[i:i + 34] for i in range(0, min(len(error), 136), 34)))
                right.set_text("")
            else:
                gb = "FP32" if lay.grad_bytes == 4 else "16-bit"
                left.set_text(
                    f"training       GiB     GB\n"
                    f"parameters {tr['params'] / GiB:7.1f} {tr['params'] / GB:6.1f}\n"
                    f"grads {gb:>6s}{tr['grads'] / GiB:6.1f} {tr['grads'] / GB:6.1f}\n"
                    f"optimizer  {tr['optimizer'] / GiB:7.1f} {tr['optimizer'] / GB:6.1f}\n"
                    f"activations{tr['activations'] / GiB:7.1f} {tr['activations'] / GB:6.1f}\n"
                    f"total      {tr['total'] / GiB:7.1f} {tr['total'] / GB:6.1f}\n"
                    f"{tr['stage_params'] / 1e9:.2f} B params per GPU\n"
                    f"{lay.n_gpus:,} GPUs")
                right.set_text(
                    f"inference      GiB\n"
                    f"{batch} × {context:,} tokens\n"
                    f"weights   {inf['weights'] / GiB:8.1f}\n"
                    f"KV cache  {inf['kv_cache'] / GiB:8.1f}\n"
                    f"total     {inf['total'] / GiB:8.1f}\n\n"
                    f"layout: {'published' if all(v == PRESET for v in (dp, tp, pp, cp, ep)) else 'sliders'}")
            return [*bars.values(), cap, *tot.values(), head, left, right]

        return fig, update

    names = list(models)
    lay_vals = {"dp": (PRESET, 1, 2, 4, 8, 16, 32, 64, 128), "tp": (PRESET, 1, 2, 4, 8),
                "pp": (PRESET, 1, 2, 4, 8, 16), "cp": (PRESET, 1, 2, 4, 8), "ep": (PRESET, 1, 2, 4, 8, 16, 32, 64)}
    lay_labels = {"dp": "data parallel dp", "tp": "tensor parallel tp", "pp": "pipeline stages pp",
                  "cp": "context parallel cp", "ep": "expert parallel ep (divides dp)"}
    return Explorer(
        "Memory calculator",
        [Param("model", "model (on its published layout)", tuple(names), default_model),
         Param("zero_stage", "ZeRO stage", (0, 1, 2, 3), 1, lambda z: f"ZeRO-{z}"),
         Param("gpu", "GPU", tuple(gpu_names), default_gpu,
               lambda n: f"{n} {gpus[n].memory / GiB:.0f} GiB"),
         Param("activations", "activations (recompute, sequence parallel SP)", tuple(_MEM_ACTIVATIONS),
               "store all + SP"),
         *(Param(d, lay_labels[d], lay_vals[d], PRESET, _slider) for d in _DIMS),
         Param("microbatch", "microbatch b (sequences)", (1, 2, 4, 8), 1),
         Param("batch", "serving batch (sequences)", (1, 8, 32, 64, 128), 32),
         Param("context", "serving context (tokens)", (2048, 8192, 32768, 131072), 8192)],
        make_figure, static=["model", "zero_stage"],
        alt=lambda model, gpu, zero_stage, activations, dp, tp, pp, cp, ep, microbatch, batch, context: (
            f"Stacked bars of memory per GPU in GiB for {model} on {gpu} on "
            f"{'its published layout' if dp == PRESET else f'dp={dp}, tp={tp}, pp={pp}'}, ZeRO stage {zero_stage}, "
            f"activations '{activations}', microbatch {microbatch}: training (parameters, gradients, optimizer "
            f"states, activations) and inference (weights and KV cache for {batch} sequences of {context} "
            f"tokens), against a dashed line at the GPU's capacity; a table below gives each part in GiB and GB."),
        dpi=80)
