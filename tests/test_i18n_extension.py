"""tools/sphinx_i18n.py on a two-cell notebook, built by Sphinx in both languages.

* gettext: the Markdown cell is a message, what the code cell prints (Markdown included) is not;
* zh_CN: a translated message keeps its ``{glue:text}`` role and shows the notebook's number
  (the glue data reached from inside the translated message), and the page links back to
  the English edition;
* zh_CN: an exercise's title reads "习题 1（★★ 核心）" (English: "Exercise 1 (★★ core)");
* zh_CN: a glued string with English words (``"64 years"``) is shown in Chinese with the same
  number (``sphinx_i18n.GLUE_ZH``), and no glued string of the book's notebooks keeps an English
  word the table translates elsewhere.
"""

from __future__ import annotations

import json
import pathlib
import re
import shutil
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]

NOTEBOOK = {
    "cells": [
        {"cell_type": "markdown", "id": "m0", "metadata": {},
         "source": ["# Glue test\n", "\n", "The ring needs {glue:text}`steps:.1f` steps here.\n", "\n",
                    "One GPU would take {glue}`gpu_years`.\n", "\n",
                    "```{exercise} ★★ core\n", ":label: ex-a\n", "\n", "Count the steps.\n", "```"]},
        {"cell_type": "code", "execution_count": 1, "id": "c1", "metadata": {},
         "source": ["from myst_nb import glue\n", "from IPython.display import Markdown\n",
                    "glue('steps', 14.0, display=False)\n", "Markdown('A computed sentence of prose.')"],
         "outputs": [
             {"output_type": "display_data", "data": {"text/plain": "14.0"},
              "metadata": {"scrapbook": {"name": "steps", "mime_prefix": ""}}},
             {"output_type": "display_data", "data": {"text/markdown": "64 years",
                                                      "text/plain": "<IPython.core.display.Markdown object>"},
              "metadata": {"scrapbook": {"name": "gpu_years", "mime_prefix": ""}}},
             {"output_type": "execute_result", "execution_count": 1, "metadata": {},
              "data": {"text/markdown": "A computed sentence of prose.",
                       "text/plain": "<IPython.core.display.Markdown object>"}}]},
    ],
    "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"}},
    "nbformat": 4, "nbformat_minor": 5,
}

CONF = """
import sys
sys.path.insert(0, {tools!r})
extensions = ["myst_nb", "sphinx_exercise", "sphinx_i18n"]
nb_execution_mode = "off"
locale_dirs = ["locales"]
gettext_compact = False
gettext_location = False
exclude_patterns = ["_build", "locales"]
ic_other_edition = {{"label": "English", "root": "../en/", "lang": "en"}}
"""

PO = """msgid ""
msgstr ""
"Content-Type: text/plain; charset=UTF-8\\n"

msgid "Glue test"
msgstr "粘贴测试"

msgid "The ring needs {glue:text}`steps:.1f` steps here."
msgstr "这里的环需要 {glue:text}`steps:.1f` 步。"

msgid "One GPU would take {glue}`gpu_years`."
msgstr "一块 GPU 需要 {glue}`gpu_years`。"
"""


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    pytest.importorskip("myst_nb")
    src = tmp_path_factory.mktemp("i18n")
    (src / "conf.py").write_text(CONF.format(tools=str(ROOT / "tools")), encoding="utf-8")
    (src / "index.ipynb").write_text(json.dumps(NOTEBOOK), encoding="utf-8")
    po = src / "locales" / "zh_CN" / "LC_MESSAGES" / "index.po"
    po.parent.mkdir(parents=True)
    po.write_text(PO, encoding="utf-8")
    yield src
    shutil.rmtree(src, ignore_errors=True)


def _build(src, builder, out, *extra):
    cmd = [sys.executable, "-m", "sphinx", "-b", builder, "-W", "-q", "-d", str(out / ".doctrees"), *extra,
           str(src), str(out)]
    result = subprocess.run(cmd, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr[-3000:]
    return out


def test_only_prose_is_extracted(project):
    out = _build(project, "gettext", project / "_build" / "gettext")
    pot = (out / "index.pot").read_text(encoding="utf-8")
    assert 'msgid "The ring needs {glue:text}`steps:.1f` steps here."' in pot
    assert "A computed sentence" not in pot and "glue(" not in pot


def test_glue_survives_translation(project):
    out = _build(project, "html", project / "_build" / "zh", "-D", "language=zh_CN")
    page = (out / "index.html").read_text(encoding="utf-8")
    assert '这里的环需要 <span class="pasted-text">14.0</span> 步。' in page
    assert '<html lang="zh-CN"' in page
    assert 'href="../en/index.html" hreflang="en"' in page
    assert "一块 GPU 需要 64 年。" in page
    # the exercise's number and level as the preface's translation names them, not sphinx-exercise's 练习
    assert re.search(r'<span class="caption-number">习题 1 </span>\s*（★★ 核心）</p>', page)


def test_english_glue_is_untouched(project):
    out = _build(project, "html", project / "_build" / "en")
    page = (out / "index.html").read_text(encoding="utf-8")
    assert "One GPU would take 64 years." in page
    assert re.search(r'<span class="caption-number">Exercise 1 </span>\s*\(★★ core\)</p>', page)


@pytest.fixture(scope="module")
def glue_zh():
    sys.path.insert(0, str(ROOT / "tools"))
    import sphinx_i18n

    return sphinx_i18n.glue_zh


def test_glued_words_in_chinese_keep_their_numbers(glue_zh):
    cases = {"64 years": "64 年", "2.06 days": "2.06 天", "13.3 min": "13.3 分钟",
             "450 GB/s per direction": "单向 450 GB/s", "1.8 TB/s bidirectional": "双向 1.8 TB/s",
             "44.1 GiB, which fits": "44.1 GiB，放得下", "164.1 GiB, which does not fit": "164.1 GiB，放不下",
             "16,800 images/s, bound by the CPU decode": "16,800 张图像/s，瓶颈在 CPU 解码",
             "8.0 billion": "80 亿", "12.5 billion": "125 亿", "dp=16 tp=4 pp=8": "dp=16 tp=4 pp=8",
             "128×8×16, v=4, ZeRO-2, none": "128×8×16, v=4, ZeRO-2，不做激活重计算"}
    for english, chinese in cases.items():
        assert glue_zh(english) == chinese
    for english in cases:
        if "billion" not in english:
            assert re.findall(r"\d+", glue_zh(english)) == re.findall(r"\d+", english)


# English words in a glued string that must not reach a Chinese sentence (the table's words)
_ENGLISH = re.compile(r"per direction|bidirectional|\b(years?|days?|min|fits?|billion|images|bound|bubble|comm|"
                      r"storage|colocated|disaggregated|prefill|decode|links|bridge|Gigabit|published|latency|none)\b")


def test_no_glued_string_of_the_book_keeps_a_translated_word(glue_zh):
    left = {}
    for path in sorted((ROOT / "book").rglob("*.ipynb")):
        for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
            for out in cell.get("outputs", []):
                meta = out.get("metadata", {}).get("scrapbook")
                text = meta and out.get("data", {}).get(meta.get("mime_prefix", "") + "text/markdown")
                if isinstance(text, str) and _ENGLISH.search(re.sub(r"`[^`]*`", "", glue_zh(text))):
                    left[f"{path.relative_to(ROOT)}:{meta['name']}"] = text
    assert not left, f"glued strings shown in English in the Chinese edition (add a row to GLUE_ZH): {left}"
