"""Explorers: one object that is a live ipywidgets app in Jupyter and a static,
still-interactive figure in the HTML book.

An :class:`Explorer` is built from a list of :class:`Param` (the sliders) and a
``make_figure`` function that draws the figure once and returns an ``update(**values)``
callback which changes the artists in place. Displayed in a notebook it is

* **live** (JupyterLab, Notebook, VS Code): ipywidgets sliders and an image that is
  re-rendered on every change (a redraw of one small figure, well under 100 ms; see
  ``benchmarks/``);
* **static** (the HTML book, where there is no kernel): the same figure precomputed by
  the library at build time for every combination of the ``static`` parameters, with
  plain HTML range sliders that swap frames. Nothing is fetched from the network, and
  the default frame is always there, so the page never shows an empty widget area.

Both views are in the same output's mime bundle; Jupyter front-ends prefer the widget
view and the book's ``_config.yml`` drops it, so the book renders the static HTML.

Precomputing every frame costs seconds, which a reader running the notebook live does not
need. The frames are built when the environment variable ``INTERCONNECT_STATIC_FRAMES`` is
``1`` (set by ``tools/execute_notebooks.py``, which writes the book's stored outputs, and by
the test suite's ``conftest.py``, which checks them); otherwise the HTML fallback shows the
default frame alone.

A parameter whose values are all strings (a machine, a model, a link) is a *choice*, shown
as a drop-down menu in both views; numeric ones are sliders. An explorer may also give a
``readout``: one line of text with the frame's key numbers, shown under the image in both
views, so the numbers can be read, copied and found by a screen reader or a search.
"""

from __future__ import annotations

import base64
import html
import io
import itertools
import json
import numbers
import os
import re
from dataclasses import dataclass, field

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg

from .plots import _ as _tr
from .plots import language as _language
from .plots import min_font_px, translate_figure, translate_text

__all__ = ["Param", "Explorer", "READOUT_GID"]

_MAX_FRAMES = 64
_CONTROLS = ("slider", "dropdown")
#: Give a figure's text artist this gid (``note.set_gid(READOUT_GID)``) and its text, the
#: frame's key numbers, is also shown as HTML text under the image (the explorer's readout).
READOUT_GID = "ic-readout"


def static_frames_enabled():
    """Whether explorers precompute their static frames (``INTERCONNECT_STATIC_FRAMES=1``)."""
    return os.environ.get("INTERCONNECT_STATIC_FRAMES", "") == "1"


@dataclass(frozen=True)
class Param:
    """One slider: a name (the keyword passed to ``update``), a label, and its values.

    Parameters
    ----------
    name : str
        Keyword argument of the ``update`` callback.
    label : str
        Text shown beside the slider, with units.
    values : sequence
        The slider's positions, in order (e.g. bandwidths in bytes/s).
    default : object
        Initial value; must be one of ``values``.
    fmt : callable
        Turns a value into the text shown beside the slider (e.g. ``fmt_bandwidth``).
    control : {"slider", "dropdown"}, optional
        How the value is chosen. Default: a drop-down menu when no value is a number
        (a categorical choice: a machine, a model, a link), a slider otherwise.
    """

    name: str
    label: str
    values: tuple
    default: object
    fmt: object = str
    control: str | None = None
    _labels: tuple = field(default=(), repr=False)

    def __post_init__(self):
        values = tuple(self.values)
        if not values:
            raise ValueError(f"values for parameter {self.name!r} is empty; give at least one value")
        if self.default not in values:
            raise ValueError(f"default={self.default!r} for parameter {self.name!r} is not one of its values {values}")
        object.__setattr__(self, "values", values)
        object.__setattr__(self, "_labels", tuple(str(self.fmt(v)) for v in values))
        control = self.control
        if control is None:
            numeric = any(isinstance(v, numbers.Number) and not isinstance(v, bool) for v in values)
            control = "slider" if numeric else "dropdown"
        if control not in _CONTROLS:
            raise ValueError(f"control={self.control!r} for parameter {self.name!r} is not one of {_CONTROLS}")
        object.__setattr__(self, "control", control)

    @property
    def labels(self):
        return self._labels

    @property
    def default_index(self):
        return self.values.index(self.default)


def _data_uri(png):
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")


def _slug(text):
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "explorer"


