"""Explorers of the chapter "Serving large models" (book/practice/serving).

Every number comes from :mod:`interconnect.serving` on the machine presets of
:mod:`interconnect.parallel.machines` and :func:`interconnect.serving.pcie_h100`;
:func:`serving_machines` is the set of machines the chapter compares (8 H100 PCIe cards on
PCIe 5.0, a DGX H100 on NVLink 4, a GB200 NVL72 on NVLink 5).
"""

from __future__ import annotations

import functools

import numpy as np

from ... import plots
from ...serving.machines import pcie_h100
from ...units import fmt_time
from ...widgets import READOUT_GID, Explorer, Param

__all__ = ["serving_machines", "pcie_h100", "batch_explorer", "BATCHES", "disagg_explorer", "disagg_curves",
           "KV_LINKS", "TPOT_SLOS"]

#: Decode batches the batch explorer plots (sequences decoded together).
BATCHES = tuple(2 ** k for k in range(11))


def serving_machines():
    """``{label: Cluster}`` of the three machines the chapter compares, slowest link first.

    Examples
    --------
    >>> list(serving_machines())
    ['8 H100 PCIe, PCIe 5.0', 'DGX H100, NVLink 4', 'GB200 NVL72, NVLink 5']
    """
    from ...parallel.machines import machine

    return {"8 H100 PCIe, PCIe 5.0": pcie_h100(), "DGX H100, NVLink 4": machine("dgx-h100"),
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
                                           figsize=(8.8, 5.3), ncols=2)
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
        ax1.legend(loc="upper left", fontsize=9)
        # the readout goes below both panels: at a legible size it is wider than one of them
        note = fig.text(0.5, 0.015, "", ha="center", va="bottom", fontsize=9,
                        bbox=dict(facecolor="white", edgecolor="#cccccc", boxstyle="round,pad=0.3"))
        fig.set_layout_engine("tight", rect=(0, 0.17, 1, 1))  # the Explorer lays it out once, with this rect

        note.set_gid(READOUT_GID)  # the frame's key numbers, also as text

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
                    static=("model", "context"), alt=alt, dpi=76, colors=32)


#: TPOT objectives (seconds) the disaggregation explorer sweeps.
TPOT_SLOS = (0.01, 0.015, 0.02, 0.03, 0.05, 0.1, 0.2)


def _kv_links():
    """``{label: link}`` of the KV paths offered: the library's three and 100 Gb/s Ethernet as a pair."""
    from ...links import get_link

    eth = get_link("eth-100g")
    return {"NVLink (one domain)": "nvlink", "PCIe 5.0 switch": "pcie", "RDMA, NDR 400 Gb/s": "rdma",
            "Ethernet 100 Gb/s": (eth.bandwidth, eth.latency)}


#: Labels of the KV paths of :func:`disagg_explorer`.
KV_LINKS = tuple(_kv_links())


@functools.lru_cache(maxsize=256)
def disagg_curves(model, prompt, link, ttft_slo, layerwise=True, output=256, machine="dgx-h100", tp=8,
                  slos=TPOT_SLOS):
    """Goodput per GPU, colocated and disaggregated, over the TPOT objectives ``slos``.

    :func:`interconnect.serving.disagg_pays` at each objective (cached: the arguments are hashable).

    Parameters
    ----------
    model : str
        A catalog model.
    prompt : int
        Prompt tokens.
    link : str
        One of :data:`KV_LINKS`.
    ttft_slo : float
        TTFT objective, seconds.
    layerwise : bool
        Layer-wise KV transfer.
    output : int
        Output tokens per request.
    machine : str
        A machine preset.
    tp : int
        TP degree of every instance.
    slos : sequence of float
        TPOT objectives, seconds.

    Returns
    -------
    dict
        ``colocated``, ``disaggregated`` (arrays, requests/s per GPU) and ``kv`` (exposed KV
        transfer per request, seconds).
    """
    from ...catalog import models
    from ...serving import disagg_pays

    m = models.get(model)
    lk = _kv_links()[link]
    v = [disagg_pays(m, machine, prompt, output, ttft_slo, x, link=lk, tp=tp, layerwise=layerwise) for x in slos]
    return {"colocated": np.array([x.colocated_per_gpu for x in v]),
            "disaggregated": np.array([x.disaggregated_per_gpu for x in v]), "kv": v[0].kv_transfer}


