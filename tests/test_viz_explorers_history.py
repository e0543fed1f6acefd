"""The explorers of the history and stack chapters (``interconnect.viz.explorers``): they
build, their static frames cover the grid, and the numbers they display are the models'."""

import os

os.environ.setdefault("MPLBACKEND", "Agg")

import numpy as np  # noqa: E402
import pytest  # noqa: E402
from explorer_checks import assert_frames_cover_the_static_grid_and_differ  # noqa: E402

from interconnect import collectives as C  # noqa: E402
from interconnect import links  # noqa: E402
from interconnect import nvlink_machines as NVM  # noqa: E402
from interconnect import rendering as R  # noqa: E402
from interconnect import signalling as sig  # noqa: E402
from interconnect import topology as T  # noqa: E402
from interconnect import transfer as X  # noqa: E402
from interconnect.pcie_servers import eight_gpu_server, pcie_allreduce_times  # noqa: E402
from interconnect.units import GB, GiB, fmt_bandwidth, fmt_time, ms  # noqa: E402
from interconnect.viz.explorers import nvlink, pcie, physical_links, rdma_clusters, rendering, scale_up, spec_tables  # noqa: E402

MAKERS = {
    "rendering.frame_time_explorer": rendering.frame_time_explorer,
    "rdma_clusters.cluster_allreduce_explorer": rdma_clusters.cluster_allreduce_explorer,
    "physical_links.eye_explorer": physical_links.eye_explorer,
    "pcie.pcie_tree_explorer": pcie.pcie_tree_explorer,
    "nvlink.nvlink_allreduce_explorer": nvlink.nvlink_allreduce_explorer,
    "scale_up.nvl72_vs_servers_explorer": scale_up.nvl72_vs_servers_explorer,
}


@pytest.mark.parametrize("make", MAKERS.values(), ids=MAKERS.keys())
def test_frames_cover_the_static_grid_and_differ(make):
    assert_frames_cover_the_static_grid_and_differ(make())


@pytest.mark.parametrize("make", MAKERS.values(), ids=MAKERS.keys())
def test_blitting_matches_a_full_redraw(make):
    ex = make()
    p0, p1 = ex.params[0], ex.params[1]
    ex._draw({p0.name: p0.values[0], p1.name: p1.values[-1]})
    b = {p0.name: p0.values[-1], p1.name: p1.values[0]}
    blitted = ex._draw(b).copy()
    assert np.array_equal(blitted, make()._draw(b).copy())


def _texts(artists):
    return [a.get_text() for a in artists if hasattr(a, "get_text")]


# -- Multi-GPU rendering ------------------------------------------------------------------
def test_scaled_render_time_scales_with_pixels():
    # closed form: 4K (3840x2160) has exactly 4x the pixels of 1080p, 1440p 16/9 of them
    assert R.scaled_render_time("4K") == pytest.approx(40e-3, rel=1e-12)
    assert R.scaled_render_time("1440p", 9e-3) == pytest.approx(16e-3, rel=1e-12)
    assert R.scaled_render_time("1080p", 7e-3, "4K") == pytest.approx(7e-3 / 4, rel=1e-12)
    with pytest.raises(ValueError, match="base_time"):
        R.scaled_render_time("4K", 0.0)


def test_frame_time_explorer_shows_the_models_numbers():
    ex = rendering.frame_time_explorer()
    text = "\n".join(_texts(ex.update(n_gpus=2, jitter=0.1, resolution="4K", link_name="sli-hb")))
    # render time: 10 ms at 1080p, 4x the pixels at 4K
    assert "render 40 ms" in text.replace("40.0 ms", "40 ms")
    # copy of one 4K frame (3840 x 2160 x 4 bytes) over the SLI HB bridge, closed form
    copy = 3840 * 2160 * 4 / links.get_link("sli-hb").bandwidth
    assert f"frame copy {fmt_time(copy)}" in text
    # the mean fps of the unpaced run is simulate_frames' value
    kw = dict(render_time=40 * ms, cpu_time=2 * ms, render_jitter=0.1, transfer_time=copy, n_frames=240, seed=3)
    a = R.simulate_frames("afr", 2, **kw)
    assert f"mean fps{a.mean_fps:21.1f}" in text


# -- RDMA clusters ------------------------------------------------------------------------
def test_cluster_paths_are_the_nvlink_and_nic_rates():
    # a DGX H100 GPU: 450 GB/s of NVLink 4 per direction; ConnectX-7 NDR: 400 Gb/s = 50 GB/s
    b_nv, _, b_net, _ = rdma_clusters.cluster_paths("ib-ndr", gpu_nic_link="pcie6x16")
    assert b_nv == pytest.approx(450 * GB)
    assert b_net == pytest.approx(50 * GB)


