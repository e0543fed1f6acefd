"""NCCL's tuning model (interconnect.collectives.nccl) against NCCL's source and published nccl-tests runs.

* Closed forms of the port: the table entries that follow from NCCL's constants by hand
  (ring busbw = nChannels x bwIntra, latency = base + nsteps x hwLat), the bus factors,
  the choice rule (the minimum of the predicted times, first on a tie).
* Measurements: every published busbw point in ``catalog.measurements`` that NCCL's model
  can be asked about is printed with its error (``pytest -s`` shows the table); large
  messages must agree within 10 %. NCCL's constants are its own, nothing is fitted here.
  At medium sizes (16-64 MiB) the model is optimistic by 17-40 % on H200, because it leaves
  out the pipeline fill and the channels NCCL launches for a message that size: the test
  records that gap instead of hiding it.
"""

import math

import numpy as np
import pytest

from interconnect.catalog.measurements import get
from interconnect.collectives import nccl as N
from interconnect.units import GiB, KiB, MiB

# (measurement, machine, message size, algorithm pinned or None for NCCL's choice)
LARGE = [
    ("a100-nvlink3-allreduce-busbw", "dgx-a100", 16 * GiB, None),
    ("a100-nvlink3-allreduce-busbw-issue175", "dgx-a100", 4 * GiB, None),
    ("h100-nvlink4-allreduce-ring-busbw-maintainer", "dgx-h100", 16 * GiB, "ring"),
    ("h100-nvlink4-allreduce-nvls-busbw-maintainer", "dgx-h100", 16 * GiB, None),
    ("h200-nvlink4-allreduce-ring-busbw", "dgx-h200", 16 * GiB, "ring"),
    ("h200-nvlink4-allreduce-nvls-busbw", "dgx-h200", 16 * GiB, None),
    ("h200-nvlink4-allreduce-nvls-busbw-issue272", "dgx-h200", 4 * GiB, None),
    ("h200-nvlink4-allreduce-busbw-256mib", "dgx-h200", 256 * MiB, None),
    ("h200-nvlink4-allreduce-busbw-1gib", "dgx-h200", 1 * GiB, None),
    ("h200-nvlink4-allreduce-busbw-4gib", "dgx-h200", 4 * GiB, None),
    ("h200-nvlink4-allreduce-busbw-16gib", "dgx-h200", 16 * GiB, None),
    ("b200-nvlink5-allreduce-busbw-4gib", "dgx-b200", 4 * GiB, None),
]
# the rest of the H200 sweep (small and medium messages): reported, checked loosely below
SWEEP_SMALL = [
    ("h200-nvlink4-allreduce-busbw-32kib", 32 * KiB),
    ("h200-nvlink4-allreduce-busbw-1mib", 1 * MiB),
    ("h200-nvlink4-allreduce-busbw-16mib", 16 * MiB),
    ("h200-nvlink4-allreduce-busbw-64mib", 64 * MiB),
]


def _error(name, machine, size, algorithm=None, nranks=8, nnodes=1):
    pred = N.nccl_busbw("allreduce", size, nranks, nnodes, machine=machine, algorithm=algorithm)
    meas = get(name).value
    return pred, meas, pred / meas - 1


def test_report_every_point(capsys):
    rows = [(n, m, s, a) for n, m, s, a in LARGE] + [(n, "dgx-h200", s, None) for n, s in SWEEP_SMALL]
    rows.append(("b200-efa-4node-allreduce-busbw", "dgx-b200", 16 * GiB, None))
    with capsys.disabled():
        print(f"\nNCCL model (commit {N.NCCL_COMMIT[:12]}) against measured AllReduce busbw, GB/s")
        for name, machine, size, alg in rows:
            nnodes = 4 if "4node" in name else 1
            p = N.nccl_predict("allreduce", size, 8 * nnodes, nnodes, machine=machine, algorithm=alg)
            meas = get(name).value
            print(f"  {name:46s} {size / MiB:8.3g} MiB {p.algorithm + '/' + p.protocol:17s} "
                  f"pred {p.busbw / 1e9:7.1f} meas {meas / 1e9:7.1f} {100 * (p.busbw / meas - 1):+6.1f} %")


@pytest.mark.parametrize("name, machine, size, algorithm", LARGE, ids=[r[0] for r in LARGE])
def test_large_messages_within_10_percent(name, machine, size, algorithm):
    pred, meas, err = _error(name, machine, size, algorithm)
    assert abs(err) <= 0.10, f"{name}: predicted {pred / 1e9:.1f} GB/s, measured {meas / 1e9:.1f} ({err:+.1%})"


