"""NCCL's model (interconnect.collectives.nccl) against NCCL's source and published nccl-tests runs.

* Closed forms of the port: the table entries that follow from NCCL's constants by hand
  (ring busbw = nChannels x bwIntra, latency = base + nsteps x hwLat), the bus factors,
  the choice rule (the minimum of the predicted times, first on a tie), and the
  achieved-time model (channels launched by NCCL's thread thresholds, NVLS chunks, loops
  and pipeline fill) worked by hand.
* Measurements: every published busbw point in ``catalog.measurements`` that NCCL's model
  can be asked about is printed with its error (``pytest -s`` shows the table) and must
  agree within 10 %, at every size. NCCL's own tuning estimate (``model="tuning"``) does
  not: it is 17-40 % optimistic at 16-64 MiB on 8 H200, and a test checks that it fails
  there, so that the 10 % test cannot pass without the launch mechanisms.
"""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

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
# the rest of the H200 sweep (small and medium messages)
SWEEP_SMALL = [
    ("h200-nvlink4-allreduce-busbw-32kib", 32 * KiB),
    ("h200-nvlink4-allreduce-busbw-1mib", 1 * MiB),
    ("h200-nvlink4-allreduce-busbw-16mib", 16 * MiB),
    ("h200-nvlink4-allreduce-busbw-64mib", 64 * MiB),
]
# (name, machine, size, algorithm, nranks, nnodes): every point
ALL = ([(n, m, s, a, 8, 1) for n, m, s, a in LARGE] + [(n, "dgx-h200", s, None, 8, 1) for n, s in SWEEP_SMALL]
       + [("b200-efa-4node-allreduce-busbw", "dgx-b200", 16 * GiB, None, 32, 4)])


def _error(name, machine, size, algorithm=None, nranks=8, nnodes=1, model="achieved"):
    pred = N.nccl_busbw("allreduce", size, nranks, nnodes, machine=machine, algorithm=algorithm, model=model)
    meas = get(name).value
    return pred, meas, pred / meas - 1


def test_report_every_point(capsys):
    with capsys.disabled():
        print(f"\nNCCL model (commit {N.NCCL_COMMIT[:12]}) against measured AllReduce busbw, GB/s")
        for name, machine, size, alg, nranks, nnodes in ALL:
            p = N.nccl_predict("allreduce", size, nranks, nnodes, machine=machine, algorithm=alg)
            tune = N.nccl_busbw("allreduce", size, nranks, nnodes, machine=machine, algorithm=alg, model="tuning")
            meas = get(name).value
            print(f"  {name:46s} {size / MiB:8.3g} MiB {p.algorithm + '/' + p.protocol:17s} meas {meas / 1e9:6.1f} "
                  f"tuning {tune / 1e9:6.1f} ({100 * (tune / meas - 1):+5.1f} %) "
                  f"achieved {p.busbw / 1e9:6.1f} ({100 * (p.busbw / meas - 1):+5.1f} %)")


@pytest.mark.parametrize("name, machine, size, algorithm, nranks, nnodes", ALL, ids=[r[0] for r in ALL])
def test_every_published_point_within_10_percent(name, machine, size, algorithm, nranks, nnodes):
    pred, meas, err = _error(name, machine, size, algorithm, nranks, nnodes)
    assert abs(err) <= 0.10, f"{name}: predicted {pred / 1e9:.1f} GB/s, measured {meas / 1e9:.1f} ({err:+.1%})"


def test_tuning_estimate_alone_fails_at_medium_sizes():
    # NCCL's own estimate has no pipeline fill and counts every channel: +40 % at 16 MiB,
    # +17 % at 64 MiB on 8 H200; the achieved model is within 5 % at both
    for name, size in SWEEP_SMALL[2:]:
        _, _, err_tune = _error(name, "dgx-h200", size, model="tuning")
        _, _, err = _error(name, "dgx-h200", size)
        assert err_tune > 0.15 and abs(err) < 0.05, (name, err_tune, err)


# The whole published 8 x H200 sweep the catalog's H200 points come from: nccl-tests
# all_reduce_perf busbw (GB/s), NCCL 2.30.7, one node (Bekman, Machine Learning Engineering Open
# Book, network/benchmarks/README.md, "How the calls are timed", nccl-tests column).
H200_SWEEP = {32 * KiB: 3.20, 64 * KiB: 6.26, 128 * KiB: 12.40, 256 * KiB: 24.63, 512 * KiB: 48.30,
              1 * MiB: 72.45, 2 * MiB: 91.48, 4 * MiB: 139.97, 8 * MiB: 182.03, 16 * MiB: 242.45,
              32 * MiB: 298.44, 64 * MiB: 369.82, 128 * MiB: 411.21, 256 * MiB: 442.27, 512 * MiB: 455.82,
              1 * GiB: 464.00, 2 * GiB: 468.31, 4 * GiB: 473.10, 8 * GiB: 475.16, 16 * GiB: 480.70}


