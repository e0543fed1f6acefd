"""Explorers of the chapter "Applications" (book/practice/applications)."""

from __future__ import annotations

import numpy as np

from ... import applications as A
from ... import devices, plots
from ...memory import kv_cache_bytes
from ...units import fmt_time
from ...widgets import READOUT_GID, Explorer, Param

__all__ = ["decode_explorer"]


def decode_explorer(gpu="H100", pcie_links=("pcie4x16", "pcie5x16", "pcie6x16"),
                    default_pcie="pcie5x16", memory_per_gpu=A.H100_USABLE_MEMORY):
    """Decode time per generated token of Llama 2 against the tensor-parallel degree.

    Two curves, the TP group on NVLink 4 and on PCIe, from
    :func:`interconnect.applications.llama2_decode` at t = 1, 2, 4, 8; the HBM floor (the
    weight read alone, ``2 N / (t B_mem)``); and a cross where the weights and the KV cache
    do not fit in t GPUs (:func:`interconnect.applications.group_fits`). Fixed axes and the
    same artists in every frame (drawn by blitting).

    Sliders: the model (7B, 13B, 70B), the batch, the context length and the PCIe
    generation. The static book varies the model and the batch.

    Parameters
    ----------
    gpu : str
        A GPU of :mod:`interconnect.devices`.
    pcie_links : sequence of str
        Catalog names offered on the PCIe slider.
    default_pcie : str
        One of ``pcie_links``.
    memory_per_gpu : float
        Usable bytes per GPU for the fit test.

    Returns
    -------
    interconnect.widgets.Explorer
    """
    if default_pcie not in pcie_links:
        raise ValueError(f"default_pcie={default_pcie!r} is not in pcie_links {tuple(pcie_links)}")
    g = devices.get_gpu(gpu)
    tps = np.array([1, 2, 4, 8])

    def curves(model, batch, context, pcie):
        n, l, _, kvh = A.LLAMA2[model]
        out = {key: A.llama2_decode(model, tps, lk, batch=batch, context=context, gpu=gpu).total
               for key, lk in (("nv", "nvlink4"), ("pc", pcie))}
        out["floor"] = 2 * n / tps / g.memory_bandwidth
        kv = kv_cache_bytes(l, kvh, A.LLAMA2_HEAD_DIM, context, batch)
        out["fits"] = A.group_fits(tps, memory_per_gpu, 2 * n, kv)
        return out

    def make_figure():
        fig, ax = plots.new_figure(f"Decode time per token, Llama 2 on {gpu}", "tensor-parallel degree t (GPUs)",
                                   "time per generated token (ms)", figsize=(7.0, 4.3))
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xticks(tps, [str(t) for t in tps])
        ax.minorticks_off()
        ax.set_xlim(0.8, 10)
        ax.set_ylim(0.3, 1000)
        nv, = ax.plot(tps, np.ones(4), "o-", color=plots.PALETTE[0], label="NVLink 4")
        pc, = ax.plot(tps, np.ones(4), "s--", color=plots.PALETTE[1], label="PCIe (generation on the slider)")
        floor, = ax.plot(tps, np.ones(4), ":", color=plots.PALETTE[2], linewidth=2,
                         label="weight read alone (HBM floor)")
        nofit, = ax.plot([], [], "x", color="black", ms=11, mew=2, linestyle="none", label="does not fit in t GPUs")
        note = ax.text(0.98, 0.97, "", transform=ax.transAxes, ha="right", va="top", fontsize=9,
                       bbox=dict(facecolor="white", edgecolor="#cccccc", boxstyle="round,pad=0.3"))
        ax.legend(loc="lower left", fontsize=8.5)

        note.set_gid(READOUT_GID)  # the frame's key numbers, also as text
        def update(model, batch, context, pcie):
            c = curves(model, batch, context, pcie)
            nv.set_ydata(c["nv"] * 1e3)
            pc.set_ydata(c["pc"] * 1e3)
            floor.set_ydata(c["floor"] * 1e3)
            bad = ~c["fits"]
            nofit.set_data(tps[bad], c["nv"][bad] * 1e3)
            note.set_text(f"Llama 2 {model}, batch {batch}, context {context:,}\n"
                          f"t = 8: NVLink {fmt_time(c['nv'][3])}, {pcie} {fmt_time(c['pc'][3])}\n"
                          f"throughput at t = 8: {batch / c['nv'][3]:,.0f} vs {batch / c['pc'][3]:,.0f} tokens/s")
            return [nv, pc, floor, nofit, note]

        return fig, update

    def alt(model, batch, context, pcie):
        c = curves(model, batch, context, pcie)
        fit = ", ".join(str(t) for t in tps[c["fits"]]) or "none"
        return (f"Decode time per token of Llama 2 {model} at batch {batch} and context {context} against tensor-"
                f"parallel degree 1 to 8: on NVLink 4 it goes from {fmt_time(c['nv'][0])} to {fmt_time(c['nv'][3])}, "
                f"on {pcie} from {fmt_time(c['pc'][0])} to {fmt_time(c['pc'][3])}; the model fits at t = {fit}.")

    params = [
        Param("model", "model", tuple(A.LLAMA2), "70B", fmt=lambda m: f"Llama 2 {m}"),
        Param("batch", "batch (sequences)", (1, 8, 32, 128), 32),
        Param("context", "context length (tokens)", (1024, 4096, 16384, 32768), 4096, fmt=lambda c: f"{c:,}"),
        Param("pcie", "PCIe generation", tuple(pcie_links), default_pcie),
    ]
    return Explorer("Decode time per token against TP degree", params, make_figure,
                    static=("model", "batch"), alt=alt, dpi=84, colors=32)
