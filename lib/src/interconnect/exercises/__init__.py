"""Exercise checkers: the classroom edition of the book.

Every exercise in the book with a numeric (or one-word) answer has a checker here::

    from interconnect.exercises import check
    check("phys-ex-pcie", 15.75e9, part="pcie4x8")

The expected answer is *computed with the library* from the exercise's own parameters,
never typed in by hand, so the checker and the book cannot drift apart.

A wrong answer gets a diagnosis, never the answer. When the answer matches a likely
mistake the verdict names it: a factor of 2 (per direction against both directions), 8
(bits against bytes), 1.07 (GB against GiB), a power of 1000 (a unit prefix instead of
SI base units), 100 (a percentage instead of a fraction), 60 or 3,600 (minutes or hours
instead of seconds), a wrong sign, or an exercise's own slips (``p`` steps instead of
``p - 1``, a forgotten term, ...), each computed with the library the way the mistake
would compute it. An answer that matches no mistake gets the same words whatever the
expected value is: no ratio, no difference, not even "too high" or "too low" (a direction
would let a student bisect to the answer in a dozen tries). Only a right answer is told
the expected value.

Every part of a multi-part exercise is required: ``check(label, {part: answer, ...})``
with a part missing is wrong, and the verdict names the missing parts. One part can be
practised alone with ``check(label, answer, part=...)``.

Coding exercises (:func:`coding_labels`) are answered with a function,
``check("primer-ex-code", ring_allreduce_time)``: the checker calls it on hidden cases, fixed
ones and ones drawn from the student's seed, compares each result with the library's, and
says which kinds of input fail, in words, and which known wrong implementation (or generic
slip) the results match; an exception, a wrong type or a missing ``ValueError`` on invalid
input is reported too (:mod:`~interconnect.exercises.coding`).

Tolerances are the exercise's: ``exercise(..., rtol=...)`` sets the default of its parts,
an :class:`Answer`'s own ``rtol`` a part's. Without either it is :data:`DEFAULT_RTOL`
(2 %, the precision of an answer worked with the chapter's rounded inputs); counts are
exact, and parts the chapter computes by a first-order method are looser.

Per-student variants: an exercise registered with ``variants=`` draws its parameters from
the student's id (``check(label, answer, student="s123")``, or :func:`set_student` once, or
the environment variable ``INTERCONNECT_STUDENT``); :func:`numbers` prints that
student's numbers, and the checker computes that variant's answer.

Two editions of this package. In the repository (the instructors' and readers' edition)
the answers are computed by the chapter modules ``_<chapter>.py`` and :func:`expected`
returns them. The student edition (``tools/student_edition.py``) ships the package without
the chapter modules and without ``expected``; it holds a sealed key (``sealed_key.py``,
written by :func:`seal`) of salted hashes of each answer's logarithm binned at the
tolerance, of each diagnosed mistake likewise, and of each right choice, which the same
verdict code checks against. See the instructors' page for what this protects and what
it does not.

Answers are in SI base units, as everywhere in the library: bytes, seconds, bytes/s
(per direction unless the exercise says otherwise), FLOP/s, and plain fractions (0.85,
not 85 %).

Functions
---------
check(label, answer, part=None, student=None)
    Verdict on an answer (a number, a string for a choice, a dict of all parts, or a
    function for a coding exercise).
describe(label, student=None)
    What the checker expects: parts, units, choices, and the student's numbers.
numbers(label, student=None)
    The parameters of an exercise with variants, for the book or for a student.
labels(), coding_labels(), non_numeric()
    Every label with a numeric checker; the coding exercises; those without a checker.
expected(label, part=None, student=None)
    The expected answer; instructors' edition only.
answer_key(students=()), seal(path)
    Instructors' edition only: every answer, and the sealed key of the student edition.

Chapter modules (``_<chapter>.py``) register their exercises with :func:`exercise`. The
package's own modules: :mod:`~interconnect.exercises.answers` (:class:`Answer`, the generic
mistakes), :mod:`~interconnect.exercises.verdicts` (:class:`Verdict`, :class:`Report`) and
:mod:`~interconnect.exercises.targets` (the open and the sealed comparison); this module holds
the registry, the students' variants, the sealed key and :func:`check`.
"""

