"""Our flow-level simulator against SimGrid, on the same workloads with the same routes.

Runs each workload in ``interconnect.netsim`` and in SimGrid (Debian's ``python3-simgrid``,
run under ``/usr/bin/python3`` by ``benchmarks/simgrid_runner.py``), and reports the
simulated times side by side (they must agree to 0.1 %) and the wall time of each.

Workloads (from the simulator issue):

1. a 1 GiB ring AllReduce on ``topology.nvswitch(8)`` at 450 GB/s per direction per GPU;
2. a 64-GPU AllToAll (all messages at once) on a k = 8 fat tree, 2:1 oversubscribed,
   routed by our seeded ECMP; SimGrid gets exactly the same route for every flow.

Usage: ``python benchmarks/simgrid_compare.py`` (``make bench`` runs it). The functions
are also used by ``tests/test_simgrid.py`` on smaller instances.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time

import numpy as np

from interconnect import netsim, topology
from interconnect.units import GiB, MiB

HERE = os.path.dirname(os.path.abspath(__file__))
RUNNER = os.path.join(HERE, "simgrid_runner.py")
SIMGRID_PYTHON = os.environ.get("SIMGRID_PYTHON", "/usr/bin/python3")


def simgrid_available():
    """True if ``SIMGRID_PYTHON`` can import the simgrid module."""
    if not (os.path.exists(SIMGRID_PYTHON) or shutil.which(SIMGRID_PYTHON)):
        return False
    try:
        r = subprocess.run([SIMGRID_PYTHON, "-c", "import simgrid"], capture_output=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return r.returncode == 0


def problem_from(g, result):
    """The JSON problem for the SimGrid runner: our directed links, flows, deps and routes."""
    sim = result.sim if hasattr(result, "sim") else result
    sch = getattr(result, "schedule", None)
    links = []
    for u, v, d in g.edges(data=True):
        for a, b in ((u, v), (v, u)):
            links.append({"name": f"{a}->{b}", "bandwidth": float(d["bandwidth"]), "latency": float(d["latency"])})
    flows = []
    for i, path in enumerate(sim.paths):
        deps = list(sch.deps(i)) if sch is not None else []
        flows.append({"src": str(sim.src[i]), "dst": str(sim.dst[i]), "nbytes": float(sim.nbytes[i]),
                      "start": float(sim.start[i]) if sch is None else 0.0, "deps": deps,
                      "route": [f"{a}->{b}" for a, b in zip(path[:-1], path[1:])]})
    return {"links": links, "flows": flows}


def run_simgrid(problem, timeout=600):
    """Run the problem in SimGrid; returns ``{"finish": [...], "makespan": s, "wall": s}``."""
    r = subprocess.run([SIMGRID_PYTHON, RUNNER], input=json.dumps(problem), capture_output=True, text=True,
                       timeout=timeout)
    if r.returncode != 0:
        raise RuntimeError(f"SimGrid runner failed:\n{r.stderr[-2000:]}")
    return json.loads(r.stdout)


def workload_ring_allreduce_nvswitch(nbytes=1 * GiB, p=8):
    g = topology.nvswitch(p, link="nvlink4")
    return g, (lambda: netsim.simulate_collective(g, "allreduce", nbytes, algorithm="ring"))


def workload_alltoall_fat_tree(k=8, hosts=64, nbytes=64 * MiB, oversubscription=2.0, seed=0):
    g = topology.fat_tree(k=k, oversubscription=oversubscription)
    ranks = topology.endpoints(g)[:hosts]
    return g, (lambda: netsim.simulate_collective(g, "alltoall", nbytes, ranks=ranks, algorithm="direct",
                                                  routing="ecmp", seed=seed))


def compare(name, g, run_ours, repeat=3):
    """Simulate with both; return a dict of simulated times, errors and wall times."""
    walls = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        ours = run_ours()
        walls.append(time.perf_counter() - t0)
    problem = problem_from(g, ours)
    sg = run_simgrid(problem)
    ours_arrival = np.asarray(ours.sim.arrival, dtype=float)
    sg_finish = np.asarray(sg["finish"], dtype=float)
    rel = np.abs(sg_finish - ours_arrival) / np.maximum(ours_arrival, 1e-30)
    return {
        "workload": name, "flows": len(problem["flows"]),
        "ours_time": float(ours.time), "simgrid_time": float(sg["makespan"]),
        "makespan_rel_err": abs(sg["makespan"] - ours.time) / ours.time,
        "max_flow_rel_err": float(rel.max()) if rel.size else 0.0,
        "ours_wall": min(walls), "simgrid_wall": float(sg["wall"]),
    }


def main():
    if not simgrid_available():
        print(f"SimGrid is not importable by {SIMGRID_PYTHON}: install Debian's python3-simgrid. Skipping.")
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
