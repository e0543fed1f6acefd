"""Explorers of the practice chapters and of "Reliability at scale" (interconnect.viz.explorers.*).

Each explorer builds, its static frames cover the grid of its static sliders and differ, and
a number it shows (its note or its alt text) is the model's value for a chosen setting.
"""

import os

os.environ.setdefault("MPLBACKEND", "Agg")

import numpy as np  # noqa: E402
import pytest  # noqa: E402
from explorer_checks import assert_frames_cover_the_static_grid_and_differ  # noqa: E402

from interconnect import applications as A  # noqa: E402
from interconnect import operations as O  # noqa: E402
from interconnect import reliability as R  # noqa: E402
from interconnect import trends  # noqa: E402
from interconnect.units import fmt_time  # noqa: E402
from interconnect.viz.explorers import applications as xa  # noqa: E402
from interconnect.viz.explorers import distinctions as xd  # noqa: E402
from interconnect.viz.explorers import operations as xop  # noqa: E402
from interconnect.viz.explorers import outlook as xo  # noqa: E402
from interconnect.viz.explorers import reliability as xr  # noqa: E402

MAKERS = {"decode_explorer": xa.decode_explorer, "goodput_explorer": xr.goodput_explorer,
          "bytes_per_flop_explorer": xo.bytes_per_flop_explorer, "roofline_explorer": xd.roofline_explorer,
          "loader_explorer": xop.loader_explorer}


@pytest.fixture(scope="module", params=sorted(MAKERS))
def explorer(request):
    return MAKERS[request.param]()


def test_frames_cover_the_static_grid_and_differ(explorer):
    assert_frames_cover_the_static_grid_and_differ(explorer)


def _note(ex, **values):
    """The text box of the first axes after drawing ``values`` (the others at their defaults)."""
    ex._draw(values)
    return ex.fig.axes[0].texts[0].get_text()


# --- applications ------------------------------------------------------------------------------

def test_decode_explorer_shows_the_decode_model():
    ex = xa.decode_explorer()
    # Llama 2 13B, batch 8, 4,096-token context, PCIe 5.0, t = 8: the model's time per token
    t_nv = A.llama2_decode("13B", 8, "nvlink4", batch=8).total
    t_pc = A.llama2_decode("13B", 8, "pcie5x16", batch=8).total
    note = _note(ex, model="13B", batch=8)
    assert f"t = 8: NVLink {fmt_time(t_nv)}, pcie5x16 {fmt_time(t_pc)}" in note
    assert f"{8 / t_nv:,.0f} vs {8 / t_pc:,.0f} tokens/s" in note
    # 70B at batch 128: 140 GB of weights + 128 x 4,096 x 320 KiB = 172 GB of KV cache: 312 GB, more than
    # 2 x 76 GiB (163 GB), less than 4 x 76 GiB (326 GB)
    alt = ex._alt(ex.defaults | {"batch": 128})
    assert alt.endswith("the model fits at t = 4, 8.")
    assert not A.group_fits(4, 76e9, 140e9, 128 * 4096 * 327_680)       # with 76e9 B it would not fit
    # at batch 1 (1.3 GB of KV cache) two GPUs hold it
    assert ex._alt(ex.defaults | {"batch": 1}).endswith("the model fits at t = 2, 4, 8.")


def test_decode_explorer_rejects_a_default_not_offered():
    with pytest.raises(ValueError, match="default_pcie"):
        xa.decode_explorer(pcie_links=("pcie4x16",))


# --- reliability -------------------------------------------------------------------------------

def test_goodput_explorer_shows_the_goodput_model():
    ex = xr.goodput_explorer()
    assert ex.defaults["gpu_mtbf"] == R.LLAMA3_GPU_MTBF
    # 4,096 GPUs at the Llama 3 failure rate (job MTBF 12.4 h), 1-minute checkpoints, 10-minute restart
    m = R.cluster_mtbf(R.LLAMA3_GPU_MTBF, 4096)
    assert m / 3600 == pytest.approx(4 * 54 * 24 / 419)          # 16,384 / 4,096 = 4 x the logged job MTBF
    note = _note(ex, n_gpus=4096, checkpoint=60.0)
    assert f"job MTBF {fmt_time(m)}" in note
    assert f"Daly {fmt_time(R.daly_interval(60.0, m))}" in note
    assert f"best goodput {100 * R.best_goodput(60.0, m, 600.0):.1f} %" in note
    # the shown best is Young's first-order balance 1 - sqrt(2 delta / M), less the restarts, to 0.1 %
    assert R.best_goodput(60.0, m, 600.0) == pytest.approx((1 - np.sqrt(2 * 60.0 / m)) * np.exp(-600.0 / m),
                                                           abs=1e-3)
    alt = ex._alt(ex.defaults)
    assert f"peaking at {100 * R.best_goodput(300.0, R.cluster_mtbf(R.LLAMA3_GPU_MTBF, 16_384), 600.0):.1f} %" in alt