def test_whole_h200_sweep(capsys):
    # the catalog holds 8 of the 20 rows; all 20 are within 10 % except 2 MiB (-17 %), where each
    # NVLS channel runs a single loop: the kernel hands whole loops between its three stages (no
    # overlap inside a loop), and the sweep shows one loop at 1.96 loop times above the latency
    # but each further small-chunk loop at 1.2-1.6, a per-step cost NCCL's source does not
    # quantify (see the module docstring of collectives.nccl); NCCL's estimate alone misses 11
    # of the 20 by more than 10 %
    for name, size in SWEEP_SMALL:
        assert get(name).value == pytest.approx(H200_SWEEP[size] * 1e9)
    errs, tune_errs = {}, {}
    for size, meas in H200_SWEEP.items():
        errs[size] = N.nccl_busbw("allreduce", size, 8, machine="dgx-h200") / (meas * 1e9) - 1
        tune_errs[size] = N.nccl_busbw("allreduce", size, 8, machine="dgx-h200", model="tuning") / (meas * 1e9) - 1
    with capsys.disabled():
        print("\n8 x H200 sweep: size MiB, tuning error, achieved error")
        for size in H200_SWEEP:
            print(f"  {size / MiB:9.4g} {tune_errs[size]:+7.1%} {errs[size]:+7.1%}")
    assert all(abs(e) <= 0.10 for size, e in errs.items() if size != 2 * MiB), errs
    assert -0.20 < errs[2 * MiB] < -0.10
    assert sum(abs(e) > 0.10 for e in tune_errs.values()) >= 10


def test_small_message_channels_and_latency():
    # ring/LL on 8 GPUs: a channel needs 512 threads x 8 B x 8 ranks = 32 KiB, so a 32 KiB
    # AllReduce runs on one channel of 0.5 x 30 GB/s bus; time = 15 us + 32 KiB x 1.75 / 15 GB/s
    p = N.nccl_predict("allreduce", 32 * KiB, 8, machine="dgx-h200")
    assert (p.algorithm, p.protocol, p.launched_channels) == ("ring", "LL", 1)
    assert p.time == pytest.approx(15.0e-6 + 32 * KiB * 1.75 / 15e9)
    assert p.tuning_time == pytest.approx(15.0e-6 + 32 * KiB * 1.75 / 141e9)  # the table's capped 141 GB/s
    for size, nc in ((64 * KiB, 2), (256 * KiB, 8), (383 * KiB, 11), (384 * KiB, 12), (GiB, 12)):
        assert N.nccl_predict("allreduce", size, 8, machine="dgx-h200", algorithm="ring", protocol="LL"
                              ).launched_channels == nc
    # the latency floor: a 0-byte allreduce is NCCL's ring/LL latency, 6.6 + 14 x 0.6 us
    assert N.nccl_time("allreduce", 0, 8, machine="dgx-h200") == pytest.approx(15.0e-6)


def test_nvls_pipeline_by_hand():
    # 16 MiB on 8 H200: 16 NVLS channels of 1 MiB; chunk 128 KiB -> 64 KiB (1 MiB < 64 x 8 x 128 KiB)
    # -> 32 KiB (1 MiB < 8 x 8 x 64 KiB); loops of 8 x 32 KiB = 256 KiB: 4 loops + 2 of fill
    p = N.nccl_predict("allreduce", 16 * MiB, 8, machine="dgx-h200")
    assert (p.algorithm, p.launched_channels, p.chunk_size, p.loops) == ("nvls", 16, 32 * KiB, 4)
    lat, bw = N.nccl_table("allreduce", 8, machine="dgx-h200")["nvls", "Simple"]
    assert p.time == pytest.approx(lat + (MiB + 2 * 256 * KiB) / (bw / 16))
    assert p.tuning_time == pytest.approx(lat + 16 * MiB / bw)
    # chunk ladder: 16 KiB below 512 KiB a channel, 32 below 4 MiB, 64 below 64 MiB, then 128
    for size, chunk in ((4 * MiB, 16 * KiB), (8 * MiB, 32 * KiB), (64 * MiB, 64 * KiB), (GiB, 128 * KiB)):
        assert N.nccl_predict("allreduce", size, 8, machine="dgx-h200").chunk_size == chunk
    # Blackwell launches 24 NVLS channels on one node
    assert N.nccl_predict("allreduce", GiB, 8, machine="dgx-b200").launched_channels == 24


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
        assert p.tuning_time == pytest.approx(p.latency + size / p.bandwidth, rel=1e-12) or p.algorithm == "tree"
        t = N.nccl_predict(op, size, 8, machine="dgx-h100", model="tuning")
        assert t.time == t.tuning_time == p.tuning_time


def test_choice_is_minimum_time():
    # NCCL ranks by its own estimate, not by what the call then achieves
    t = N.nccl_table("allreduce", 8, machine="dgx-h100")
    for size in 2.0 ** np.arange(6, 35, 3):
        times = {k: N.nccl_time("allreduce", size, 8, machine="dgx-h100", algorithm=a, protocol=p, model="tuning")
                 for k in t for a, p in [k]}
        best = min(times.values())
        assert N.nccl_time("allreduce", size, 8, machine="dgx-h100", model="tuning") == best
        assert times[N.nccl_choice("allreduce", size, 8, machine="dgx-h100")] == best


