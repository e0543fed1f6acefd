"""Launch buttons (Binder, JupyterHub): configured in _config.yml, switched on by one setting.

``repository.url`` is the one setting: empty (as committed) the book shows no launch button
and needs no repository; set, every chapter's page links to Binder and to the JupyterHub of
``launch_buttons.jupyterhub_url``, opening that chapter's notebook in JupyterLab. The test
runs Jupyter Book's own config merge and sphinx-book-theme's own link builder on a stub
page, so it needs no build and no network.
"""

from __future__ import annotations

import pathlib
import sys
import types
import urllib.parse

import yaml
from jupyter_book.config import get_final_config
from sphinx_book_theme.header_buttons import update_context_with_repository_info
from sphinx_book_theme.header_buttons.launch import add_launch_buttons

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
from launch_buttons import launch_options  # noqa: E402  (the book's local extension)

REPO = "https://github.com/example-org/gpu-interconnects"


def _sphinx_config(tmp_path, **override):
    """The Sphinx config Jupyter Book makes from _config.yml, with ``override`` merged in."""
    data = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
    for key, value in override.items():
        data.setdefault(key, {}).update(value)
    path = tmp_path / "_config.yml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    cfg, *_ = get_final_config(user_yaml=path, sourcedir=ROOT, cli_config={"latex_individualpages": False})
    return cfg


def _buttons(cfg, page="book/why/three_walls"):
    """The launch buttons sphinx-book-theme puts on ``page`` under the config ``cfg`` (after the
    book's extension tools/launch_buttons.py has seen it, as in a build)."""
    opts = launch_options(cfg["html_theme_options"])
    app = types.SimpleNamespace(config=types.SimpleNamespace(html_theme_options=opts,
                                                             html_context=dict(cfg.get("html_context", {}))),
                                env=types.SimpleNamespace(doc2path=lambda p: str(ROOT / f"{p}.ipynb"),
                                                          metadata={page: {"kernelspec": {"name": "python3"}}}),
                                builder=types.SimpleNamespace(theme_options=opts))
    app.config = _Config(app.config)
    update_context_with_repository_info(app)
    context = {"pagename": page, "sourcename": f"{page}.ipynb", "header_buttons": [], **app.config.html_context}
    add_launch_buttons(app, page, "page.html", context, None)
    return [b for group in context["header_buttons"] for b in group.get("buttons", [])]


class _Config(dict):
    """A stand-in for sphinx.config.Config: attribute and item access to the same values."""

    def __init__(self, ns):
        super().__init__(vars(ns))
        self.__dict__.update(vars(ns))


def test_the_config_keeps_the_theme_options_and_the_launch_settings(tmp_path):
    opts = _sphinx_config(tmp_path)["html_theme_options"]
    assert opts["launch_buttons"]["binderhub_url"] == "https://mybinder.org"
    assert "jupyterhub_url" in opts["launch_buttons"]
    assert opts["launch_buttons"]["notebook_interface"] == "jupyterlab"
    assert opts["repository_url"] == ""              # the one setting, empty as committed
    assert opts["use_download_button"] is True       # sphinx.config's theme options are merged, not lost
    assert opts["show_toc_level"] == 2


def test_no_repository_url_no_launch_buttons(tmp_path):
    """As committed: no button, and no failure (sphinx-book-theme cannot build links without a repository)."""
    assert _buttons(_sphinx_config(tmp_path)) == []
    assert launch_options({"launch_buttons": {"binderhub_url": "https://mybinder.org"}})["launch_buttons"] == \
        {"binderhub_url": "", "thebe": False}


def test_setting_the_repository_url_shows_binder_and_jupyterhub(tmp_path):
    cfg = _sphinx_config(tmp_path, repository={"url": REPO},
                         launch_buttons={"jupyterhub_url": "https://hub.example.edu"})
    buttons = {b["text"]: b["url"] for b in _buttons(cfg)}
    assert set(buttons) == {"Binder", "JupyterHub"}, buttons
    assert buttons["Binder"] == ("https://mybinder.org/v2/gh/example-org/gpu-interconnects/main"
                                 "?urlpath=lab/tree/book/why/three_walls.ipynb")
    hub = urllib.parse.urlsplit(buttons["JupyterHub"])
    q = urllib.parse.parse_qs(hub.query)
    assert hub.netloc == "hub.example.edu" and hub.path == "/hub/user-redirect/git-pull"
    assert q["repo"] == [REPO] and q["branch"] == ["main"]
    assert q["urlpath"] == ["lab/tree/gpu-interconnects/book/why/three_walls.ipynb"]
