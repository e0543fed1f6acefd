"""Explorers of the chapter "Putting it together: planning a cluster" (``book/parallel/planning.ipynb``).

Presentation only: the training memory is :func:`interconnect.parallel.layout_memory_breakdown`
(whose total is :func:`interconnect.parallel.layout_memory`), the inference memory
:func:`interconnect.parallel.inference_memory`.
"""

from __future__ import annotations

from dataclasses import replace

from ... import devices, parallel, plots
from ...catalog import models as catalog_models
from ...parallel import Layout
from ...units import GB, GiB
from ...widgets import Explorer, Param

__all__ = ["memory_calculator_explorer"]

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


def _mem_default_models():
    """name -> (ModelConfig, kv_heads, head_dim) of the explorer's model presets."""
    # the catalog's presets with the key-value heads and head size of their attention:
    # Llama 2 70B uses grouped-query attention with 8 KV heads (Touvron et al. 2023, sec. 2.2)
    presets = (("gpt3-175b", 96), ("llama-class-70b", 8), ("gpt3-13b", 40), ("gpt3-6.7b", 32))
    return {m.name: (m, kv, 128) for m, kv in ((catalog_models.get(name), kv) for name, kv in presets)}


def memory_calculator_explorer(models=None, default_model="GPT-3 175B", gpu_names=("V100", "A100", "H100"),
                               default_gpu="A100", y_max_gib=160.0):
    """Memory per GPU of training and of inference, as stacked bars against the GPU's
    capacity (chapter "Putting it together: planning a cluster").

    Training bar (first pipeline stage, the fullest): 16-bit parameters, 16-bit gradients
    and the 12 bytes per parameter of mixed-precision Adam, partitioned by ZeRO over ``dp``
    (:func:`interconnect.memory.training_memory`), and the activations of ``pp``
    microbatches in flight under 1F1B (:func:`interconnect.memory.activation_memory`,
    Korthikanti et al. 2022); the sum is :func:`interconnect.parallel.layout_memory`.
    Inference bar: the 16-bit weights split over ``tp * pp`` and the KV cache of the
    serving batch (:func:`interconnect.memory.kv_cache_bytes`, with the model's key-value
    heads, so grouped-query attention counts). Sizes are drawn in GiB (2**30 bytes); the
    labels give GB (1e9 bytes) as well.

    Sliders: model, GPU, dp, tp, pp, microbatch, ZeRO stage, activation strategy
    (recomputation and sequence parallelism), serving batch and context length. The
    static book varies the ZeRO stage and the activation strategy.

    Parameters
    ----------
    models : dict, optional
        name -> (ModelConfig, kv_heads, head_dim); default GPT-3 175B, a Llama-class 70B
        (8 KV heads), GPT-3 13B and 6.7B.
    default_model : str
        A key of ``models``.
    gpu_names : sequence of str
        Names for :func:`interconnect.devices.get_gpu`.
    default_gpu : str
        One of ``gpu_names``.
    y_max_gib : float
        Fixed top of the axis, GiB; larger bars are clipped and say so.
    """
    models = _mem_default_models() if models is None else dict(models)
    if default_model not in models:
        raise ValueError(f"default_model={default_model!r} is not one of {list(models)}")
    if default_gpu not in gpu_names:
        raise ValueError(f"default_gpu={default_gpu!r} is not in gpu_names {tuple(gpu_names)}")
    gpus = {n: devices.get_gpu(n) for n in gpu_names}
    top = float(y_max_gib)
    train_parts = [("params", "parameters (16-bit)"), ("grads", "gradients (16-bit)"),
                   ("optimizer", "optimizer: FP32 master + Adam m, v"), ("activations", "activations")]
    infer_parts = [("weights", "weights (16-bit)"), ("kv_cache", "KV cache")]
    colors = {"params": plots.PALETTE[0], "grads": plots.PALETTE[5], "optimizer": plots.PALETTE[1],
              "activations": plots.PALETTE[2], "weights": plots.PALETTE[0], "kv_cache": plots.PALETTE[4]}
    hatches = {"grads": "..", "optimizer": "//", "activations": "xx", "kv_cache": "\\\\"}

    def make_figure():
        fig, ax = plots.new_figure("Memory per GPU", "", "memory per GPU (GiB = 2³⁰ bytes)", figsize=(9.0, 4.4))
        ax.set_xlim(-0.55, 2.75)
        ax.set_ylim(0, top)
        ax.set_xticks([0, 1], ["training\n(first pipeline stage)", "inference\n(same tp × pp)"])
        ax.grid(axis="x", visible=False)
        bars = {}
        for k, label in train_parts:
            bars[("t", k)] = ax.bar([0], [0.0], width=0.6, color=colors[k], hatch=hatches.get(k), edgecolor="white",
                                    label=label)[0]
        for k, label in infer_parts:
            bars[("i", k)] = ax.bar([1], [0.0], width=0.6, color=colors[k], hatch=hatches.get(k), edgecolor="white",
                                    label=label if k != "weights" else None)[0]
        (cap,) = ax.plot([-0.45, 1.45], [0, 0], color=plots.PALETTE[3], lw=2, linestyle="--")
        cap_text = ax.text(-0.45, 0, "", color=plots.PALETTE[3], fontsize=9, va="bottom")
        tot = {s: ax.text(x, 0, "", ha="center", va="bottom", fontsize=9, fontweight="bold")
               for s, x in (("t", 0), ("i", 1))}
        info = ax.text(1.55, top * 0.97, "", va="top", ha="left", fontsize=8.5, family="monospace",
                       bbox=dict(boxstyle="round", fc="white", ec="0.7"))
        ax.legend(loc="upper left", fontsize=8, ncols=1, bbox_to_anchor=(0.0, 1.0))
        head = ax.set_title(" ")

        def update(model, gpu, dp, tp, pp, microbatch, zero_stage, activations, batch, context):
            cfg, kv_heads, head_dim = models[model]
            g = gpus[gpu]
            recompute, sp = _MEM_ACTIVATIONS[activations]
            lay = Layout(dp=dp, tp=tp, pp=pp, microbatch=microbatch, recompute=recompute, sequence_parallel=sp,
                         zero_stage=zero_stage)
            # a global batch with m = 4 pp microbatches, so 1F1B keeps pp of them in flight
            tr = parallel.layout_memory_breakdown(replace(cfg, global_batch=microbatch * dp * pp * 4), lay)
            inf = parallel.inference_memory(cfg, kv_heads, head_dim, tp, pp, batch, context)
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
                t.set_position((0 if side == "t" else 1, min(y, top * 0.93)))
                fits = vals["total"] <= g.memory
                t.set_text(f"{vals['total'] / GiB:.1f} GiB{' (off scale)' if y > top else ''}\n"
                           f"{'fits' if fits else 'does NOT fit'}")
                t.set_color("black" if fits else plots.PALETTE[3])
            c = g.memory / GiB
            cap.set_ydata([c, c])
            cap_text.set_position((-0.45, min(c, top * 0.9)))
            cap_text.set_text(f"{g.name}: {c:.0f} GiB = {g.memory / GB:.1f} GB")
            head.set_text(f"{model} on {g.name}: dp={dp} tp={tp} pp={pp} b={microbatch}, ZeRO-{zero_stage}, "
                          f"{activations}")
            info.set_text(
                f"per GPU            GiB     GB\n"
                f"parameters   {tr['params'] / GiB:9.1f} {tr['params'] / GB:6.1f}\n"
                f"gradients    {tr['grads'] / GiB:9.1f} {tr['grads'] / GB:6.1f}\n"
                f"optimizer    {tr['optimizer'] / GiB:9.1f} {tr['optimizer'] / GB:6.1f}\n"
                f"activations  {tr['activations'] / GiB:9.1f} {tr['activations'] / GB:6.1f}\n"
                f"training     {tr['total'] / GiB:9.1f} {tr['total'] / GB:6.1f}\n"
                f"\ninference, batch {batch} x {context} tokens\n"
                f"weights      {inf['weights'] / GiB:9.1f} {inf['weights'] / GB:6.1f}\n"
                f"KV cache     {inf['kv_cache'] / GiB:9.1f} {inf['kv_cache'] / GB:6.1f}\n"
                f"inference    {inf['total'] / GiB:9.1f} {inf['total'] / GB:6.1f}\n"
                f"\n{tr['stage_params'] / 1e9:.2f} B parameters per GPU\n"
                f"{dp * tp * pp} GPUs in the training job")
            return [*bars.values(), cap, cap_text, *tot.values(), info, head]

        return fig, update

    names = list(models)
    return Explorer(
        "Memory calculator",
        [Param("zero_stage", "ZeRO stage", (0, 1, 2, 3), 1, lambda z: f"ZeRO-{z}"),
         Param("activations", "activations (recompute, sequence parallel SP)", tuple(_MEM_ACTIVATIONS),
               "selective + SP"),
         Param("model", "model", tuple(names), default_model),
         Param("gpu", "GPU", tuple(gpu_names), default_gpu,
               lambda n: f"{n} {gpus[n].memory / GiB:.0f} GiB"),
         Param("dp", "data parallel dp", (1, 2, 4, 8, 16, 32, 64), 8),
         Param("tp", "tensor parallel tp", (1, 2, 4, 8), 8),
         Param("pp", "pipeline stages pp", (1, 2, 4, 8, 16), 4),
         Param("microbatch", "microbatch b (sequences)", (1, 2, 4, 8), 1),
         Param("batch", "serving batch (sequences)", (1, 8, 32, 64, 128), 32),
         Param("context", "serving context (tokens)", (2048, 8192, 32768, 131072), 8192)],
        make_figure, static=["zero_stage", "activations"],
        alt=lambda model, gpu, dp, tp, pp, microbatch, zero_stage, activations, batch, context: (
            f"Stacked bars of memory per GPU in GiB for {model} on {gpu} with dp={dp}, tp={tp}, pp={pp}, "
            f"microbatch {microbatch}, ZeRO stage {zero_stage} and activations '{activations}': training "
            f"(parameters, gradients, optimizer states, activations) and inference (weights and KV cache for "
            f"{batch} sequences of {context} tokens), against a dashed line at the GPU's capacity."),
        dpi=80)
