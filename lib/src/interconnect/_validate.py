"""Input checks shared by every public function.

Each check raises :class:`ValueError` naming the parameter, the offending value and
what is allowed, so a reader who passes ``bandwidth=0`` learns exactly what went wrong
instead of getting a silent ``inf`` or ``nan``.
"""

from __future__ import annotations

import difflib
import math
import numbers

import numpy as np

__all__ = ["as_positive", "as_nonnegative", "as_count", "as_fraction", "choice"]


#: Scalar types the checks take without building an array: Python's and NumPy's integers and
#: floats (``bool`` is excluded where the checks test for it). A valid scalar returns at once, with
#: the value the array path would give; an invalid one goes down the array path, which words the error.
_SCALARS = (int, float, np.integer, np.floating)
#: Counts are returned as 64-bit integers: 2**63 and above would wrap around.
_COUNT_LIMIT = 2.0**63


def _scalar(value):
    """``float(value)`` for a finite real scalar that is not a bool, else None (use the array path)."""
    if isinstance(value, _SCALARS) and not isinstance(value, bool):
        v = float(value)
        if math.isfinite(v):
            return v
    return None


def _as_array(name, value):
    if isinstance(value, (str, bytes)) or value is None:
        raise ValueError(f"{name}={value!r} is not a number; expected a real number or an array of them")
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"{name}={value!r} is not a number; expected a real number or an array of them") from None
    if arr.size == 0:
        raise ValueError(f"{name} is empty; expected at least one value")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name}={_show(value)} contains NaN or infinity; expected finite values")
    return arr


def _show(value):
    arr = np.asarray(value)
    if arr.ndim == 0:
        return repr(value)
    if arr.size <= 6:
        return np.array2string(arr, separator=", ")
    return f"array of shape {arr.shape}"


def _ret(arr, value):
    """Return a Python float for scalar input, an ndarray otherwise."""
    if np.ndim(value) == 0:
        return float(arr)
    return arr


def as_positive(name, value, unit=""):
    """``value`` as float or float array, every element > 0."""
    v = _scalar(value)
    if v is not None and v > 0:
        return v
    arr = _as_array(name, value)
    if np.any(arr <= 0):
        bad = arr[arr <= 0].flat[0]
        raise ValueError(f"{name}={_show(value)} (e.g. {bad!r}) is not allowed; "
                         f"{name} must be > 0{unit and ' ' + unit}")
    return _ret(arr, value)


def as_nonnegative(name, value, unit=""):
    """``value`` as float or float array, every element >= 0."""
    v = _scalar(value)
    if v is not None and v >= 0:
        return v
    arr = _as_array(name, value)
    if np.any(arr < 0):
        bad = arr[arr < 0].flat[0]
        raise ValueError(f"{name}={_show(value)} (e.g. {bad!r}) is not allowed; "
                         f"{name} must be >= 0{unit and ' ' + unit}")
    return _ret(arr, value)


def as_fraction(name, value, low=0.0, high=1.0, low_open=True):
    """``value`` in (low, high] (or [low, high] if ``low_open`` is False)."""
    v = _scalar(value)
    if v is not None and (v > low if low_open else v >= low) and v <= high:
        return v
    arr = _as_array(name, value)
    bad = (arr <= low if low_open else arr < low) | (arr > high)
    if np.any(bad):
        lo = "(" if low_open else "["
        raise ValueError(f"{name}={_show(value)} is out of range; allowed {lo}{low}, {high}]")
    return _ret(arr, value)


def as_count(name, value, minimum=1):
    """``value`` as an int (or int array), every element an integer >= ``minimum``."""
    if isinstance(value, bool):
        raise ValueError(f"{name}={value!r} is a bool; expected an integer >= {minimum}")
    v = _scalar(value)
    if v is not None and v.is_integer() and minimum <= v < _COUNT_LIMIT:
        return int(v)
    arr = _as_array(name, value)
    if np.any(arr != np.round(arr)) or np.any(arr < minimum):
        raise ValueError(f"{name}={_show(value)} is not allowed; {name} must be an integer >= {minimum}")
    if np.any(arr >= _COUNT_LIMIT):
        raise ValueError(f"{name}={_show(value)} is too large; {name} must be an integer below 2**63")
    out = arr.astype(np.int64)
    if np.ndim(value) == 0:
        return int(out)
    return out


def choice(name, value, allowed):
    """``value`` (a string, compared case-insensitively) if it is one of ``allowed``."""
    if not isinstance(value, str):
        raise ValueError(f"{name}={value!r} is not a string; allowed: {', '.join(allowed)}")
    def _norm(text):
        return text.strip().lower().replace("-", "_").replace(" ", "_")

    key = _norm(value)
    norm = {_norm(a): a for a in allowed}
    if key not in norm:
        raise ValueError(f"{name}={value!r} is unknown; allowed: {', '.join(allowed)}")
    return norm[key]


def is_number(value):
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def lookup(name, table, what, example, hint, n=5, cutoff=0.6):
    """``table[name]`` for a catalog name (case and surrounding spaces ignored).

    The one lookup the catalogs share (links, models, measurements): a name that is not a
    string, or not in ``table``, raises ValueError naming the value, up to ``n`` close
    matches and ``hint`` (how to list the names).

    >>> lookup(" A ", {"a": 1}, "letter", "a", "try a")
    1
    >>> try:
    ...     lookup("ab", {"abc": 1}, "letter", "a", "try abc")
    ... except ValueError as err:
    ...     print(err)
    name='ab' is not a known letter; close matches: abc; try abc
    """
    if not isinstance(name, str):
        raise ValueError(f"name={name!r} is not a string; expected a {what} name such as {example!r}; {hint}")
    key = name.strip().lower()
    if key in table:
        return table[key]
    close = difflib.get_close_matches(key, list(table), n=n, cutoff=cutoff)
    maybe = f"close matches: {', '.join(close)}; " if close else ""
    raise ValueError(f"name={name!r} is not a known {what}; {maybe}{hint}")