def test_medium_sizes_model_is_optimistic_not_pessimistic():
    # NCCL's model has no pipeline fill: at 16 and 64 MiB it over-predicts (by 40 % and 17 %
    # on H200); it must never fall below the measurement there
    for name, size in SWEEP_SMALL[2:]:
        pred, meas, err = _error(name, "dgx-h200", size)
        assert 0 < err < 0.5, (name, err)


def test_small_message_latency_regime():
    # 32 KiB and 1 MiB on 8 H200: ring/LL, time = 15 us + size / 80.6 GB/s; within 20 % of nccl-tests
    for name, size in SWEEP_SMALL[:2]:
        assert N.nccl_choice("allreduce", size, 8, machine="dgx-h200") == ("ring", "LL")
        pred, meas, err = _error(name, "dgx-h200", size)
        assert abs(err) <= 0.20, (name, pred, meas, err)
    # the latency floor: a 0-byte allreduce is NCCL's ring/LL latency, 6.6 + 14 x 0.6 us
    assert N.nccl_time("allreduce", 0, 8, machine="dgx-h200") == pytest.approx(15.0e-6)


@pytest.mark.parametrize("machine", ["dgx-a100", "dgx-h100"])
def test_protocol_switches_ll_ll128_simple_as_size_grows(machine):
    protos = [N.nccl_predict("allreduce", 2.0 ** k, 8, machine=machine, algorithm="ring").protocol
              for k in range(6, 35)]
    order = {"LL": 0, "LL128": 1, "Simple": 2}
    ranks = [order[p] for p in protos]
    assert ranks == sorted(ranks), protos
    assert protos[0] == "LL" and "LL128" in protos and protos[-1] == "Simple"
    if machine == "dgx-a100":  # no NVLS on Ampere: NCCL's own choice goes LL -> LL128 -> Simple
        chosen = [N.nccl_choice("allreduce", 2.0 ** k, 8, machine=machine)[1] for k in range(6, 35)]
        assert chosen == protos


def test_h100_chooses_nvls_for_large_allreduce_ring_for_allgather():
    assert N.nccl_choice("allreduce", GiB, 8, machine="dgx-h100") == ("nvls", "Simple")
    assert N.nccl_choice("allgather", GiB, 8, machine="dgx-h100") == ("ring", "Simple")
    assert N.nccl_choice("broadcast", GiB, 8, machine="dgx-h100")[0] == "ring"


# --- closed forms of the port ------------------------------------------------------------
def test_ring_entries_by_hand():
    # A100: 12 NVLinks x 20 GB/s; the search finds 6 channels of 40 GB/s, doubled to 12 x 20
    g = N.nccl_graphs("dgx-a100")["ring"]
    assert (g.n_channels, g.bw_intra) == (12, 20e9)
    t = N.nccl_table("allreduce", 8, machine="dgx-a100")
    lat, bw = t["ring", "Simple"]
    assert lat == pytest.approx((8.4 + 14 * 3.4) * 1e-6)
    assert bw == pytest.approx(12 * 20e9 * 8 / 14)
    lat, bw = t["ring", "LL"]  # LL: half the bytes are flags, capped at llMaxBw (Ampere, 1 node: 87.7)
    assert bw == pytest.approx(min(87.7e9, 0.5 * 240e9) * 8 / 14)
    assert t["ring", "LL128"][1] == pytest.approx(min(0.92 * 240e9, 12 * 20e9) * 8 / 14)
    # allgather: nsteps = n - 1, algBw = busBw x n / (n - 1)
    lat, bw = N.nccl_table("allgather", 8, machine="dgx-a100")["ring", "Simple"]
    assert bw == pytest.approx(240e9 * 8 / 7) and lat == pytest.approx((8.4 + 7 * 3.4) * 1e-6)


def test_nvls_entry_by_hand():
    # H100: 8 NVLS channels, bwIntra 40, bwInter 60; 40 x 0.85 x 7/8 x 2 = 59.5 GB/s per channel
    lat, bw = N.nccl_table("allreduce", 8, machine="dgx-h100")["nvls", "Simple"]
    assert lat == pytest.approx(25e-6)
    assert bw == pytest.approx(8 * 59.5e9 * 8 / 14)


@pytest.mark.parametrize("op, factor", [("allreduce", 2 * 7 / 8), ("allgather", 7 / 8), ("reducescatter", 7 / 8),
                                        ("broadcast", 1.0), ("reduce", 1.0)])
