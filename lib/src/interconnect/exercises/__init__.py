"""Exercise checkers: the classroom edition of the book.

Every exercise in the book with a numeric (or one-word) answer has a checker here::

    from interconnect.exercises import check
    check("phys-ex-pcie", 15.75e9, part="pcie4x8")

The expected answer is *computed with the library* from the exercise's own parameters,
never typed in by hand, so the checker and the book cannot drift apart. A wrong answer
gets a verdict that names the likely mistake when its ratio to the expected answer
matches one: a factor of 2 (per direction against both directions), 8 (bits against
bytes), 1.074 (GB against GiB), a power of 1000 (a unit prefix instead of SI base
units), 100 (a percentage instead of a fraction), or an exercise's own slips (``p``
steps instead of ``p - 1``, a forgotten term, ...), each computed with the library too.

Answers are in SI base units, as everywhere in the library: bytes, seconds, bytes/s
(per direction unless the exercise says otherwise), FLOP/s, and plain fractions (0.85,
not 85 %).

Functions
---------
check(label, answer, part=None)
    Verdict on an answer (a number, a string for a choice, or a dict of parts).
expected(label, part=None)
    The expected answer, for instructors (and for tests).
describe(label)
    What the checker expects: parts, units, choices, where the exercise is.
labels()
    Every label with a checker, in book order.

Chapter modules (``_<chapter>.py``) register their exercises with :func:`exercise`.
"""

from __future__ import annotations

import difflib
import importlib
import pkgutil
from dataclasses import dataclass, field

import numpy as np

__all__ = ["check", "expected", "describe", "labels", "non_numeric", "Verdict", "Report",
           "Answer", "exercise", "not_numeric", "AnswerError", "GENERIC_MISTAKES"]


class AnswerError(ValueError, TypeError):
    """An answer or label the checker cannot use (a ``ValueError`` and a ``TypeError``)."""


# --------------------------------------------------------------------------------------
# The registry
# --------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Answer:
    """The expected value of one part, with the mistakes worth diagnosing.

    Parameters
    ----------
    value : float, sequence of float, or str
        The right answer (SI base units), or for a choice one of ``choices``.
    unit : str
        ``"B"``, ``"B/s"`` (per direction), ``"B/s both"`` (both directions added), ``"s"``,
        ``"FLOP/s"``, ``"FLOP"``, ``"1"`` (a count or ratio), ``"W"``, ``"J"``, ``"$"``, ``"Hz"``,
        ``"dB"``, ``"mm"``. Chooses the generic mistakes and the display.
    mistakes : dict
        For numbers, ``{description: wrong value}`` (computed with the library the way
        the mistake would compute it); for choices, ``{wrong choice: explanation}``.
    rtol : float
        Relative tolerance of a right answer (default 2 %, for readers who round).
    choices : sequence of str, optional
        Makes the part a choice between these words (case and spaces ignored).
    generic : sequence of str, optional
        Names from :data:`GENERIC_MISTAKES` to try; default depends on ``unit``.
    """

    value: object
    unit: str = "1"
    mistakes: dict = field(default_factory=dict)
    rtol: float = 0.02
    choices: tuple = ()
    generic: tuple = None

    @property
    def is_choice(self):
        return bool(self.choices)


#: Generic mistakes: name -> (factors given/expected, explanation).
GENERIC_MISTAKES = {
    "direction": ((2.0, 0.5), "a factor of 2: per direction against both directions "
                              "(bidirectional figures add the two directions; the library and the answers "
                              "use per direction unless the exercise says otherwise)"),
    "bits": ((8.0, 1 / 8.0), "a factor of 8: bits against bytes (Gb/s against GB/s)"),
    "gib": ((2**30 / 1e9, 1e9 / 2**30, 2**20 / 1e6, 1e6 / 2**20, 2**40 / 1e12, 1e12 / 2**40),
            "a factor of 1.07 (or 1.05, 1.10): binary units (GiB, MiB, TiB) against decimal ones (GB, MB, TB)"),
    "prefix": ((1e3, 1e-3, 1e6, 1e-6, 1e9, 1e-9, 1e12, 1e-12),
               "a power of 1000: a unit prefix. Answers are in SI base units (bytes, seconds, bytes/s, FLOP/s): "
               "write 2.5e-6 for 2.5 µs and 450e9 for 450 GB/s"),
    "percent": ((100.0, 0.01), "a factor of 100: give a fraction (0.85), not a percentage (85)"),
}

