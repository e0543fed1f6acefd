"""Explorers and figures of the parallel chapters (interconnect.viz.explorers.{data,tensor,expert,pipeline}_parallel).

Each explorer builds, its static frames cover the grid of its static sliders and differ, and
a number it shows (its note) is the model's value for a chosen setting: the step-time model
(Narayanan et al. 2021; Korthikanti et al. 2022), the TP traffic (Shoeybi et al. 2019: 4
AllReduces of 2sbh per layer), the simulated MoE dispatch and the pipeline schedules.
"""

import os

os.environ.setdefault("MPLBACKEND", "Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from explorer_checks import assert_frames_cover_the_static_grid_and_differ  # noqa: E402

from interconnect import catalog, moe, pipeline  # noqa: E402
from interconnect import parallel as P  # noqa: E402
from interconnect.units import MiB, fmt_bytes, fmt_time  # noqa: E402
from interconnect.viz.explorers import context_parallel as xcp  # noqa: E402
from interconnect.viz.explorers import data_parallel as xdp  # noqa: E402
from interconnect.viz.explorers import expert_parallel as xep  # noqa: E402
from interconnect.viz.explorers import pipeline_parallel as xpp  # noqa: E402
from interconnect.viz.explorers import planning_tables as xpl  # noqa: E402
from interconnect.viz.explorers import tensor_parallel as xtp  # noqa: E402

GPT3 = catalog.models.get("gpt3-175b")
MODELS = {"1.3B": catalog.models.get("gpt3-1.3b"), "6.7B": catalog.models.get("gpt3-6.7b")}
DP_MACHINES = {"DGX A100": P.Cluster.dgx_a100(),
               "8 × A100 on PCIe 4.0": P.Cluster.from_links("A100", "pcie4x16", "ib-hdr")}
TP_MACHINES = {"NVLink 4": P.Cluster.from_links("H100", "nvlink4", "ib-ndr"),
               "PCIe 5.0 x16": P.Cluster.from_links("H100", "pcie5x16", "ib-ndr")}
# a small MoE layer, so the dispatches simulate quickly
EP_LAYER = dict(tokens_per_gpu=256, n_experts=16, top_k=2, hidden=512)


def _dp():
    return xdp.dp_explorer(MODELS, DP_MACHINES, default_machine="DGX A100")


def _tp():
    return xtp.tp_explorer(GPT3, TP_MACHINES)


def _ep():
    return xep.ep_explorer(**EP_LAYER, skews=(0.0, 1.0), spans=(1, 2), default_skew=1.0, default_nodes=2)


def _pp():
    return xpp.pipeline_fill_explorer(p=4, m=8, n_steps=6)


def _cp():
    return xcp.ring_step_explorer(tokens=(1024, 4096, 16384))


MAKERS = {"dp_explorer": _dp, "tp_explorer": _tp, "ep_explorer": _ep, "pipeline_fill_explorer": _pp,
          "ring_step_explorer": _cp}


@pytest.fixture(scope="module", params=sorted(MAKERS))
def explorer(request):
    return MAKERS[request.param]()


def test_frames_cover_the_static_grid_and_differ(explorer):
    assert_frames_cover_the_static_grid_and_differ(explorer)


def _text(ex, axes, **values):
    ex._draw(ex.defaults | values)
    return ex.fig.axes[axes].texts[0].get_text()


def test_dp_explorer_shows_the_step_time_model():
    ex = _dp()
    st = P.dp_step_time(MODELS["6.7B"], DP_MACHINES["8 × A100 on PCIe 4.0"], dp_overlap=0.5, tokens_per_gpu=4096)
    note = _text(ex, 1, model="6.7B", machine="8 × A100 on PCIe 4.0", tokens=4096, overlap=0.5)
    assert note == (f"step {fmt_time(st.total)}: compute {fmt_time(st.compute)}, "
                    f"exposed {fmt_time(st.dp_comm_exposed)}\nefficiency {st.efficiency:.0%}, MFU {st.mfu:.0%}")
    # the curve is the efficiency at every grid point
    curve = ex.fig.axes[0].lines[0].get_ydata()
    assert curve[xdp.DP_TOKENS.index(4096)] == st.efficiency
    assert "at 4,096 tokens per GPU" in ex._alt(ex.defaults | {"tokens": 4096})


def test_dp_step_time_is_step_time_of_the_dp_layout():
    m = MODELS["6.7B"]
    st = P.dp_step_time(m, DP_MACHINES["DGX A100"], dp=8, zero_stage=1, dp_overlap=1.0, bucket_bytes=50e6)
    assert st == P.step_time(m, P.Layout(dp=8, tp=1, pp=1, zero_stage=1, dp_overlap=1.0, bucket_bytes=50e6),
                             DP_MACHINES["DGX A100"])
    # 2,048 tokens per GPU on 8 GPUs of 2,048-token sequences: a global batch of 8
    small = P.dp_step_time(m, DP_MACHINES["DGX A100"], tokens_per_gpu=2048)
    assert small.compute == pytest.approx(
        P.step_time(P.ModelConfig(32, 4096, 32, 2048, 51200, 8), P.Layout(dp=8, tp=1, pp=1, zero_stage=2),
                    DP_MACHINES["DGX A100"]).compute)


def test_dp_overlap_figure_draws_hidden_and_exposed_comm():
    st = P.dp_step_time(MODELS["6.7B"], DP_MACHINES["8 × A100 on PCIe 4.0"], dp_overlap=1.0)
    fig = xdp.dp_overlap_figure([("PCIe", st)], microbatches=8, title="t")
    ax = fig.axes[0]
    labels = ax.get_legend_handles_labels()[1]
    assert "forward + backward, microbatches 1-7" in labels
    assert ("gradient reduction, exposed" in labels) == (st.dp_comm_exposed > 0)
    assert ax.texts[0].get_text() == f" step ends: {fmt_time(st.total)}"
    plt.close(fig)


def test_tp_explorer_shows_tp_traffic_and_mfu():
    ex = _tp()
    note = _text(ex, 0, tp=4, link="PCIe 5.0 x16", microbatch=2)
    lay = P.Layout(dp=1, tp=4, pp=8, microbatch=2)
    s, c, k = xtp.tp_layer_split(GPT3, TP_MACHINES["PCIe 5.0 x16"], 4, 2)
    # Megatron: 4 AllReduces (or RS + AG pairs) of 2 s b h bytes per layer and microbatch
    assert P.activation_bytes(GPT3, lay) == 2 * 2048 * 2 * 12288
    assert note == (f"per layer: compute {fmt_time(c)}, TP comm {fmt_time(k)}\n"
                    f"TP message {fmt_bytes(2 * 2048 * 2 * 12288, binary=False)}, 4 AllReduce-equivalents per layer")
    assert s == P.step_time(GPT3, lay, TP_MACHINES["PCIe 5.0 x16"])
    per = lay.microbatches(GPT3.global_batch) * GPT3.layers / 8
    assert k == pytest.approx(P.tp_comm_time(GPT3, lay, TP_MACHINES["PCIe 5.0 x16"]) / per)
    assert ex.fig.axes[1].get_title() == f"PCIe 5.0 x16, b = 2: t = 4 gives MFU {s.mfu:.1%}"


def test_tp_explorer_rejects_an_unknown_default_link():
    with pytest.raises(ValueError, match="default_link"):
        xtp.tp_explorer(GPT3, TP_MACHINES, default_link="NVLink 9")


def test_tp_block_figure_draws_both_blocks():
    fig = xtp.tp_block_figure()
    assert [ax.get_title() for ax in fig.axes] == ["MLP block", "Self-attention block"]
    assert all(len(ax.patches) == 8 for ax in fig.axes)       # X, Z, f, g and two GEMM boxes per GPU
    plt.close(fig)


def test_ep_explorer_shows_the_simulated_dispatch():
    ex = _ep()
    _, m, res = moe.simulate_dispatch(2, 1.0, EP_LAYER["tokens_per_gpu"], EP_LAYER["n_experts"],
                                      EP_LAYER["top_k"], EP_LAYER["hidden"])
    recv = m.sum(axis=0)
    note = _text(ex, 0, skew=1.0, nodes=2)
    u, v = res.bottleneck
    assert note == (f"EP 16 on 2 nodes, skew 1\nreceive imbalance {recv.max() / recv.mean():.2f}\n"
                    f"time {fmt_time(res.makespan)}, bottleneck {u} → {v}")
    heights = [b.get_height() for b in ex.fig.axes[0].patches[:16]]
    assert heights == pytest.approx(recv / MiB)


def test_ep_dispatch_grid_reuses_the_cache():
    g, m, res = moe.simulate_dispatch(1, 0.0, **{k: v for k, v in EP_LAYER.items()})
    grid = xep.ep_dispatch_grid(**EP_LAYER, skews=(0.0,), spans=(1,), cache={(1, 0.0): (g, 2 * m, res)})
    assert np.array_equal(grid[1, 0.0][0], (2 * m).sum(axis=0))
    assert grid[1, 0.0][1] == res.makespan


def test_pipeline_fill_explorer_shows_the_schedule():
    ex = _pp()
    tasks = pipeline.schedule("gpipe", 4, 8)
    horizon = max(pipeline.makespan(pipeline.schedule(k, 4, 8, chunks=v)) for k, (_, v) in xpp.SCHEDULES.items())
    # at the last time step every GPU has run all its tasks: busy = work / (p * horizon)
    work = sum(t.end - t.start for t in tasks)
    note = _text(ex, 0, kind="gpipe", step=5)
    assert note == (f"GPipe: t = {horizon:.1f}, GPUs busy {100 * work / (4 * horizon):.0f} % so far, "
                    "stage 0 holds 0 microbatches")


def test_exposed_transfers_slopes():
    # GPipe exposes the fill and drain transfers only, 2 (p - 1); 1F1B the steady state as well
    assert pipeline.exposed_transfers("gpipe", 4, 16) == pytest.approx(6, abs=1e-6)
    assert pipeline.exposed_transfers("1f1b", 4, 16) == pytest.approx(28, abs=1e-6)
    assert pipeline.exposed_transfers("interleaved", 4, 16, 2) == pytest.approx(14, abs=1e-6)


def test_planning_tables(monkeypatch):
    assert xpl.short_layout(P.Layout(dp=2, tp=8, pp=4)) == "2×8×4"
    glued = {}
    monkeypatch.setattr(xpl, "glue", lambda k, v: glued.__setitem__(k, v))
    p = P.plan(catalog.models.get("gpt3-13b"), P.Cluster.dgx_a100(), 64, 80e9)
    xpl.glue_best("x", p)
    lay, st, mem = p.best
    assert glued["x_layout"] == lay.label()
    assert glued["x_mfu"] == f"{100 * st.mfu:.1f} %"
    assert glued["x_tp_share"] == f"{100 * st.shares()['tp_comm']:.0f} %"


def test_ring_step_explorer_shows_the_librarys_step_and_threshold():
    """The note is :func:`cp_ring_step` and :func:`cp_min_tokens` of the chosen setting (Llama 3 70B,
    cp = 8 across nodes on DGX H100: the chapter's c* of about 4,100 tokens per GPU)."""
    from dataclasses import replace

    from interconnect.parallel.context import cp_min_tokens, cp_ring_step
    from interconnect.parallel.machines import machine

    ex = xcp.ring_step_explorer(tokens=(1024, 4096, 16384))
    ex.update(model="llama3-70b", where="nic", c=16384, direction="forward")
    text = " ".join(t.get_text() for t in ex.fig.axes[1].texts)
    m = replace(catalog.models.get("llama3-70b"), seq_len=16384 * 8, global_batch=1)
    lay = P.Layout(dp=1, tp=8, pp=1, cp=8)
    st = cp_ring_step(m, lay, machine("dgx-h100"))
    assert st["ratio"] > 1 and "the transfer hides" in text
    assert fmt_bytes(st["bytes"]) in text and fmt_time(st["compute"]) in text
    assert f"{cp_min_tokens(m, lay, machine('dgx-h100')):,.0f} tokens per GPU" in text
    with pytest.raises(ValueError, match="cp"):
        xcp.ring_step_explorer(cp=16)
