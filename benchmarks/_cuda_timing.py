"""The one CUDA-event timer of the GPU benchmarks (``attention_heads.py``, ``vocab_layer.py``)."""
from __future__ import annotations

import statistics


def median_time(fn, rounds=15, warm=5, reps=1):
    """Median seconds per call of ``fn`` over ``rounds`` rounds of ``reps`` back-to-back calls
    between two CUDA events, after ``warm`` untimed calls."""
    import torch

    for _ in range(warm):
        fn()
    torch.cuda.synchronize()
    out = []
    for _ in range(rounds):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        for _ in range(reps):
            fn()
        b.record()
        torch.cuda.synchronize()
        out.append(a.elapsed_time(b) / 1e3 / reps)
    return statistics.median(out)
