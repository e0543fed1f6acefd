"""How fast a GEMM runs: a measured ceiling times the tile and wave quantisation of its shape.

A GPU runs a matrix multiply ``C[m, n] = A[m, k] B[k, n]`` as output tiles of
``T_m x T_n`` elements, one tile per streaming multiprocessor (SM) at a time. Two things
keep it below the datasheet peak:

* the **ceiling**: even a perfectly shaped GEMM reaches only a fraction of the peak (clock
  under load, instruction issue, memory stalls). That fraction is *measured*, not fitted:
  the maximum achievable matmul FLOP/s (MAMF) of :mod:`interconnect.catalog.measurements`
  (Bekman's ``mamf-finder.py``, BF16, best shape of a search): 86.9 % on A100, 80.3 % on
  H100, 77.6 % on B200;
* **quantisation** of the shape: ``ceil(m / T_m) ceil(n / T_n)`` tiles run in waves of
  ``SMs`` tiles, and the last wave and the edge tiles are partly idle. The useful fraction is
  ``m n / (waves SMs T_m T_n)`` (NVIDIA, "Matrix Multiplication Background User's Guide",
  sec. "Tile quantization" and "Wave quantization"; Anthony et al. 2024, sec. 3).

Efficiency = ceiling x quantisation, a fraction of the dense 16-bit peak. The tile is
``128 x 256``, the largest cuBLAS tile for 16-bit inputs in NVIDIA's guide (an assumption:
cuBLAS picks a tile per shape by heuristics, and split-K or stream-K fill a short last wave
better than this count assumes, so small GEMMs come out pessimistic).

References
----------
NVIDIA, "Matrix Multiplication Background User's Guide" (Deep Learning Performance
documentation), 2023.
Q. Anthony, J. Hatef, D. Narayanan et al., "The Case for Co-Designing Model Architectures
with Hardware", ICPP 2024 (arXiv:2401.14489), sec. 3 and Fig. 3-6.
"""

from __future__ import annotations

import math

from .._validate import as_count, choice

__all__ = ["SMS", "CEILING", "CEILING_FP8", "TILE", "ceiling_fraction", "gemm_quantisation", "gemm_efficiency",
           "layer_gemms", "layer_gemm_efficiency"]

#: Streaming multiprocessors (NVIDIA) or compute units (AMD) per GPU, from the
#: architecture whitepapers: A100 108 (NVIDIA A100 whitepaper, 2020), H100 SXM5 132 and
#: H200 the same die (NVIDIA H100 whitepaper, 2022), B200 148 per GPU of two dies (NVIDIA
#: Blackwell architecture technical brief, 2024), MI300X 304 CUs, MI325X 304, MI355X 256 (AMD
#: CDNA 3 and CDNA 4 whitepapers).
SMS = {"V100": 80, "A100": 108, "A100-40GB": 108, "H100": 132, "H200": 132, "B200": 148, "GB200": 148,
       "MI300X": 304, "MI325X": 304, "MI355X": 256}

#: Measured ceiling per GPU: its MAMF entry in :mod:`interconnect.catalog.measurements` and the
#: GPU it was measured on, whose dense BF16 peak in :mod:`interconnect.devices` it is a fraction
#: of. H200 has H100's compute ("H200 is the same", Bekman's table).
CEILING = {"A100": ("a100-sxm-bf16-mamf", "A100"), "A100-40GB": ("a100-sxm-bf16-mamf", "A100"),
           "H100": ("h100-sxm-bf16-mamf", "H100"), "H200": ("h100-sxm-bf16-mamf", "H100"),
           "B200": ("b200-sxm-bf16-mamf", "B200"), "GB200": ("gb200-bf16-mamf", "GB200"),
           "MI300X": ("mi300x-bf16-mamf", "MI300X"), "MI325X": ("mi325x-bf16-mamf", "MI325X"),
           "MI355X": ("mi355x-bf16-mamf", "MI355X")}

#: Measured FP8 ceiling: the MAMF entry and the GPU whose dense FP8 peak it is a fraction of.
CEILING_FP8 = {"H100": ("h100-sxm-fp8-mamf", "H100"), "H200": ("h200-sxm-fp8-mamf", "H200"),
               "B200": ("b200-sxm-fp8-mamf", "B200"), "GB200": ("gb200-fp8-mamf", "GB200")}

