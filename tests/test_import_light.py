"""Importing the models never imports the presentation layer (matplotlib, ipywidgets).

The plots of ``links``, ``rendering`` (and the rest of the presentation layer) live in
``interconnect.viz``; the model modules reach them only through lazy module attributes.
Run in a fresh interpreter, since this test session has long imported matplotlib.
"""

import os
import pathlib
import subprocess
import sys

import pytest

SRC = pathlib.Path(__file__).resolve().parents[1] / "lib" / "src"
MODULES = ("interconnect", "interconnect.links", "interconnect.rendering", "interconnect.signalling",
           "interconnect.devices", "interconnect.catalog")
HEAVY = ("matplotlib", "ipywidgets")


def _loaded_after(code):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(SRC), os.environ.get("PYTHONPATH", "")]))
    probe = code + f"\nimport sys\nprint(','.join(m for m in {HEAVY!r} if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, check=True)
    return out.stdout.strip()


def test_models_import_without_the_presentation_layer():
    assert _loaded_after("import " + ", ".join(MODULES)) == ""


@pytest.mark.parametrize("module, attr", [("interconnect.links", "plot_timeline"),
                                          ("interconnect.rendering", "plot_frame_intervals")])
def test_lazy_plot_aliases_load_matplotlib_only_when_used(module, attr):
    code = f"import {module} as m\nf = m.{attr}\nassert f.__module__.startswith('interconnect.viz.')"
    assert "matplotlib" in _loaded_after(code)


def test_every_library_module_is_reachable_from_the_package():
    # the review found ic.applications, ic.operations, ... raising AttributeError
    import interconnect as ic

    for name in ic._ON_DEMAND:
        assert getattr(ic, name).__name__ == f"interconnect.{name}"
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        ic.nothing  # noqa: B018
