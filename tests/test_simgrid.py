"""interconnect.netsim against SimGrid (a real flow-level simulator with a compiled
max-min solver), on the same flows and routes. Skipped, with a message, where Debian's
python3-simgrid is not installed; .ci/run installs it so that CI runs these.

SimGrid runs its CM02 model with TCP-gamma 0 and no cross-traffic; see
benchmarks/simgrid_runner.py for how latency is made to follow the same rule as ours.
"""

import pathlib
import sys

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "benchmarks"))
import simgrid_compare as sgc  # noqa: E402

pytestmark = pytest.mark.skipif(not sgc.simgrid_available(),
                                reason=f"SimGrid not importable by {sgc.SIMGRID_PYTHON} "
                                       "(apt-get install python3-simgrid)")


def test_ring_allreduce_on_nvswitch_agrees():
    # the simulator issue: simulated times must agree to 0.1 %
    g, run = sgc.workload_ring_allreduce_nvswitch(nbytes=2**28, p=8)
    r = sgc.compare("ring", g, run, repeat=1)
    assert r["makespan_rel_err"] < 1e-3
    assert r["max_flow_rel_err"] < 1e-3


def test_alltoall_on_oversubscribed_fat_tree_agrees():
    # contention: 2:1 oversubscription, ECMP routes shared with SimGrid
    g, run = sgc.workload_alltoall_fat_tree(k=4, hosts=16, nbytes=2**24, oversubscription=2.0, seed=3)
    r = sgc.compare("alltoall", g, run, repeat=1)
    assert r["flows"] == 16 * 15
    assert r["makespan_rel_err"] < 1e-3
    assert r["max_flow_rel_err"] < 1e-3


def test_shared_link_halves_the_rate_in_both():
    # two flows through one link each take twice as long as one alone, in SimGrid as in netsim
    problem = {"links": [{"name": "a->s", "bandwidth": 1e9, "latency": 1e-6},
                         {"name": "c->s", "bandwidth": 1e9, "latency": 1e-6},
                         {"name": "s->b", "bandwidth": 1e9, "latency": 1e-6}],
               "flows": [{"src": "a", "dst": "b", "nbytes": 1e9, "start": 0.0, "deps": [], "route": ["a->s", "s->b"]},
                         {"src": "c", "dst": "b", "nbytes": 1e9, "start": 0.0, "deps": [], "route": ["c->s", "s->b"]}]}
    out = sgc.run_simgrid(problem)
    assert out["finish"] == pytest.approx([2.0 + 2e-6, 2.0 + 2e-6], rel=1e-9)
