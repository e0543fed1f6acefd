"""Explorers of the chapters "The three walls", "Collective communication", "Switching and
topology" and "Putting it together: planning a cluster" (interconnect.viz.explorers.*).

Each explorer builds, its static frames cover the grid of its static sliders and differ, and
a number it shows is the model's value for a chosen setting.
"""

import os

os.environ.setdefault("MPLBACKEND", "Agg")

from dataclasses import replace  # noqa: E402

import numpy as np  # noqa: E402
import pytest  # noqa: E402
from explorer_checks import assert_frames_cover_the_static_grid_and_differ  # noqa: E402

from interconnect import collectives, explorers, links, parallel  # noqa: E402
from interconnect import topology as T  # noqa: E402
from interconnect import transfer as X  # noqa: E402
from interconnect.catalog import models  # noqa: E402
from interconnect.parallel import Layout, layout_memory  # noqa: E402
from interconnect.units import GiB, fmt_time, us  # noqa: E402
from interconnect.viz.explorers import collectives as xc  # noqa: E402
from interconnect.viz.explorers import planning as xp  # noqa: E402
from interconnect.viz.explorers import protocols as xpr  # noqa: E402
from interconnect.viz.explorers import three_walls as xw  # noqa: E402
from interconnect.viz.explorers import topology as xt  # noqa: E402

CROSSBAR = [("NVSwitch, 8 GPUs", T.nvswitch(8), None, "shortest")]
MAKERS = {"dp_scaling_explorer": xw.dp_scaling_explorer, "allreduce_explorer": xc.allreduce_explorer,
          "ring_allreduce_animation": xc.ring_allreduce_animation,
          "topology_load_explorer": lambda: xt.topology_load_explorer(cases=CROSSBAR + [
              ("Ring of 8 GPUs", T.ring(8), None, "shortest")]),
          "memory_calculator_explorer": xp.memory_calculator_explorer,
          "mechanism_explorer": xpr.mechanism_explorer}


def test_the_old_module_re_exports_the_same_functions():
    assert explorers.dp_scaling_explorer is xw.dp_scaling_explorer
    assert explorers.allreduce_explorer is xc.allreduce_explorer
    assert explorers.ring_allreduce_animation is xc.ring_allreduce_animation
    assert explorers.topology_load_explorer is xt.topology_load_explorer
    assert explorers.memory_calculator_explorer is xp.memory_calculator_explorer


@pytest.fixture(scope="module", params=sorted(MAKERS))
def explorer(request):
    return MAKERS[request.param]()


def test_frames_cover_the_static_grid_and_differ(explorer):
    assert_frames_cover_the_static_grid_and_differ(explorer)


def _texts(ex, **values):
    ex._draw(values)
    return [t.get_text() for ax in ex.fig.axes for t in ax.texts]


def test_dp_scaling_explorer_shows_the_ring_allreduce_time():
    ex = xw.dp_scaling_explorer(n_params=7e9)
    link = links.get_link("nvlink4")
    c = float(collectives.collective_time("allreduce", 2 * 7e9, 8, link.bandwidth, 5 * us))
    note = "\n".join(_texts(ex, compute=0.5, link=link, latency=5 * us, p=8))
    assert f"AllReduce {fmt_time(c)}" in note
    assert f"efficiency {0.5 / (0.5 + c):.0%}" in note


def test_allreduce_explorer_plots_the_model():
    ex = xc.allreduce_explorer()
    bw = links.get_link("nvlink3").bandwidth
    ex._draw({"bandwidth": bw, "latency": 1 * us, "p": 8})
    ring = next(ln for ln in ex.fig.axes[0].lines if ln.get_label() == "ring")
    sizes = ring.get_xdata()
    assert np.allclose(ring.get_ydata(), collectives.collective_time("allreduce", sizes, 8, bw, 1 * us, "ring"))


def test_topology_load_explorer_matches_the_closed_form_on_a_crossbar():
    nbytes = 256 * 2**20
    ex = xt.topology_load_explorer(nbytes=nbytes, cases=CROSSBAR, collective_names=("ring AllReduce",))
    g = CROSSBAR[0][1]
    bw, lat = T.path_bandwidth(g, "gpu0", "gpu1"), T.path_latency(g, "gpu0", "gpu1")
    closed = float(collectives.collective_time("allreduce", nbytes, 8, bw, lat, "ring"))
    note = ex._readout({"topology": "NVSwitch, 8 GPUs", "collective": "ring AllReduce"})
    assert f"simulated {fmt_time(closed)}" in note
    assert f"closed form {fmt_time(closed)}" in note
    assert "simulated / closed form = 1.00" in note
    # the time axis is linear and fits the frame, so equal times are equal bars
    ex.update(topology="NVSwitch, 8 GPUs", collective="ring AllReduce")
    bx = ex.fig.axes[1]
    assert bx.get_xscale() == "linear" and bx.get_xlim()[1] == pytest.approx(1.25 * closed, rel=1e-3)


