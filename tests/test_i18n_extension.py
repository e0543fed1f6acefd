"""tools/sphinx_i18n.py on a two-cell notebook, built by Sphinx in both languages.

* gettext: the Markdown cell is a message, what the code cell prints (Markdown included) is not;
* zh_CN: a translated message keeps its ``{glue:text}`` role and shows the notebook's number
  (the glue data reached from inside the translated message), and the page links back to
  the English edition.
"""

from __future__ import annotations

import json
import pathlib
import shutil
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]

NOTEBOOK = {
    "cells": [
        {"cell_type": "markdown", "id": "m0", "metadata": {},
         "source": ["# Glue test\n", "\n", "The ring needs {glue:text}`steps:.1f` steps here."]},
        {"cell_type": "code", "execution_count": 1, "id": "c1", "metadata": {},
         "source": ["from myst_nb import glue\n", "from IPython.display import Markdown\n",
                    "glue('steps', 14.0, display=False)\n", "Markdown('A computed sentence of prose.')"],
         "outputs": [
             {"output_type": "display_data", "data": {"text/plain": "14.0"},
              "metadata": {"scrapbook": {"name": "steps", "mime_prefix": ""}}},
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
extensions = ["myst_nb", "sphinx_i18n"]
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