def test_cluster_allreduce_explorer_shows_the_closed_form():
    ex = rdma_clusters.cluster_allreduce_explorer()
    artists = ex.update(nic="ib-ndr", oversub=2.0, nbytes=1 * GiB)
    assert "InfiniBand NDR 4x (400 Gb/s): " + fmt_bandwidth(50 * GB) + " per GPU" in _texts(artists)[0]
    b_nv, a_nv, _, _ = rdma_clusters.cluster_paths()
    _, _, b, a = rdma_clusters.cluster_paths("ib-ndr", gpu_nic_link="pcie6x16", spines=1)
    n, g, N = 1 * GiB, 8, 8
    i = list(2 ** np.arange(1, 11)).index(N)
    # two-level AllReduce by hand: ring ReduceScatter and AllGather over NVLink, ring
    # AllReduce of n/g over the NIC at B/r (Thakur et al. 2005 for each phase)
    ring_rs = (g - 1) * a_nv + (g - 1) / g * n / b_nv
    for line, bw in ((artists[0], b), (artists[1], b / 2.0)):
        t = 2 * ring_rs + 2 * (N - 1) * a + 2 * (N - 1) / N * (n / g) / bw
        assert line.get_ydata()[i] == pytest.approx(t, rel=1e-12)
    # flat ring over all 64 GPUs
    flat = 2 * (g * N - 1) * a + 2 * (g * N - 1) / (g * N) * n / b
    assert artists[2].get_ydata()[i] == pytest.approx(flat, rel=1e-12)
    # bus bandwidth panel: nccl-tests' busbw = algbw * 2 (p-1)/p
    assert artists[5].get_ydata()[i] == pytest.approx(n / flat * 2 * (g * N - 1) / (g * N) / GB, rel=1e-12)
    assert C.bus_bandwidth("allreduce", n / flat, g * N) == pytest.approx(artists[5].get_ydata()[i] * GB)


# -- Physical links -----------------------------------------------------------------------
def test_same_bit_rate_eyes_ideal_channel_and_loss_split():
    # no loss, no noise: NRZ's eye is the full swing, PAM4's three eyes are a third of it
    # (Maliniak 2016, "PAM4 ... each eye a third as tall")
    eyes = sig.same_bit_rate_eyes(0.0, noise_rms=0.0)
    assert eyes["NRZ"]["opening"] == pytest.approx(1.0, abs=1e-9)
    assert eyes["PAM4"]["opening"] == pytest.approx(1 / 3, abs=1e-9)
    # PAM4 runs at half the baud: half the Nyquist frequency, half the loss in dB there
    eyes = sig.same_bit_rate_eyes(20.0)
    assert eyes["NRZ"]["loss_db"] == 20.0 and eyes["PAM4"]["loss_db"] == 10.0
    # at 20 dB, below the crossover, both equalised eyes are open and NRZ's is the taller
    assert eyes["NRZ"]["opening"] > eyes["PAM4"]["opening"] > 0
    with pytest.raises(ValueError, match="loss_db"):
        sig.same_bit_rate_eyes(-1.0)


def test_eye_explorer_titles_show_the_models_openings():
    ex = physical_links.eye_explorer()
    titles = _texts(ex.update(loss=10, noise=0.01, bit_rate=106.25e9, equalize=True))
    eyes = sig.same_bit_rate_eyes(10, 0.01)
    assert titles[0] == (f"NRZ at 106 GBd, Nyquist 53.1 GHz\n"
                         f"loss there 10.0 dB, eye {eyes['NRZ']['opening']:5.0%} of swing")
    assert titles[1].startswith("PAM4 at 53.1 GBd, Nyquist 26.6 GHz\nloss there 5.0 dB, eye ")
    assert f"{eyes['PAM4']['opening']:5.0%} of swing" in titles[1]


def test_draw_eye_normalises_the_log_histogram():
    import matplotlib.pyplot as plt

    w = sig.simulate_waveform("PAM4", 256, 16, seed=1)
    fig, ax = plt.subplots()
    im = physical_links.draw_eye(ax, w)
    physical_links.eye_axes(ax, "PAM4")
    data = im.get_array()
    assert data.shape == (96, 32) and data.max() == 1.0 and data.min() == 0.0
    assert ax.get_ylim() == (-1.4, 1.4) and ax.get_title() == "PAM4"
    plt.close(fig)