# --- outlook -----------------------------------------------------------------------------------

def test_bytes_per_flop_explorer_shows_the_projection():
    ex = xo.bytes_per_flop_explorer()
    ex._draw({"bw_growth": 1.2, "flops_growth": 1.7})
    note = ex.fig.axes[1].texts[0].get_text()
    r = trends.project(2032, 1.2, 1.7)
    assert note.startswith(f"2032: {1e3 * r['bytes_per_flop']:.3f} B per 1,000 FLOP")
    assert f"DP break-even {r['dp_break_even_tokens']:,.0f} tokens/GPU" in note
    # the H100 in 2022: 450 GB/s over 989.4 TFLOP/s is 0.45 bytes per 1,000 FLOP
    alt = ex._alt({"bw_growth": 1.3, "flops_growth": 1.3})
    assert "projected from 450 GB/s in 2022" in alt
    assert alt.endswith("reaching 0.455 in 2032, against 0.45 for the H100.")   # equal rates: flat


# --- distinctions ------------------------------------------------------------------------------

def test_roofline_explorer_shows_the_tp_roofline():
    ex = xd.roofline_explorer()
    # H100 (989.4 TFLOP/s dense BF16) on PCIe 5.0 x16 (16 lanes x 32 GT/s x 128/130 / 8 = 63.0 GB/s per
    # direction); a TP-8 layer of h = 8,192 sends one byte per 3h/(t-1) = 3,511 FLOP (Megatron, two
    # AllReduces of 2h bytes per 24h^2/t FLOP): the link roof gives 3,511 x 63.0 GB/s = 221 TFLOP/s, 22 %
    pcie = 16 * 32e9 * 128 / 130 / 8
    intensity = 3 * 8192 / 7
    note = _note(ex, gpu="H100", link_name="GPU's PCIe x16", tp=8)
    assert f"ridge {989.4e12 / pcie:,.0f} FLOP/B" in note
    assert f"TP-8: {intensity:,.0f} FLOP/B, {100 * intensity * pcie / 989.4e12:.0f} % of peak" in note
    assert "22 % of peak" in note
    # on NVLink 4 (450 GB/s) the same layer is above the ridge (2,199 FLOP/B): the full peak
    assert ex._alt({"gpu": "H100", "link_name": "GPU's NVLink", "tp": 8}).endswith("reaches 100 % of peak.")


# --- operations --------------------------------------------------------------------------------

def test_loader_explorer_shows_the_bottleneck():
    ex = xop.loader_explorer()
    assert ex.defaults == {"cpu_cores": 112, "storage_bandwidth": 2e9, "decode_rate": 150.0, "gpu_per_gpu": 3000.0}
    # the chapter's node: 112 cores x 150 images/s = 16,800 images/s bind; the GPUs could take 24,000,
    # so they wait 1 - 16,800 / 24,000 = 30 % of the time (the bottleneck bound, Lazowska et al. 1984)
    note = _note(ex)
    assert note == "binds: CPU decode\nthroughput 16,800 images/s\nGPUs wait 30 % of the time"
    # 224 cores decode 33,600/s: storage binds at 2 GB/s / 110 kB = 18,182 images/s
    note = _note(ex, cpu_cores=224)
    assert note.startswith("binds: storage read\nthroughput 18,182 images/s")
    st_ = O.loader_stages(**{**O.image_loader_node(), "cpu_cores": 224})
    assert f"GPUs wait {100 * O.data_stall_fraction(st_):.0f} %" in note
    assert "is the shortest bar and binds, giving 18,182 images/s" in ex._alt(ex.defaults | {"cpu_cores": 224})
