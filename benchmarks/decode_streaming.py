"""The two streaming kernels of a decode step on one GPU: small-M FP8 GEMMs and decode attention (issue 15).

A decode step reads every weight once (a GEMM of ``M`` = batch rows) and every cached key and
value once (attention of one query per sequence). The serving model prices both reads at one
fraction of the HBM bandwidth, :data:`interconnect.serving.steps.STREAM_EFFICIENCY`, taken from
DeepGEMM's FP8 GEMMs of 64 and 128 rows on an H800. This measures on the GPU at hand:

* ``gemm``: ``torch._scaled_mm`` (cuBLASLt FP8 e4m3, per-tensor scales, BF16 output) for the
  linear layers of Llama 3.1 8B and 70B at tensor-parallel degree 1 (QKV, output projection,
  gate+up, down), ``M`` = 64, 128 and 256, with and without fast accumulation. Bytes are the
  operands and the output (``M K + K N + 2 M N``), as DeepGEMM's README counts them;
* ``attention``: PyTorch's ``scaled_dot_product_attention`` (FlashAttention-2, cuDNN and
  memory-efficient backends) for one query token per sequence over a BF16 cache of ``context``
  tokens, GQA packed as query rows (the ``g`` query heads of a KV head are ``g`` rows against
  that head's keys, as FlashAttention's and TensorRT-LLM's decode kernels do), 8 KV heads of
  128, ``g`` = 4 (8B) and 8 (70B). Bytes are the cache read (``2 B c 8 128 x 2``) plus the
  queries and outputs;
* ``gemm_curve``: the same FP8 GEMMs over ``M`` = 16 to 8,192 rows for the layers of 8B and 70B at
  TP 1, 70B at TP 2 and 405B at TP 8, the time of a linear layer from the memory-bound to the
  compute-bound end;
* ``copy``: a 4 GiB ``copy_`` (read + write), the HBM bandwidth a plain stream reaches.

Each case is captured in a CUDA graph of 20 calls (decode steps run as graphs in TensorRT-LLM,
so no launch gap), over rotating copies of the weights or caches that together exceed the L2
cache several times; the time is the median of 15 replays after 3 warm ones (CUDA events).
Run on a GPU: ``python benchmarks/decode_streaming.py OUT.json``.
"""

from __future__ import annotations

import json
import math
import sys

from _cuda_timing import median_time

#: (model, layer, N, K): the linear layers of Llama 3.1 8B and 70B at TP 1 (hidden 4,096 / 8,192;
#: 32 / 64 query heads, 8 KV heads of 128; FFN 14,336 / 28,672).
GEMMS = (("8b", "qkv", 6144, 4096), ("8b", "o", 4096, 4096), ("8b", "gate_up", 28672, 4096),
         ("8b", "down", 4096, 14336), ("70b", "qkv", 10240, 8192), ("70b", "o", 8192, 8192),
         ("70b", "gate_up", 57344, 8192), ("70b", "down", 8192, 28672))
ROWS = (64, 128, 256)
#: (model, tp, layer, N, K) for the GEMM-time curve: the four linear layers of Llama 3.1 8B and 70B
#: at TP 1, 70B at TP 2 and 405B at TP 8 (hidden 16,384, 128 query and 8 KV heads, FFN 53,248),
#: the splits of the published serving rows.
CURVE_SHAPES = tuple((m, tp, layer, n, k) for m, tp, (layer, n, k) in (
    [("8b", 1, s) for s in (("qkv", 6144, 4096), ("o", 4096, 4096), ("gate_up", 28672, 4096), ("down", 4096, 14336))]
    + [("70b", 1, s) for s in (("qkv", 10240, 8192), ("o", 8192, 8192), ("gate_up", 57344, 8192),
                               ("down", 8192, 28672))]
    + [("70b", 2, s) for s in (("qkv", 5120, 8192), ("o", 8192, 4096), ("gate_up", 28672, 8192),
                               ("down", 8192, 14336))]
    + [("405b", 8, s) for s in (("qkv", 2304, 16384), ("o", 16384, 2048), ("gate_up", 13312, 16384),
                                ("down", 16384, 6656))]))
CURVE_ROWS = (16, 32, 64, 96, 128, 160, 192, 256, 320, 384, 512, 768, 1024, 1536, 2048, 4096, 8192)
#: (query heads per KV head, sequences, context tokens)
ATTENTION = tuple((g, b, c) for g in (4, 8) for b in (64, 256) for c in (1024, 4096, 16384) if b * c <= 256 * 4096)
CALLS = 20
ROTATE_BYTES = 2 * 2**30


def _graph_time(calls):
    """Median seconds per call of ``calls`` (a list of CALLS closures) replayed as one CUDA graph;
    eager back-to-back calls if capture fails."""
    import torch

    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for c in calls[:3]:
            c()
    torch.cuda.current_stream().wait_stream(s)
    torch.cuda.synchronize()
    try:
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            for c in calls:
                c()
        return median_time(g.replay, rounds=15, warm=3) / len(calls), "graph"
    except RuntimeError:
        torch.cuda.synchronize()

        def eager():
            for c in calls:
                c()

        return median_time(eager, rounds=15, warm=3) / len(calls), "eager"


