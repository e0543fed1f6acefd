"""Sustained BF16 GEMM throughput of one GPU over 40 s, with its clock and power (issue 13).

Times batches of 100 back-to-back 8192 x 8192 x 8192 BF16 products (random data, ``torch.matmul``)
for 40 s from an idle GPU and writes ``[seconds since start, TFLOP/s]`` per batch to ``OUT.json``;
``nvidia-smi`` sampled each second beside it (run as below) records the SM clock, the power draw and
the active clock-throttle reasons.

Measured (``benchmarks/data/gemm_sustained_h200.json`` and ``gemm_sustained_h200_smi.csv``): one
NVIDIA H200 (700 W board limit), PyTorch 2.11.0+cu130, a gVisor virtual machine, 2026-12-04. After
the first batch the GPU draws 691-695 W at its power cap (throttle reason 0x4, software power cap),
the SM clock falls from 1,980 MHz to 1,455-1,500 MHz, and the product runs at 671 TFLOP/s (median
after 2 s; 634-685), 0.678 of the 989.4 TFLOP/s dense peak and 0.845 of the best-shape mamf-finder
figure the model's GEMM ceiling uses (794.5 TFLOP/s on H100, ``h100-sxm-bf16-mamf``).

Run on a GPU::

    nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu,clocks_throttle_reasons.active \\
        --format=csv,noheader -lms 1000 > smi.csv &
    python benchmarks/gemm_sustained.py OUT.json
"""

from __future__ import annotations

import json
import sys
import time


def measure(path, seconds=40.0, n=8192, batch=100):
    import torch

    x = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
    flops = 2 * n**3
    rows = []
    t0 = time.time()
    while time.time() - t0 < seconds:
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        for _ in range(batch):
            x @ x
        e.record()
        torch.cuda.synchronize()
        rows.append([round(time.time() - t0, 2), batch * flops / (s.elapsed_time(e) / 1e3) / 1e12])
    with open(path, "w") as f:
        json.dump(rows, f)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: gemm_sustained.py OUT.json")
    measure(sys.argv[1])