from __future__ import annotations

import difflib
import hashlib
import importlib
import importlib.util
import inspect
import os
import pkgutil
import secrets
from dataclasses import dataclass, replace

import numpy as np

from . import coding as _coding
from .answers import DEFAULT_RTOL, GENERIC_MISTAKES, Answer, AnswerError, _generic_names
from .coding import Case
from .targets import _h, _OpenTarget, _seal_value, _seal_why, _SealedTarget
from .verdicts import Report, Verdict, _norm, _show, _unit_text, check_lang, mistake_text, say, shown_text

__all__ = ["check", "expected", "describe", "labels", "coding_labels", "non_numeric", "numbers", "set_student",
           "answer_key", "seal", "Verdict", "Report", "Answer", "exercise", "coding_exercise", "Case", "not_numeric",
           "AnswerError",
           "GENERIC_MISTAKES", "DEFAULT_RTOL", "N_VARIANTS"]


#: Number of variants an exercise with ``variants=`` draws; a student id picks one.
N_VARIANTS = 32


# --------------------------------------------------------------------------------------
# The registry
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Exercise:
    label: str
    chapter: str
    compute: object
    parts: tuple  # names, or ("answer",) for a single part
    doc: str
    rtol: float = None
    variants: object = None


_REGISTRY: dict = {}
_CODING: dict = {}  # the coding exercises: the answer is a function


@dataclass(frozen=True)
class _Coding:
    label: str
    chapter: str
    compute: object  # fn(**variant) -> list of Case
    signature: str
    kinds: dict  # kind -> its description in English
    doc: str
    rtol: float = None
    variants: object = None
    unit: str = "1"
    parts: tuple = ("function",)
_NON_NUMERIC: dict = {}
_LOADED = False
_SEALED = None  # the student edition's key, when this package is the student edition
_STUDENT = None


def exercise(label, chapter, parts=None, doc="", rtol=None, variants=None):
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
    rtol : float, optional
        Tolerance of the parts whose :class:`Answer` sets none (default
        :data:`DEFAULT_RTOL`). Set it from the method the chapter teaches: tight when the
        answer is one formula, looser when the chapter's own method is first-order.
    variants : callable, optional
        ``variants(rng) -> dict`` of keyword arguments of ``fn`` (plain numbers or
        strings), drawn with a :class:`numpy.random.Generator`; ``fn``'s defaults are the
        book's numbers. Turns on per-student variants.
    """
    if rtol is not None and not (0 <= rtol < 0.5):
        raise ValueError(f"rtol={rtol!r} for {label!r} is out of range; expected 0 <= rtol < 0.5")

    def register(fn):
        if label in _REGISTRY or label in _NON_NUMERIC:
            raise ValueError(f"label={label!r} is registered twice")
        names = tuple(parts) if parts else ("answer",)
        _REGISTRY[label] = _Exercise(label, chapter, fn, names, doc or (fn.__doc__ or "").strip(), rtol, variants)
        return fn

    return register


def coding_exercise(label, chapter, signature, kinds, unit="1", doc="", rtol=None, variants=None):
    """Decorator registering a coding exercise: ``fn(**variant) -> [Case, ...]``.

    The student answers with a function (``check(label, my_function)``); the checker calls
    it on every :class:`Case` ``fn`` returns (see :mod:`~interconnect.exercises.coding`).
    ``signature`` is the function's header as the exercise states it, e.g.
    ``"ring_allreduce_time(n, p, alpha, bandwidth)"``; ``kinds`` ``{kind: description}``
    describes each class of input in words (the verdict names the classes that fail);
    ``unit`` is the unit of the result. ``variants(rng) -> {"seed": int}`` draws the seed of
    the cases a student's function is also tried on; ``fn(seed=0)`` gives the book's.
    """
    if rtol is not None and not (0 <= rtol < 0.5):
        raise ValueError(f"rtol={rtol!r} for {label!r} is out of range; expected 0 <= rtol < 0.5")

    def register(fn):
        if label in _REGISTRY or label in _NON_NUMERIC or label in _CODING:
            raise ValueError(f"label={label!r} is registered twice")
        _CODING[label] = _Coding(label, chapter, fn, signature, dict(kinds), doc or (fn.__doc__ or "").strip(), rtol,
                                 variants, unit)
        return fn

    return register


def coding_labels():
    """Every coding exercise's label (the answer is a function), sorted."""
    _load()
    return sorted(_CODING)


