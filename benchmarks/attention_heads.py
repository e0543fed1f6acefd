"""Causal fused attention on one GPU by heads per GPU, sequence 4,096, head dimension 128 (issue 13).

The step model prices the attention core at FlashAttention-3's published H100 rates (Shah et al.
2024, measured at 16 heads and batch x sequence = 16k tokens, i.e. batch 4 at 4,096). A training
rank runs microbatch 1 with ``a / t`` heads: 16 for the README's 1.7B and 7.1B rows, 12 for 16B,
7 for 32B, 8 for 70B, 32 for Llama 2 7B (the Hopper fit row). This times PyTorch's
``scaled_dot_product_attention`` (cuDNN backend where available, else FlashAttention) forward and
forward + backward, BF16, ``is_causal=True``, for those head counts at batch 1 and for the paper's
batch 4 x 16 heads, and reports TFLOP/s in FlashAttention's causal count (``2 s^2 d`` per head
forward, 2.5x that backward). Each time is the median of 15 rounds of 10 back-to-back calls
(CUDA events around the 10, so the host's launch time hides behind the queued kernels as in
training) after 5 warm-ups. Measured (``benchmarks/data/attention_heads_h200.json``): one NVIDIA
H200, PyTorch 2.11.0+cu130, 2026-12-04; :data:`interconnect.parallel.compute.ATTENTION_GRID_RATE`
is its cuDNN rows over the batch-4 x 16-head row.
Run on a GPU: ``python benchmarks/attention_heads.py OUT.json``.
"""

from __future__ import annotations

import json
import sys

from _cuda_timing import median_time

CASES = ((1, 7), (1, 8), (1, 12), (1, 16), (1, 32), (4, 16))


def _time(fn, rounds=15, warm=5, reps=10):
    return median_time(fn, rounds, warm, reps)


def _case(batch, heads, backend, s=4096, d=128):
    import torch
    from torch.nn.attention import sdpa_kernel
    from torch.nn.functional import scaled_dot_product_attention as sdpa

    q, k, v = (torch.randn(batch, heads, s, d, dtype=torch.bfloat16, device="cuda", requires_grad=True)
               for _ in range(3))
    g = torch.randn(batch, heads, s, d, dtype=torch.bfloat16, device="cuda")
    with sdpa_kernel(backend):
        fwd = _time(lambda: sdpa(q, k, v, is_causal=True))
        both = _time(lambda: sdpa(q, k, v, is_causal=True).backward(g))
    flops = 2.0 * s * s * d * batch * heads
    return {"batch": batch, "heads": heads, "fwd_s": fwd, "fwd_bwd_s": both,
            "fwd_tflops": flops / fwd / 1e12, "bwd_tflops": 2.5 * flops / (both - fwd) / 1e12}


def measure(path):
    import torch
    from torch.nn.attention import SDPBackend

    out = {"gpu": torch.cuda.get_device_name(), "torch": torch.__version__, "cases": {}}
    for name in ("CUDNN_ATTENTION", "FLASH_ATTENTION"):
        rows = []
        try:
            for batch, heads in CASES:
                rows.append(_case(batch, heads, getattr(SDPBackend, name)))
                print(name, {k: round(x, 5) for k, x in rows[-1].items()}, flush=True)
        except RuntimeError as e:
            print(name, "failed:", str(e)[:200])
        out["cases"][name] = rows
    with open(path, "w") as f:
        json.dump(out, f, indent=1)


if __name__ == "__main__":
    measure(sys.argv[1])