def test_memory_calculator_shows_the_memory_models():
    ex = xp.memory_calculator_explorer()
    m = models.get("gpt3-175b")
    text = "\n".join(_texts(ex, model=m.name, dp=8, tp=8, pp=4, cp=1, ep=1, microbatch=1, zero_stage=1,
                            activations="selective + SP", batch=32, context=8192))
    from dataclasses import replace

    lay = Layout(dp=8, tp=8, pp=4, microbatch=1, recompute="selective", sequence_parallel=True, zero_stage=1)
    total = layout_memory(replace(m, global_batch=1 * 8 * 4 * 4), lay)
    assert f"total      {total / GiB:7.1f}" in text
    inf = parallel.inference_memory(m, 96, 128, tp=8, pp=4, batch=32, context=8192)
    assert f"KV cache  {inf['kv_cache'] / GiB:8.1f}" in text
    # for the GPT block the weights are inference_memory's
    assert f"weights   {inf['weights'] / GiB:8.1f}" in text


def test_memory_calculator_shows_llama3_405b_on_its_published_layout():
    # Dubey et al. 2024, Table 4: TP8 PP16 DP64 without recomputation fits with ZeRO-2 (FP32 gradients sharded)
    from interconnect.parallel import machines

    ex = xp.memory_calculator_explorer()
    m = models.get("llama3-405b")
    for z in (1, 2):
        text = "\n".join(_texts(ex, model=m.name, zero_stage=z, activations="store all + SP"))
        lay = machines.stack("megatron-core-2024").layout(dp=64, tp=8, pp=16, uneven_stages=True, zero_stage=z)
        total = layout_memory(replace(m, global_batch=64 * 16 * 4), lay)
        assert f"total      {total / GiB:7.1f}" in text
        assert ("does NOT fit" in text) == (total > parallel.memory_limit_of("H100"))
    assert "dp=64 tp=8 pp=16" in ex.fig.axes[0].get_title() and "8,192 GPUs" in text


def test_memory_calculator_explains_an_invalid_layout():
    ex = xp.memory_calculator_explorer()
    text = "\n".join(_texts(ex, model="Llama 3 8B", dp=2, ep=4))   # ep must divide dp
    assert "not a valid layout" in text


def test_memory_presets_are_the_catalog_models():
    for name, pre in xp.memory_presets().items():
        assert pre.model.name == name
        assert layout_memory(replace(pre.model, global_batch=4096), Layout(**pre.layout, uneven_stages=True)) > 0


def test_mechanism_explorer_shows_the_transfer_models():
    ex = xpr.mechanism_explorer()
    g = T.dgx1_hybrid_cube_mesh(with_pcie=True)
    direct, staged, chunked = X.mechanisms(g, "gpu0", "gpu3", 2**30)
    text = "\n".join(_texts(ex, route=0, nbytes=2**30))
    assert f"NVLink P2P: {fmt_time(direct.time)}" in text
    assert f"host staged: {fmt_time(chunked.time)}" in text
    # across the sockets there is no P2P
    assert X.mechanisms(g, "gpu0", "gpu6", 2**20)[0] is None
    assert "direct: not possible here" in "\n".join(_texts(ex, route=1, nbytes=2**20))


def test_step_bars_stack_every_step_by_kind():
    import matplotlib.pyplot as plt

    g = T.dgx1_hybrid_cube_mesh(with_pcie=True)
    trs = [X.p2p_copy(g, "gpu0", "gpu3", 2**30), X.host_staged_copy(g, "gpu0", "gpu6", 2**30, chunks=4)]
    fig, ax = plt.subplots()
    xpr.step_bars(ax, trs, ["direct", "staged"])
    assert len(ax.patches) == sum(len(t.steps) for t in trs)
    # each bar ends at the transfer's time, in ms
    ends = [max(p.get_x() + p.get_width() for p in ax.patches if abs(p.get_y() + p.get_height() / 2 - y) < 1e-9)
            for y in range(2)]
    assert np.allclose(ends, [t.time * 1e3 for t in trs])
    labels = {h.get_label() for h in ax.get_legend_handles_labels()[0]}
    assert {"stream at the bottleneck", "device → host copy", "host → device copy"} <= labels
    plt.close(fig)
