"""Platform-stable numbers for stored notebook outputs.

The last bits of a float depend on the CPU, the BLAS kernel and the order of a sum, so a
value stored at full precision (``87.96787891485724``) can come back as
``87.96787891485722`` on another machine and fail strict nbval. Everything the book
stores goes through :func:`stable` first: the value is rounded to 12 significant digits
(which absorbs any last-bit difference, ties such as ``0.125`` included) and then to the
digits that are kept (6 for glued numbers, fewer when a formatter shows fewer).

The proof is a perturbation run: with the environment variable ``INTERCONNECT_PERTURB``
set to a relative size (``make nbval`` uses ``1e-13``, hundreds of ulps, far more than a
reordered sum changes), :func:`stable` first moves each value by that much, up and down in
turn, and the stored outputs must still match to the character.
"""

from __future__ import annotations

import itertools
import math
import os

__all__ = ["GLUE_DIGITS", "stable", "round_significant", "perturbation"]

#: Significant digits a glued float is stored with. The prose shows at most 4.
GLUE_DIGITS = 6

#: First rounding step: far below any digit a reader sees, far above last-bit noise.
_GUARD_DIGITS = 12

_signs = itertools.cycle((1.0, -1.0))


def perturbation():
    """The relative perturbation asked for by ``INTERCONNECT_PERTURB`` (0.0 when unset).

    Raises ValueError when the variable is not a number in [0, 1e-9]: a larger shift
    is no longer a platform difference but a different result.
    """
    text = os.environ.get("INTERCONNECT_PERTURB", "").strip()
    if not text:
        return 0.0
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"INTERCONNECT_PERTURB={text!r} is not a number; "
                         "expected a relative size in [0, 1e-9]") from None
    if not 0.0 <= value <= 1e-9:
        raise ValueError(f"INTERCONNECT_PERTURB={text!r} is out of range; expected a relative size in [0, 1e-9]")
    return value


def round_significant(x, digits):
    """``x`` rounded to ``digits`` significant digits (0, inf and nan are returned as they are).

    >>> round_significant(87.96787891485724, 6)
    87.9679
    >>> round_significant(-0.00123456789, 3)
    -0.00123
    """
    if not isinstance(digits, int) or not 1 <= digits <= 17:
        raise ValueError(f"digits={digits!r} is not allowed; expected an integer from 1 to 17")
    x = float(x)
    if x == 0.0 or not math.isfinite(x):
        return x
    return float(f"{x:.{digits - 1}e}")


def stable(x, digits=GLUE_DIGITS):
    """``x`` as a float that prints the same on every platform: ``digits`` significant digits.

    Under ``INTERCONNECT_PERTURB`` the value is first moved by that relative amount,
    alternately up and down, so a test can show the stored digits do not depend on it.

    >>> stable(87.96787891485724)
    87.9679
    >>> stable(87.96787891485722)
    87.9679
    >>> stable(0.12500000000000003, 2) == stable(0.125, 2) == 0.12
    True
    """
    x = float(x)
    if not math.isfinite(x):
        return x
    eps = perturbation()
    if eps:
        x *= 1.0 + next(_signs) * eps
    return round_significant(round_significant(x, _GUARD_DIGITS), digits)