# -- PCIe ---------------------------------------------------------------------------------
PCIE3_X16 = 8e9 * 16 * 128 / 130 / 8       # PCIe 3.0 x16: 8 GT/s x 16 lanes, 128b/130b = 15.75 GB/s


def test_eight_gpu_server_layouts():
    for k, switches in ((1, 0), (2, 4), (4, 2), (8, 1)):
        g = eight_gpu_server(k)
        assert len(T.gpus(g)) == 8
        assert sum(1 for _, d in g.nodes(data=True) if d["kind"] == "pcie_switch") == switches
    with pytest.raises(ValueError, match="gpus_per_switch"):
        eight_gpu_server(3)


def test_host_of_and_concurrent_host_reads_share_the_uplink():
    g = eight_gpu_server(4)
    assert [X.host_of(g, f"gpu{i}") for i in range(8)] == ["cpu0"] * 4 + ["cpu1"] * 4
    # one uplink shared by k GPUs reading at once: PCIe 3.0 x16 / k each (equal flows)
    for k in (1, 2, 4, 8):
        assert X.concurrent_host_reads(eight_gpu_server(k)) == pytest.approx(PCIE3_X16 / k, rel=1e-9)
    with pytest.raises(ValueError, match="nbytes"):
        X.concurrent_host_reads(g, 0)


def test_pcie_allreduce_times_ring_in_pcie_order_meets_the_closed_form():
    n, p = 2e9, 8
    lat = links.get_link("pcie3x16").latency
    closed = 2 * (p - 1) * lat + 2 * (p - 1) / p * n / PCIE3_X16     # ring AllReduce (Thakur et al. 2005)
    for k in (1, 2, 4, 8):
        t = pcie_allreduce_times(eight_gpu_server(k), n)
        assert list(t) == ["closed form, ring", "ring, PCIe order", "ring, interleaved", "Rabenseifner"]
        assert t["closed form, ring"] == pytest.approx(closed, rel=1e-12)
        # at PCIe 3.0 no link is shared by the PCIe-order ring: it costs the closed form
        # (up to the extra latency of its multi-hop steps, microseconds in 0.2 s)
        assert t["ring, PCIe order"] == pytest.approx(closed, rel=1e-3)
    # interleaved ranks with 4 GPUs per switch: every hop crosses the sockets and four
    # flows share each switch uplink (PCIe 3.0 x16, narrower than the 20.8 GB/s UPI
    # link), so the ring's bandwidth term runs at a quarter of the uplink
    t4 = pcie_allreduce_times(eight_gpu_server(4), n)
    assert t4["ring, interleaved"] == pytest.approx(2 * (p - 1) / p * n / (PCIE3_X16 / 4), rel=1e-3)


def test_pcie_tree_explorer_shows_the_models_numbers():
    ex = pcie.pcie_tree_explorer()
    ex.update(gen=3, k=4, lanes=16)
    texts = [t.get_text() for ax in ex.fig.axes for t in ax.texts]
    assert texts[0] == f"{PCIE3_X16 / GB:.3g} GB/s" == "15.8 GB/s"
    assert texts[1] == f"{PCIE3_X16 / 4 / GB:.3g} GB/s" == "3.94 GB/s"
    t = pcie_allreduce_times(eight_gpu_server(4), 2e9)
    assert texts[2:6] == [fmt_time(v) for v in t.values()]
    assert ex.fig._suptitle.get_text() == "8 GPUs, PCIe 3.0 x16 per GPU, x16 uplinks, 4 GPU(s) per switch"
    # linear axes rescaled to the frame, so the bars' ratio is the numbers' ratio
    ax = ex.fig.axes[0]
    assert ax.get_yscale() == "linear" and ax.get_ylim()[1] == pytest.approx(1.2 * PCIE3_X16 / GB)
    # the readout says the same numbers as text
    text = ex._readout({"gen": 3, "k": 4, "lanes": 16})
    assert "15.8 GB/s" in text and "3.94 GB/s" in text and "4.0x less" in text
    assert all(fmt_time(v) in text for v in t.values())