#: Output tile of a 16-bit GEMM, (T_m, T_n) elements: cuBLAS's largest (NVIDIA's guide).
TILE = (128, 256)


def _gpu_key(gpu):
    name = getattr(gpu, "name", gpu)
    return choice("gpu", name, list(CEILING))


def gemm_quantisation(m, n, sms, tile=TILE):
    """Useful fraction of the SM-tile slots a GEMM with an ``m x n`` output occupies.

    ``m n / (waves * sms * T_m * T_n)`` with ``waves = ceil(ceil(m/T_m) ceil(n/T_n) / sms)``:
    tile quantisation (edge tiles partly empty) times wave quantisation (the last wave
    partly idle).

    Parameters
    ----------
    m, n : int
        Output rows and columns, >= 1.
    sms : int
        Streaming multiprocessors, >= 1.
    tile : (int, int)
        Output tile, elements.

    Returns
    -------
    float
        In (0, 1].

    Examples
    --------
    A 2,048 x 4,608 output on an A100 (108 SMs): 16 x 18 = 288 tiles run in 3 waves of 108,
    so 288 of 324 slots do work. At 5,120 columns 320 tiles nearly fill the 3 waves; at 5,376
    the 336 tiles need a fourth wave that is mostly idle:

    >>> [round(gemm_quantisation(2048, n, 108), 3) for n in (4608, 5120, 5376)]
    [0.889, 0.988, 0.778]
    """
    m, n, sms = as_count("m", m), as_count("n", n), as_count("sms", sms)
    tm, tn = (as_count("tile", t) for t in tile)
    tiles = math.ceil(m / tm) * math.ceil(n / tn)
    waves = math.ceil(tiles / sms)
    return m * n / (waves * sms * tm * tn)


def ceiling_fraction(gpu="H100", dtype="bf16"):
    """Measured fraction of the dense peak that ``gpu``'s best-shaped large GEMMs reach.

    The maximum achievable matmul FLOP/s of :data:`CEILING` (or :data:`CEILING_FP8`), a
    measurement of :mod:`interconnect.catalog.measurements` (Bekman's ``mamf-finder.py``,
    cited as ``bekman_mamf``), over the catalog peak of the GPU it was measured on
    (:mod:`interconnect.devices`). This is the library's one named "achieved fraction of
    peak" for large GEMMs: :func:`~interconnect.parallel.gemm.gemm_efficiency` multiplies it by the quantisation of a
    shape, and models that take one number for the compute speed
    (:func:`~interconnect.parallel.dp_step`, :func:`~interconnect.parallel.dp_break_even_tokens`)
    are given it by the chapters. It is an upper bound for a training step, which also runs
    smaller and element-wise kernels.

    Parameters
    ----------
    gpu : str or GPU
        A GPU of :data:`CEILING`; a GPU without a measurement (V100) raises ValueError.
    dtype : {"bf16", "fp8"}
        ``"fp8"``: the FP8 ceiling over the dense FP8 peak (H100, H200, B200, GB200).

    Returns
    -------
    float
        In (0, 1].

    Examples
    --------
    794.5 of 989.4 TFLOP/s on H100, 271.2 of 312 on A100 (BF16, Bekman's table):

    >>> [round(ceiling_fraction(g), 3) for g in ("A100", "H100", "B200")]
    [0.869, 0.803, 0.776]
    """
    from ..catalog import measurements
    from ..devices import get_gpu

    key = _gpu_key(gpu)
    dtype = choice("dtype", dtype, ["bf16", "fp8"])
    if dtype == "fp8" and key not in CEILING_FP8:
        raise ValueError(f"gpu={key!r} has no FP8 ceiling; allowed with dtype='fp8': {', '.join(CEILING_FP8)}")
    name, measured_on = (CEILING_FP8 if dtype == "fp8" else CEILING)[key]
    peak = get_gpu(measured_on).peak_flops_fp8 if dtype == "fp8" else get_gpu(measured_on).peak_flops
    return measurements.get(name).value / peak