def _gemm(m, n, k, fast):
    import torch

    f8 = torch.float8_e4m3fn
    copies = max(2, math.ceil(ROTATE_BYTES / (n * k)))
    a = (torch.randn(m, k, device="cuda") * 0.1).to(f8)
    ws = [(torch.randn(n, k, device="cuda") * 0.1).to(f8).t() for _ in range(min(copies, CALLS))]
    one = torch.ones((), device="cuda")

    def call(i):
        w = ws[i % len(ws)]
        return lambda: torch._scaled_mm(a, w, one, one, out_dtype=torch.bfloat16, use_fast_accum=fast)

    t, how = _graph_time([call(i) for i in range(CALLS)])
    moved = m * k + k * n + 2 * m * n
    return t, moved, how


def _attention(g, b, c, backend):
    import torch
    from torch.nn.attention import sdpa_kernel
    from torch.nn.functional import scaled_dot_product_attention as sdpa

    kvh, d = 8, 128
    cache = 2 * b * kvh * c * d * 2
    copies = max(2, math.ceil(ROTATE_BYTES / cache))
    q = torch.randn(b, kvh, g, d, dtype=torch.bfloat16, device="cuda")
    kvs = [(torch.randn(b, kvh, c, d, dtype=torch.bfloat16, device="cuda"),
            torch.randn(b, kvh, c, d, dtype=torch.bfloat16, device="cuda")) for _ in range(min(copies, CALLS))]

    def call(i):
        k, v = kvs[i % len(kvs)]
        return lambda: sdpa(q, k, v)

    with sdpa_kernel(backend):
        t, how = _graph_time([call(i) for i in range(CALLS)])
    moved = cache + 2 * q.numel() * 2
    return t, moved, how


def _copy():
    import torch

    x = torch.empty(2**31, dtype=torch.bfloat16, device="cuda")
    y = torch.empty_like(x)
    t = median_time(lambda: y.copy_(x), rounds=15, warm=3)
    return t, 2 * x.numel() * 2


def measure(path):
    import torch
    from torch.nn.attention import SDPBackend

    peak = {"NVIDIA H200": 4.8e12, "NVIDIA H100 80GB HBM3": 3.35e12}.get(torch.cuda.get_device_name())
    out = {"gpu": torch.cuda.get_device_name(), "torch": torch.__version__, "peak_bytes_per_s": peak,
           "copy": None, "gemm": [], "attention": []}
    t, moved = _copy()
    out["copy"] = {"s": t, "bytes": moved, "bytes_per_s": moved / t}
    print("copy", round(moved / t / 1e12, 3), "TB/s", flush=True)
    for model, layer, n, k in GEMMS:
        for m in ROWS:
            for fast in (False, True):
                t, moved, how = _gemm(m, n, k, fast)
                row = {"model": model, "layer": layer, "m": m, "n": n, "k": k, "fast_accum": fast, "s": t,
                       "bytes": moved, "bytes_per_s": moved / t, "timing": how}
                out["gemm"].append(row)
                print("gemm", model, layer, m, fast, round(moved / t / 1e12, 3), "TB/s", how, flush=True)
    out["gemm_curve"] = []
    for model, tp, layer, n, k in CURVE_SHAPES:
        for m in CURVE_ROWS:
            for fast in (False, True):
                t, moved, how = _gemm(m, n, k, fast)
                out["gemm_curve"].append({"model": model, "tp": tp, "layer": layer, "m": m, "n": n, "k": k,
                                          "fast_accum": fast, "s": t, "bytes": moved, "flops": 2.0 * m * n * k,
                                          "timing": how})
            print("curve", model, tp, layer, m, round(2.0 * m * n * k / t / 1e12), "TFLOP/s",
                  round(moved / t / 1e12, 2), "TB/s", flush=True)
        torch.cuda.empty_cache()
    for name in ("FLASH_ATTENTION", "CUDNN_ATTENTION", "EFFICIENT_ATTENTION"):
        for g, b, c in ATTENTION:
            try:
                t, moved, how = _attention(g, b, c, getattr(SDPBackend, name))
            except RuntimeError as e:
                print("attention", name, g, b, c, "failed:", str(e)[:160], flush=True)
                continue
            out["attention"].append({"backend": name, "group": g, "batch": b, "context": c, "s": t,
                                     "bytes": moved, "bytes_per_s": moved / t, "timing": how})
            print("attention", name, g, b, c, round(moved / t / 1e12, 3), "TB/s", how, flush=True)
        torch.cuda.empty_cache()
    with open(path, "w") as f:
        json.dump(out, f, indent=1)


if __name__ == "__main__":
    measure(sys.argv[1])
