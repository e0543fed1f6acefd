"""Explorers of the chapter "Summary and outlook" (book/practice/outlook)."""

from __future__ import annotations

import numpy as np

from ... import devices, links, plots, trends
from ...parallel import ceiling_fraction, dp_break_even_tokens
from ...units import GB, per_direction
from ...widgets import READOUT_GID, Explorer, Param

__all__ = ["bytes_per_flop_explorer"]


def bytes_per_flop_explorer(gpu="H100", growth_rates=(1.1, 1.2, 1.3, 1.5, 1.7, 2.0), default_bw_growth=1.3,
                            default_flops_growth=1.5, end_year=2032, p=8):
    """NVLink bandwidth per GPU and NVLink bytes per FLOP, projected at constant yearly growth.

    Left: the catalog's NVLink 1-5 (:func:`interconnect.trends.nvlink_per_gpu`), the
    announced NVLink 6 (:data:`interconnect.trends.NVLINK6_BIDIRECTIONAL`, per direction)
    and the projection of the GPU's NVLink bandwidth. Right: the library GPUs' NVLink bytes
    per 1,000 dense BF16 FLOP and the projection (:func:`interconnect.trends.project`); the
    note gives the value in ``end_year`` and the data-parallel break-even tokens per GPU
    (:func:`interconnect.parallel.dp_break_even_tokens`, ``p`` GPUs, at the GPU's measured GEMM
    ceiling :func:`interconnect.parallel.ceiling_fraction`). Fixed axes and the
    same artists in every frame (drawn by blitting).

    Sliders: the yearly growth of link bandwidth and of compute (both in the static book).

    Parameters
    ----------
    gpu : str
        The GPU the projection starts from (its NVLink entry and launch year).
    growth_rates : sequence of float
        Yearly factors offered on both sliders.
    default_bw_growth, default_flops_growth : float
        The sliders' defaults, each one of ``growth_rates``.
    end_year : int
        Last year of the projection.
    p : int
        GPUs of the data-parallel ring for the break-even tokens.

    Returns
    -------
    interconnect.widgets.Explorer
    """
    g0 = devices.get_gpu(gpu)
    base_bw, base_fl, base_year = links.get_link(g0.nvlink).bandwidth, g0.peak_flops, g0.year
    base_eff = ceiling_fraction(g0.name)
    yrs = np.arange(base_year, end_year + 1)
    nvl, gpus = trends.nvlink_per_gpu(), devices.gpus()
    nv6 = per_direction(trends.NVLINK6_BIDIRECTIONAL)

    def make_figure():
        fig, (ax1, ax2) = plots.new_figure("Link bandwidth and bytes per FLOP, projected", "year",
                                           "NVLink per GPU, per direction (GB/s)", figsize=(8.6, 3.9), ncols=2)
        ax1.set_title("Scale-up bandwidth")
        ax2.set_title("Bytes per FLOP")
        ax2.set_xlabel("year")
        ax2.set_ylabel("bytes per 1,000 FLOP (NVLink / dense BF16)")
        ax1.plot([l.year for l in nvl], [l.bandwidth / GB for l in nvl], "o", color=plots.PALETTE[0],
                 label="NVLink 1-5 (catalog)")
        ax1.plot([2026], [nv6 / GB], "o", mfc="none", ms=9, color=plots.PALETTE[0], label="NVLink 6 (announced)")
        ax2.plot([g.year for g in gpus], [1e3 * (links.get_link(g.nvlink).bandwidth / g.peak_flops) for g in gpus], "s",
                 color=plots.PALETTE[1], label=f"{', '.join(g.name for g in gpus)} (library)")
        bw_line, = ax1.plot(yrs, np.ones_like(yrs, dtype=float), "--", color=plots.PALETTE[2], label="projection")
        bpf_line, = ax2.plot(yrs, np.ones_like(yrs, dtype=float), "--", color=plots.PALETTE[2], label="projection")
        for ax in (ax1, ax2):
            ax.set_yscale("log")
            ax.set_xlim(2015, 2033)
            ax.set_xticks([2016, 2020, 2024, 2028, 2032])
        ax1.set_ylim(30, 3e4)
        ax2.set_ylim(0.01, 3)
        ax1.legend(loc="upper left", fontsize=9)
        ax2.legend(loc="lower left", fontsize=9)
        note = ax2.text(0.97, 0.97, "", transform=ax2.transAxes, ha="right", va="top", fontsize=9,
                        bbox=dict(facecolor="white", edgecolor="#cccccc", boxstyle="round,pad=0.3"))

        note.set_gid(READOUT_GID)  # the frame's key numbers, also as text
        def update(bw_growth, flops_growth):
            r = trends.project(yrs, bw_growth, flops_growth, gpu=gpu, p=p)
            bw_line.set_ydata(r["bandwidth"] / GB)
            bpf_line.set_ydata(1e3 * r["bandwidth"] / r["peak_flops"])
            note.set_text(f"{yrs[-1]}: {1e3 * r['bytes_per_flop'][-1]:.3f} B per 1,000 FLOP\n"
                          f"DP break-even {r['dp_break_even_tokens'][-1]:,.0f} tokens/GPU\n"
                          f"({gpu} {base_year}: {dp_break_even_tokens(base_fl, base_bw, p, base_eff):,.0f})")
            return [bw_line, bpf_line, note]

        return fig, update

    def alt(bw_growth, flops_growth):
        r = trends.project(end_year, bw_growth, flops_growth, gpu=gpu, p=p)
        return (f"Two log plots against year. Left: NVLink bandwidth per GPU projected from {base_bw / GB:,.0f} GB/s "
                f"in {base_year} at {bw_growth} times a year to {r['bandwidth'] / GB:,.0f} GB/s in {end_year}, with "
                f"the catalog's NVLink 1 to 5 and the announced NVLink 6 as points. Right: bytes per 1,000 FLOP "
                f"projected with compute growing {flops_growth} times a year, reaching "
                f"{1e3 * r['bytes_per_flop']:.3f} in {end_year}, against {1e3 * base_bw / base_fl:.2f} for the {gpu}.")

    def rate(v):
        return f"x{v:.2f} per year"

    params = [Param("bw_growth", "link bandwidth growth", tuple(growth_rates), default_bw_growth, fmt=rate),
              Param("flops_growth", "compute growth", tuple(growth_rates), default_flops_growth, fmt=rate)]
    return Explorer("Bandwidth against compute", params, make_figure, static=("bw_growth", "flops_growth"),
                    alt=alt, dpi=78, colors=32)
