"""BF16 GEMM throughput of the linear layers of the Megatron-LM README rows, on one GPU (issue 13).

For each row (the README's 1.7B-70B GPT models at their tensor-parallel width, sequence 4,096,
microbatch 1, and NeMo's Llama 2 7B, the Hopper fit row, at TP 1) the four linear GEMMs of one layer
(:func:`interconnect.parallel.gemm.layer_gemms`) are timed in the three passes of training: forward
``[m, k] x [k, n]``, input gradient ``[m, n] x [n, k]`` and weight gradient ``[k, m] x [m, n]``,
BF16 random data through ``torch.matmul``. Each time is the median of 7 rounds (shapes shuffled in
each round) of the mean of 20 back-to-back products after 3 warm-ups, taken after 20 s of 8192^3
products so the GPU runs at its steady clock and power; an 8192^3 product (``ref``) is timed with
them. The FLOP-weighted efficiency of each row is its GEMM FLOPs over its summed time over the
dense BF16 peak (989.4 TFLOP/s).

Measured (``benchmarks/data/gemm_readme_shapes_h200.json``): one NVIDIA H200 (the H100's compute
die), PyTorch 2.11.0+cu130 (cuBLAS of CUDA 13), a gVisor virtual machine, 2026-12-04. Run on a GPU:
``python benchmarks/gemm_readme_shapes.py OUT.json``; ``--compare DATA.json`` (no GPU) prints the
measured efficiency of each row against the model's (:func:`~interconnect.parallel.gemm.layer_gemm_efficiency`
on H100), each relative to the Llama 2 7B row, the shapes the Hopper constant is fitted on.
"""

from __future__ import annotations

import json
import random
import statistics
import sys
import time

SHAPES = {"1.7B": [[4096, 6144, 2048], [4096, 2048, 2048], [4096, 8192, 2048], [4096, 2048, 8192]],
          "7.1B": [[4096, 6144, 4096], [4096, 4096, 2048], [4096, 8192, 4096], [4096, 4096, 8192]],
          "16B": [[4096, 4608, 6144], [4096, 6144, 1536], [4096, 6144, 6144], [4096, 6144, 6144]],
          "32B": [[4096, 2688, 7168], [4096, 7168, 896], [4096, 3584, 7168], [4096, 7168, 3584]],
          "70B": [[4096, 3072, 8192], [4096, 8192, 1024], [4096, 4096, 8192], [4096, 8192, 4096]],
          "Llama 2 7B": [[4096, 12288, 4096], [4096, 4096, 4096], [4096, 22016, 4096], [4096, 4096, 11008]],
          "ref": [[8192, 8192, 8192]]}
PEAK = 989.4e12


def measure(path):
    import torch

    def timed(f, n=20):
        for _ in range(3):
            f()
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        torch.cuda.synchronize()
        s.record()
        for _ in range(n):
            f()
        e.record()
        torch.cuda.synchronize()
        return s.elapsed_time(e) / n / 1e3

    d, b = "cuda", torch.bfloat16
    calls = {}
    for k, gs in SHAPES.items():
        for i, (m, n, kk) in enumerate(gs):
            x, w = torch.randn(m, kk, device=d, dtype=b), torch.randn(kk, n, device=d, dtype=b)
            y = torch.randn(m, n, device=d, dtype=b)
            calls[(k, i, 0)] = lambda x=x, w=w: x @ w
            calls[(k, i, 1)] = lambda y=y, w=w: y @ w.t()
            calls[(k, i, 2)] = lambda x=x, y=y: x.t() @ y
    big = torch.randn(8192, 8192, device=d, dtype=b)
    t0 = time.time()
    while time.time() - t0 < 20:
        big @ big
    times = {q: [] for q in calls}
    keys = list(calls)
    for r in range(7):
        random.seed(r)
        random.shuffle(keys)
        for q in keys:
            times[q].append(timed(calls[q]))
    out = {}
    for k, gs in SHAPES.items():
        ts = [[statistics.median(times[(k, i, p)]) for p in range(3)] for i in range(len(gs))]
        flops = sum(6 * m * n * kk for m, n, kk in gs)
        out[k] = {"shapes": gs, "median_s": ts, "eff": flops / sum(map(sum, ts)) / PEAK}
        print(k, round(out[k]["eff"], 4), flush=True)
    out["meta"] = [torch.__version__, torch.cuda.get_device_name()]
    with open(path, "w") as f:
        json.dump(out, f)


def compare(path):
    """Measured and modelled efficiency per row, each relative to the Llama 2 7B row."""
    from interconnect.parallel.gemm import training_gemm_efficiency

    data = json.load(open(path))
    ref = "Llama 2 7B"

    def model(gs):
        return sum(6 * m * n * k for m, n, k in gs) / sum(6 * m * n * k / training_gemm_efficiency(m, n, k, "H100")
                                                          for m, n, k in gs)

    mod = {k: model(SHAPES[k]) for k in SHAPES}
    print(f"{'row':11s} {'measured':>9s} {'model':>7s} {'meas/ref':>9s} {'model/ref':>9s} {'ratio':>6s}")
    for k in SHAPES:
        me, mo = data[k]["eff"], mod[k]
        rm, ro = me / data[ref]["eff"], mo / mod[ref]
        print(f"{k:11s} {me:9.3f} {mo:7.3f} {rm:9.3f} {ro:9.3f} {rm / ro:6.3f}")


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--compare":
        compare(sys.argv[2])
    elif len(sys.argv) == 2:
        measure(sys.argv[1])
    else:
        sys.exit("usage: gemm_readme_shapes.py OUT.json | --compare DATA.json")