class Explorer:
    """A figure with sliders that works live in Jupyter and statically in the book.

    Parameters
    ----------
    title : str
        Shown above the figure; also makes the HTML id (so keep it unique per page).
    params : sequence of Param
        All sliders of the live explorer.
    make_figure : callable
        ``make_figure() -> (fig, update)``; ``update(**values)`` changes the artists
        in place. If it returns the list of artists it changed (always the same ones,
        with the axes fixed), frames are drawn by blitting, several times faster.
    static : sequence of str, optional
        Names of the parameters that the static HTML lets the reader vary (at most
        two, and at most 64 frames in all); the others stay at their default there.
        Default: the first parameter.
    alt : str or callable
        Alt text for the image; a callable gets the parameter values as keywords.
    dpi : int
        Resolution of the rendered frames.
    colors : int or None
        Palette size of the static frames (smaller pages); None keeps full colour.
    readout : callable, optional
        ``readout(**values) -> str``: the frame's key numbers as one line of plain text,
        shown under the image (and updated with it) in both views. Default: the text of
        the figure's artists whose gid is :data:`READOUT_GID`, if it has any.
    """

    def __init__(self, title, params, make_figure, static=None, alt="", dpi=80, colors=128, readout=None):
        self.title = title
        self.params = tuple(params)
        names = [p.name for p in self.params]
        if len(set(names)) != len(names):
            raise ValueError(f"params has repeated names {names}")
        static = tuple(static) if static is not None else names[:1]
        for s in static:
            if s not in names:
                raise ValueError(f"static={static!r}: {s!r} is not a parameter; parameters: {names}")
        n_frames = 1
        for p in self.params:
            if p.name in static:
                n_frames *= len(p.values)
        if n_frames > _MAX_FRAMES:
            raise ValueError(f"static={static!r} needs {n_frames} frames; allowed at most {_MAX_FRAMES}")
        self.static = static
        self.alt = alt
        if readout is not None and not callable(readout):
            raise ValueError(f"readout={readout!r} must be a callable readout(**values) -> str, or None")
        self.readout = readout
        self.dpi = dpi
        self.colors = colors
        self.fig, self.update = make_figure()
        plt.close(self.fig)  # we render it ourselves; keep the inline backend from showing it twice
        FigureCanvasAgg(self.fig)  # a canvas of our own, so draws go straight to a pixel buffer
        self.fig.set_dpi(dpi)
        self.update(**self.defaults)
        # lay out once; frames then share the same axes positions. A figure that brings its own
        # layout engine (e.g. tight layout with a rect that leaves room for a figure-level readout)
        # is laid out by it, then frozen
        engine = self.fig.get_layout_engine()
        if engine is None:
            self.fig.tight_layout()
        else:
            engine.execute(self.fig)
            self.fig.set_layout_engine("none")
        if self.readout is None and self.fig.findobj(lambda a: a.get_gid() == READOUT_GID):
            self.readout = READOUT_GID  # the figure's own note is the readout
        self._background = None
        self._widget = None
        self.id = "ic-explorer-" + _slug(title)

    # -- values and rendering -------------------------------------------------------------
    @property
    def defaults(self):
        return {p.name: p.default for p in self.params}

    def _alt(self, values):
        """The frame's alt text in the figures' language (``plots.translate_text``; unchanged in English)."""
        alt = self.alt(**values) if callable(self.alt) else (self.alt or self.title)
        return translate_text(alt, self.title)

    def _readout(self, values):
        if callable(self.readout):
            return translate_text(str(self.readout(**(self.defaults | values))), self.title)
        if self.readout is None:
            return ""
        self.update(**(self.defaults | values))  # moves the artists only; nothing is drawn
        texts = [translate_text(t.get_text(), self.title)
                 for t in self.fig.findobj(lambda a: a.get_gid() == READOUT_GID)]
        sep = "；" if _language() == "zh" else "; "
        lines = (sep.join(" ".join(ln.split()) for ln in t.splitlines() if ln.strip()) for t in texts)
        return " · ".join(x for x in lines if x)

    def _draw(self, values):
        """Update the figure to ``values`` and return its pixels (H x W x 4, uint8).

        If ``update`` returns the artists it changed, only those are redrawn over a
        cached background (blitting): a few milliseconds instead of a full draw. The
        artists must be the same objects on every call and must not move the axes.
        """
        artists = self.update(**(self.defaults | values))
        translate_figure(self.fig, self.title)  # the Chinese edition: the frame's text in Chinese
        canvas = self.fig.canvas
        if artists is None:
            canvas.draw()
        else:
            artists = list(artists)
            if self._background is None:
                for a in artists:
                    a.set_animated(True)
                canvas.draw()
                self._background = canvas.copy_from_bbox(self.fig.bbox)
            else:
                canvas.restore_region(self._background)
            for a in artists:
                self.fig.draw_artist(a)
        return np.asarray(canvas.buffer_rgba())

    def _png(self, values, colors=None, fast=False):
        from PIL import Image

        img = Image.fromarray(self._draw(values)).convert("RGB")
        if colors:
            img = img.quantize(colors=colors, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
        buf = io.BytesIO()
        img.save(buf, format="PNG", compress_level=1 if fast else 9)
        return buf.getvalue()

    def render(self, **values):
        """Redraw at ``values`` (missing ones at their defaults) and return PNG bytes.

        This is the live widget's callback: fast PNG compression, full colour.
        """
        return self._png(values, fast=True)

    # -- live view ------------------------------------------------------------------------
    def widget(self):
        """The ipywidgets app (created once)."""
        if self._widget is None:
            import ipywidgets as w

            image = w.Image(value=self.render(), format="png", layout=w.Layout(max_width="100%"))
            readout = w.HTML(html.escape(self._readout({})))
            sliders = []
            for p in self.params:
                kind = w.Dropdown if p.control == "dropdown" else w.SelectionSlider
                extra = {} if p.control == "dropdown" else {"continuous_update": True}
                sliders.append(kind(
                    options=list(zip(self._labels(p), range(len(p.values)))), value=p.default_index,
                    description=_tr(p.label), style={"description_width": "initial"},
                    layout=w.Layout(width="95%"), **extra))

            def on_change(_change=None):
                values = {p.name: p.values[s.value] for p, s in zip(self.params, sliders)}
                image.value = self.render(**values)
                readout.value = html.escape(self._readout(values))

            for s in sliders:
                s.observe(on_change, names="value")
            parts = [w.HTML(f"<b>{html.escape(_tr(self.title))}</b>"), *sliders, image]
            self._widget = w.VBox(parts + ([readout] if self.readout is not None else []))
            self._on_change = on_change
            self._sliders = sliders
        return self._widget

    def _labels(self, p):
        """The texts of ``p``'s values in the figures' language (a dropdown's words: 'ring', 'tree')."""
        return [translate_text(lab, self.title) for lab in p.labels]

    # -- static view ----------------------------------------------------------------------
    def frames(self):
        """``{key: data_uri}`` for every combination of the static parameters."""
        stat = [p for p in self.params if p.name in self.static]
        out = {}
        for idx in itertools.product(*[range(len(p.values)) for p in stat]):
            values = {p.name: p.values[i] for p, i in zip(stat, idx)}
            png = self._png(values, colors=self.colors)
            uri = _data_uri(png)
            out["_".join(map(str, idx))] = (uri, self._alt(self.defaults | values), self._readout(values))
        self._draw({})
        return out

    def static_html(self):
        """Self-contained HTML: range sliders, the default frame, and all frames inline."""
        stat = [p for p in self.params if p.name in self.static]
        fixed = [p for p in self.params if p.name not in self.static]
        frames = self.frames()
        default_key = "_".join(str(p.default_index) for p in stat)
        src, alt, readout = frames[default_key]
        rows = []
        for p in stat:
            label = f'<span class="ic-explorer-label">{html.escape(_tr(p.label))}</span>'
            common = f'data-param="{html.escape(p.name)}" aria-label="{html.escape(_tr(p.label))}"'
            if p.control == "dropdown":
                options = "".join(f'<option value="{i}"{" selected" if i == p.default_index else ""}>'
                                  f'{html.escape(lab)}</option>' for i, lab in enumerate(self._labels(p)))
                rows.append(f'<label class="ic-explorer-row">{label}<select {common}>{options}</select></label>')
            else:
                rows.append(
                    f'<label class="ic-explorer-row">{label}'
                    f'<input type="range" min="0" max="{len(p.values) - 1}" step="1" value="{p.default_index}" '
                    f'{common}><output>{html.escape(self._labels(p)[p.default_index])}</output></label>')
        note = ""
        if fixed:
            sep = "，" if "zh" == _language() else ", "
            held = sep.join(f"{html.escape(_tr(p.label))} = {html.escape(self._labels(p)[p.default_index])}"
                            for p in fixed)
            note = f'<div class="ic-explorer-note">{_tr("Held at the default here: {held}. Run the notebook to vary every parameter.").format(held=held)}</div>'  # noqa: E501
        data = {
            "frames": {k: v[0] for k, v in frames.items()},
            "alts": {k: v[1] for k, v in frames.items()},
            "labels": [self._labels(p) for p in stat],
        }
        shown = ""
        if self.readout is not None:
            data["readouts"] = {k: v[2] for k, v in frames.items()}
            shown = f'<p class="ic-explorer-readout" aria-live="polite">{html.escape(readout)}</p>\n'

        payload = json.dumps(data).replace("</", "<\\/")
        # the script below rewrites the hint
        hint = f'<em class="ic-explorer-hint">{html.escape(_tr("(run this cell for live sliders)"))}</em>'
        moving = json.dumps(_tr("(interactive: move the sliders)"))
        # the smallest text of the frame, in px at the PNG's resolution (the browser test scales it)
        img_attrs = f'style="max-width:100%;height:auto" data-min-font-px="{min_font_px(self.fig, self.dpi):.2f}"'

        return f"""<div class="ic-explorer" id="{self.id}">
<div class="ic-explorer-title"><strong>{html.escape(_tr(self.title))}</strong> {hint}</div>
<div class="ic-explorer-controls">{''.join(rows)}</div>
<img class="ic-explorer-frame" src="{src}" alt="{html.escape(alt)}" {img_attrs}>
{shown}{note}
<script type="application/json" class="ic-explorer-data">{payload}</script>
<script>
(function () {{
  var root = document.getElementById("{self.id}");
  if (!root || root.dataset.ready) return;
  root.dataset.ready = "1";
  var hint = root.querySelector(".ic-explorer-hint");
  if (hint) hint.textContent = {moving};
  var data = JSON.parse(root.querySelector(".ic-explorer-data").textContent);
  var inputs = root.querySelectorAll("input[type=range], select[data-param]");
  var img = root.querySelector("img.ic-explorer-frame");
  var readout = root.querySelector(".ic-explorer-readout");
  function show() {{
    var key = Array.prototype.map.call(inputs, function (el) {{ return el.value; }}).join("_");
    Array.prototype.forEach.call(inputs, function (el, i) {{
      var out = el.parentNode.querySelector("output");
      if (out) out.textContent = data.labels[i][el.value];
    }});
    if (data.frames[key]) {{ img.src = data.frames[key]; img.alt = data.alts[key]; }}
    if (readout && data.readouts && data.readouts[key] !== undefined) readout.textContent = data.readouts[key];
  }}
  Array.prototype.forEach.call(inputs, function (el) {{
    el.addEventListener("input", show);
    el.addEventListener("change", show);
  }});
}})();
</script>
</div>"""

    # -- display --------------------------------------------------------------------------
    def _repr_mimebundle_(self, include=None, exclude=None):
        bundle = {}
        try:
            live = self.widget()._repr_mimebundle_(include=include, exclude=exclude)
            bundle.update(live if isinstance(live, dict) else {})
        except Exception:  # no ipywidgets front-end support: the static view still works
            pass
        bundle["text/plain"] = f"Explorer: {self.title} (live sliders in Jupyter, precomputed frames in the book)"
        bundle["text/html"] = self.static_html() if static_frames_enabled() else self.fallback_html()
        return bundle

    def fallback_html(self):
        """The default frame alone, for a live front-end without ipywidgets (no precomputed frames)."""
        png = self._png({}, colors=self.colors)
        uri = _data_uri(png)
        readout = self._readout({})
        shown = f'<p class="ic-explorer-readout">{html.escape(readout)}</p>' if self.readout is not None else ""
        alt = html.escape(self._alt(self.defaults))
        note = html.escape(_tr("The default frame; the sliders need ipywidgets in a live Jupyter front-end."))
        return (f'<div class="ic-explorer"><div class="ic-explorer-title"><strong>{html.escape(_tr(self.title))}'
                f'</strong></div><img class="ic-explorer-frame" src="{uri}" alt="{alt}"'
                f' style="max-width:100%;height:auto">{shown}<div class="ic-explorer-note">{note}</div></div>')