def _cases(ex, which="book"):
    """The cases of coding exercise ``ex`` (book or variant ``which``), tolerances resolved."""
    if ex.compute is None:
        raise RuntimeError("the student edition computes no answers")
    out = ex.compute() if which == "book" else ex.compute(**_variant_params(ex, int(which)))
    rtol = ex.rtol if ex.rtol is not None else DEFAULT_RTOL
    for c in out:
        if c.kind not in ex.kinds:
            raise RuntimeError(f"case kind {c.kind!r} of {ex.label!r} is not one of its kinds {list(ex.kinds)}")
    return [_coding.resolved(c, rtol) for c in out]


def _case_targets(ex, which):
    """``(cases, targets)`` of a coding exercise: open, or from the sealed key."""
    if _SEALED is not None:
        specs = _SEALED["coding"][ex.label]["cases"][which]
        cases = [Case(d["kind"], tuple(d["args"]), None, d["raises"]) for d in specs]
        salt = _SEALED["salt"]
        targets = [None if d["raises"] else
                   _coding._SealedCase(_SealedTarget(salt, ex.label, which, f"case{i}", d["spec"]), d["spec"])
                   for i, d in enumerate(specs)]
        return cases, targets
    cases = _cases(ex, which)
    return cases, [None if c.raises else _coding._OpenCase(c.answer) for c in cases]


def _check_coding(ex, answer, student, lang):
    if not callable(answer) or isinstance(answer, type):
        raise AnswerError(f"answer={answer!r} for {ex.label!r} is not a function; this exercise is graded by "
                          f"calling your function: define {ex.signature} and pass it, "
                          f'check("{ex.label}", {ex.signature.split("(")[0]})')
    which = _which(ex, student)
    cases, targets = _case_targets(ex, which)
    rtol = ex.rtol if ex.rtol is not None else DEFAULT_RTOL
    return _coding.judge(ex.label, answer, cases, targets, ex.kinds, rtol, lang)


def not_numeric(label, chapter, reason):
    """Declare that exercise ``label`` has no numeric answer (an essay, a design, a plot)."""
    if label in _REGISTRY or label in _NON_NUMERIC:
        raise ValueError(f"label={label!r} is registered twice")
    _NON_NUMERIC[label] = (chapter, reason)


def _load():
    global _LOADED, _SEALED
    if _LOADED:
        return
    _LOADED = True
    try:
        key = importlib.import_module(f"{__name__}.sealed_key")
    except ModuleNotFoundError:
        key = None
    if key is not None:
        import json

        _SEALED = json.loads(key.KEY_JSON)
        for label, (chapter, reason) in _SEALED["non_numeric"].items():
            _NON_NUMERIC[label] = (chapter, reason)
        for label, e in _SEALED.get("coding", {}).items():
            _CODING[label] = _Coding(label, e["chapter"], None, e["signature"], e["kinds"], e["doc"], e["rtol"],
                                     bool(e["variants"]), e["unit"])
        for label, e in _SEALED["exercises"].items():
            _REGISTRY[label] = _Exercise(label, e["chapter"], None, tuple(e["parts"]), e["doc"], None,
                                         bool(e["variants"]))
        return
    for mod in sorted(m.name for m in pkgutil.iter_modules(__path__)):
        if mod.startswith("_"):
            importlib.import_module(f"{__name__}.{mod}")


