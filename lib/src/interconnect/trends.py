"""Technology trends: growth rates fitted to the catalogs, and constant-growth projections.

The chapter "Summary and outlook" asks how fast link bandwidth and GPU compute grow, and
what happens to every model that divides one by the other if they keep growing at
different rates:

* :func:`nvlink_per_gpu` -- the per-GPU NVLink entries of :mod:`interconnect.links`,
  NVLink 1 (P100, 2016) to NVLink 5 (B200, 2024);
* :func:`growth_per_year` -- the constant yearly factor of a least-squares exponential
  fit, ``exp(slope of log(value) against year)``;
* :func:`project` -- a GPU's link bandwidth and dense compute grown at constant yearly
  factors from its launch year, the bytes per FLOP that result, and the data-parallel
  break-even tokens per GPU (:func:`interconnect.parallel.dp_break_even_tokens`, at the
  starting GPU's measured GEMM ceiling), which is proportional to FLOP/s over bytes/s;
* :data:`NVLINK6_BIDIRECTIONAL` -- the announced NVLink 6 figure (not in the catalog).

References
----------
NVIDIA, CES keynote, January 2026: NVLink 6, 3.6 TB/s per Rubin GPU (both directions added).
"""

from __future__ import annotations

import numpy as np

from .units import TB

__all__ = ["NVLINK6_BIDIRECTIONAL", "nvlink_per_gpu", "growth_per_year", "project"]

#: NVLink 6 as announced (NVIDIA, CES January 2026): 3.6 TB/s per Rubin GPU, both directions
#: added; :func:`interconnect.units.per_direction` gives the figure the book's models use.
NVLINK6_BIDIRECTIONAL = 3.6 * TB


def nvlink_per_gpu():
    """The catalog's per-GPU NVLink entries of data-centre GPUs, oldest first (P100 to B200).

    Returns
    -------
    list of interconnect.links.Link

    Examples
    --------
    >>> [l.name for l in nvlink_per_gpu()]
    ['nvlink1', 'nvlink2', 'nvlink3', 'nvlink4', 'nvlink5']
    """
    from .links import catalog

    return [l for l in catalog("NVLink") if l.gpu and not l.gpu.startswith("RTX")]


def growth_per_year(years, values):
    """Constant yearly growth factor of ``values``: ``exp(b)`` of the least-squares fit
    ``log(value) = a + b year``.

    Parameters
    ----------
    years, values : sequence of float
        At least two points; ``values`` > 0.

    Returns
    -------
    float
        1.3 means "x1.3 per year".

    Examples
    --------
    >>> round(growth_per_year([2020, 2021, 2022], [1.0, 2.0, 4.0]), 6)
    2.0
    """
    y, v = np.asarray(years, dtype=float), np.asarray(values, dtype=float)
    if y.size < 2 or y.shape != v.shape or np.any(v <= 0):
        raise ValueError(f"years={years!r}, values={values!r}: need two or more points of equal count, values > 0")
    return float(np.exp(np.polyfit(y, np.log(v), 1)[0]))


def project(year, bw_growth, flops_growth, gpu="H100", p=8, gemm_efficiency=None):
    """A GPU's NVLink bandwidth and compute grown at constant yearly factors from its launch.

    ``B(y) = B_0 g_B^(y - y_0)`` and ``F(y) = F_0 g_F^(y - y_0)`` from the GPU's per-GPU
    NVLink bandwidth ``B_0`` (per direction), dense peak ``F_0`` and year ``y_0``
    (:mod:`interconnect.devices`). Bytes per FLOP then change by ``(g_B / g_F)`` a year,
    and the data-parallel break-even tokens by the inverse. The projected GPU is taken to
    reach the same fraction of its peak as the starting one.

    Parameters
    ----------
    year : float or array
        The year(s) to project to.
    bw_growth, flops_growth : float
        Yearly factors of bandwidth and compute, > 0.
    gpu : str
        The starting GPU.
    p : int
        GPUs of the data-parallel ring for the break-even tokens, >= 2.
    gemm_efficiency : float, optional
        Fraction of peak the compute reaches, for the break-even tokens; default the
        starting GPU's measured GEMM ceiling,
        :func:`interconnect.parallel.gemm.ceiling_fraction` (``gpu`` must have one).

    Returns
    -------
    dict of float or ndarray
        ``bandwidth`` (bytes/s per direction), ``peak_flops`` (FLOP/s), ``bytes_per_flop``
        and ``dp_break_even_tokens`` (tokens per GPU per step).

    Examples
    --------
    >>> r = project(2032, 1.3, 1.5)
    >>> round(1e3 * r["bytes_per_flop"], 3)      # bytes per 1,000 FLOP, from 0.455 in 2022
    0.109
    >>> round(project(2022, 1.3, 1.5)["dp_break_even_tokens"])   # the H100 at its GEMM ceiling, 8 GPUs
    1030
    """
    from .devices import get_gpu
    from .links import get_link
    from .parallel import ceiling_fraction, dp_break_even_tokens

    g = get_gpu(gpu)
    eff = ceiling_fraction(g.name) if gemm_efficiency is None else gemm_efficiency
    dt = np.asarray(year, dtype=float) - g.year
    bw = get_link(g.nvlink).bandwidth * bw_growth ** dt
    fl = g.peak_flops * flops_growth ** dt
    out = {"bandwidth": bw, "peak_flops": fl, "bytes_per_flop": bw / fl,
           "dp_break_even_tokens": dp_break_even_tokens(fl, bw, p, eff)}
    return {k: float(v) if np.ndim(v) == 0 else v for k, v in out.items()}