def test_busbw_is_algbw_times_bus_factor(op, factor):
    for size in (KiB, MiB, GiB):
        p = N.nccl_predict(op, size, 8, machine="dgx-h100")
        assert p.algbw == pytest.approx(size / p.time)
        assert p.busbw == pytest.approx(p.algbw * factor)
        assert p.time == pytest.approx(p.latency + size / p.bandwidth, rel=1e-12) or p.algorithm == "tree"


def test_choice_is_minimum_time():
    for size in 2.0 ** np.arange(6, 35, 3):
        t = N.nccl_table("allreduce", 8, machine="dgx-h100")
        times = {k: N.nccl_time("allreduce", size, 8, machine="dgx-h100", algorithm=a, protocol=p)
                 for k in t for a, p in [k]}
        best = min(times.values())
        assert N.nccl_time("allreduce", size, 8, machine="dgx-h100") == best
        assert times[N.nccl_choice("allreduce", size, 8, machine="dgx-h100")] == best


def test_tree_correction_factor_applies_to_medium_sizes():
    size = 4 * MiB  # log2(4 MiB / 64) = 16 -> Simple factor 0.7
    lat, bw = N.nccl_table("allreduce", 8, machine="dgx-a100")["tree", "Simple"]
    t = N.nccl_time("allreduce", size, 8, machine="dgx-a100", algorithm="tree", protocol="Simple")
    assert t == pytest.approx(lat + size / (bw * 0.7))


def test_curve_monotone_and_bounded():
    sizes = 2.0 ** np.arange(3, 36)
    for m in N.MACHINES:
        bw = N.nccl_busbw_curve("allreduce", sizes, 8, machine=m)
        assert bw.shape == sizes.shape and np.all(np.diff(bw) >= -1e-6 * bw[1:])
        assert bw[-1] <= N.MACHINES[m].intra_bw * 1.4  # NVLS may exceed the link (switch reduces)


def test_multinode_b200_four_nodes():
    # recorded, not asserted tight: a torch benchmark, and the inter-node graph is an approximation
    pred, meas, err = _error("b200-efa-4node-allreduce-busbw", "dgx-b200", 16 * GiB, nranks=32, nnodes=4)
    assert abs(err) < 0.10


def test_constants_table_names_its_commit():
    assert N.CONSTANTS["commit"] == N.NCCL_COMMIT and len(N.NCCL_COMMIT) == 40
    assert N.CONSTANTS["nvlink_bw_per_link"]["hopper"] == 20.6
    assert all(len(row) == 3 for row in N.CONSTANTS["base_latency_us"])


@pytest.mark.parametrize("kwargs, match", [
    (dict(op="alltoall"), "op='alltoall' is unknown"),
    (dict(nranks=1), "nranks=1"),
    (dict(nbytes=-1), "nbytes=-1"),
    (dict(machine="dgx-z"), "machine='dgx-z' is unknown"),
    (dict(nranks=12, nnodes=1), "gpus_per_node=8"),
    (dict(nranks=9, nnodes=2), "not a multiple"),
    (dict(algorithm="nvls", protocol="LL"), "not enabled"),
    (dict(algorithm="butterfly"), "algorithm='butterfly' is unknown"),
])
def test_bad_input_names_parameter(kwargs, match):
    args = dict(op="allreduce", nbytes=MiB, nranks=8, nnodes=1, machine="dgx-h100") | kwargs
    with pytest.raises(ValueError, match=match):
        N.nccl_time(**args)


def test_custom_machine_and_graph():
    g = N.NcclGraph(4, 10e9, 10e9)
    m = N.NcclMachine("pcie-box", "ampere", intra="pci", nvlinks=0, nvswitch=False, graphs={"ring": g, "tree": g})
    t = N.nccl_table("allreduce", 8, machine=m)
    assert ("ring", "LL128") not in t  # LL128 needs NVLink inside the node
    assert t["ring", "Simple"][1] == pytest.approx(40e9 * 8 / 14)
    assert t["ring", "Simple"][0] == pytest.approx((8.4 + 14 * 5.7) * 1e-6)  # PCI hwLat
    assert math.isfinite(N.nccl_time("allreduce", GiB, 8, machine=m))


def test_validation_table_is_the_tests_points():
    checks = N.nccl_validation()
    names = {c.name for c in checks}
    assert names == {r[0] for r in LARGE} | {r[0] for r in SWEEP_SMALL} | {"b200-efa-4node-allreduce-busbw"}
    for c in checks:
        assert c.error == pytest.approx(c.predicted / get(c.name).value - 1)
        if c.nbytes >= 256 * MiB:
            assert abs(c.error) <= 0.10, c
    assert [c.machine for c in N.nccl_validation("dgx-h100")] == ["dgx-h100"] * 2