_DEFAULT_GENERIC = {
    "B/s": ("direction", "bits", "gib", "prefix"),
    "B/s both": ("direction", "bits", "gib", "prefix"),
    "Hz": ("prefix",),
    "b/s": ("direction", "bits", "prefix"),
    "B": ("bits", "gib", "prefix"),
    "s": ("direction", "prefix"),
    "FLOP/s": ("prefix",),
    "FLOP": ("prefix",),
    "1": ("percent",),
}


@dataclass(frozen=True)
class _Exercise:
    label: str
    chapter: str
    compute: object
    parts: tuple  # names, or ("answer",) for a single part
    doc: str


_REGISTRY: dict = {}
_NON_NUMERIC: dict = {}
_LOADED = False


def exercise(label, chapter, parts=None, doc=""):
    """Decorator registering ``fn() -> Answer`` (or ``{part: Answer}``) for ``label``.

    Parameters
    ----------
    label : str
        The exercise's ``:label:`` in the book, e.g. ``"phys-ex-pcie"``.
    chapter : str
        The notebook's path without suffix, e.g. ``"book/stack/physical_links"``.
    parts : sequence of str, optional
        Part names, for an exercise with several answers; ``fn`` then returns a dict.
    doc : str
        One line on what is asked (shown by :func:`describe`).
    """

    def register(fn):
        if label in _REGISTRY or label in _NON_NUMERIC:
            raise ValueError(f"label={label!r} is registered twice")
        names = tuple(parts) if parts else ("answer",)
        _REGISTRY[label] = _Exercise(label, chapter, fn, names, doc or (fn.__doc__ or "").strip())
        return fn

    return register


def not_numeric(label, chapter, reason):
    """Declare that exercise ``label`` has no numeric answer (an essay, a design, a plot)."""
    if label in _REGISTRY or label in _NON_NUMERIC:
        raise ValueError(f"label={label!r} is registered twice")
    _NON_NUMERIC[label] = (chapter, reason)


def _load():
    global _LOADED
    if _LOADED:
        return
    _LOADED = True
    for mod in sorted(m.name for m in pkgutil.iter_modules(__path__)):
        if mod.startswith("_"):
            importlib.import_module(f"{__name__}.{mod}")


def _get(label):
    _load()
    if not isinstance(label, str):
        raise AnswerError(f"label={label!r} is not a string; expected an exercise label such as 'phys-ex-pcie'")
    if label in _REGISTRY:
        return _REGISTRY[label]
    if label in _NON_NUMERIC:
        raise AnswerError(f"label={label!r} has no numeric answer to check ({_NON_NUMERIC[label][1]}); "
                          "compare with the solution in the book")
    close = difflib.get_close_matches(label, list(_REGISTRY) + list(_NON_NUMERIC), n=3)
    hint = f"; did you mean {', '.join(map(repr, close))}?" if close else "; labels() lists them"
    raise AnswerError(f"label={label!r} is not an exercise with a checker{hint}")


def _answers(ex):
    """Compute ``{part: Answer}`` for an exercise (fresh each call: it is cheap)."""
    out = ex.compute()
    if len(ex.parts) == 1 and ex.parts == ("answer",):
        out = {"answer": out}
    if not isinstance(out, dict) or set(out) != set(ex.parts):
        raise RuntimeError(f"checker of {ex.label!r} returned parts {sorted(out) if isinstance(out, dict) else out!r}; "
                           f"expected {list(ex.parts)}")
    return {k: (v if isinstance(v, Answer) else Answer(v)) for k, v in out.items()}


def labels():
    """Every exercise label with a checker, sorted."""
    _load()
    return sorted(_REGISTRY)