def _get(label):
    _load()
    if not isinstance(label, str):
        raise AnswerError(f"label={label!r} is not a string; expected an exercise label such as 'phys-ex-pcie'")
    if label in _REGISTRY:
        return _REGISTRY[label]
    if label in _CODING:
        return _CODING[label]
    if label in _NON_NUMERIC:
        raise AnswerError(f"label={label!r} has no numeric answer to check ({_NON_NUMERIC[label][1]}); "
                          "compare with the solution in the book")
    close = difflib.get_close_matches(label, list(_REGISTRY) + list(_NON_NUMERIC) + list(_CODING), n=3)
    hint = f"; did you mean {', '.join(map(repr, close))}?" if close else "; labels() lists them"
    raise AnswerError(f"label={label!r} is not an exercise with a checker{hint}")


def labels():
    """Every exercise label with a checker, sorted."""
    _load()
    return sorted(_REGISTRY)


def non_numeric():
    """``{label: (chapter, reason)}`` for the exercises declared without a numeric answer."""
    _load()
    return dict(_NON_NUMERIC)


# ---- students and variants -----------------------------------------------------------

def set_student(student):
    """Use ``student``'s variants from now on (``None``: the book's numbers)."""
    global _STUDENT
    if student is not None and (not isinstance(student, (str, int)) or not str(student).strip()):
        raise AnswerError(f"student={student!r} is not a student id; expected a non-empty string")
    _STUDENT = None if student is None else str(student).strip()


def _student(student):
    if student is None:
        student = _STUDENT if _STUDENT is not None else (os.environ.get("INTERCONNECT_STUDENT") or None)
    if student is not None and (not isinstance(student, (str, int)) or not str(student).strip()):
        raise AnswerError(f"student={student!r} is not a student id; expected a non-empty string")
    return None if student is None else str(student).strip()


def _variant_index(label, student):
    """The variant (0 .. N_VARIANTS - 1) of ``label`` a student id picks."""
    digest = hashlib.sha256(f"{student}\0{label}".encode()).digest()
    return int.from_bytes(digest[:8], "big") % N_VARIANTS


def _plain(v):
    if isinstance(v, (np.integer,)):
        return int(v)
    if isinstance(v, (np.floating,)):
        return float(v)
    return v


def _variant_params(ex, i):
    """The keyword arguments of variant ``i`` of an exercise with ``variants=``."""
    seed = int.from_bytes(hashlib.sha256(f"{ex.label}#{i}".encode()).digest()[:8], "big")
    params = ex.variants(np.random.default_rng(seed))
    return {k: _plain(v) for k, v in params.items()}


def _book_params(ex):
    sig = inspect.signature(ex.compute)
    return {k: p.default for k, p in sig.parameters.items() if p.default is not inspect.Parameter.empty}


def _which(ex, student):
    """``"book"`` or the variant index (as a string) that ``student`` answers."""
    student = _student(student)
    if student is None or not ex.variants:
        return "book"
    return str(_variant_index(ex.label, student))


def numbers(label, student=None):
    """The parameters of ``label`` for ``student`` (the book's without one), as a dict.

    Empty for an exercise without variants: its numbers are the ones in the book.
    """
    ex = _get(label)
    if not ex.variants:
        return {}
    which = _which(ex, student)
    if _SEALED is not None:
        e = _SEALED["coding" if label in _CODING else "exercises"][label]
        return dict(e["defaults"] if which == "book" else e["variants"][int(which)])
    return _book_params(ex) if which == "book" else _variant_params(ex, int(which))


