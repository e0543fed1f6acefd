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


# --- render-time translation: the template matcher and the English-word detector -----------

def test_template_matches_a_formatted_text(zh):
    assert plots.translate_text("one step on 8 GPUs over NVLink 4") == "8 块 GPU 经 NVLink 4 完成一步"
    assert plots.translate_text("Data-parallel training of a 70B-parameter model") == "70B 参数模型的数据并行训练"
    # a template with a format spec matches whatever the spec printed
    key = "compute {compute}, AllReduce {comm}\nefficiency {eff}, speedup {speedup}×"
    assert key in plots_zh.MESSAGES
    text = "compute 1.2 s, AllReduce 0.3 s\nefficiency 80 %, speedup 6.4×"
    assert plots.translate_text(text) == "计算 1.2 s，AllReduce 0.3 s\n效率 80 %，加速比 6.4×"


@pytest.fixture
def extra_messages(zh, monkeypatch):
    """Add entries to the Chinese table for one test (its compiled templates rebuilt around it)."""
    table = dict(plots_zh.MESSAGES)
    monkeypatch.setattr(plots_zh, "MESSAGES", table)
    monkeypatch.setitem(plots._STATE, "cache", {})
    plots._STATE.pop("templates", None)
    yield table
    plots._STATE.pop("templates", None)


def test_templates_with_specs_and_repeated_fields(extra_messages):
    extra_messages["{n:d} GPUs at {bw:.1f} GB/s"] = "{n:d} 块 GPU，{bw:.1f} GB/s"
    extra_messages["{a} vs {a}"] = "{a} 对 {a}"
    assert plots.translate_text("8 GPUs at 450.0 GB/s") == "8 块 GPU，450.0 GB/s"
    assert plots.translate_text("x vs x") == "x 对 x"
    assert plots.translate_text("x vs y") == "x vs y"   # a repeated field must repeat its value


def test_no_space_is_left_between_two_han_characters(extra_messages):
    # a field filled in before Chinese text ("{t:g} 分钟 后"): no space between the Han
    # characters; spaces beside numbers and Latin words stay
    extra_messages["after {t:g} min"] = "{t:g} 分钟 后"
    assert plots.translate_text("after 10 min") == "10 分钟后"
    assert plots.translate_text("8 GPUs") == "8 块 GPU"


def test_multi_line_and_readout_parts_are_translated_part_by_part(zh):
    assert plots.translate_text("AllReduce time\ntime") == "AllReduce 耗时\n时间"
    assert plots.translate_text("compute · time") == "计算 · 时间"


def test_chinese_text_is_left_alone(zh):
    assert plots.translate_text("已经是中文 time") == "已经是中文 time"


def test_english_word_detector():
    assert plots.english_words("AllReduce time on 8 GPUs (NVLink 4, GB/s)") == ["on", "time", "GPUs"]
    assert plots.english_words("AllReduce of 2 GB") == ["of"]   # short words count too
    assert plots.english_words("(p-1)/m, dp=4 tp=2, $x$ = $y$") == []
    assert plots.english_words("H100 SXM, NCCL 2.18, 400 Gbit/s InfiniBand, 1 MiB, 10 µs") == []
    assert plots.english_words("HBM3e, B200, PCIe Gen5 x16, nvsw0, bf16") == []
    assert plots.english_words("AllReduce 耗时（单向，GB/s）") == []
    assert plots.english_words("bus bandwidth") == ["bus", "bandwidth"]
    assert plots.english_words("2x, t, cp, ep") == []   # other words of fewer than three letters are let through
    assert "NVLink" in plots_zh.ALLOWED_WORDS and "Llama" in plots_zh.ALLOWED_WORDS


def test_figure_is_translated_at_render_time(zh):
    """A chapter's own English labels, categorical ticks and legend come out in Chinese when drawn."""
    fig, ax = plt.subplots()
    ax.bar(["compute", "time"], [1, 2], label="compute")
    ax.set_title("AllReduce time")
    ax.set_xlabel("GPUs")
    ax.legend()
    ax.annotate("fastest in library", (0, 1))
    png = plots.png_bytes(fig)
    assert png.startswith(b"\x89PNG")
    assert ax.get_title() == "AllReduce 耗时" and ax.get_xlabel() == "GPU 数量"
    assert [t.get_text() for t in ax.get_xticklabels()] == ["计算", "时间"]
    assert ax.get_legend().get_texts()[0].get_text() == "计算"
    assert "库中最快的算法" in [t.get_text() for t in ax.texts]
    plt.close(fig)


def test_english_figure_is_untouched():
    plots.set_language("en")
    fig, ax = plt.subplots()
    ax.set_title("AllReduce time")
    formatter = ax.xaxis.get_major_formatter()
    plots.translate_figure(fig)
    assert ax.get_title() == "AllReduce time" and ax.xaxis.get_major_formatter() is formatter
    plt.close(fig)


