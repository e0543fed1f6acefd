"""The vocabulary layer of one microbatch on one GPU, timed op by op (issue 13).

For the Megatron-LM README rows (GPT, sequence 4,096, vocabulary 131,072 split over the
tensor-parallel width), NeMo's Llama 2 7B (the Hopper fit row, vocabulary 32,000) and Llama 3 8B
(128,256), one microbatch of 4,096 tokens:

* ``ce``: Megatron-Core's vocabulary-parallel cross-entropy, forward and backward, op for op as
  ``megatron/core/tensor_parallel/cross_entropy.py`` (``VocabParallelCrossEntropy``, r0.8.0) runs it
  on one rank: the 16-bit logits cast to FP32, the row max and its in-place subtraction, the
  target logits gathered, the in-place exponential, its row sum, the in-place division, then the
  one-hot subtraction, the in-place scaling by the loss gradient and the cast back to 16 bits;
* ``gemm_fwd``, ``gemm_dgrad``, ``gemm_wgrad``: the output layer's three BF16 GEMMs;
* ``emb_bwd``: the input embedding's backward (``torch.nn.functional.embedding``, a dense
  ``[V / t, h]`` 16-bit gradient) and its accumulation into the FP32 ``main_grad`` buffer
  (``param.main_grad.add_(param.grad)``, Megatron-Core's DDP gradient hook);
* ``copy``: a 2 GiB device-to-device copy (read + write), the HBM bandwidth reference.

Each time is the median of 15 rounds of one call between two CUDA events, after 5 warm-ups (the
committed data; ``reps`` times several back-to-back calls instead). ``ce`` and the GEMMs run
milliseconds per call, so the host's launch time is a small part of them; ``emb_bwd`` (autograd on
the host) may include some.
Measured (``benchmarks/data/vocab_layer_h200.json``): one NVIDIA H200, PyTorch 2.11.0+cu130,
2026-12-04; :data:`interconnect.parallel.compute.CROSS_ENTROPY_HBM_FRACTION` is the mean over its
five shapes of ``58 s V / ce`` over the 4.8 TB/s peak.
Run on a GPU: ``python benchmarks/vocab_layer.py OUT.json``.
"""

from __future__ import annotations

import json
import sys

from _cuda_timing import median_time

CASES = {"1.7B": (4096, 131072, 2048), "7.1B": (4096, 65536, 4096), "16B": (4096, 32768, 6144),
         "Llama 2 7B": (4096, 32000, 4096), "Llama 3 8B": (4096, 128256, 4096)}


def _time(fn, rounds=15, warm=5, reps=1):
    return median_time(fn, rounds, warm, reps)


def _ce(logits, target, arange, grad_out):
    import torch

    x = logits.float()
    m = torch.max(x, dim=-1)[0]
    x -= m.unsqueeze(-1)
    pred = x[arange, target].clone()
    torch.exp(x, out=x)
    se = x.sum(dim=-1)
    loss = torch.log(se) - pred
    x.div_(se.unsqueeze(-1))
    x[arange, target] -= 1.0
    x.mul_(grad_out.unsqueeze(-1))
    return loss, x.to(torch.bfloat16)


def _copy_bandwidth():
    import torch

    src = torch.empty(2**30 // 2, dtype=torch.bfloat16, device="cuda")
    dst = torch.empty_like(src)
    return 2 * 2**30 / _time(lambda: dst.copy_(src))


def _case(s, v, h):
    import torch

    dev = "cuda"
    torch.manual_seed(0)
    logits = torch.randn(s, v, dtype=torch.bfloat16, device=dev)
    target = torch.randint(0, v, (s,), device=dev)
    arange = torch.arange(s, device=dev)
    grad_out = torch.rand(s, device=dev)
    row = {"s": s, "v": v, "h": h}
    row["ce"] = _time(lambda: _ce(logits, target, arange, grad_out))
    x = torch.randn(s, h, dtype=torch.bfloat16, device=dev)
    w = torch.randn(v, h, dtype=torch.bfloat16, device=dev)
    row["gemm_fwd"] = _time(lambda: torch.matmul(x, w.t()))
    row["gemm_dgrad"] = _time(lambda: torch.matmul(logits, w))
    row["gemm_wgrad"] = _time(lambda: torch.matmul(logits.t(), x))
    wp = torch.nn.Parameter(torch.randn(v, h, dtype=torch.bfloat16, device=dev))
    main_grad = torch.zeros(v, h, dtype=torch.float32, device=dev)
    idx = torch.randint(0, v, (s,), device=dev)
    gy = torch.randn(s, h, dtype=torch.bfloat16, device=dev)

    def emb():
        y = torch.nn.functional.embedding(idx, wp)
        y.backward(gy)
        main_grad.add_(wp.grad)
        wp.grad = None

    row["emb_bwd"] = _time(emb)
    return row


def measure(path):
    import torch

    out = {"gpu": torch.cuda.get_device_name(), "torch": torch.__version__, "cases": {}}
    out["copy_bytes_per_s"] = _copy_bandwidth()
    torch.cuda.empty_cache()
    for name, shape in CASES.items():
        row = _case(*shape)
        torch.cuda.empty_cache()
        out["cases"][name] = row
        print(name, {k: (round(val * 1e3, 3) if isinstance(val, float) else val) for k, val in row.items()},
              flush=True)
    print("copy GB/s", round(out["copy_bytes_per_s"] / 1e9, 1))
    with open(path, "w") as f:
        json.dump(out, f, indent=1)


if __name__ == "__main__":
    measure(sys.argv[1])
