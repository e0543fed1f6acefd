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

* the **reduction depth** ``k``: each output tile loops over ``k``; its fixed costs (filling the
  load pipeline, writing the tile out, the kernel launch) weigh more when the loop is short. The
  loss is *measured*: OpenXLA's matmul performance table (cuBLAS through XLA, ``b = 1``,
  ``m = n = 4,096``, ``k`` from 256 to 4,096; :data:`K_DEPTH`), normalised to ``k = 4,096``
  (:func:`depth_factor`). Hopper and Blackwell only; other GPUs keep a factor of 1.

Efficiency = ceiling x quantisation x depth factor, a fraction of the dense peak. The tile is
``128 x 256``, the largest cuBLAS tile for 16-bit inputs in NVIDIA's guide (an assumption:
cuBLAS picks a tile per shape by heuristics, and split-K or stream-K fill a short last wave
better than this count assumes, so small GEMMs come out pessimistic).

References
----------
NVIDIA, "Matrix Multiplication Background User's Guide" (Deep Learning Performance
documentation), 2023.
OpenXLA, ``xla/service/gpu/model/matmul_interpolator_data.h`` (``kDefaultMatmulPTable``), 2025:
measured GEMM FLOP/s by ``(b, m, n, k)`` and data type on ``sm_90`` (H100) and ``sm_100`` (B200).
Q. Anthony, J. Hatef, D. Narayanan et al., "The Case for Co-Designing Model Architectures
with Hardware", ICPP 2024 (arXiv:2401.14489), sec. 3 and Fig. 3-6.
"""

from __future__ import annotations

import math

from .._validate import as_count, choice

__all__ = ["SMS", "CEILING", "CEILING_FP8", "TILE", "K_GRID", "K_DEPTH", "ceiling_fraction", "gemm_quantisation",
           "depth_factor", "gemm_efficiency", "training_gemm_efficiency", "layer_gemms", "layer_gemm_efficiency"]

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

#: Reduction depths ``k`` of :data:`K_DEPTH`.
K_GRID = (256, 512, 1024, 2048, 4096)

#: Measured GEMM throughput against the reduction depth, TFLOP/s at ``k`` in :data:`K_GRID`, for
#: ``b = 1``, ``m = n = 4,096``: OpenXLA's default matmul performance table
#: (``xla/service/gpu/model/matmul_interpolator_data.h``, ``kDefaultMatmulPTable``, read at the
#: ROCm/xla mirror, commit 63ce2981d3f4; cited as ``openxla_matmul_table``), keyed by
#: (GPU measured on, dtype). ``"bf16"`` is ``bf16xbf16->bf16``, ``"fp8"`` is
#: ``f8e4m3fnxf8e4m3fn->bf16``. The table's ``sm_90`` FP8 entries (2,424 TFLOP/s at k = 4,096) exceed
#: H100's dense FP8 peak (1,979), so they are not used: Hopper FP8 takes the BF16 curve, an
#: optimistic assumption (on B200 the FP8 curve lies below the BF16 one at every k).
K_DEPTH = {("H100", "bf16"): (398.6, 551.8, 685.2, 735.6, 780.2),
           ("B200", "bf16"): (514.7, 805.3, 1075.6, 1277.8, 1416.9),
           ("B200", "fp8"): (666.9, 1172.1, 1895.4, 2485.0, 2765.0)}

#: The :data:`K_DEPTH` curve each GPU takes: H200 has H100's compute, GB200 B200's.
_DEPTH_GPU = {"H100": "H100", "H200": "H100", "B200": "B200", "GB200": "B200"}


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


def depth_factor(k, gpu="H100", dtype="bf16"):
    """Measured share of a deep GEMM's throughput that a GEMM of reduction depth ``k`` keeps.

    ``T(k) / T(4096)`` from :data:`K_DEPTH` (``b = 1``, ``m = n = 4,096``), linear in ``log2 k``
    between the grid points, 1 from ``k = 4,096`` on (the measured ceiling, Bekman's best shape,
    has ``k`` of 2,048 to 14,336), the ``k = 256`` value below it. 1 for a GPU without a curve
    (A100, the AMD parts).

    Examples
    --------
    H100, BF16: a 768-deep GEMM (Korthikanti's 22B attention projection at 8-way TP) keeps 80 %,
    a 2,048-deep one 94 %:

    >>> [round(depth_factor(k, "H100"), 3) for k in (768, 2048, 4096, 12288)]
    [0.807, 0.943, 1.0, 1.0]
    >>> round(depth_factor(2048, "B200", "fp8"), 3), depth_factor(768, "A100")
    (0.899, 1.0)
    """
    import numpy as np

    k = as_count("k", k)
    key = _gpu_key(gpu)
    dtype = choice("dtype", dtype, ["bf16", "fp8"])
    base = _DEPTH_GPU.get(key)
    if base is None:
        return 1.0
    curve = K_DEPTH.get((base, dtype), K_DEPTH[(base, "bf16")])
    x = np.log2(np.clip(k, K_GRID[0], K_GRID[-1]))
    return float(np.interp(x, np.log2(K_GRID), curve) / curve[-1])


def gemm_efficiency(m, n, k, gpu="H100", dtype="bf16", depth=True):
    """Fraction of the dense peak a GEMM ``[m, k] x [k, n]`` reaches on ``gpu``.

    ``ceiling x gemm_quantisation(m, n) x depth_factor(k)``: the measured MAMF fraction
    (:func:`ceiling_fraction`) times the tile and wave quantisation of the output on the GPU's
    :data:`SMS`, times the measured loss of a short reduction (:func:`depth_factor`; 1 on GPUs
    without a curve, or with ``depth=False``).

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
    depth : bool
        Apply :func:`depth_factor` (default).

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
    eff = ceiling_fraction(key, dtype) * gemm_quantisation(m, n, SMS[key])
    return eff * depth_factor(k, key, dtype) if depth else eff


def training_gemm_efficiency(m, n, k, gpu="H100", dtype="bf16"):
    """Efficiency of a linear layer's three GEMMs in a training step, FLOP-weighted: the forward
    ``[m, k] x [k, n]``, the input gradient ``[m, n] x [n, k]`` (reduced over ``n``) and the weight
    gradient ``[k, m] x [m, n]`` (reduced over the ``m`` tokens), each of ``2 m n k`` FLOPs.

    Each pass keeps the forward pass's tile and wave quantisation (an assumption: cuBLAS picks a
    tile for each shape, and a fixed-tile count is too crude for the gradients' narrow outputs,
    where split-K and stream-K kernels run) and takes the measured :func:`depth_factor` of its
    own reduction: ``ceiling x quantisation(m, n) x 3 / sum(1 / depth(k_i))``, ``k_i`` in
    ``(k, n, m)``.

    Examples
    --------
    Korthikanti's 22B attention projection at 8-way TP on H100, ``[2048, 768] x [768, 6144]``:
    the forward pass reduces over only 768, its two gradients over 6,144 and 2,048:

    >>> round(gemm_efficiency(2048, 6144, 768, "H100"), 3), round(training_gemm_efficiency(2048, 6144, 768, "H100"), 3)
    (0.629, 0.708)
    """
    base = gemm_efficiency(m, n, k, gpu, dtype, depth=False)
    depths = [depth_factor(r, gpu, dtype) for r in (k, n, m)]
    if all(d == 1.0 for d in depths):
        return base
    return base * 3.0 / sum(1.0 / d for d in depths)


def layer_gemms(model, layout):
    """The linear-layer GEMMs of one transformer layer on one tensor-parallel rank, forward pass.

    ``(what, m, n, k)`` with ``m = s b / cp`` tokens (sequence parallelism gathers the
    rank's whole share of the sequence before each GEMM; context parallelism leaves each
    rank ``s / cp`` of it): QKV ``[sb, h] x [h, (a + 2 a_kv) d / t]``, projection
    ``[sb, a d / t] x [a d / t, h]``, MLP up ``[sb, h] x [h, g f / t]`` (``g = 2`` for a
    gated MLP such as SwiGLU) and down ``[sb, f / t] x [f / t, h]``. The backward pass runs
    two GEMMs of the same FLOPs per forward one, of other shapes
    (:func:`training_gemm_efficiency`).

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
    """FLOP-weighted efficiency of a layer's linear GEMMs (:func:`layer_gemms`) on ``gpu``, forward
    and backward (:func:`training_gemm_efficiency` of each): ``sum(F_i) / sum(F_i / e_i)``, so that
    the layer's GEMM time is ``sum(F_i) / (peak * e)``.

    Examples
    --------
    GPT-3 175B, 8-way TP, one sequence per microbatch:

    >>> from interconnect import catalog
    >>> from interconnect.parallel import Layout
    >>> gpt = catalog.models.get("gpt3-175b")
    >>> round(layer_gemm_efficiency(gpt, Layout(dp=1, tp=8, pp=1), "A100"), 3)
    0.773
    """
    work = [(2.0 * m * n * k, training_gemm_efficiency(m, n, k, gpu, dtype))
            for _, m, n, k in layer_gemms(model, layout)]
    return sum(f for f, _ in work) / sum(f / e for f, e in work)