def disagg_explorer(models=("llama3-70b", "llama3-8b"), machine="dgx-h100", output=256):
    """When disaggregation pays: goodput per GPU against the TPOT objective.

    Requests per second per GPU served within both objectives (TTFT and TPOT), colocated
    (continuous batching, one TP-8 replica) and disaggregated (TP-8 prefill and decode
    instances in the best mix), from :func:`interconnect.serving.disagg_pays`; shaded where
    disaggregation serves more. Sliders: the prompt length, the KV path, the TTFT objective and
    layer-wise transfer. The static book varies the prompt (each frame costs some 20 goodput
    searches).

    Parameters
    ----------
    models : sequence of str
        Catalog models offered.
    machine : str
        A machine preset.
    output : int
        Output tokens per request.

    Returns
    -------
    interconnect.widgets.Explorer
    """
    x = np.array(TPOT_SLOS) * 1e3

    def make_figure():
        fig, ax = plots.new_figure(f"When disaggregation pays: TP 8 instances on {machine}, {output} output tokens",
                                   "TPOT objective (ms)", "goodput (requests/s per GPU)", figsize=(8.2, 4.4))
        col, = ax.plot(x, np.ones(len(x)), "o-", color=plots.PALETTE[0], label="colocated (continuous batching)")
        dis, = ax.plot(x, np.ones(len(x)), "s--", color=plots.PALETTE[1],
                       label="disaggregated (prefill and decode instances)")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xticks([10, 20, 50, 100, 200], ["10", "20", "50", "100", "200"])
        ax.minorticks_off()
        ax.set_ylim(0.05, 20)
        ax.legend(loc="upper left", fontsize=9)
        note = ax.text(0.98, 0.03, "", transform=ax.transAxes, ha="right", va="bottom", fontsize=9,
                       bbox=dict(facecolor="white", edgecolor="#cccccc", boxstyle="round,pad=0.3"))
        shade = []

        note.set_gid(READOUT_GID)  # the frame's key numbers, also as text

        def update(prompt, model, link, ttft, layerwise):
            c = disagg_curves(model, prompt, link, ttft, layerwise, output, machine)
            col.set_ydata(np.maximum(c["colocated"], 1e-3))
            dis.set_ydata(np.maximum(c["disaggregated"], 1e-3))
            while shade:
                shade.pop().remove()
            pays = c["disaggregated"] > c["colocated"]
            shade.append(ax.fill_between(x, 1e-3, 100, where=pays, color=plots.PALETTE[1], alpha=0.12, lw=0))
            wins = ", ".join(f"{v:g}" for v in x[pays]) or "none"
            note.set_text(f"{model}, prompt {prompt:,} tokens, KV over {link}\nTTFT objective {ttft:g} s, "
                          f"{'layer-wise' if layerwise else 'whole-cache'} transfer: {fmt_time(c['kv'])} exposed\n"
                          f"disaggregation pays at TPOT objectives (ms): {wins}")
            return [col, dis, note] + shade

        return fig, update

    def alt(prompt, model, link, ttft, layerwise):
        c = disagg_curves(model, prompt, link, ttft, layerwise, output, machine)
        pays = c["disaggregated"] > c["colocated"]
        wins = ", ".join(f"{v:g}" for v in x[pays]) or "none of them"
        return (f"Goodput per GPU against the TPOT objective from {x[0]:g} to {x[-1]:g} ms for {model} on {machine}, "
                f"{prompt}-token prompts, KV cache over {link}, TTFT objective {ttft:g} s: colocated from "
                f"{c['colocated'][0]:.3g} to {c['colocated'][-1]:.3g}, disaggregated from {c['disaggregated'][0]:.3g} "
                f"to {c['disaggregated'][-1]:.3g} requests/s per GPU; disaggregation pays at {wins} ms.")

    params = [
        Param("prompt", "prompt (tokens)", (512, 2048, 8192), 2048, fmt=lambda v: f"{v:,}"),
        Param("model", "model", tuple(models), models[0]),
        Param("link", "KV path", KV_LINKS, "RDMA, NDR 400 Gb/s"),
        Param("ttft", "TTFT objective (s)", (0.25, 0.5, 1.0, 2.0), 1.0, fmt=lambda v: f"{v:g} s"),
        Param("layerwise", "layer-wise transfer", (True, False), True, fmt=lambda v: "yes" if v else "no"),
    ]
    return Explorer("When disaggregation pays", params, make_figure, static=("prompt",), alt=alt, dpi=76,
                    colors=32)