def test_missing_text_is_logged_at_once(zh, tmp_path, monkeypatch):
    log = tmp_path / "missing.txt"
    monkeypatch.setenv("INTERCONNECT_MISSING_LOG", str(log))
    monkeypatch.setenv("INTERCONNECT_NOTEBOOK", "book/x.ipynb")
    fig, ax = plt.subplots()
    ax.set_title("a title nobody translated")
    plots.translate_figure(fig)
    plt.close(fig)
    import json

    rows = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    assert {"text": "a title nobody translated", "where": "book/x.ipynb | a title nobody translated"} in rows


def test_monospace_and_superscripts_have_every_glyph(zh):
    """An explorer's aligned table (monospace) and 2³⁰ in a Chinese label: no missing glyph (tofu)."""
    fig, ax = plt.subplots()
    ax.text(0, 0.5, "training", family="monospace")
    ax.text(0, 0.2, "each layer builds on the one below", style="italic")   # no CJK italic: drawn upright
    ax.set_ylabel("memory per GPU (GiB = 2³⁰ bytes)")
    with warnings.catch_warnings():
        warnings.simplefilter("error")   # matplotlib warns "Glyph ... missing from font(s)"
        plots.png_bytes(fig)
    assert ax.texts[0].get_text().startswith("训练")
    plt.close(fig)


def _book_explorer_alts():
    """Every explorer frame's alt text in the committed notebook outputs (English), with its title."""
    import glob
    import html
    import json
    import pathlib
    import re

    root = pathlib.Path(__file__).resolve().parents[1]
    out = []
    for path in sorted(glob.glob(str(root / "book" / "**" / "*.ipynb"), recursive=True)):
        for cell in json.loads(pathlib.Path(path).read_text(encoding="utf-8"))["cells"]:
            for output in cell.get("outputs", []):
                page = "".join(output.get("data", {}).get("text/html", ""))
                m = re.search(r'class="ic-explorer-data">(.*?)</script>', page, re.S)
                if m:
                    title = html.unescape(re.search(r'ic-explorer-title"><strong>(.*?)</strong>', page).group(1))
                    out += [(title, alt) for alt in json.loads(m.group(1))["alts"].values()]
    return out


def test_explorer_alt_text_in_chinese(zh):
    from interconnect.widgets import Explorer, Param

    def make_figure():
        fig, ax = plt.subplots(figsize=(2.0, 1.5))
        (line,) = ax.plot([0, 1], [0, 1])
        return fig, lambda step: line.set_ydata([0, step])

    alt = lambda step: (f"Ring of 4 ranks, each holding 4 chunks, after {step} of 6 steps of a ring AllReduce; "  # noqa: E731
                        "colours show how many ranks' data each chunk has summed.")
    ex = Explorer("Ring AllReduce, step by step (4 ranks)", [Param("step", "step", (0, 1, 2), default=0)],
                  make_figure, alt=alt)
    frames = ex.frames()
    assert frames["2"][1] == ("4 个 rank 组成的环，每个 rank 持有 4 个数据块，环形 AllReduce 共 6 步，此时已完成 2 步；"
                              "颜色表示每个数据块已累加了多少个 rank 的数据。")
    assert 'alt="4 个 rank 组成的环' in ex.static_html() and 'alt="4 个 rank 组成的环' in ex.fallback_html()
    # an alt with no Chinese is recorded like any figure text drawn in English (the zh build fails on it)
    Explorer("Untranslated", [Param("step", "step", (0, 1), default=0)], make_figure,
             alt=lambda step: f"An alt text nobody translated, frame {step}").frames()
    assert "An alt text nobody translated, frame 1" in plots.missing_translations()


def test_explorer_alt_text_in_english_unchanged():
    from interconnect.widgets import Explorer, Param

    plots.set_language("en")

    def make_figure():
        fig, ax = plt.subplots(figsize=(2.0, 1.5))
        (line,) = ax.plot([0, 1], [0, 1])
        return fig, lambda step: line.set_ydata([0, step])

    ex = Explorer("Ring", [Param("step", "step", (0, 1), default=0)], make_figure,
                  alt=lambda step: f"Ring of 4 ranks after {step} of 6 steps of a ring AllReduce; colours show sums.")
    assert ex.frames()["1"][1] == "Ring of 4 ranks after 1 of 6 steps of a ring AllReduce; colours show sums."


def test_every_explorer_alt_of_the_book_has_chinese(zh):
    """The alt text of every frame the chapters' explorers show (their committed outputs) translates
    with ``plots_zh.MESSAGES``: no English word left (``plots.english_words``)."""
    alts = _book_explorer_alts()
    assert len({title for title, _ in alts}) >= 20 and len(alts) >= 300   # the book's explorers were found
    left = sorted({alt for title, alt in alts if plots.english_words(plots.translate_text(alt, title))})
    assert not left, f"{len(left)} explorer alt text(s) with no Chinese template (plots_zh.MESSAGES):\n" + "\n".join(
        f"  {a!r}" for a in left[:20])