def non_numeric():
    """``{label: (chapter, reason)}`` for the exercises declared without a numeric answer."""
    _load()
    return dict(_NON_NUMERIC)


def _part_name(ex, part):
    if part is None:
        if len(ex.parts) > 1:
            raise AnswerError(f"exercise {ex.label!r} has parts {list(ex.parts)}; pass part=... "
                              "or a dict {part: answer}")
        return ex.parts[0]
    if part not in ex.parts:
        raise AnswerError(f"part={part!r} is not a part of {ex.label!r}; its parts are {list(ex.parts)}")
    return part


def expected(label, part=None):
    """The expected answer of ``label`` (a number, array or word), computed by the library.

    For an exercise with several parts and ``part=None``, a dict of all parts.
    """
    ex = _get(label)
    ans = _answers(ex)
    if part is None and len(ex.parts) > 1:
        return {k: a.value for k, a in ans.items()}
    return ans[_part_name(ex, part)].value


def describe(label):
    """A short text: where the exercise is, its parts with units or choices."""
    ex = _get(label)
    ans = _answers(ex)
    lines = [f"{ex.label} ({ex.chapter}): {ex.doc}" if ex.doc else f"{ex.label} ({ex.chapter})"]
    for k in ex.parts:
        a = ans[k]
        what = (("one of " + ", ".join(repr(c) for c in a.choices)) if a.is_choice
                else f"a number in {_unit_text(a.unit)}")
        lines.append(f"  {k}: {what}")
    return "\n".join(lines)


