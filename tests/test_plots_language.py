"""Figures in Chinese: ``plots.set_language("zh")`` (a CJK font, titles and labels through ``plots._``)."""

from __future__ import annotations

import warnings

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402

from interconnect import plots, plots_zh  # noqa: E402


@pytest.fixture
def zh():
    plots.set_language("zh")
    try:
        plots._cjk_font()
    except RuntimeError as exc:
        plots.set_language("en")
        pytest.skip(str(exc))
    yield
    plots.set_language("en")




def test_english_is_the_default_and_unchanged():
    assert plots.language() in plots.LANGUAGES
    plots.set_language("en")
    assert plots._("AllReduce time") == "AllReduce time"
    fig, ax = plots.new_figure("AllReduce time", "message size n", "time")
    assert ax.get_title() == "AllReduce time"
    assert "CJK" not in " ".join(plt.rcParams["font.sans-serif"][:1])
    plt.close(fig)


def test_chinese_figure_has_chinese_text_and_no_missing_glyph(zh):
    with warnings.catch_warnings():
        warnings.simplefilter("error")   # matplotlib warns "Glyph ... missing from font(s)"
        fig, ax = plots.new_figure("AllReduce time", "message size n", "bus bandwidth (per direction)")
        ax.plot([1, 2], [1, 2], label=plots._("fastest in library"))
        ax.legend()
        png = plots.png_bytes(fig)
    assert ax.get_title() == "AllReduce 耗时" and ax.get_ylabel() == "总线带宽（单向）"
    assert png.startswith(b"\x89PNG")
    assert plt.rcParams["font.sans-serif"][0] in plots.CJK_FONTS
    plt.close(fig)


def test_templates_keep_their_fields():
    import string

    for en, zh in plots_zh.MESSAGES.items():
        fields = sorted(f for _, f, _, _ in string.Formatter().parse(en) if f)
        assert fields == sorted(f for _, f, _, _ in string.Formatter().parse(zh) if f), en


def test_untranslated_text_is_drawn_in_english_and_listed(zh):
    assert plots._("a label nobody translated") == "a label nobody translated"
    assert "a label nobody translated" in plots.missing_translations()


def test_unknown_language_is_a_value_error():
    with pytest.raises(ValueError, match="lang='fr'"):
        plots.set_language("fr")


def test_explorer_in_chinese(zh):
    """The data-parallel explorer: its title, slider labels and figure text in Chinese, nothing left in English."""
    from interconnect.viz.explorers.three_walls import dp_scaling_explorer

    before = set(plots.missing_translations())
    exp = dp_scaling_explorer()
    page = exp.static_html()
    assert "数据并行效率探索器" in page and "每步计算时间（单卡）" in page
    assert exp.fig.axes[0].get_xlabel() == "GPU 数量"
    assert set(plots.missing_translations()) == before
    plt.close(exp.fig)