def test_tree_correction_factor_applies_to_medium_sizes():
    size = 4 * MiB  # log2(4 MiB / 64) = 16 -> Simple factor 0.7
    lat, bw = N.nccl_table("allreduce", 8, machine="dgx-a100")["tree", "Simple"]
    t = N.nccl_time("allreduce", size, 8, machine="dgx-a100", algorithm="tree", protocol="Simple")
    assert t == pytest.approx(lat + size / (bw * 0.7))


_PAIRS = [("ring", "LL"), ("ring", "LL128"), ("ring", "Simple"), ("tree", "LL128"), ("tree", "Simple"),
          ("nvls", "Simple")]


@given(machine=st.sampled_from(sorted(N.MACHINES)), pair=st.sampled_from(_PAIRS), logn=st.floats(3, 35))
@settings(max_examples=60, deadline=None)
def test_pinned_pair_busbw_grows_with_size(machine, pair, logn):
    # doubling the message never lowers the bus bandwidth of one (algorithm, protocol):
    # more channels or longer loops, but never more than twice the time
    if pair[0] == "nvls" and machine == "dgx-a100":
        return
    size = 2.0 ** logn
    a, b = (N.nccl_busbw("allreduce", s_, 8, machine=machine, algorithm=pair[0], protocol=pair[1])
            for s_ in (size, 2 * size))
    assert b >= a * (1 - 1e-12)


@given(machine=st.sampled_from(sorted(N.MACHINES)), pair=st.sampled_from(_PAIRS), logn=st.floats(3, 35))
@settings(max_examples=60, deadline=None)
def test_achieved_never_above_the_table_or_the_links(machine, pair, logn):
    # what a call achieves is at most NCCL's bandwidth for the pair (LL on one node: at most half of
    # the channels' bandwidth, the table's LL cap being a selection cap), and a host-based
    # algorithm never moves more bus bandwidth than the GPU's NVLinks as NCCL counts them
    if pair[0] == "nvls" and machine == "dgx-a100":
        return
    m = N.MACHINES[machine]
    p = N.nccl_predict("allreduce", 2.0 ** logn, 8, machine=machine, algorithm=pair[0], protocol=pair[1])
    table_bus = p.bandwidth * 2 * 7 / 8
    if pair == ("ring", "LL"):
        g = N.nccl_graphs(machine, 8)["ring"]
        assert p.busbw <= 0.5 * g.n_channels * g.bw_intra * (1 + 1e-12)
    else:
        assert p.busbw <= table_bus * (1 + 1e-12)
    if pair[0] != "nvls":
        assert p.busbw <= m.intra_bw
    assert p.time >= p.latency


def test_curve_shape():
    # NCCL's choice: rises to its plateau; it may dip where the chunk doubles (the fill of a
    # loop doubles) or where NCCL's estimate switches to NVLS before NVLS achieves more
    sizes = 2.0 ** np.arange(3, 36)
    for m in N.MACHINES:
        bw = N.nccl_busbw_curve("allreduce", sizes, 8, machine=m)
        assert bw.shape == sizes.shape and bw[-1] == bw.max()
        assert bw[-1] <= N.MACHINES[m].intra_bw * 1.4  # NVLS may exceed the link (switch reduces)
        assert bw[-1] > 50 * bw[0]


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
    assert names == {r[0] for r in ALL}
    for c in checks:
        assert c.error == pytest.approx(c.predicted / get(c.name).value - 1)
        assert abs(c.error) <= 0.10, c
        assert c.tuning_error == pytest.approx(c.tuning / get(c.name).value - 1)
    assert max(abs(c.tuning_error) for c in checks) > 0.35  # the old estimate: +40 % at 16 MiB
    assert [c.machine for c in N.nccl_validation("dgx-h100")] == ["dgx-h100"] * 2


def test_cache_keeps_machines_with_their_own_graphs_apart():
    # NcclMachine's equality leaves ``graphs`` out: a machine equal to a preset but with its own
    # graphs must not get the preset's cached search
    preset = N.MACHINES["dgx-h100"]
    N.nccl_table("allreduce", 8, machine=preset)  # fill the cache
    own = N.NcclMachine("dgx-h100", "hopper", nvlinks=18, nic_bw=50e9, cpu="intel",
                        graphs={"ring": N.NcclGraph(4, 10e9, 10e9), "tree": N.NcclGraph(4, 10e9, 10e9)})
    assert own == preset
    assert N.nccl_graphs(own)["ring"].n_channels == 4
    assert N.nccl_table("allreduce", 8, machine=own)["ring", "Simple"][1] == pytest.approx(40e9 * 8 / 14)
    assert N.nccl_table("allreduce", 8, machine=preset)["ring", "Simple"][1] == pytest.approx(360e9 * 8 / 14)
