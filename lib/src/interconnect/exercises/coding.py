"""Coding exercises: the answer is a function, and the checker grades it by calling it.

A coding exercise (registered with :func:`interconnect.exercises.coding_exercise`) computes a
list of :class:`Case`: the arguments of one call, the kind of input it is (a key of the
exercise's ``kinds``, described in words), and either the right result (an :class:`Answer`
with the exercise's known wrong implementations as its mistakes) or ``raises=True`` when the
input is invalid and the function must raise ``ValueError``. Some cases are fixed, the others
are drawn from the student's seed (the exercise's variants), so a function that special-cases
the book's numbers fails.

The verdict never holds an expected value, nor an argument: it says how many cases failed
and, per kind of input that failed, how (a wrong value, an exception, a wrong type, no
``ValueError`` on invalid input), in words. When the function's results match one known
wrong implementation on every case, or one generic mistake (a factor of 2, 8, 1000 ...) on
every case, the verdict names it. Part of :mod:`interconnect.exercises`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from .answers import GENERIC_MISTAKES, Answer, _generic_names
from .verdicts import Verdict, mistake_text, say


@dataclass(frozen=True)
class Case:
    """One call of the student's function.

    Parameters
    ----------
    kind : str
        A key of the exercise's ``kinds``: the class of input, as the verdict describes it.
    args : tuple
        The positional arguments (plain numbers or strings).
    answer : Answer, optional
        The right result, with ``mistakes`` ``{description: what that wrong implementation
        returns here}``; a mistake that returns the right result here is left out.
    raises : bool
        The input is invalid: the function must raise ``ValueError``.
    """

    kind: str
    args: tuple
    answer: Answer = None
    raises: bool = False


def _arg(x):
    """An argument as the function receives it: a whole number as an int (2.6e9 bytes as 2600000000)."""
    if isinstance(x, (float, np.floating)) and float(x).is_integer() and abs(x) < 2**53:
        return int(x)
    return x.item() if isinstance(x, np.generic) else x


def seed_variant(rng):
    """Per-student seed of the extra cases: a coding exercise's ``variants=`` (its cases are drawn from it)."""
    return {"seed": int(rng.integers(1, 2**31))}


def case(kind, args, value=None, unit="1", mistakes=None, rtol=None, raises=False):
    """A :class:`Case`, dropping the mistakes that give the right result here (within 3 rtol).

    Whole-number arguments are passed as ints (the sealed key then spells them as inputs are
    written, never as an answer's float could be)."""
    args = tuple(_arg(x) for x in args)
    if raises:
        return Case(kind, tuple(args), None, True)
    v = float(value)
    tol = 3 * max(rtol or 0.0, 1e-9)
    kept = {d: float(w) for d, w in (mistakes or {}).items() if abs(float(w) - v) > tol * max(abs(v), 1e-300)}
    return Case(kind, tuple(args), Answer(v, unit, mistakes=kept, rtol=rtol), False)


def kind_text(text, lang="en"):
    """The description of a kind of input in ``lang``."""
    if lang == "zh":
        from .messages_zh import KINDS
        out = KINDS.get(text, text)
        # the Chinese templates put 时 right after the kind: a space after a Latin word ("GPU 时")
        return out + " " if out[-1:].isascii() and out[-1:].isalnum() else out
    return text


def _outcome(fn, args, raises, target):
    """``(status, detail, value)`` of one call: status is ok, wrong, raised, error, type, nan or no_raise."""
    try:
        out = fn(*args)
    except ValueError as e:
        return ("ok", None, None) if raises else ("raised", type(e).__name__, None)
    except Exception as e:  # the student's code: any exception is a verdict, not a crash
        return "error", type(e).__name__, None
    if raises:
        return "no_raise", None, None
    if isinstance(out, (bool, np.bool_, str, bytes, complex)) or out is None:
        return "type", type(out).__name__, None
    try:
        arr = np.asarray(out, dtype=float)
    except (TypeError, ValueError):
        return "type", type(out).__name__, None
    if arr.size != 1:
        return "type", type(out).__name__, None
    arr = arr.reshape(())
    if not math.isfinite(float(arr)):
        return "nan", None, None
    return ("ok" if target.near(arr) else "wrong"), None, arr


