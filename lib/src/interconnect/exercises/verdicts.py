"""What the checker says: :class:`Verdict` (one part) and :class:`Report` (every part), and how
a value is shown with its unit. Part of :mod:`interconnect.exercises` (re-exported there).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

_UNIT_TEXT = {"B": "bytes", "B/s": "bytes/s", "B/s both": "bytes/s (both directions added)", "b/s": "bits/s",
              "Hz": "hertz", "dB": "decibels", "mm": "millimetres", "s": "seconds", "1": "plain numbers (no unit)",
              "FLOP/s": "FLOP/s", "FLOP": "FLOP", "W": "watts", "J": "joules", "$": "US dollars"}


def _unit_text(unit):
    return _UNIT_TEXT.get(unit, unit)


def _show(value, unit):
    from ..units import fmt_bandwidth, fmt_bytes, fmt_si, fmt_time

    if isinstance(value, str):
        return repr(value)
    arr = np.asarray(value, dtype=float)
    if arr.ndim > 0:
        return "[" + ", ".join(_show(v, unit) for v in arr.ravel()[:6]) + (", ...]" if arr.size > 6 else "]")
    v = float(arr)
    try:
        if unit == "B/s" and v >= 0:
            return fmt_bandwidth(v)
        if unit == "B/s both" and v >= 0:
            return fmt_bandwidth(v, "bidirectional")
        if unit == "B" and v >= 0:
            return f"{fmt_bytes(v, binary=False)} ({fmt_bytes(v)})" if v >= 1e3 else f"{v:g} B"
        if unit == "s" and v >= 0:
            return fmt_time(v)
        if unit in ("FLOP/s", "FLOP", "W", "J", "b/s", "Hz") and v > 0:
            return fmt_si(v, unit)
        if unit == "$":
            return f"${v:,.2f}"
    except ValueError:
        pass
    return f"{v:.4g}"


@dataclass(frozen=True)
class Verdict:
    """The checker's reply for one part. True when the answer is right.

    Attributes
    ----------
    label, part : str
    correct : bool
    given : object
        The answer as given (``...`` for a part not answered yet).
    mistake : str or None
        The likely mistake, when one matches (``"no answer"`` for a missing part).
    message : str
        What is printed.
    """

    label: str
    part: str
    correct: bool
    given: object
    mistake: object
    message: str

    def __bool__(self):
        return self.correct

    def __repr__(self):
        return self.message

    __str__ = __repr__


@dataclass(frozen=True)
class Report:
    """Verdicts on every part of an exercise; True when all are right."""

    verdicts: tuple

    def __bool__(self):
        return bool(self.verdicts) and all(self.verdicts)

    def __iter__(self):
        return iter(self.verdicts)

    def __getitem__(self, part):
        for v in self.verdicts:
            if v.part == part:
                return v
        raise KeyError(part)

    @property
    def score(self):
        """The fraction of parts answered right (a missing part counts as wrong)."""
        return sum(1 for v in self.verdicts if v) / len(self.verdicts) if self.verdicts else 0.0

    def __repr__(self):
        return "\n".join(v.message for v in self.verdicts)

    __str__ = __repr__


def _norm(word):
    return "".join(str(word).lower().split()).replace("-", "").replace("_", "")
