"""One drawing geometry for topologies (interconnect.viz.topology), shared by
topology.draw, the topology-load explorer and the routes of the chapter "Protocols"."""

import os
import subprocess
import sys

os.environ.setdefault("MPLBACKEND", "Agg")

import numpy as np  # noqa: E402
import pytest  # noqa: E402

from interconnect import topology as T  # noqa: E402
from interconnect.viz import topology as V  # noqa: E402


def test_importing_the_models_does_not_import_matplotlib():
    code = ("import interconnect, interconnect.topology, sys; "
            "assert 'matplotlib' not in sys.modules, 'matplotlib imported'")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_topology_draw_is_the_viz_draw():
    assert T.draw is V.draw
    from interconnect.topology import draw
    assert draw is V.draw
    with pytest.raises(AttributeError):
        T.no_such_name  # noqa: B018


def test_layout_uses_the_builders_positions():
    g = T.ring(8)
    pos = V.layout(g)
    for n, d in g.nodes(data=True):
        assert np.allclose(pos[n], d["pos"])


def test_fit_to_box_keeps_the_aspect_and_centres():
    pos = {"a": (0.0, 0.0), "b": (2.0, 1.0)}
    out = V.fit_to_box(pos, box=(0.0, 0.0, 10.0, 10.0))
    assert np.allclose(out["a"], (0.0, 2.5))
    assert np.allclose(out["b"], (10.0, 7.5))


def test_torus_wraparound_edges_are_arcs_and_the_others_straight():
    g = T.torus((4, 4))
    curves = V.edge_curves(g, V.layout(g))
    assert len(curves) == g.number_of_edges()
    coords = {n: d["coords"] for n, d in g.nodes(data=True)}
    for (u, v), c in zip(g.edges, curves):
        wrap = any(abs(a - b) > 1 for a, b in zip(coords[u], coords[v]))
        assert V.edge_rad(g, u, v) == (V.TORUS_RAD if wrap else 0.0)
        assert len(c) == (17 if wrap else 2)


def test_an_arc_is_the_arc3_quadratic():
    # apex of the quadratic Bezier at t = 1/2: (p + q)/4 + c/2, c = mid + rad * (dy, -dx)
    g = T.dgx1_hybrid_cube_mesh()
    arcs = g.graph["draw_arcs"]
    (u, v), rad = next(iter(arcs.items()))
    pos = V.layout(g)
    p, q = pos[u], pos[v]
    c = (p + q) / 2 + rad * np.array([q[1] - p[1], -(q[0] - p[0])])
    curve = dict(zip(g.edges, V.edge_curves(g, pos)))[(u, v) if (u, v) in g.edges else (v, u)]
    assert np.allclose(curve[0], p) or np.allclose(curve[0], q)
    assert np.allclose(curve[len(curve) // 2], (p + q) / 4 + c / 2)
    # listed the other way round, the edge bends to the same side
    assert V.edge_rad(g, v, u) == -rad


def test_route_curve_follows_the_edges():
    g = T.dgx1_hybrid_cube_mesh(with_pcie=True)
    route = T.path(g, "gpu0", "gpu3")
    xy = V.route_curve(g, route)
    pos = V.layout(g)
    assert np.allclose(xy[0], pos[route[0]]) and np.allclose(xy[-1], pos[route[-1]])
    straight = T.ring(4)
    assert np.allclose(V.route_curve(straight, ["gpu0", "gpu1", "gpu2"]),
                       [V.layout(straight)[n] for n in ("gpu0", "gpu1", "gpu2")])


@pytest.mark.parametrize("g", [T.ring(8), T.torus((4, 4)), T.cluster(2, 4), T.fat_tree(4)],
                         ids=["ring", "torus", "cluster", "fat_tree"])
def test_draw_draws_every_edge_and_node_kind(g):
    import matplotlib.pyplot as plt

    ax = V.draw(g)
    arcs = sum(1 for u, v in g.edges if V.edge_rad(g, u, v))
    assert len(ax.patches) == arcs
    assert len(ax.lines) == g.number_of_edges() - arcs
    assert len(ax.collections) == len({d["kind"] for _, d in g.nodes(data=True)})
    assert ax.get_legend() is not None
    plt.close(ax.figure)