# -- Appendix: specification tables -------------------------------------------------------
def test_growth_matches_the_published_endpoints():
    # NVLink per GPU: P100 (2016) 80 GB/s per direction ("160 GB/s"), B200 (2024) 900 GB/s ("1.8 TB/s")
    g = links.growth("nvlink1", "nvlink5")
    assert (g.first.name, g.last.name, g.years) == ("nvlink1", "nvlink5", 8)
    assert g.factor == pytest.approx(900 / 80)
    # PCIe x16: 1.0 (2003) 4 GB/s per direction to 6.0 (2022) 121 GB/s: 30.25x in 19 years
    a, b, factor, years, per_year, doubling = links.growth("pcie1x16", "pcie6x16")
    assert factor == pytest.approx(121 / 4) and years == 19
    assert (1 + per_year) ** years == pytest.approx(factor)          # compound growth
    assert 2 ** (years / doubling) == pytest.approx(factor)          # doublings
    with pytest.raises(ValueError, match="at least a year"):
        links.growth("nvlink5", "nvlink1")


def test_newest_of_a_year():
    assert links.newest("PCIe", 2016, lanes=16).name == "pcie3x16"   # PCIe 4.0 is 2017
    assert links.newest("PCIe", 2024, lanes=16).name == "pcie6x16"
    with pytest.raises(ValueError, match="2002"):
        links.newest("PCIe", 2002)


def test_family_table_rows_are_the_catalog_values():
    md = spec_tables.family_table("PCIe").data.splitlines()
    assert md[0].startswith("| link | year | lanes | lane rate (GT/s) |")
    assert len(md) == 2 + len(links.catalog("PCIe"))
    # PCIe 6.0 x16: 64 GT/s x 16 lanes, FLIT mode; PCI-SIG's 121 GB/s per direction, 242 both ways
    assert md[-1].endswith("| 2022 | 16 | 64 | 1b/1b FLIT (PAM4) (94.53\u00a0%) | 121 | 242 |")
    # PCIe 1.0 x1: 2.5 GT/s with 8b/10b = 250 MB/s per direction
    assert md[2] == "| PCIe\u00a01.0\u00a0x1 | 2003 | 1 | 2.5 | 8b/10b (80.00\u00a0%) | 0.25 | 0.5 |"
    sources = spec_tables.family_sources("SLI").data
    assert "`sli`" in sources and "latency (µs)" in sources
    notes = spec_tables.family_notes("SLI").data
    assert notes.startswith(":::{admonition} Notes: SLI\n:class: dropdown") and notes.endswith(":::\n")


# -- NVLink and NVSwitch ------------------------------------------------------------------
def test_bidir_doubles_the_per_direction_figure():
    # H100: 450 GB/s per direction is NVIDIA's "900 GB/s" (bidirectional)
    assert nvlink.bidir(450 * GB) == fmt_bandwidth(900 * GB, "bidirectional")
    assert "900" in nvlink.bidir(links.get_link("nvlink4").bandwidth)


def test_dgx1_rings_use_the_links_nvidia_describes():
    v100 = T.dgx1_hybrid_cube_mesh()
    hops = lambda r: list(zip(r, r[1:] + r[:1]))  # noqa: E731
    doubled, _, single, _ = NVM.DGX1_V100_RINGS
    # "three interwoven rings of single NVLink connections" (NVIDIA DGX-1 V100 whitepaper):
    # one single-link cycle, and a cycle over doubled links that holds the other two
    assert all(v100.edges[a, b]["count"] == 2 for a, b in hops(doubled))
    assert all(v100.edges[a, b]["count"] == 1 for a, b in hops(single))
    # the P100 mesh: 16 pairs, one NVLink 1 link each; its two rings share no edge
    p100 = NVM.dgx1_p100_mesh()
    assert p100.number_of_edges() == 16
    assert {d["bandwidth"] for *_, d in p100.edges(data=True)} == {links.get_link("nvlink1-link").bandwidth}
    r1, _, r2, _ = NVM.DGX1_P100_RINGS
    e1, e2 = ({frozenset(h) for h in hops(r)} for r in (r1, r2))
    assert all(p100.has_edge(*h) for h in e1 | e2) and len(e1) == len(e2) == 8 and not e1 & e2


