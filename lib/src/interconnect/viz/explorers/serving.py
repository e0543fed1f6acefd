"""Explorers of the chapter "Serving large models" (book/practice/serving).

Every number comes from :mod:`interconnect.serving` on the machine presets of
:mod:`interconnect.parallel.machines`; :func:`serving_machines` is the set of machines the
chapter compares (8 H100 on PCIe 5.0, a DGX H100 on NVLink 4, a GB200 NVL72 on NVLink 5).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from ... import plots
from ...units import fmt_time
from ...widgets import Explorer, Param

__all__ = ["serving_machines", "pcie_h100", "batch_explorer", "BATCHES"]

#: Decode batches the batch explorer plots (sequences decoded together).
BATCHES = tuple(2 ** k for k in range(11))


def pcie_h100():
    """Eight H100 GPUs whose only path to each other is PCIe 5.0 x16 (no NVLink).

    The DGX H100 preset with its NVLink replaced by the ``pcie5x16`` link of the catalog
    (bandwidth per direction and latency); the rest (HBM, GEMM and attention efficiencies, the
    fraction of link bandwidth collectives reach) is the preset's, as the library holds no
    measurement of collectives over PCIe.

    Returns
    -------
    interconnect.parallel.Cluster

    Examples
    --------
    >>> c = pcie_h100()
    >>> round(c.intra_bandwidth / 1e9, 1), c.gpus_per_node, c.gemm_gpu
    (63.0, 8, 'H100')
    """
    from ...links import get_link
    from ...parallel.machines import machine

    pcie = get_link("pcie5x16")
    return replace(machine("dgx-h100"), intra_bandwidth=pcie.bandwidth, intra_latency=pcie.latency)


def serving_machines():
    """``{label: Cluster}`` of the three machines the chapter compares, slowest link first.

    Examples
    --------
    >>> list(serving_machines())
    ['8 H100, PCIe 5.0', 'DGX H100, NVLink 4', 'GB200 NVL72, NVLink 5']
    """
    from ...parallel.machines import machine

    return {"8 H100, PCIe 5.0": pcie_h100(), "DGX H100, NVLink 4": machine("dgx-h100"),
            "GB200 NVL72, NVLink 5": machine("gb200-nvl72")}


def _fits(model, cl, tp, fp8, batch, context):
    """Does the batch's KV cache fit the paged cache of one TP group (False if the weights do not fit)?"""
    from ...serving import kv_capacity

    try:
        cap = kv_capacity(model, cl.gemm_gpu, tp=tp, weight_bytes=1 if fp8 else 2)
    except ValueError:
        return False
    return batch * context <= cap.tokens


def batch_curves(model, context, tp=8, fp8=False, batches=BATCHES):
    """``{label: (tpot, tokens/s per GPU)}`` arrays over ``batches`` for each serving machine.

    Batches whose KV cache does not fit (or whose weights do not fit) are NaN.

    Parameters
    ----------
    model : str or ModelConfig
        A model of :mod:`interconnect.catalog.models`.
    context : int
        Tokens in each sequence's KV cache.
    tp : int
        Tensor-parallel degree.
    fp8 : bool
        FP8 weights and GEMMs.
    batches : sequence of int

    Returns
    -------
    dict
    """
    from ...catalog import models
    from ...serving import decode_step_time

    m = models.get(model) if isinstance(model, str) else model
    out = {}
    for label, cl in serving_machines().items():
        tpot, tput = [], []
        for b in batches:
            if _fits(m, cl, tp, fp8, b, context):
                d = decode_step_time(m, cl, b, context, tp=tp, fp8=fp8)
                tpot.append(d.total)
                tput.append(d.tokens_per_second / tp)
            else:
                tpot.append(np.nan)
                tput.append(np.nan)
        out[label] = (np.array(tpot), np.array(tput))
    return out


def _last(a):
    """Index of the last finite value, or None."""
    ok = np.flatnonzero(np.isfinite(a))
    return int(ok[-1]) if ok.size else None