def _resolve(ex, a):
    a = a if isinstance(a, Answer) else Answer(a)
    if a.rtol is None:
        a = replace(a, rtol=ex.rtol if ex.rtol is not None else DEFAULT_RTOL)
    return a


def _answers(ex, which="book"):
    """Compute ``{part: Answer}`` for an exercise (fresh each call: it is cheap)."""
    if ex.compute is None:
        raise RuntimeError("the student edition computes no answers")
    out = ex.compute() if which == "book" else ex.compute(**_variant_params(ex, int(which)))
    if len(ex.parts) == 1 and ex.parts == ("answer",):
        out = {"answer": out}
    if not isinstance(out, dict) or set(out) != set(ex.parts):
        raise RuntimeError(f"checker of {ex.label!r} returned parts {sorted(out) if isinstance(out, dict) else out!r}; "
                           f"expected {list(ex.parts)}")
    return {k: _resolve(ex, v) for k, v in out.items()}


def _targets(ex, which):
    """``{part: target}``: an answer to compare with, open or sealed."""
    if _SEALED is not None:
        e = _SEALED["exercises"][ex.label]
        return {k: _SealedTarget(_SEALED["salt"], ex.label, which, k, spec)
                for k, spec in e["answers"][which].items()}
    return {k: _OpenTarget(a) for k, a in _answers(ex, which).items()}


def _part_name(ex, part):
    if part is None:
        if len(ex.parts) > 1:
            raise AnswerError(f"exercise {ex.label!r} has parts {list(ex.parts)}; pass part=... "
                              "or a dict {part: answer}")
        return ex.parts[0]
    if part not in ex.parts:
        raise AnswerError(f"part={part!r} is not a part of {ex.label!r}; its parts are {list(ex.parts)}")
    return part


def expected(label, part=None, student=None):
    """The expected answer of ``label`` (a number, array or word), computed by the library.

    For an exercise with several parts and ``part=None``, a dict of all parts. For
    instructors and tests: the student edition of the package has no such function.
    """
    ex = _get(label)
    if label in _CODING:  # the cases: arguments and the right result, or ValueError
        return [(c.args, ValueError if c.raises else c.answer.value) for c in _cases(ex, _which(ex, student))]
    ans = _answers(ex, _which(ex, student))
    if part is None and len(ex.parts) > 1:
        return {k: a.value for k, a in ans.items()}
    return ans[_part_name(ex, part)].value


def describe(label, student=None):
    """A short text: where the exercise is, its parts with units or choices, and the
    student's own numbers for an exercise with variants."""
    ex = _get(label)
    if label in _CODING:
        cases, _ = _case_targets(ex, _which(ex, student))
        lines = [f"{ex.label} ({ex.chapter}): {ex.doc}" if ex.doc else f"{ex.label} ({ex.chapter})",
                 f"  function: {ex.signature}, returning "
                 f"{'a plain number' if ex.unit == '1' else 'a number in ' + _unit_text(ex.unit)}; "
                 f"graded by calling it on {len(cases)} cases"]
        if ex.variants:
            who = _student(student)
            lines.append(f"  cases: fixed ones, and ones drawn from {'student ' + who if who else 'the book'}'s seed")
        return "\n".join(lines)
    targets = _targets(ex, _which(ex, student))
    lines = [f"{ex.label} ({ex.chapter}): {ex.doc}" if ex.doc else f"{ex.label} ({ex.chapter})"]
    for k in ex.parts:
        t = targets[k]
        what = (("one of " + ", ".join(repr(c) for c in t.choices)) if t.is_choice
                else "a plain number (no unit)" if t.unit == "1" else f"a number in {_unit_text(t.unit)}")
        lines.append(f"  {k}: {what}")
    if ex.variants:
        who = _student(student)
        nums = ", ".join(f"{k} = {v}" for k, v in numbers(label, student).items())
        lines.append(f"  numbers ({'the book' if who is None else 'student ' + who + ', replacing the book'}'s): "
                     f"{nums}")
    return "\n".join(lines)


