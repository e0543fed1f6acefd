"""Shared figure style and small plotting helpers.

Every figure in the book goes through :func:`use_style` and :func:`new_figure`, so all
of them share one look: the Okabe-Ito colour-blind-safe palette, labelled axes with
units, a title, and light grid lines that stay readable in the dark theme (figures keep
a white background).

References
----------
M. Okabe and K. Ito, "Color Universal Design (CUD): how to make figures and
presentations that are friendly to colorblind people", 2008.
"""

from __future__ import annotations

import base64
import io
import os

import matplotlib
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.ticker import FixedLocator, FuncFormatter, NullFormatter  # noqa: E402

from .units import fmt_bytes, fmt_time  # noqa: E402

#: Okabe-Ito palette: blue, orange, bluish green, vermillion, reddish purple, sky blue, yellow, black.
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000")
#: Line styles to pair with colours, so lines differ without colour too.
LINESTYLES = ("-", "--", "-.", ":", (0, (5, 1)), (0, (3, 1, 1, 1)), (0, (1, 1)), "-")

__all__ = ["PALETTE", "LINESTYLES", "use_style", "new_figure", "png_bytes", "png_data_uri",
           "bytes_axis", "time_axis", "annotate_point", "min_font_px", "MIN_FONT_KEY",
           "set_language", "language", "missing_translations", "LANGUAGES", "CJK_FONTS"]

#: Languages the figures can be drawn in.
LANGUAGES = ("en", "zh")
#: CJK fonts for Chinese figures, the first one installed wins (Debian: fonts-noto-cjk, fonts-wqy-zenhei).
CJK_FONTS = ("Noto Sans CJK SC", "WenQuanYi Zen Hei")
_STATE = {"lang": None, "missing": set()}
_DEFAULT_SANS = list(matplotlib.rcParams["font.sans-serif"])


def _check_lang(lang):
    if lang not in LANGUAGES:
        raise ValueError(f"lang={lang!r} is not a language of the figures; expected one of {list(LANGUAGES)}")
    return lang


def language():
    """The figures' language: :func:`set_language`'s, else ``INTERCONNECT_LANG``, else ``"en"``."""
    if _STATE["lang"] is None:
        env = os.environ.get("INTERCONNECT_LANG", "en") or "en"
        _STATE["lang"] = _check_lang(env.split("_")[0].split("-")[0].lower())   # zh_CN, zh-CN: zh
    return _STATE["lang"]


def set_language(lang):
    """Draw the figures that follow in ``lang`` (``"en"`` or ``"zh"``).

    ``"zh"`` switches matplotlib to a CJK font (:data:`CJK_FONTS`; a RuntimeError says how to
    install one if none is) and translates titles, axis labels, legends and notes through
    ``plots._`` and the table in :mod:`interconnect.plots_zh`. The environment variable
    ``INTERCONNECT_LANG=zh`` does the same for a whole run (a notebook executed for the
    Chinese edition).
    """
    _STATE["lang"] = _check_lang(lang)
    use_style()


def _cjk_font():
    from matplotlib import font_manager

    for attempt in range(2):
        names = {f.name for f in font_manager.fontManager.ttflist}
        for name in CJK_FONTS:
            if name in names:
                return name
        if attempt == 0:
            # matplotlib's font cache predates the font's install: add the CJK files it did not list
            for path in font_manager.findSystemFonts():
                if any(k in os.path.basename(path) for k in ("NotoSansCJK-Regular", "NotoSansCJK-Bold", "wqy-zenhei")):
                    font_manager.fontManager.addfont(path)
    raise RuntimeError(f"no CJK font for Chinese figures (looked for {list(CJK_FONTS)}); "
                       "install Debian's fonts-noto-cjk (apt-get install fonts-noto-cjk), as .ci/run does")


