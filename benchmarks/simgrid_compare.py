"""Our flow-level simulator against SimGrid, on the same workloads with the same routes.

Runs each workload in ``interconnect.netsim``, exports it with ``interconnect.netsim.simgrid``
(a SimGrid platform with netsim's routes, and an s4u replay script), runs the replay under
the Python that has Debian's ``python3-simgrid`` (``SIMGRID_PYTHON``, default
``/usr/bin/python3``), and reports the simulated times side by side (they must agree to
0.1 %) and the wall time of each.

Workloads (from the simulator issue):

1. a 1 GiB ring AllReduce on ``topology.nvswitch(8)`` at 450 GB/s per direction per GPU;
2. a 64-GPU AllToAll (all messages at once) on a k = 8 fat tree, 2:1 oversubscribed,
   routed by our seeded ECMP; SimGrid gets exactly the same route for every flow.

Usage: ``python benchmarks/simgrid_compare.py`` (``make bench`` runs it). The functions
are also used by ``tests/test_simgrid.py`` on smaller instances.
"""

from __future__ import annotations

import sys
import time

from interconnect import netsim, topology
from interconnect.netsim import simgrid
from interconnect.units import GiB, MiB


def workload_ring_allreduce_nvswitch(nbytes=1 * GiB, p=8):
    g = topology.nvswitch(p, link="nvlink4")
    return g, (lambda: netsim.simulate_collective(g, "allreduce", nbytes, algorithm="ring"))


def workload_alltoall_fat_tree(k=8, hosts=64, nbytes=64 * MiB, oversubscription=2.0, seed=0):
    g = topology.fat_tree(k=k, oversubscription=oversubscription)
    ranks = topology.endpoints(g)[:hosts]
    return g, (lambda: netsim.simulate_collective(g, "alltoall", nbytes, ranks=ranks, algorithm="all_at_once",
                                                  routing="ecmp", seed=seed))


def compare(name, g, run_ours, repeat=3):
    """Simulate with both; return a dict of simulated times, errors and wall times."""
    walls = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        ours = run_ours()
        walls.append(time.perf_counter() - t0)
    r = simgrid.compare(g, ours)
    return {"workload": name, "flows": r["flows"], "ours_time": r["netsim"], "simgrid_time": r["simgrid"],
            "makespan_rel_err": r["makespan_rel_err"], "max_flow_rel_err": r["max_flow_rel_err"],
            "ours_wall": min(walls), "simgrid_wall": r["simgrid_wall"]}


def main():
    if not simgrid.simgrid_available():
        print(f"SimGrid is not importable by {simgrid.SIMGRID_PYTHON}: install Debian's python3-simgrid. Skipping.")
        return 0
    rows = []
    workloads = [
        ("1 GiB ring AllReduce, nvswitch(8), 450 GB/s per direction", workload_ring_allreduce_nvswitch()),
        ("64-GPU AllToAll (64 MiB per rank), k=8 fat tree 2:1, ECMP", workload_alltoall_fat_tree()),
    ]
    for name, (g, run) in workloads:
        rows.append(compare(name, g, run))
    print("| workload | flows | netsim (s) | SimGrid (s) | makespan diff | worst flow diff "
          "| netsim wall | SimGrid wall | speed ratio |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for r in rows:
        print(f"| {r['workload']} | {r['flows']} | {r['ours_time']:.6g} | {r['simgrid_time']:.6g} | "
              f"{r['makespan_rel_err']:.1e} | {r['max_flow_rel_err']:.1e} | {r['ours_wall'] * 1e3:.1f} ms | "
              f"{r['simgrid_wall'] * 1e3:.1f} ms | {r['simgrid_wall'] / r['ours_wall']:.1f}x |")
    bad = [r for r in rows if r["makespan_rel_err"] > 1e-3]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