# --------------------------------------------------------------------------------------
# Verdicts
# --------------------------------------------------------------------------------------

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
    mistake : str or None
        The likely mistake, when one matches.
    message : str
        What is printed.
    """

    label: str
    part: str
    correct: bool
    given: object
    expected: object
    mistake: object
    message: str

    def __bool__(self):
        return self.correct

    def __repr__(self):
        return self.message

    __str__ = __repr__


@dataclass(frozen=True)
class Report:
    """Verdicts on several parts; True when all are right."""

    verdicts: tuple

    def __bool__(self):
        return all(self.verdicts)

    def __iter__(self):
        return iter(self.verdicts)

    def __getitem__(self, part):
        for v in self.verdicts:
            if v.part == part:
                return v
        raise KeyError(part)

    def __repr__(self):
        return "\n".join(v.message for v in self.verdicts)

    __str__ = __repr__


def _norm(word):
    return "".join(str(word).lower().split()).replace("-", "").replace("_", "")


def _as_number(label, part, given):
    if isinstance(given, (bool, np.bool_)) or isinstance(given, (str, bytes)) or given is None:
        raise AnswerError(f"answer={given!r} for {label!r} part {part!r} is not a number; "
                          "expected a real number in SI base units")
    if isinstance(given, dict):
        raise AnswerError(f"answer for {label!r} part {part!r} is a dict; expected a number")
    try:
        arr = np.asarray(given, dtype=float)
    except (TypeError, ValueError):
        raise AnswerError(f"answer={given!r} for {label!r} part {part!r} is not a number; "
                          "expected a real number in SI base units") from None
    if arr.size == 0 or not np.all(np.isfinite(arr)):
        raise AnswerError(f"answer={given!r} for {label!r} part {part!r} is NaN, infinite or empty; "
                          "expected a finite number")
    return arr


def _close(given, want, rtol):
    want = np.asarray(want, dtype=float)
    if given.shape != want.shape:
        return False
    return (bool(np.all(np.abs(given - want) <= rtol * np.abs(want) + 1e-300)) if rtol > 0
            else bool(np.all(given == want)))


def _check_part(label, part, a, given):
    head = f"{label}" + (f" [{part}]" if part != "answer" else "")
    if a.is_choice:
        if not isinstance(given, str):
            raise AnswerError(f"answer={given!r} for {label!r} part {part!r} is not a word; "
                              f"expected one of {list(a.choices)}")
        g = _norm(given)
        allowed = {_norm(c): c for c in a.choices}
        if g not in allowed:
            raise AnswerError(f"answer={given!r} for {label!r} part {part!r} is not one of {list(a.choices)}")
        if g == _norm(a.value):
            return Verdict(label, part, True, given, a.value, None, f"✓ {head}: {allowed[g]!r} is right.")
        why = {_norm(k): v for k, v in a.mistakes.items()}.get(g)
        msg = f"✗ {head}: {allowed[g]!r} is not right." + (f" Likely mistake: {why}." if why else " Try again.")
        return Verdict(label, part, False, given, a.value, why, msg)

    arr = _as_number(label, part, given)
    want = np.asarray(a.value, dtype=float)
    if arr.shape != want.shape:
        raise AnswerError(f"answer for {label!r} part {part!r} has shape {arr.shape}; expected "
                          f"{'a single number' if want.ndim == 0 else f'an array of shape {want.shape}'}")
    shown = _show(given if arr.ndim else float(arr), a.unit)
    if _close(arr, want, a.rtol):
        tol = f", within {a.rtol * 100:.2g} %" if a.rtol > 0 else ""
        return Verdict(label, part, True, given, a.value, None,
                       f"✓ {head}: {shown} is right (expected {_show(a.value, a.unit)}{tol}).")
    # the exercise's own mistakes first: they are the most specific
    for desc, wrong in a.mistakes.items():
        if _close(arr, wrong, max(a.rtol, 1e-9)):
            return Verdict(label, part, False, given, a.value, desc,
                           f"✗ {head}: {shown} is not right. Likely mistake: {desc}.")
    generic = a.generic if a.generic is not None else _DEFAULT_GENERIC.get(a.unit, ("prefix",))
    for name in generic:
        factors, desc = GENERIC_MISTAKES[name]
        for f in factors:
            if _close(arr, want * f, a.rtol):
                return Verdict(label, part, False, given, a.value, desc,
                               f"✗ {head}: {shown} is not right; it is off by {_ratio_text(f)}. "
                               f"Likely mistake: {desc}.")
    if want.ndim == 0 and float(want) != 0 and float(arr) != 0:
        r = float(arr) / float(want)
        hint = f"it is {r:.3g}× the expected answer" if r > 0 else "its sign is wrong"
    else:
        hint = "no common mistake matches"
    return Verdict(label, part, False, given, a.value, None,
                   f"✗ {head}: {shown} is not right; {hint}. Answers are in {_unit_text(a.unit)}; check the "
                   "exercise's parameters and try again.")


def _ratio_text(f):
    if f >= 1:
        return f"a factor of {f:.4g} (too large)"
    return f"a factor of {1 / f:.4g} (too small)"


def check(label, answer, part=None):
    """Check an answer to the exercise ``label`` and say what is wrong with it.

    Parameters
    ----------
    label : str
        The exercise's label in the book, e.g. ``"coll-ex-ring"``.
    answer : float, array, str, or dict
        The answer in SI base units (bytes, seconds, bytes/s per direction, FLOP/s,
        fractions), a word for a choice, or ``{part: answer}`` for several parts.
    part : str, optional
        Which part ``answer`` answers, for an exercise with several.

    Returns
    -------
    Verdict or Report
        Prints as a one-line verdict per part; ``bool()`` of it is True when right.

    Raises
    ------
    AnswerError
        (a ``ValueError``) for an unknown label or part, a NaN or non-numeric answer.
    """
    ex = _get(label)
    ans = _answers(ex)
    if isinstance(answer, dict):
        if part is not None:
            raise AnswerError("pass either a dict of parts or part=..., not both")
        unknown = [k for k in answer if k not in ex.parts]
        if unknown:
            raise AnswerError(f"answer has parts {unknown} that {label!r} does not have; "
                              f"its parts are {list(ex.parts)}")
        if not answer:
            raise AnswerError(f"answer is an empty dict; {label!r} has parts {list(ex.parts)}")
        return Report(tuple(_check_part(label, k, ans[k], answer[k]) for k in ex.parts if k in answer))
    name = _part_name(ex, part)
    return _check_part(label, name, ans[name], answer)