def gemm_efficiency(m, n, k, gpu="H100", dtype="bf16"):
    """Fraction of the dense peak a GEMM ``[m, k] x [k, n]`` reaches on ``gpu``.

    ``ceiling x gemm_quantisation(m, n)``: the measured MAMF fraction (:func:`ceiling_fraction`) times
    the tile and wave quantisation of the output on the GPU's :data:`SMS`. ``k`` does not
    change the count (each tile loops over it); it is validated and kept for the signature of
    a GEMM.

    Parameters
    ----------
    m, n, k : int
        GEMM dimensions, >= 1.
    gpu : str or GPU
        A GPU of :data:`CEILING` (``"A100"``, ``"H100"``, ``"H200"``, ``"B200"``, ``"GB200"``,
        ``"MI300X"``, ``"MI325X"``, ``"MI355X"``).
    dtype : {"bf16", "fp8"}
        ``"fp8"``: a fraction of the dense FP8 peak, with the FP8 ceiling (:data:`CEILING_FP8`;
        H100, H200, B200, GB200) and the same tile.

    Returns
    -------
    float

    Examples
    --------
    The MLP's first GEMM of GPT-3 175B at 8-way TP, one 2,048-token sequence, on A100 and H100:

    >>> [round(gemm_efficiency(2048, 6144, 12288, g), 3) for g in ("A100", "H100")]
    [0.773, 0.779]
    """
    as_count("k", k)
    key = _gpu_key(gpu)
    return ceiling_fraction(key, dtype) * gemm_quantisation(m, n, SMS[key])


def layer_gemms(model, layout):
    """The linear-layer GEMMs of one transformer layer on one tensor-parallel rank, forward pass.

    ``(what, m, n, k)`` with ``m = s b / cp`` tokens (sequence parallelism gathers the
    rank's whole share of the sequence before each GEMM; context parallelism leaves each
    rank ``s / cp`` of it): QKV ``[sb, h] x [h, (a + 2 a_kv) d / t]``, projection
    ``[sb, a d / t] x [a d / t, h]``, MLP up ``[sb, h] x [h, g f / t]`` (``g = 2`` for a
    gated MLP such as SwiGLU) and down ``[sb, f / t] x [f / t, h]``. The backward pass runs
    two GEMMs of the same sizes per forward one (transposed), counted with the same
    efficiency.

    Examples
    --------
    >>> from interconnect import catalog
    >>> from interconnect.parallel import Layout
    >>> for g in layer_gemms(catalog.models.get("gpt3-175b"), Layout(dp=1, tp=8, pp=1)):
    ...     print(g)
    ('qkv', 2048, 4608, 12288)
    ('proj', 2048, 12288, 1536)
    ('mlp_up', 2048, 6144, 12288)
    ('mlp_down', 2048, 12288, 6144)
    """
    h, a, t = model.hidden, model.heads, layout.tp
    kv, d, f = model.n_kv_heads, model.d_head, model.d_ff
    g = 2 if model.gated_mlp else 1
    T = model.seq_len * layout.microbatch // layout.cp
    return [("qkv", T, (a + 2 * kv) * d // t, h), ("proj", T, h, a * d // t),
            ("mlp_up", T, g * f // t, h), ("mlp_down", T, h, f // t)]


def layer_gemm_efficiency(model, layout, gpu, dtype="bf16"):
    """FLOP-weighted efficiency of a layer's linear GEMMs (:func:`layer_gemms`) on ``gpu``:
    ``sum(F_i) / sum(F_i / e_i)``, so that the layer's GEMM time is ``sum(F_i) / (peak * e)``.

    Examples
    --------
    GPT-3 175B, 8-way TP, one sequence per microbatch:

    >>> from interconnect import catalog
    >>> from interconnect.parallel import Layout
    >>> gpt = catalog.models.get("gpt3-175b")
    >>> round(layer_gemm_efficiency(gpt, Layout(dp=1, tp=8, pp=1), "A100"), 3)
    0.773
    """
    work = [(2.0 * m * n * k, gemm_efficiency(m, n, k, gpu, dtype)) for _, m, n, k in layer_gemms(model, layout)]
    return sum(f for f, _ in work) / sum(f / e for f, e in work)
