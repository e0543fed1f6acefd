"""Explorers of the chapter "Collective communication" (``book/stack/collectives.ipynb``).

Presentation only: times from :func:`interconnect.collectives.collective_time` and
:func:`interconnect.collectives.best_algorithm`, the ring schedule from
:func:`interconnect.netsim.schedule`.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.patches import FancyArrowPatch, Rectangle

from ... import collectives, links, netsim, plots
from ..._validate import as_count
from ...collectives.hierarchical import cluster_link_parameters
from ...units import GiB, fmt_bandwidth, fmt_time, us
from ...widgets import READOUT_GID, Explorer, Param

__all__ = ["allreduce_explorer", "ring_allreduce_animation", "cost_text", "multinode_allreduce_explorer"]


def allreduce_explorer(link_names=("pcie3x16", "pcie4x16", "pcie5x16", "nvlink2", "nvlink3", "nvlink4", "nvlink5"),
                       default_link="nvlink3", algorithms=("ring", "tree", "recursive_doubling")):
    """AllReduce time against message size for several algorithms and the fastest one
    (chapter "Collective communication").

    Sliders: the link (per-direction bandwidth per GPU), the latency per step and the
    number of GPUs ``p``. Algorithms that need ``p`` a power of two are left out where
    it is not one. Times from :func:`interconnect.collectives.collective_time` and
    :func:`interconnect.collectives.best_algorithm`.
    """
    link_list = [links.get_link(n) for n in link_names]
    default = links.get_link(default_link)
    if default not in link_list:
        raise ValueError(f"default_link={default_link!r} is not in link_names {tuple(link_names)}")
    rows = {r.name: r for r in (collectives.cost_algorithm("allreduce", a) for a in algorithms)}
    algs = tuple(rows)
    label = {l.bandwidth: f"{l.label}: {fmt_bandwidth(l.bandwidth)}" for l in link_list}
    sizes = np.logspace(0, np.log2(4 * GiB), 160, base=2)

    def make_figure():
        fig, ax = plots.new_figure("AllReduce time", "message size n", "time", figsize=(6.4, 3.9))
        _ = plots._
        lines = {}
        for i, alg in enumerate(algs):
            (lines[alg],) = ax.plot(sizes, sizes, color=plots.PALETTE[i], linestyle=plots.LINESTYLES[i],
                                    label=alg.replace("_", " "))
        (lines["best"],) = ax.plot(sizes, sizes, color="#888888", linewidth=7, alpha=0.35, zorder=0,
                                   solid_capstyle="butt", label=_("fastest in library"))
        plots.bytes_axis(ax)
        plots.time_axis(ax)
        ax.set_ylim(2e-7, 30)
        ax.legend(loc="upper left")
        title = ax.set_title(" ")

        def update(bandwidth, latency, p):
            for alg in algs:
                if rows[alg].pow2 and p & (p - 1):
                    lines[alg].set_ydata(np.full_like(sizes, np.nan))  # needs p a power of two
                else:
                    lines[alg].set_ydata(collectives.collective_time("allreduce", sizes, p, bandwidth, latency, alg))
            lines["best"].set_ydata(collectives.best_algorithm("allreduce", sizes, p, bandwidth, latency)[1])
            title.set_text(f"AllReduce, p = {p}, {label[bandwidth].split(':')[0]}, α = {fmt_time(latency)}")
            return [lines["best"], *(lines[a] for a in algs), title]

        return fig, update

    def alt(bandwidth, latency, p):
        name, _ = collectives.best_algorithm("allreduce", [1.0, 4 * GiB], p, bandwidth, latency)
        return (f"Log-log plot of AllReduce time against message size from 1 byte to 4 GiB for p = {p} GPUs "
                f"on {label[bandwidth]} with latency {fmt_time(latency)}: the fastest algorithm is "
                f"{name[0].replace('_', ' ')} at 1 byte and {name[1].replace('_', ' ')} at 4 GiB.")

    return Explorer(
        "AllReduce time against message size",
        [Param("bandwidth", "link (bandwidth per direction)", tuple(l.bandwidth for l in link_list),
               default.bandwidth, fmt=lambda b: label[b]),
         Param("latency", "latency α per step", tuple(x * us for x in (0.5, 1, 2, 5, 10, 20)), 1 * us, fmt=fmt_time),
         Param("p", "GPUs p", (2, 4, 8, 16, 32, 64), 8)],
        make_figure, static=["bandwidth", "p"], alt=alt)


def _ring_states(p):
    """Per step: how many ranks are summed into each chunk of each rank, and who sends what.

    Runs :func:`interconnect.netsim.schedule` ("allreduce", ring) on sets of contributing
    ranks. Returns ``(states, sends, phase_of, rounds)``: ``states[k][r][u]`` counts the
    ranks summed into unit ``u`` of rank ``r`` after ``k`` steps; ``sends[k]`` maps each
    sender of step ``k`` to the unit it sends; ``phase_of[k]`` names the phase.
    """
    sch = netsim.schedule("allreduce", p, "ring")
    rounds = sch.n_rounds
    state = [[{r} for _ in range(sch.units)] for r in range(p)]
    states = [[[len(c) for c in row] for row in state]]
    sends = []
    for k in range(rounds):
        idx = np.flatnonzero(sch.round == k)
        sends.append({int(sch.src[i]): int(sch.lo[i]) for i in idx})
        before = [[set(c) for c in row] for row in state]
        for i in idx:
            s_, d = int(sch.src[i]), int(sch.dst[i])
            for u in range(int(sch.lo[i]), int(sch.hi[i])):
                du = int(sch.dst_lo[i]) + u - int(sch.lo[i])
                state[d][du] = (state[d][du] | before[s_][u]) if sch.reduce[i] else set(before[s_][u])
        states.append([[len(c) for c in row] for row in state])
    sends.append({})
    phase_of = {k: sch.phases[int(sch.phase[np.flatnonzero(sch.round == k)[0]])] for k in range(rounds)}
    return states, sends, phase_of, rounds


def ring_allreduce_animation(p=5):
    """Step through a ring AllReduce: what every rank holds after each step, and which
    chunk each rank sends next (chapter "Collective communication").

    The schedule is :func:`interconnect.netsim.schedule` (the same one the simulator
    runs and :func:`interconnect.netsim.run_collective` executes on numpy arrays), so the
    picture is the algorithm itself, not a drawing of it. Each rank's buffer is a row of
    ``p`` chunks coloured by how many ranks' data have been summed into it; ``Σ`` marks
    a finished chunk. One slider: the step, from 0 (before the first send) to
    ``2(p-1)`` (done).

    Parameters
    ----------
    p : int
        Ranks, 3 to 8.
    """
    p = as_count("p", p, minimum=3)
    if p > 8:
        raise ValueError(f"p={p} is too many to draw; allowed 3 to 8")
    states, sends, phase_of, rounds = _ring_states(p)
    cmap = plt.get_cmap("Blues")

    def make_figure():
        fig, ax = plots.new_figure(f"Ring AllReduce on {p} ranks", "", "", figsize=(7.2, 5.6))
        ax.set_axis_off()
        ax.set_xlim(-1.75, 1.75)
        ax.set_ylim(-1.55, 1.6)
        ax.set_aspect("equal", adjustable="box")
        angles = np.pi / 2 - 2 * np.pi * np.arange(p) / p
        centres = np.c_[np.cos(angles), np.sin(angles)]
        w = 0.5 / p * 1.6
        cells, texts, arrows, labels = [], [], [], []
        for r, (x, y) in enumerate(centres):
            ax.text(x, y + 0.17, f"rank {r}", ha="center", va="bottom", fontsize=9)
            row, trow = [], []
            for u in range(p):
                cx = x - p * w / 2 + u * w
                rect = Rectangle((cx, y - w / 2), w * 0.94, w, facecolor="white", edgecolor="0.3", lw=0.6)
                ax.add_patch(rect)
                row.append(rect)
                trow.append(ax.text(cx + w * 0.47, y, "", ha="center", va="center", fontsize=7.5))
            cells.append(row)
            texts.append(trow)
        for r in range(p):
            a, b = centres[r], centres[(r + 1) % p]
            arrow = FancyArrowPatch(a * 0.72 + b * 0.28, a * 0.28 + b * 0.72, arrowstyle="-|>", mutation_scale=12,
                                    color=plots.PALETTE[3], lw=1.6, connectionstyle="arc3,rad=-0.25")
            ax.add_patch(arrow)
            arrows.append(arrow)
            mid = (a + b) / 2 * 1.22
            labels.append(ax.text(mid[0], mid[1], "", ha="center", va="center", fontsize=8, color=plots.PALETTE[3]))
        head = ax.text(0, -1.45, "", ha="center", va="center", fontsize=10)
        sm = plt.cm.ScalarMappable(cmap=cmap, norm=plt.Normalize(0, p))
        cb = fig.colorbar(sm, ax=ax, fraction=0.035, pad=0.0, ticks=range(0, p + 1))
        cb.set_label("ranks summed into the chunk")

        head.set_gid(READOUT_GID)  # the frame's key numbers, also as text
        def update(step):
            counts = states[step]
            for r in range(p):
                for u in range(p):
                    c = counts[r][u]
                    cells[r][u].set_facecolor(cmap(0.15 + 0.85 * c / p))
                    texts[r][u].set_text("Σ" if c == p else str(c))
                    texts[r][u].set_color("white" if c > p / 2 else "black")
            for r in range(p):
                chunk = sends[step].get(r)
                arrows[r].set_visible(chunk is not None)
                labels[r].set_text("" if chunk is None else f"chunk {chunk}")
            if step < rounds:
                head.set_text(f"step {step + 1} of {rounds} ({phase_of[step]}): each rank sends one chunk of n/{p} "
                              "to the next")
            else:
                head.set_text(f"done after {rounds} steps: every rank holds every sum Σ")
            return [*(c for row in cells for c in row), *(t for row in texts for t in row), *arrows, *labels, head]

        return fig, update

    return Explorer(
        f"Ring AllReduce, step by step ({p} ranks)",
        [Param("step", "step", tuple(range(rounds + 1)), 0,
               lambda k: "before the first step" if k == 0 else f"after step {k} of {rounds}")],
        make_figure, static=["step"],
        alt=lambda step: (f"Ring of {p} ranks, each holding {p} chunks, after {step} of {rounds} steps of a ring "
                          "AllReduce; colours show how many ranks' data each chunk has summed."),
        dpi=90)


def cost_text(op, p, algorithm="ring"):
    """The cost of a collective at ``p`` ranks as text: ``"a α + b nβ"``, with ``" + c nγ"``
    where it reduces (the coefficients of :func:`interconnect.collectives.cost_terms`).

    Examples
    --------
    >>> cost_text("allreduce", 8, "ring")
    '14 α + 1.75 nβ + 0.875 nγ'
    """
    a, b, c = collectives.cost_terms(op, p, algorithm)
    text = f"{a:g} α + {b:.4g} nβ"
    return text + (f" + {c:.4g} nγ" if c else "")


def multinode_allreduce_explorer(nic_names=("ib-hdr", "ib-ndr", "ib-xdr"), default_nic="ib-ndr", gpus_per_node=8,
                                 nodes=(2, 8, 32, 128)):
    """AllReduce bus bandwidth across nodes against message size: the two-level scheme with
    its phases added and pipelined, one ring per NIC, and the double binary tree across nodes
    (chapter "Collective communication", section "Across nodes").

    Sliders: the NIC (one per GPU, on a rail-optimised :func:`interconnect.topology.cluster`
    of DGX H100-like nodes) and the number of nodes. Times from
    :func:`interconnect.collectives.hierarchical_time` (``chunks=1`` and ``"auto"``),
    :func:`interconnect.collectives.multi_ring_time`; busbw in nccl-tests' convention for
    ``p = N g`` GPUs.
    """
    g = as_count("gpus_per_node", gpus_per_node, minimum=2)
    nic_list = [links.get_link(n) for n in nic_names]
    default = links.get_link(default_nic)
    if default not in nic_list:
        raise ValueError(f"default_nic={default_nic!r} is not in nic_names {tuple(nic_names)}")
    params = {l.name: cluster_link_parameters(l.name, g) for l in nic_list}
    sizes = 2.0 ** np.arange(16, 35)
    curves = ("two-level, phases added", "two-level, pipelined", "one ring per NIC", "two-level, tree across nodes")

    def busbw(nic, N):
        bi, ai, be, ae = params[nic]
        p = N * g
        hier = collectives.hierarchical_time
        t = {curves[0]: [hier("allreduce", n, N, g, bi, ai, be, ae, chunks=1) for n in sizes],
             curves[1]: [hier("allreduce", n, N, g, bi, ai, be, ae) for n in sizes],
             curves[2]: [collectives.multi_ring_time("allreduce", n, N, g, bi, ai, be, ae) for n in sizes],
             curves[3]: [hier("allreduce", n, N, g, bi, ai, be, ae, inter_algorithm="double_binary_tree")
                         for n in sizes]}
        return {k: collectives.bus_bandwidth("allreduce", sizes / np.asarray(v), p) for k, v in t.items()}

    def make_figure():
        fig, ax = plots.new_figure("AllReduce across nodes", "message size n", "bus bandwidth (per direction)",
                                   figsize=(6.4, 3.9))
        lines = {}
        for i, name in enumerate(curves):
            (lines[name],) = ax.plot(sizes, sizes, color=plots.PALETTE[i], linestyle=plots.LINESTYLES[i], label=name)
        (nic_line,) = ax.plot(sizes[[0, -1]], [1.0, 1.0], color="#888888", linestyle=":", label=f"{g} NICs per node")
        plots.bytes_axis(ax)
        ax.set_yscale("log")
        ax.set_ylim(1e9, 3e12)
        ax.yaxis.set_major_formatter(plt.FuncFormatter(lambda v, _: fmt_bandwidth(v)))
        ax.legend(loc="lower right", fontsize="small")
        title = ax.set_title(" ")

        def update(nic, N):
            for name, bw in busbw(nic, N).items():
                lines[name].set_ydata(bw)
            nic_line.set_ydata([g * params[nic][2]] * 2)
            title.set_text(f"{N} nodes x {g} GPUs, {links.get_link(nic).label}")
            return [*lines.values(), nic_line, title]

        return fig, update

    def alt(nic, N):
        bw = busbw(nic, N)
        big = {k: v[-1] for k, v in bw.items()}
        best = max(big, key=big.get)
        return (f"Log-log plot of AllReduce bus bandwidth against message size from 64 KiB to 16 GiB on {N} nodes "
                f"of {g} GPUs with {links.get_link(nic).label} NICs; at 16 GiB the fastest is {best} "
                f"({fmt_bandwidth(big[best])}), the phases added reach {fmt_bandwidth(big[curves[0]])}.")

    return Explorer(
        "AllReduce across nodes",
        [Param("nic", "NIC per GPU", tuple(l.name for l in nic_list), default.name,
               fmt=lambda n: links.get_link(n).label),
         Param("N", "nodes N", tuple(nodes), 8 if 8 in nodes else nodes[0])],
        make_figure, static=["nic", "N"], alt=alt)