def test_nvlink_machines_match_the_closed_forms():
    ms = NVM.nvlink_machines()
    assert [m.gpus for m in ms.values()] == [8, 8, 16, 8, 8, 8, 72, 576]
    n = 1 * GiB
    # NVLink SHARP: T = 2 alpha + n beta (each GPU sends n and receives n, overlapped)
    sharp = ms["DGX H100 (8 H100, NVLink SHARP)"]
    assert sharp.allreduce_time(n) == pytest.approx(2 * sharp.link.latency + n / sharp.link.bandwidth)
    # 576-GPU domain: ring, T = 2 (p-1) alpha + 2 (p-1)/p n beta
    big = ms["NVLink domain of 576 (ring)"]
    assert big.allreduce_time(n) == pytest.approx(2 * 575 * big.link.latency + 2 * 575 / 576 * n / big.link.bandwidth)
    # the simulated crossbar meets the ring's closed form (nothing shared on a crossbar)
    h100 = ms["DGX H100 (8 H100, ring)"]
    ring = 2 * 7 * h100.link.latency + 2 * 7 / 8 * n / (450 * GB)
    assert h100.allreduce_time(n) == pytest.approx(ring, rel=1e-3)
    # DGX-1 V100 with four rings: busbw reaches the six NVLink 2 links, 6 x 25 = 150 GB/s
    v100 = ms["DGX-1 (8 V100, mesh)"]
    busbw = C.bus_bandwidth("allreduce", n / v100.allreduce_time(n), 8)
    assert busbw == pytest.approx(150 * GB, rel=0.01) and busbw < 150 * GB


def test_nvlink_explorer_note_shows_the_models_time():
    ms = NVM.nvlink_machines()
    ex = nvlink.nvlink_allreduce_explorer(ms)
    assert "NVLink domain of 576 (ring)" not in ex.params[0].values
    name = "DGX H100 (8 H100, ring)"
    note = _texts(ex.update(machine=name, nbytes=2.0 ** 30))[0]
    t = ms[name].allreduce_time(2.0 ** 30)               # 1 GiB is one of the computed sizes
    b = C.bus_bandwidth("allreduce", 2.0 ** 30 / t, 8)
    ta = C.nccl_time("allreduce", 2.0 ** 30, 8, machine="dgx-h100", algorithm="ring")  # NCCL's achieved ring
    ba = C.bus_bandwidth("allreduce", 2.0 ** 30 / ta, 8)
    assert note == (f"{name}\nAllReduce of 1 GiB on 8 GPUs (peak model): {fmt_time(t)}\n"
                    f"busbw {fmt_bandwidth(b)} = {100 * b / (450 * GB):.0f} % of {fmt_bandwidth(450 * GB)} per GPU\n"
                    f"NCCL achieved: {fmt_time(ta)}, busbw {fmt_bandwidth(ba)}")
    assert "for seven NVLink machines" in ex._alt(ex.defaults)
    # a machine without a checked NCCL preset says so; NVLink SHARP is NCCL's NVLS
    assert _texts(ex.update(machine="DGX-2 (16 V100, NVSwitch)", nbytes=2.0 ** 30))[0].endswith(
        "NCCL achieved: no checked model for this machine")
    sharp = ms["DGX H100 (8 H100, NVLink SHARP)"]
    assert sharp.nccl_allreduce_time(2.0 ** 30) == C.nccl_time("allreduce", 2.0 ** 30, 8, machine="dgx-h100",
                                                               algorithm="nvls")
    assert ms["DGX-2 (16 V100, NVSwitch)"].nccl_allreduce_time(2.0 ** 30) is None


# -- NVLink: one NVL72 rack or nine servers --------------------------------------------
def test_scale_up_times_are_the_closed_forms_and_the_simulation():
    from interconnect import netsim

    m = scale_up.rack_and_servers()
    assert m["rack_path"][0] == 900e9 and m["nic_path"][0] == 50e9  # 18 x 50 GB/s; one NDR port
    t = scale_up.scale_up_times("allreduce", GiB, m)
    # ring on 72 GPUs: 2 (p-1)/p n / B + 2 (p-1) alpha
    assert t["rack"] == pytest.approx(2 * 71 / 72 * GiB / 900e9 + 2 * 71 * 0.6e-6, rel=1e-12)
    assert t["rack"] == pytest.approx(netsim.simulate_collective(m["rack"], "allreduce", GiB).time, rel=1e-9)
    sim = netsim.simulate_collective(m["servers"], "allreduce", GiB, ranks=T.gpus(m["servers"])).time
    assert t["servers"] == pytest.approx(sim, rel=0.01)
    a = scale_up.scale_up_times("alltoall", GiB, m)
    assert a["hierarchical"] is None and a["servers"] > 10 * a["rack"]
    with pytest.raises(ValueError, match="op"):
        scale_up.scale_up_times("broadcast", GiB, m)


def test_nvl72_explorer_note_shows_the_models_times():
    ex = scale_up.nvl72_vs_servers_explorer()
    text = "\n".join(_texts(ex.update(op="alltoall", nbytes=GiB)))
    t = scale_up.scale_up_times("alltoall", GiB)
    assert f"NVL72 rack: {fmt_time(t['rack'])}" in text and f"best: {fmt_time(t['servers'])}" in text
