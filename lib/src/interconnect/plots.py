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
import json
import os
import re

import matplotlib
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.ticker import FixedLocator, Formatter, FuncFormatter, NullFormatter  # noqa: E402

from .units import fmt_bytes, fmt_time  # noqa: E402

#: Okabe-Ito palette: blue, orange, bluish green, vermillion, reddish purple, sky blue, yellow, black.
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000")
#: Line styles to pair with colours, so lines differ without colour too.
LINESTYLES = ("-", "--", "-.", ":", (0, (5, 1)), (0, (3, 1, 1, 1)), (0, (1, 1)), "-")

__all__ = ["PALETTE", "LINESTYLES", "use_style", "new_figure", "png_bytes", "png_data_uri",
           "bytes_axis", "time_axis", "annotate_point", "min_font_px", "MIN_FONT_KEY",
           "set_language", "language", "missing_translations", "LANGUAGES", "CJK_FONTS",
           "translate_text", "translate_figure", "english_words"]

#: Languages the figures can be drawn in.
LANGUAGES = ("en", "zh")
#: CJK fonts for Chinese figures, the first one installed wins (Debian: fonts-noto-cjk, fonts-wqy-zenhei).
CJK_FONTS = ("Noto Sans CJK SC", "WenQuanYi Zen Hei")
_STATE = {"lang": None, "missing": set(), "missing_logged": set()}
_DEFAULT_SANS = list(matplotlib.rcParams["font.sans-serif"])
_DEFAULT_MONO = list(matplotlib.rcParams["font.monospace"])
_DEFAULT_SERIF = list(matplotlib.rcParams["font.serif"])
_DEFAULT_FAMILY = list(matplotlib.rcParams["font.family"])


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

    A template with ``{fields}`` is translated before the caller formats it; a text already
    formatted is matched against the templates (:func:`translate_text`). Text with no Chinese
    entry is returned in English and, if it holds an English word, recorded
    (:func:`missing_translations`).
    """
    return translate_text(text)


def missing_translations():
    """The figure texts drawn in English since the language was set to Chinese, sorted."""
    return sorted(_STATE["missing"])


_CJK = re.compile(r"[\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]")
_HAN_SPACE = re.compile(r"(?<=[\u4e00-\u9fff]) +(?=[\u4e00-\u9fff])")
_WORD = re.compile(r"[A-Za-z0-9_]+(?:[-'][A-Za-z0-9_]+)*")
_MATH = re.compile(r"\$[^$]*\$")
#: English words of one or two letters that a label in English always has some of
_SHORT = re.compile(r"(?<![A-Za-z0-9_$\\{-])(?:of|on|in|at|to|by|or|vs|is|as|an)(?![A-Za-z0-9_}-])")
_NUMBER = r"[-+−]?\d(?:[\d,]*\d)?(?:\.\d+)?(?:e[-+]?\d+)?"
_FIELD = re.compile(r"\{(\w+)(?:![rsa])?(?::[^{}]*)?\}")


def english_words(text):
    """The English words of ``text`` a Chinese figure should not show, in order.

    A word is a run of ASCII letters (with digits, ``-`` or ``'`` inside) with three or more
    letters; names a Chinese engineer reads in English are allowed: acronyms in capitals
    (GPU, NCCL, H100), and the names, units and symbols listed in
    :data:`interconnect.plots_zh.ALLOWED_WORDS` (NVLink, AllReduce, Llama, GiB ...).

    >>> english_words("AllReduce time on 8 GPUs (NVLink 4, GB/s)")
    ['on', 'time', 'GPUs']
    >>> english_words("全归约耗时（µs）")
    []
    """
    from .plots_zh import ALLOWED_WORDS

    out = []
    # a template's {fields} and mathtext ($\\mathdefault{10^{3}}$, $\\alpha$) are not English
    text = _FIELD.sub(" ", _MATH.sub(" ", text))
    out += _SHORT.findall(text)   # "AllReduce of 2 GB": a short word gives the English away
    for m in _WORD.finditer(text):
        if m.group() in ALLOWED_WORDS:   # a hyphenated name: nccl-tests, PipeDream-Flush
            continue
        for w in m.group().replace("'", "-").split("-"):
            letters = sum(ch.isalpha() for ch in w)
            if letters < 3 or w in ALLOWED_WORDS:
                continue
            if w.upper() == w:   # an acronym in capitals: GPU, NCCL
                continue
            if any(ch.isdigit() or ch == "_" for ch in w):   # a model number, a name, code: H100, nvsw0, tp_overlap
                continue
            out.append(w)
    return out


def _templates():
    """The MESSAGES keys with ``{fields}``, as (regex, longest literal part, Chinese template),
    the one with the most literal text first."""
    if "templates" not in _STATE:
        from .plots_zh import MESSAGES

        out = []
        for en, zh in MESSAGES.items():
            fields = list(_FIELD.finditer(en))
            if not fields:
                continue
            pattern, seen, literals, at = "", set(), [], 0
            for f in fields:
                literals.append(en[at:f.start()])
                pattern += re.escape(en[at:f.start()])
                name, at = f.group(1), f.end()
                if name in seen:
                    pattern += f"(?P={name})"
                else:
                    seen.add(name)
                    # a field with a format spec ({x:.1f}, {n:d}) holds a number; one without, any text
                    pattern += f"(?P<{name}>{_NUMBER if ':' in f.group() else '.+?'})"
            literals.append(en[at:])
            pattern += re.escape(en[at:])
            literal = max(literals, key=len)
            if not literal:   # fields alone ("{a}{b}") would match anything
                continue
            out.append((re.compile(pattern), literal, zh, sum(map(len, literals))))   # a field holds one line
        out.sort(key=lambda t: -t[3])   # the most specific template (most literal text) first
        out = [t[:3] for t in out]
        _STATE["templates"] = out
    return _STATE["templates"]


def _lookup(text):
    """The Chinese of ``text`` from the table: an exact key, else a template; None if neither."""
    from .plots_zh import MESSAGES

    if text in MESSAGES:
        return MESSAGES[text]
    stripped = text.strip().rstrip(",:;").rstrip()   # a label's spaces and trailing punctuation stay
    if stripped != text and stripped:
        found = _lookup(stripped)
        if found is not None:
            i = text.index(stripped)
            return text[:i] + found + text[i + len(stripped):]
    for regex, literal, zh in _templates():
        if literal not in text:
            continue
        m = regex.fullmatch(text)
        if m is None:
            continue
        # a captured value is translated too ("{link}" may be "NVLink 4 (H100, 18 links)")
        values = {k: _translate(v) if _WORD.search(v) else v for k, v in m.groupdict().items()}
        return _FIELD.sub(lambda f, values=values: values[f.group(1)], zh)
    return None


_SEPARATORS = ("\n", " · ", "; ")


def _translate(text):
    found = _lookup(text)
    if found is not None:
        return found
    for sep in _SEPARATORS:   # a multi-line note or a readout of several parts: part by part
        if sep in text:
            return sep.replace("; ", "；").join(_translate(part) for part in text.split(sep))
    return text


def translate_text(text, where=None):
    """``text`` in the figures' language (:func:`language`); unchanged in English.

    In Chinese: the entry of :data:`interconnect.plots_zh.MESSAGES` for ``text``; else the
    first template key (``{name}`` or ``{name:spec}`` fields) that matches the whole text,
    its captured values put into the Chinese template; else, part by part, the lines of a
    multi-line text and the parts of a readout (`` · `` or ``; ``). Text already in Chinese
    is left as it is. Text left with an English word (:func:`english_words`) is recorded:
    :func:`missing_translations`, and a line appended to the file named by the environment
    variable ``INTERCONNECT_MISSING_LOG`` (with ``where``, e.g. the figure's title).
    """
    if not text or language() == "en":
        return text
    cache = _STATE.setdefault("cache", {})
    if text in cache:
        out = cache[text]
    else:
        out = text if _CJK.search(text) else _translate(text)   # Chinese already: left as it is
        # a field filled in before Chinese text leaves a space between two Han characters
        out = _HAN_SPACE.sub("", out)
        cache[text] = out
    if english_words(out):
        _record_missing(out, where, source=text)
    return out


def _record_missing(text, where=None, source=None):
    key = (text, where)
    if key in _STATE["missing_logged"]:
        return
    _STATE["missing_logged"].add(key)
    _STATE["missing"].add(text)
    path = os.environ.get("INTERCONNECT_MISSING_LOG")
    if path:
        context = os.environ.get("INTERCONNECT_NOTEBOOK") or os.getcwd()
        if where:
            context += f" | {where}"
        row = {"text": text, "where": context} | ({"source": source} if source and source != text else {})
        line = json.dumps(row, ensure_ascii=False)
        with open(path, "a", encoding="utf-8") as f:   # now, not at exit: a kernel may not run atexit
            f.write(line + "\n")


class _TranslatedFormatter(Formatter):
    """A tick formatter's labels in the figures' language (categorical ticks: machine names ...)."""

    def __init__(self, inner, where):
        self.inner, self.where = inner, where

    def set_axis(self, axis):
        self.axis = axis
        self.inner.set_axis(axis)

    def __call__(self, x, pos=None):
        return translate_text(self.inner(x, pos), self.where)

    def format_ticks(self, values):
        return [translate_text(t, self.where) for t in self.inner.format_ticks(values)]

    def set_locs(self, locs):
        self.inner.set_locs(locs)

    def get_offset(self):
        return translate_text(self.inner.get_offset(), self.where)

    def format_data_short(self, value):
        return self.inner.format_data_short(value)

    def __getattr__(self, name):   # the wrapped formatter's own settings (set_scientific ...)
        if name == "inner":
            raise AttributeError(name)
        return getattr(self.inner, name)


def _figure_name(fig):
    titles = [fig._suptitle.get_text()] if getattr(fig, "_suptitle", None) is not None else []
    titles += [ax.get_title() for ax in fig.axes]
    return next((t for t in titles if t), "")


def translate_figure(fig, where=None):
    """Put every text of ``fig`` into the figures' language, in place; returns ``fig``.

    Titles, suptitles, axis labels, legend entries, annotations, free text and tick labels
    (their formatters are wrapped, since a draw sets tick labels anew) go through
    :func:`translate_text`. Nothing changes in English. The book's PNGs of figures
    (``_png_formatter``), :func:`png_bytes` and the explorers' frames call this before
    drawing, so a chapter's own ``ax.set_title("...")`` is drawn in Chinese in the Chinese
    edition without a change to the chapter.
    """
    if language() == "en":
        return fig
    from matplotlib.text import Text

    where = where or _figure_name(fig)
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            for major in (True, False):
                fmt = axis.get_major_formatter() if major else axis.get_minor_formatter()
                if isinstance(fmt, (_TranslatedFormatter, NullFormatter)):
                    continue
                wrapped = _TranslatedFormatter(fmt, where)
                # keep the axis's default-formatter flags: units (categories) may still set theirs
                flag = "isDefault_majfmt" if major else "isDefault_minfmt"
                default = getattr(axis, flag, None)
                (axis.set_major_formatter if major else axis.set_minor_formatter)(wrapped)
                if default is not None:
                    setattr(axis, flag, default)
    for t in fig.findobj(Text):
        s = t.get_text()
        if s and not isinstance(s, (int, float)):
            new = translate_text(str(s), where)
            if new != s:
                t.set_text(new)
            if t.get_style() != "normal" and _CJK.search(new):   # the CJK font has no italic: it would not be used
                t.set_style("normal")
            family = t.get_family()
            for generic in ("monospace", "serif"):   # its Latin font first, then the CJK font for the rest
                if family and family[0] == generic:
                    names = plt.rcParams[f"font.{generic}"]
                    t.set_family([names[0], _cjk_font()])
    return fig

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
    translate_figure(fig)  # the Chinese edition: the chapter's own English labels drawn in Chinese
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
        cjk = _cjk_font()
        plt.rcParams["font.sans-serif"] = [cjk] + _DEFAULT_SANS
        # monospace and serif text (an explorer's aligned table) keep their Latin font, CJK glyphs fall back
        plt.rcParams["font.monospace"] = _DEFAULT_MONO[:1] + [cjk] + _DEFAULT_MONO[1:]
        plt.rcParams["font.serif"] = _DEFAULT_SERIF[:1] + [cjk] + _DEFAULT_SERIF[1:]
        # a glyph the CJK font lacks (superscript digits: 2³⁰) falls back to DejaVu Sans
        plt.rcParams["font.family"] = ["sans-serif", "DejaVu Sans"]
        plt.rcParams["axes.unicode_minus"] = False
    elif plt.rcParams["font.sans-serif"] != _DEFAULT_SANS:
        plt.rcParams["font.family"] = list(_DEFAULT_FAMILY)
        plt.rcParams["font.sans-serif"] = list(_DEFAULT_SANS)
        plt.rcParams["font.monospace"] = list(_DEFAULT_MONO)
        plt.rcParams["font.serif"] = list(_DEFAULT_SERIF)
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
    translate_figure(fig)
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
