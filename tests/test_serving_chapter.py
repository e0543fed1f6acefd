"""The explorers of the chapter "Serving large models" (interconnect.viz.explorers.serving).

Each explorer builds, its static frames cover the grid of its static sliders and differ,
blitting gives the pixels of a fresh draw, and the numbers it shows are the serving model's.
"""

import os

os.environ.setdefault("MPLBACKEND", "Agg")

import numpy as np  # noqa: E402
import pytest  # noqa: E402
from explorer_checks import assert_frames_cover_the_static_grid_and_differ  # noqa: E402

from interconnect import serving as S  # noqa: E402
from interconnect.catalog import models  # noqa: E402
from interconnect.parallel.machines import machine  # noqa: E402
from interconnect.units import fmt_time  # noqa: E402
from interconnect.viz.explorers import serving as xs  # noqa: E402

MAKERS = {"batch_explorer": xs.batch_explorer, "disagg_explorer": xs.disagg_explorer}


@pytest.fixture(scope="module", params=sorted(MAKERS))
def explorer(request):
    return MAKERS[request.param]()


def test_frames_cover_the_static_grid_and_differ(explorer):
    assert_frames_cover_the_static_grid_and_differ(explorer)


@pytest.mark.parametrize("name", sorted(MAKERS))
def test_blitting_matches_a_full_redraw(name):
    make = MAKERS[name]
    ex = make()
    p0, p1 = ex.params[0], ex.params[1]
    a = {p0.name: p0.values[0], p1.name: p1.values[-1]}
    b = {p0.name: p0.values[-1], p1.name: p1.values[0]}
    ex._draw(a)
    blitted = ex._draw(b).copy()
    direct = make()._draw(b).copy()
    assert np.array_equal(blitted, direct)


def test_pcie_machine_is_eight_h100_pcie_cards_on_pcie5():
    from interconnect.devices import get_gpu

    pc, dgx = S.pcie_h100(), machine("dgx-h100")
    assert xs.pcie_h100 is S.pcie_h100                     # the explorer uses the library's preset
    assert pc.intra_bandwidth == pytest.approx(64e9 * 128 / 130, rel=1e-6)   # PCIe 5.0 x16: 32 GT/s x 16, 128b/130b
    # H100 PCIe product brief / datasheet: BF16 1,513 and FP8 3,026 TFLOPS with sparsity, 2.0 TB/s HBM2e, 80 GB
    assert pc.peak_flops == pytest.approx(1513e12 / 2) and pc.peak_flops_fp8 == pytest.approx(3026e12 / 2)
    assert pc.memory_bandwidth == 2.0e12 and S.H100_PCIE["sms"] == 114
    # the KV capacity is read from gemm_gpu's record: the same 80 GiB as the card
    assert get_gpu(pc.gemm_gpu).memory == S.H100_PCIE["memory"] == 80 * 2**30
    # efficiencies from the H100 SXM measurements, applied to the card's own peaks
    assert (pc.comm_efficiency, pc.attention_efficiency) == (dgx.comm_efficiency, dgx.attention_efficiency)
    # the slower card: batch-1 decode is the weight read over 2.0 instead of 3.35 TB/s
    m = models.get("llama3-8b")
    w = [S.decode_step_time(m, c, 1, 0).weights for c in (pc, dgx)]
    assert w[0] / w[1] == pytest.approx(3.35 / 2.0)
    assert list(xs.serving_machines())[0] == "8 H100 PCIe, PCIe 5.0"


def test_batch_explorer_shows_the_decode_model():
    ex = xs.batch_explorer()
    m = models.get("llama3-70b")
    ex._draw(ex.defaults | {"context": 512})
    note = ex._readout({"context": 512})   # the figure's note, shown under the image as text
    # the largest batch that fits on DGX H100 at 512 tokens of context: 1,024 sequences of 512 tokens
    cap = S.kv_capacity(m, "H100", tp=8)
    assert 1024 * 512 <= cap.tokens
    d = S.decode_step_time(m, "dgx-h100", 1024, 512, tp=8)
    assert f"DGX H100, NVLink 4: batch 1024: {fmt_time(d.total)}, {d.tokens_per_second / 8:,.0f} tok/s/GPU" in note


def test_batch_curves_stop_where_the_cache_is_full():
    m = models.get("llama3-70b")
    c = xs.batch_curves("llama3-70b", 32768)
    tpot = c["DGX H100, NVLink 4"][0]
    cap = S.kv_capacity(m, "H100", tp=8).tokens
    for b, t in zip(xs.BATCHES, tpot):
        assert np.isfinite(t) == (b * 32768 <= cap)
    # Llama 3 405B in BF16 does not fit 8 H100 at all (810 GB of weights in 8 x 72 GiB)
    assert np.isnan(xs.batch_curves("llama3-405b", 512)["DGX H100, NVLink 4"][0]).all()


def test_disagg_explorer_shows_the_verdicts():
    ex = xs.disagg_explorer()
    m = models.get("llama3-70b")
    ex._draw(ex.defaults | {"prompt": 512})
    note = ex.fig.axes[0].texts[0].get_text()
    wins = [x for x in xs.TPOT_SLOS if S.disagg_pays(m, "dgx-h100", 512, 256, 1.0, x).pays]
    assert wins, "under some TPOT objective splitting the phases must pay for 512-token prompts"
    assert note.endswith("disaggregation pays at TPOT objectives (ms): " + ", ".join(f"{1e3 * x:g}" for x in wins))
    kv = S.kv_transfer_time(m, 512, "rdma", "dgx-h100", tp=8, layerwise=True).exposed
    assert f"{fmt_time(kv)} exposed" in note


def test_disagg_curves_are_disagg_pays():
    c = xs.disagg_curves("llama3-70b", 2048, "Ethernet 100 Gb/s", 0.5, False)
    v = S.disagg_pays(models.get("llama3-70b"), "dgx-h100", 2048, 256, 0.5, xs.TPOT_SLOS[2],
                      link=(12.5e9, 2.7e-6), layerwise=False)
    assert c["colocated"][2] == pytest.approx(v.colocated_per_gpu)
    assert c["disaggregated"][2] == pytest.approx(v.disaggregated_per_gpu)
    assert c["kv"] == pytest.approx(v.kv_transfer)
