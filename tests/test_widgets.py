"""Tests for interconnect.widgets: Param validation, frames, the offline static HTML,
PNG rendering, and the mime bundle."""

import os

os.environ["MPLBACKEND"] = "Agg"  # before pyplot is imported anywhere in this module

import dataclasses  # noqa: E402
import json  # noqa: E402
import re  # noqa: E402

import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402

from interconnect.widgets import Explorer, Param  # noqa: E402

SLOPE = Param("slope", "slope (units)", (1, 2, 3, 4), default=2, fmt=lambda v: f"{v} x")
OFFSET = Param("offset", "offset (units)", [0, 1, 2], default=0)
COLOR = Param("color", "colour", ("C0", "C1"), default="C0")


def make_figure():
    """A tiny figure whose line changes with the parameters."""
    fig, ax = plt.subplots(figsize=(2.0, 1.5))
    (line,) = ax.plot([0, 1], [0, 2])
    ax.set_ylim(0, 8)

    def update(slope, offset, color="C0"):
        line.set_ydata([offset, offset + slope])
        line.set_color(color)

    return fig, update


def explorer(**kw):
    args = dict(title="Test explorer", params=[SLOPE, OFFSET, COLOR], make_figure=make_figure) | kw
    return Explorer(**args)


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


# --------------------------------------------------------------------------- Param
def test_param_basics():
    assert SLOPE.values == (1, 2, 3, 4)
    assert OFFSET.values == (0, 1, 2)  # a list is stored as a tuple
    assert SLOPE.labels == ("1 x", "2 x", "3 x", "4 x")
    assert OFFSET.labels == ("0", "1", "2")  # default fmt is str
    assert SLOPE.default_index == 1


def test_param_errors():
    with pytest.raises(ValueError, match="values for parameter 'a' is empty"):
        Param("a", "A", (), default=1)
    with pytest.raises(ValueError, match="default=5 for parameter 'a'"):
        Param("a", "A", (1, 2), default=5)


def test_param_is_frozen():
    with pytest.raises(dataclasses.FrozenInstanceError):
        SLOPE.default = 3


# --------------------------------------------------------------------------- Explorer
@pytest.mark.parametrize("static, n", [(None, 4), (["slope"], 4), (["offset"], 3),
                                       (["slope", "offset"], 12), (["slope", "color"], 8), ([], 1)])
def test_frames_count_is_product_of_static_value_counts(static, n):
    ex = explorer(static=static)
    frames = ex.frames()
    assert len(frames) == n
    for uri, alt, readout in frames.values():
        assert uri.startswith("data:image/png;base64,")
        assert alt
        assert readout == ""  # no readout given


def test_explorer_errors():
    with pytest.raises(ValueError, match="repeated names"):
        explorer(params=[SLOPE, SLOPE])
    with pytest.raises(ValueError, match="'nope' is not a parameter"):
        explorer(static=["nope"])
    many = [Param(f"p{i}", f"p{i}", tuple(range(9)), default=0) for i in range(2)]
    with pytest.raises(ValueError, match="81 frames"):
        Explorer("too many", many, lambda: make_figure(), static=["p0", "p1"])


def _payload(page):
    m = re.search(r'<script type="application/json" class="ic-explorer-data">(.*?)</script>', page, re.S)
    assert m, "no JSON payload"
    return json.loads(m.group(1))


@pytest.mark.parametrize("static", [["slope"], ["slope", "offset"]])
def test_static_html(static):
    ex = explorer(static=static)
    page = ex.static_html()
    # one range input per static parameter, each at its default index
    inputs = re.findall(r'<input type="range"[^>]*>', page)
    assert len(inputs) == len(static)
    for p, tag in zip([q for q in ex.params if q.name in static], inputs):
        assert f'data-param="{p.name}"' in tag
        assert f'max="{len(p.values) - 1}"' in tag
        assert f'value="{p.default_index}"' in tag
    # the default frame is there, with non-empty alt text, so the page is never empty
    imgs = re.findall(r"<img [^>]*>", page)
    assert len(imgs) == 1
    src = re.search(r'src="([^"]*)"', imgs[0]).group(1)
    alt = re.search(r'alt="([^"]*)"', imgs[0]).group(1)
    assert src.startswith("data:image/png;base64,")
    assert alt.strip()
    # offline: nothing is fetched from the network
    assert not re.search(r"https?://", page)
    # the JSON payload parses and holds every frame, the default one among them
    data = _payload(page)
    n = 1
    for p in ex.params:
        if p.name in static:
            n *= len(p.values)
    assert len(data["frames"]) == len(data["alts"]) == n
    assert src in data["frames"].values()
    assert data["labels"] == [list(p.labels) for p in ex.params if p.name in static]
    # parameters held fixed are stated
    fixed = [p for p in ex.params if p.name not in static]
    for p in fixed:
        assert p.label in page


