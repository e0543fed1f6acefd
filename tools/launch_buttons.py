"""Sphinx extension: launch buttons only where the book names its repository.

``_config.yml`` configures Binder and JupyterHub launch buttons, and ``repository.url`` is the
one setting that switches them on. sphinx-book-theme would otherwise try to build the links
with no repository (and fail on every notebook page, as 1.x does), so while ``repository_url``
is empty this clears the launch URLs: the book then shows no launch button. Nothing here
fetches anything; the buttons are plain links.
"""

from __future__ import annotations


def launch_options(theme_options):
    """``theme_options`` with the launch URLs cleared when it names no repository (a copy)."""
    opts = dict(theme_options or {})
    if not opts.get("repository_url"):
        buttons = dict(opts.get("launch_buttons") or {})
        opts["launch_buttons"] = {k: ("" if k.endswith("_url") else v) for k, v in buttons.items()}
        opts["launch_buttons"]["thebe"] = False
    return opts


def _config_inited(app, config):
    config.html_theme_options = launch_options(config.html_theme_options)


def setup(app):
    app.connect("config-inited", _config_inited)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
