"""Small argument checks shared by the parallel package (not public)."""

from __future__ import annotations

import numpy as np

from .._validate import as_count


def _check_bool(name, value):
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name}={value!r} is not a bool; allowed True or False")
    return bool(value)


def _scalar_count(name, value, minimum=1):
    if np.ndim(value) != 0:
        raise ValueError(f"{name}={value!r} must be a single integer >= {minimum}, not an array")
    return as_count(name, value, minimum)