def test_static_html_alt_callable_and_escaping():
    ex = explorer(title='Ring <allreduce> & "friends"', alt=lambda slope, offset, color: f"slope {slope} <b>")
    page = ex.static_html()
    assert 'alt="slope 2 &lt;b&gt;"' in page
    assert "<allreduce>" not in page
    assert ex.id == "ic-explorer-ring-allreduce-friends"
    data = _payload(page)
    assert data["alts"]["1"] == "slope 2 <b>"


def test_default_alt_is_title():
    page = explorer(alt="").static_html()
    assert 'alt="Test explorer"' in page


def test_render_png_and_differs_by_value():
    ex = explorer()
    a = ex.render(slope=1)
    b = ex.render(slope=4)
    assert a.startswith(b"\x89PNG")
    assert b.startswith(b"\x89PNG")
    assert a != b
    # png_bytes is byte-for-byte repeatable (no timestamp)
    assert ex.render(slope=1) == a
    # missing values take their defaults
    assert ex.render() == ex.render(slope=2, offset=0, color="C0")


def test_frames_restore_defaults():
    ex = explorer(static=["slope", "offset"])
    before = ex.render()
    ex.frames()
    ex.update(**ex.defaults)
    assert ex.render() == before


def test_mimebundle():
    ex = explorer()
    bundle = ex._repr_mimebundle_()
    assert "text/plain" in bundle and "Test explorer" in bundle["text/plain"]
    assert "text/html" in bundle
    assert bundle["text/html"] == ex.static_html()


# --------------------------------------------------------------------------- choices and readouts
def test_string_values_are_a_dropdown_numbers_a_slider():
    assert COLOR.control == "dropdown" and SLOPE.control == "slider"
    assert Param("n", "n", ("a", "b"), "a", control="slider").control == "slider"
    with pytest.raises(ValueError, match="control='knob' for parameter 'n'"):
        Param("n", "n", (1, 2), 1, control="knob")


def test_static_dropdown_and_readout():
    ex = explorer(static=["slope", "color"], readout=lambda slope, offset, color: f"slope {slope} in {color} <i>")
    page = ex.static_html()
    assert len(re.findall(r'<input type="range"', page)) == 1
    select = re.search(r'<select data-param="color"[^>]*>(.*?)</select>', page, re.S)
    assert select and select.group(1).count("<option") == 2 and '<option value="0" selected>C0' in select.group(1)
    # the readout is text on the page, escaped, and one per frame in the payload
    assert '<p class="ic-explorer-readout" aria-live="polite">slope 2 in C0 &lt;i&gt;</p>' in page
    data = _payload(page)
    assert data["readouts"] == {f"{i}_{j}": f"slope {s} in {c} <i>"
                                for i, s in enumerate(SLOPE.values) for j, c in enumerate(COLOR.values)}
    with pytest.raises(ValueError, match="readout=3"):
        explorer(readout=3)


def test_static_frames_only_when_asked(monkeypatch):
    ex = explorer(static=["slope", "offset"], readout=lambda slope, offset, color: f"slope {slope}")
    monkeypatch.setenv("INTERCONNECT_STATIC_FRAMES", "1")
    assert ex._repr_mimebundle_()["text/html"] == ex.static_html()
    monkeypatch.setenv("INTERCONNECT_STATIC_FRAMES", "0")
    live = ex._repr_mimebundle_()["text/html"]
    assert live.count("data:image/png;base64,") == 1  # the default frame alone
    assert "slope 2" in live and "ic-explorer-data" not in live


def test_layout_once_with_the_figure_own_engine():
    """A figure that sets a tight layout with a rect keeps the room the rect leaves; others are tight."""

    def make():
        fig, update = make_figure()
        fig.set_layout_engine("tight", rect=(0, 0.3, 1, 1))  # room below for a figure-level readout
        return fig, update

    own = explorer(make_figure=make)
    plain = explorer()
    assert own.fig.axes[0].get_position().y0 >= 0.3
    assert plain.fig.axes[0].get_position().y0 < 0.3
    assert own.fig.get_layout_engine().__class__.__name__ == "PlaceHolderLayoutEngine"  # frozen: frames align


def test_readout_from_the_figure_note():
    from interconnect.widgets import READOUT_GID

    def make():
        fig, update = make_figure()
        note = fig.axes[0].text(0, 0, "")
        note.set_gid(READOUT_GID)

        def upd(slope, offset, color="C0"):
            update(slope, offset, color)
            note.set_text(f"slope {slope}\n  offset {offset}")

        return fig, upd

    ex = explorer(make_figure=make, static=["slope"])
    assert ex.readout is not None
    assert ex._readout({"slope": 4}) == "slope 4; offset 0"
    assert [r for _, _, r in ex.frames().values()] == [f"slope {s}; offset 0" for s in SLOPE.values]



def test_objects_and_booleans_are_choices():
    a, b = object(), object()
    assert Param("link", "link", (a, b), default=a).control == "dropdown"
    assert Param("k", "k", (True, False), True).control == "dropdown"
    assert Param("x", "x", (1, 2.5), 1).control == "slider"