def judge(label, fn, cases, targets, kinds, rtol, lang="en"):
    """The verdict on function ``fn`` over ``cases`` (each with its target, or None when it must raise).

    ``kinds`` maps a case's kind to its description in English.
    """
    head = label
    results = [_outcome(fn, c.args, c.raises, t) for c, t in zip(cases, targets)]
    failed = [(c, r) for c, r in zip(cases, results) if r[0] != "ok"]
    n = len(cases)
    tol = say(lang, "within", pct=f"{rtol * 100:.2g}") if rtol > 0 else say(lang, "exactly")
    if not failed:
        return Verdict(label, "function", True, fn, None, say(lang, "code_right", head=head, n=n, tol=tol))
    # one known wrong implementation, or one generic factor, on every case that returns a number
    numeric = [(t, r) for c, t, r in zip(cases, targets, results) if not c.raises]
    desc = None
    if numeric and all(r[0] in ("ok", "wrong") for _, r in numeric):
        names = []
        for t, _ in numeric:
            names += [d for d in t.mistake_names() if d not in names]
        for d in names:
            if all(t.matches_mistake(r[2], d) or (d not in t.mistake_names() and r[0] == "ok") for t, r in numeric):
                desc = d
                break
        if desc is None:
            for name in GENERIC_MISTAKES:
                if name not in numeric[0][0].generic_names():
                    continue
                for f in GENERIC_MISTAKES[name][0]:
                    if all(t.near(r[2], f) for t, r in numeric) and any(r[0] == "wrong" for _, r in numeric):
                        desc = GENERIC_MISTAKES[name][1]
                        break
                if desc is not None:
                    break
    parts = [say(lang, "code_wrong", head=head, k=len(failed), n=n)]
    seen = set()
    for c, (status, detail, _) in failed:
        if (c.kind, status, detail) in seen:
            continue
        seen.add((c.kind, status, detail))
        key = "code_wrong_value" if status == "wrong" else f"code_{status}"
        parts.append(say(lang, key, kind=kind_text(kinds[c.kind], lang), exc=detail, type=detail))
    if desc is not None:
        parts.append(say(lang, "likely", why=mistake_text(desc, lang)))
    return Verdict(label, "function", False, fn, desc, "".join(parts))


class _OpenCase:
    """A case's right result and mistakes, open (the instructors' edition)."""

    def __init__(self, a):
        self.a = a

    def near(self, arr, factor=1.0):
        want = float(self.a.value) * factor
        return abs(float(arr) - want) <= self.a.rtol * abs(want) + 1e-300

    def mistake_names(self):
        return list(self.a.mistakes)

    def matches_mistake(self, arr, desc):
        w = self.a.mistakes.get(desc)
        return w is not None and abs(float(arr) - w) <= max(self.a.rtol, 1e-9) * abs(w) + 1e-300

    def generic_names(self):
        return _generic_names(self.a.unit, self.a.generic)


class _SealedCase:
    """A case of the student edition's key: hashes only (see :mod:`.targets`)."""

    def __init__(self, target, spec):
        self.t, self.spec = target, spec

    def near(self, arr, factor=1.0):
        return self.t.near(np.asarray(arr, dtype=float), factor)

    def mistake_names(self):
        return [m["desc"] for m in self.spec["mistakes"]]

    def matches_mistake(self, arr, desc):
        return any(m["desc"] == desc and self.t._match(np.asarray(arr, dtype=float), m["h"], max(self.t.rtol, 1e-9))
                   for m in self.spec["mistakes"])

    def generic_names(self):
        return tuple(self.spec.get("generic", ()))


def resolved(c, rtol):
    """``c`` with its answer's tolerance set to the exercise's ``rtol`` where it has none."""
    if c.raises or c.answer.rtol is not None:
        return c
    return replace(c, answer=replace(c.answer, rtol=rtol))