# --------------------------------------------------------------------------------------
# What a part is compared with: the open answer, or its sealed key
# --------------------------------------------------------------------------------------


# ---- sealing: salted hashes of log-binned values -------------------------------------


def _seal_part(salt, label, which, part, a):
    where = (label, which, part)
    if a.is_choice:
        why = {_h(salt, *where, "why-id", _norm(c)): _seal_why(salt, where, _norm(c), text)
               for c, text in a.mistakes.items()}
        return {"unit": a.unit, "choices": list(a.choices), "right": _h(salt, *where, "choice", _norm(a.value)),
                "also": sorted(_h(salt, *where, "choice", _norm(c)) for c in a.accept), "why": why}
    rtol = a.rtol  # 0 (exact) is sealed at 1e-9: see _bin_width
    return {"unit": a.unit, "rtol": rtol, "generic": list(_generic_names(a.unit, a.generic)),
            "shape": list(np.asarray(a.value, dtype=float).shape),
            "h": _seal_value(salt, where, a.value, rtol),
            "mistakes": [{"desc": d, "h": _seal_value(salt, where, w, max(rtol, 1e-9))}
                         for d, w in a.mistakes.items()]}


def _sealed_key(salt=None):
    """The student edition's key as a dict (see :func:`seal`)."""
    _load()
    if _SEALED is not None:
        raise RuntimeError("this is the student edition: it cannot seal a key")
    salt = salt or secrets.token_hex(16)
    out = {"version": 2, "salt": salt, "n_variants": N_VARIANTS, "non_numeric": dict(_NON_NUMERIC),
           "exercises": {}}
    for label in labels():
        ex = _REGISTRY[label]
        whiches = ["book"] + ([str(i) for i in range(N_VARIANTS)] if ex.variants else [])
        answers = {w: {k: _seal_part(salt, label, w, k, a) for k, a in _answers(ex, w).items()} for w in whiches}
        out["exercises"][label] = {
            "chapter": ex.chapter, "doc": ex.doc, "parts": list(ex.parts),
            "variants": [_variant_params(ex, i) for i in range(N_VARIANTS)] if ex.variants else None,
            "defaults": _book_params(ex) if ex.variants else None,
            "answers": answers}
    out["coding"] = {}
    for label in coding_labels():
        ex = _CODING[label]
        whiches = ["book"] + ([str(i) for i in range(N_VARIANTS)] if ex.variants else [])
        cases = {w: [{"kind": c.kind, "args": list(c.args), "raises": c.raises,
                      "spec": None if c.raises else _seal_part(salt, label, w, f"case{i}", c.answer)}
                     for i, c in enumerate(_cases(ex, w))] for w in whiches}
        out["coding"][label] = {
            "chapter": ex.chapter, "doc": ex.doc, "signature": ex.signature, "kinds": ex.kinds, "unit": ex.unit,
            "rtol": ex.rtol if ex.rtol is not None else DEFAULT_RTOL,
            "variants": [_variant_params(ex, i) for i in range(N_VARIANTS)] if ex.variants else None,
            "defaults": _book_params(ex) if ex.variants else None, "cases": cases}
    return out