def batch_explorer(models=("llama3-8b", "llama3-70b", "llama3-405b"), contexts=(512, 2048, 8192, 32768)):
    """Decode batch against time per output token and throughput, on PCIe, NVLink and NVL72.

    Left, the time per output token (TPOT, one decode step,
    :func:`interconnect.serving.decode_step_time`) against the batch; right, the output tokens
    per second per GPU. One line per machine of :func:`serving_machines`; a line stops where
    the batch's KV cache no longer fits the paged cache next to the weights
    (:func:`interconnect.serving.kv_capacity`). Fixed axes and the same artists in every frame.

    Sliders: the model, the context each sequence has cached, the tensor-parallel degree and
    FP8 weights. The static book varies the model and the context.

    Parameters
    ----------
    models : sequence of str
        Catalog models offered.
    contexts : sequence of int
        Contexts offered (tokens).

    Returns
    -------
    interconnect.widgets.Explorer
    """
    labels = list(serving_machines())
    x = np.array(BATCHES)

    def make_figure():
        fig, (ax1, ax2) = plots.new_figure("Decode batch against latency and throughput",
                                           ["decode batch (sequences)", "decode batch (sequences)"],
                                           ["time per output token (ms)", "output tokens/s per GPU"],
                                           figsize=(10.5, 4.3), ncols=2)
        lines = []
        for k, label in enumerate(labels):
            a, = ax1.plot(x, np.ones(len(x)), marker="o", ms=4, color=plots.PALETTE[k],
                          linestyle=plots.LINESTYLES[k], label=label)
            b, = ax2.plot(x, np.ones(len(x)), marker="o", ms=4, color=plots.PALETTE[k],
                          linestyle=plots.LINESTYLES[k], label=label)
            lines.append((a, b))
        for ax in (ax1, ax2):
            ax.set_xscale("log", base=2)
            ax.set_yscale("log")
            ax.set_xlim(0.8, 1300)
        ax1.set_ylim(0.5, 2000)
        ax2.set_ylim(1, 20000)
        ax1.legend(loc="upper left", fontsize=8)
        note = ax2.text(0.98, 0.03, "", transform=ax2.transAxes, ha="right", va="bottom", fontsize=8,
                        bbox=dict(facecolor="white", edgecolor="#cccccc", boxstyle="round,pad=0.3"))
        fig.tight_layout()

        def update(model, context, tp, fp8):
            c = batch_curves(model, context, tp, fp8)
            text = [f"{model}, context {context:,}, TP {tp}{', FP8' if fp8 else ''}"]
            for (a, b), label in zip(lines, labels):
                tpot, tput = c[label]
                a.set_ydata(tpot * 1e3)
                b.set_ydata(tput)
                i = _last(tpot)
                text.append(f"{label}: " + ("does not fit" if i is None else
                                            f"batch {x[i]}: {fmt_time(tpot[i])}, {tput[i]:,.0f} tok/s/GPU"))
            note.set_text("\n".join(text))
            return [art for pair in lines for art in pair] + [note]

        return fig, update

    def alt(model, context, tp, fp8):
        c = batch_curves(model, context, tp, fp8)
        parts = []
        for label in labels:
            tpot, tput = c[label]
            i = _last(tpot)
            parts.append(f"{label}: does not fit" if i is None else
                         f"{label}: {fmt_time(tpot[0])} per token at batch 1, {fmt_time(tpot[i])} and "
                         f"{tput[i]:,.0f} tokens/s per GPU at batch {x[i]}, the largest that fits")
        return (f"Time per output token and throughput per GPU against the decode batch, {model} with "
                f"{context:,} tokens of context, TP {tp}{', FP8 weights' if fp8 else ''}. " + "; ".join(parts) + ".")

    params = [
        Param("model", "model", tuple(models), "llama3-70b" if "llama3-70b" in models else models[0]),
        Param("context", "context (tokens)", tuple(contexts), 2048 if 2048 in contexts else contexts[0],
              fmt=lambda v: f"{v:,}"),
        Param("tp", "tensor-parallel degree", (2, 4, 8), 8),
        Param("fp8", "FP8 weights", (False, True), False, fmt=lambda v: "yes" if v else "no"),
    ]
    return Explorer("Decode batch against latency and throughput", params, make_figure,
                    static=("model", "context"), alt=alt, dpi=72, colors=32)