def _(text):
    """``text`` in the figures' language: every title, label and legend entry goes through here.

    A template with ``{fields}`` is translated before the caller formats it. Text with no
    Chinese entry is returned in English and recorded (:func:`missing_translations`).
    """
    if language() == "en" or not text:
        return text
    from .plots_zh import MESSAGES

    if text not in MESSAGES:
        if not any("\u4e00" <= ch <= "\u9fff" for ch in text):   # not translated already (a formatted template)
            _STATE["missing"].add(text)
        return text
    return MESSAGES[text]


def missing_translations():
    """The figure texts drawn in English since the language was set to Chinese, sorted."""
    return sorted(_STATE["missing"])

#: PNG text chunk in which a notebook figure records the pixel height of its smallest text
#: (at the PNG's own resolution); the browser test scales it to the width the page shows.
MIN_FONT_KEY = "ic-min-font-px"


def min_font_px(fig, dpi=None):
    """Size of the smallest visible text of ``fig`` in pixels at ``dpi`` (default: the figure's).

    ``points x dpi / 72`` over every visible, non-empty text artist (titles, labels, tick
    labels, legends, annotations). A page that shows the PNG narrower than its natural width
    shrinks this in proportion; the book asks for at least 9 px as the reader sees it.
    """
    from matplotlib.text import Text

    sizes = [t.get_fontsize() for t in fig.findobj(Text) if t.get_visible() and t.get_text().strip()]
    return min(sizes) * (dpi or fig.dpi) / 72.0 if sizes else float("inf")


def _png_formatter(fig):
    """IPython's PNG of a figure (as matplotlib-inline makes it), with :data:`MIN_FONT_KEY` recorded."""
    buf = io.BytesIO()
    fig.canvas.draw()  # tick labels exist only after a draw
    meta = {"Software": None, MIN_FONT_KEY: f"{min_font_px(fig):.2f}"}
    fig.savefig(buf, format="png", bbox_inches="tight", facecolor=fig.get_facecolor(), metadata=meta)
    return base64.b64encode(buf.getvalue()).decode("ascii")


def _register_png_formatter():
    try:
        from IPython import get_ipython
    except ImportError:  # pragma: no cover - IPython is installed with the book's requirements
        return
    ip = get_ipython()
    if ip is None:
        return
    from matplotlib.figure import Figure

    # pyplot loads its backend lazily, and matplotlib-inline registers its own PNG formatter
    # when it loads: load it first, so that this one is registered last and stays.
    getattr(plt, "_get_backend_mod", lambda: None)()
    ip.display_formatter.formatters["image/png"].for_type(Figure, _png_formatter)


def use_style():
    """Apply the book's matplotlib style (idempotent)."""
    plt.rcParams.update({
        "figure.figsize": (7.0, 4.0),
        "figure.dpi": 100,
        "figure.facecolor": "white",
        "axes.facecolor": "white",
        "axes.prop_cycle": matplotlib.cycler(color=list(PALETTE)),
        "axes.grid": True,
        "grid.alpha": 0.35,
        "grid.linewidth": 0.6,
        "axes.spines.top": False,
        "axes.spines.right": False,
        "axes.titlesize": 12,
        "axes.titleweight": "bold",
        "axes.labelsize": 10.5,
        "legend.fontsize": 9,
        "legend.frameon": False,
        "xtick.labelsize": 9,
        "ytick.labelsize": 9,
        "lines.linewidth": 2.0,
        "savefig.bbox": "tight",
        "svg.hashsalt": "interconnect",
        "figure.max_open_warning": 0,
    })
    if language() == "zh":
        plt.rcParams["font.sans-serif"] = [_cjk_font()] + _DEFAULT_SANS
        plt.rcParams["axes.unicode_minus"] = False
    elif plt.rcParams["font.sans-serif"] != _DEFAULT_SANS:
        plt.rcParams["font.sans-serif"] = list(_DEFAULT_SANS)
        plt.rcParams["axes.unicode_minus"] = True
    _register_png_formatter()


