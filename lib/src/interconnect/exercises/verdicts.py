"""What the checker says: :class:`Verdict` (one part) and :class:`Report` (every part), and how
a value is shown with its unit. Part of :mod:`interconnect.exercises` (re-exported there).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

_UNIT_TEXT = {"B": "bytes", "B/s": "bytes/s", "B/s both": "bytes/s (both directions added)", "b/s": "bits/s",
              "Hz": "hertz", "dB": "decibels", "mm": "millimetres", "s": "seconds", "1": "plain numbers (no unit)",
              "FLOP/s": "FLOP/s", "FLOP": "FLOP", "W": "watts", "J": "joules", "$": "US dollars"}


def _unit_text(unit, lang="en"):
    if lang == "zh":
        from .messages_zh import UNITS
        return UNITS.get(unit, unit)
    return _UNIT_TEXT.get(unit, unit)


#: The sentences a verdict is made of, in English; ``messages_zh.TEMPLATES`` has the same keys.
TEMPLATES = {
    "right_choice": "✓ {head}: {choice} is right.",
    "wrong_choice": "✗ {head}: {choice} is not right.",
    "likely": " Likely mistake: {why}.",
    "try_again": " Try again.",
    "right_value": "✓ {head}: {shown} is right (expected {want}{tol}).",
    "tol_suffix": ", within {pct} %",
    "right_value_sealed": "✓ {head}: {shown} is right ({tol}).",
    "within": "within {pct} %",
    "exactly": "exactly",
    "wrong_value": "✗ {head}: {shown} is not right. Likely mistake: {desc}.",
    "unknown": ("✗ {head}: {shown} is not right, and it matches none of the mistakes this checker knows. "
                "Answers are in {unit}; check the exercise's parameters and try again."),
    "unanswered": "✗ {head}: {why} ({what}).",
    "missing": "no answer given; every part is required",
    "not_yet": "no answer yet; replace the ... with your answer",
    "one_of": "one of {choices}",
    "plain_number": "a plain number",
    "number_in": "a number in {unit}",
    # coding exercises: the answer is a function, called on hidden cases
    "code_right": "✓ {head}: your function is right on all {n} test cases ({tol}).",
    "code_wrong": "✗ {head}: your function fails {k} of {n} test cases.",
    "code_wrong_value": " Wrong result when {kind}.",
    "code_raised": " Raises {exc} when {kind}, a valid input.",
    "code_error": " Raises {exc} when {kind}.",
    "code_type": " Returns {type}, not a number, when {kind}.",
    "code_nan": " Returns NaN or infinity when {kind}.",
    "code_no_raise": " Returns a value when {kind}: it should raise ValueError.",
}

LANGUAGES = ("en", "zh")


def check_lang(lang):
    """``lang`` itself, or ValueError naming it and the languages the checker speaks."""
    if lang not in LANGUAGES:
        raise ValueError(f"lang={lang!r} is not a language of the checker; expected one of {list(LANGUAGES)}")
    return lang


def say(lang, key, **kw):
    """One sentence of a verdict in ``lang`` ("en" or "zh")."""
    if lang == "zh":
        from .messages_zh import TEMPLATES as ZH
        return ZH[key].format(**kw)
    return TEMPLATES[key].format(**kw)


def mistake_text(desc, lang="en"):
    """A diagnosed mistake's text in ``lang``; English where no translation exists yet."""
    if lang != "zh" or desc is None:
        return desc
    from .answers import GENERIC_MISTAKES
    from .messages_zh import GENERIC, MISTAKES
    for name, (_, text) in GENERIC_MISTAKES.items():
        if text == desc and name in GENERIC:
            return GENERIC[name]
    return MISTAKES.get(desc, desc)


def shown_text(shown, lang="en"):
    """A shown value in ``lang`` (its "per direction" or "bidirectional")."""
    if lang == "zh":
        from .messages_zh import SHOWN
        for en, zh in SHOWN.items():
            shown = shown.replace(en, zh)
    return shown


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
