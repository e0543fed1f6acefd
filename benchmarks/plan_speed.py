"""Speed of the layout planner on 16,384 GPUs (Llama 3 405B on DGX H100). Reports times; asserts nothing.

Run with ``python benchmarks/plan_speed.py``; the test suite checks a generous bound (< 5 s).
"""

from __future__ import annotations

import time

from interconnect import catalog
from interconnect.parallel import machines, plan

GiB = 2**30


def main():
    model, cluster = catalog.models.get("llama3-405b"), machines.machine("dgx-h100")
    for label, kw in (("GPT-style call (defaults)", {}),
                      ("recompute x3, ZeRO 1/2, cp auto, uneven stages, stack",
                       dict(recompute=("none", "selective", "full"), zero_stages=(1, 2), uneven_stages=True,
                            stack="megatron-core-2024")),
                      ("+ interleaving v in (1, 2) and HSDP node groups",
                       dict(recompute=("none", "selective", "full"), zero_stages=(1, 2), uneven_stages=True,
                            stack="megatron-core-2024", chunks=(1, 2), dp_shards=(None, "node")))):
        times = []
        for _ in range(3):
            t0 = time.perf_counter()
            p = plan(model, cluster, 16384, 76 * GiB, **kw)
            times.append(time.perf_counter() - t0)
        print(f"plan(llama3-405b, dgx-h100, 16384) {label}: best {min(times):.3f} s "
              f"({len(p.ranked)} feasible, {len(p.rejected)} rejected)")


if __name__ == "__main__":
    main()