def new_figure(title, xlabel, ylabel, figsize=None, ncols=1, sharey=False):
    """A styled figure with a title and labelled axes.

    Parameters
    ----------
    title : str
        Figure title (a suptitle when ``ncols > 1``).
    xlabel, ylabel : str or sequence of str
        Axis labels, with units, e.g. ``"message size (bytes)"``; drawn, like the title, in
        the figures' language (:func:`set_language`).

    Returns
    -------
    (Figure, Axes or array of Axes)
    """
    use_style()
    fig, axes = plt.subplots(1, ncols, figsize=figsize, sharey=sharey, squeeze=True)
    axs = [axes] if ncols == 1 else list(axes)
    xl = [xlabel] * ncols if isinstance(xlabel, str) else list(xlabel)
    yl = [ylabel] * ncols if isinstance(ylabel, str) else list(ylabel)
    for ax, x, y in zip(axs, xl, yl):
        ax.set_xlabel(_(x))
        ax.set_ylabel(_(y))
    if ncols == 1:
        axes.set_title(_(title))
    else:
        fig.suptitle(_(title), fontweight="bold")
    return fig, axes


def png_bytes(fig, dpi=80, colors=None):
    """PNG bytes of ``fig``, with no timestamp or software tag (byte-for-byte repeatable).

    Parameters
    ----------
    colors : int, optional
        If given, quantise to a palette of this many colours (2 to 256): about three
        times smaller files for line charts, which matters for explorers that inline
        dozens of frames in one page.
    """
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi, metadata={"Software": None})
    if colors is None:
        return buf.getvalue()
    if not (isinstance(colors, int) and 2 <= colors <= 256):
        raise ValueError(f"colors={colors!r} is not allowed; give an integer from 2 to 256 or None")
    from PIL import Image

    buf.seek(0)
    img = Image.open(buf).convert("RGB").quantize(colors=colors, method=Image.Quantize.MEDIANCUT,
                                                  dither=Image.Dither.NONE)
    out = io.BytesIO()
    img.save(out, format="PNG", optimize=True)
    return out.getvalue()


def png_data_uri(fig, dpi=80, colors=None):
    """``data:image/png;base64,...`` of ``fig``, for embedding in static HTML."""
    return "data:image/png;base64," + base64.b64encode(png_bytes(fig, dpi, colors)).decode("ascii")


def bytes_axis(ax, axis="x", binary=True):
    """Log axis in bytes: binary labels at 1 KiB, 32 KiB, 1 MiB, ... (or decimal 1 kB, 1 MB, ...)."""
    target = ax.xaxis if axis == "x" else ax.yaxis
    if binary:
        (ax.set_xscale if axis == "x" else ax.set_yscale)("log", base=2)
        target.set_major_locator(FixedLocator([2.0**k for k in range(0, 61, 5)]))
        target.set_minor_locator(FixedLocator([2.0**k for k in range(0, 61)]))
        target.set_minor_formatter(NullFormatter())
        target.set_major_formatter(FuncFormatter(lambda v, _: fmt_bytes(v, binary=True) if v > 0 else ""))
    else:
        (ax.set_xscale if axis == "x" else ax.set_yscale)("log", base=10)
        target.set_major_formatter(FuncFormatter(lambda v, _: fmt_bytes(v, binary=False) if v > 0 else ""))
    return ax


def time_axis(ax, axis="y"):
    """Log axis in seconds labelled as µs / ms / s."""
    target = ax.yaxis if axis == "y" else ax.xaxis
    (ax.set_yscale if axis == "y" else ax.set_xscale)("log")
    target.set_major_formatter(FuncFormatter(lambda v, _: fmt_time(v) if v > 0 else ""))
    return ax


def annotate_point(ax, x, y, text, dx=10, dy=10, color="black"):
    """A labelled marker at (x, y), offset by (dx, dy) points."""
    ax.plot([x], [y], "o", color=color, ms=5, zorder=5)
    ax.annotate(text, (x, y), xytext=(dx, dy), textcoords="offset points", fontsize=9, color=color,
                arrowprops=dict(arrowstyle="-", color=color, lw=0.6))
