"""Settings for every pytest run from the repository root (the library's tests and nbval).

Explorers precompute their static frames only when ``INTERCONNECT_STATIC_FRAMES=1``
(:func:`interconnect.widgets.static_frames_enabled`); the committed outputs have them, so a
run that checks those outputs (``pytest --nbval book``, whose kernels inherit the
environment) needs it too, with or without the Makefile.
"""

import os

os.environ.setdefault("INTERCONNECT_STATIC_FRAMES", "1")