def seal(path, salt=None):
    """Write the student edition's key to ``path`` (a Python module, ``sealed_key.py``).

    It holds, per exercise, part (and variant): the unit, tolerance and generic mistakes;
    salted SHA-256 hashes of the bins (width rtol / 4 in the logarithm) that a right
    answer, and each diagnosed mistake, can fall in; for a choice the hash of the right
    word and each wrong word's explanation, in English and Chinese, encrypted with that word.
    No value.
    """
    import json
    import pathlib

    text = json.dumps(_sealed_key(salt), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    pathlib.Path(path).write_text(
        '"""The sealed answer key of the student edition (generated by tools/student_edition.py)."""\n'
        f"KEY_JSON = {text!r}\n", encoding="utf-8")
    return path


def answer_key(students=()):
    """Every answer, for the instructors' key: ``{label: {...}}`` with the chapter, the
    parts' values, units, tolerances and diagnosed mistakes; for an exercise with variants
    also each listed student's numbers and answers."""
    _load()
    if _SEALED is not None:
        raise RuntimeError("this is the student edition: it has no answer key")

    def plain(v):
        return v if isinstance(v, str) else np.asarray(v, dtype=float).tolist()

    def parts(ans):
        return {k: {"value": plain(a.value), "unit": a.unit, "rtol": a.rtol,
                    "choices": list(a.choices) or None, "also_right": list(a.accept) or None,
                    "mistakes": {d: (w if a.is_choice else plain(w)) for d, w in a.mistakes.items()}}
                for k, a in ans.items()}

    out = {}
    for label in labels():
        ex = _REGISTRY[label]
        entry = {"chapter": ex.chapter, "doc": ex.doc, "parts": parts(_answers(ex))}
        if ex.variants:
            entry["book_numbers"] = _book_params(ex)
            entry["students"] = {str(s): {"variant": _variant_index(label, str(s)),
                                          "numbers": _variant_params(ex, _variant_index(label, str(s))),
                                          "parts": parts(_answers(ex, str(_variant_index(label, str(s)))))}
                                 for s in students}
        out[label] = entry
    return out


# --------------------------------------------------------------------------------------
# Verdicts
# --------------------------------------------------------------------------------------


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


def _head(label, part):
    return f"{label}" + (f" [{part}]" if part != "answer" else "")


def _unanswered(label, part, t, missing, lang="en"):
    what = (say(lang, "one_of", choices=list(t.choices)) if t.is_choice
            else say(lang, "plain_number") if t.unit == "1" else say(lang, "number_in", unit=_unit_text(t.unit, lang)))
    why = say(lang, "missing" if missing else "not_yet")
    return Verdict(label, part, False, ..., "no answer", say(lang, "unanswered", head=_head(label, part), why=why,
                                                            what=what))


def _tol_text(rtol, lang="en"):
    return say(lang, "within", pct=f"{rtol * 100:.2g}") if rtol > 0 else say(lang, "exactly")


def _check_part(label, part, t, given, lang="en"):
    """The verdict on one part. ``t`` is a target (or an :class:`Answer`, for tests)."""
    if isinstance(t, Answer):
        t = _OpenTarget(t if t.rtol is not None else replace(t, rtol=DEFAULT_RTOL))
    head = _head(label, part)
    if given is ...:
        return _unanswered(label, part, t, missing=False, lang=lang)
    if t.is_choice:
        if not isinstance(given, str):
            raise AnswerError(f"answer={given!r} for {label!r} part {part!r} is not a word; "
                              f"expected one of {list(t.choices)}")
        g = _norm(given)
        allowed = {_norm(c): c for c in t.choices}
        if g not in allowed:
            raise AnswerError(f"answer={given!r} for {label!r} part {part!r} is not one of {list(t.choices)}")
        if t.right_choice(g):
            return Verdict(label, part, True, given, None,
                           say(lang, "right_choice", head=head, choice=repr(allowed[g])))
        why = t.choice_why(g)   # the verdict names the mistake in English, and explains it in ``lang``
        msg = say(lang, "wrong_choice", head=head, choice=repr(allowed[g])) + (
            say(lang, "likely", why=t.choice_why(g, lang)) if why else say(lang, "try_again"))
        return Verdict(label, part, False, given, why, msg)

    arr = _as_number(label, part, given)
    if arr.shape != t.shape:
        raise AnswerError(f"answer for {label!r} part {part!r} has shape {arr.shape}; expected "
                          f"{'a single number' if len(t.shape) == 0 else f'an array of shape {t.shape}'}")
    shown = shown_text(_show(given if arr.ndim else float(arr), t.unit), lang)
    if t.near(arr):
        want = t.shown_expected()
        tol = say(lang, "tol_suffix", pct=f"{t.rtol * 100:.2g}") if t.rtol > 0 else ""
        return Verdict(label, part, True, given, None,
                       say(lang, "right_value", head=head, shown=shown, want=shown_text(want, lang), tol=tol)
                       if want is not None
                       else say(lang, "right_value_sealed", head=head, shown=shown, tol=_tol_text(t.rtol, lang)))
    # the exercise's own mistakes first: they are the most specific
    desc = t.own_mistake(arr)
    if desc is None:
        for name in t.generic:
            factors, text = GENERIC_MISTAKES[name]
            if any(t.near(arr, f) for f in factors):
                desc = text
                break
    if desc is not None:
        return Verdict(label, part, False, given, desc,
                       say(lang, "wrong_value", head=head, shown=shown, desc=mistake_text(desc, lang)))
    # no diagnosis: the same words whatever the expected value (no ratio, no direction)
    return Verdict(label, part, False, given, None,
                   say(lang, "unknown", head=head, shown=shown, unit=_unit_text(t.unit, lang)))


def check(label, answer, part=None, student=None, lang="en"):
    """Check an answer to the exercise ``label`` and say what is wrong with it.

    Parameters
    ----------
    label : str
        The exercise's label in the book, e.g. ``"coll-ex-ring"``.
    answer : float, array, str, dict, or function
        The answer in SI base units (bytes, seconds, bytes/s per direction, FLOP/s,
        fractions), a word for a choice, or ``{part: answer}`` with every part (a missing
        part, or ``...``, is wrong and named). For a coding exercise
        (:func:`coding_labels`), the student's function: the checker calls it on hidden
        cases (see :mod:`~interconnect.exercises.coding`).
    part : str, optional
        Which part ``answer`` answers, to practise one part of an exercise with several.
    student : str, optional
        The student id whose variant is checked (default: :func:`set_student`'s, else the
        environment variable ``INTERCONNECT_STUDENT``, else the book's numbers).
    lang : {"en", "zh"}, optional
        The language of the verdict (``"zh"``: Chinese, from :mod:`~interconnect.exercises.messages_zh`).
        ``Verdict.mistake`` stays the English text in both.

    Returns
    -------
    Verdict or Report
        Prints as a one-line verdict per part; ``bool()`` of it is True when right.

    Raises
    ------
    AnswerError
        (a ``ValueError``) for an unknown label or part, a NaN or non-numeric answer.
    """
    check_lang(lang)
    ex = _get(label)
    if label in _CODING:
        if part not in (None, "function"):
            raise AnswerError(f"part={part!r} is not a part of {label!r}; it has one answer, a function")
        return _check_coding(ex, answer, student, lang)
    if callable(answer) and not isinstance(answer, type):
        raise AnswerError(f"answer for {label!r} is a function; this exercise expects a number, a word or a dict")
    targets = _targets(ex, _which(ex, student))
    if isinstance(answer, dict):
        if part is not None:
            raise AnswerError("pass either a dict of parts or part=..., not both")
        unknown = [k for k in answer if k not in ex.parts]
        if unknown:
            raise AnswerError(f"answer has parts {unknown} that {label!r} does not have; "
                              f"its parts are {list(ex.parts)}")
        if not answer:
            raise AnswerError(f"answer is an empty dict; {label!r} has parts {list(ex.parts)}")
        return Report(tuple(_check_part(label, k, targets[k], answer[k], lang) if k in answer
                            else _unanswered(label, k, targets[k], missing=True, lang=lang) for k in ex.parts))
    name = _part_name(ex, part)
    return _check_part(label, name, targets[name], answer, lang)


# the student edition (a sealed key next to this file): no expected answers, no key
if importlib.util.find_spec(f"{__name__}.sealed_key") is not None:
    _load()
    for _name in ("expected", "answer_key", "seal"):
        del globals()[_name]
        __all__.remove(_name)
