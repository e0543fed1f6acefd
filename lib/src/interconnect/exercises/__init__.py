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
    Verdict on an answer (a number, a string for a choice, or a dict of all parts).
describe(label, student=None)
    What the checker expects: parts, units, choices, and the student's numbers.
numbers(label, student=None)
    The parameters of an exercise with variants, for the book or for a student.
labels(), non_numeric()
    Every label with a checker; the exercises without a numeric answer.
expected(label, part=None, student=None)
    The expected answer; instructors' edition only.
answer_key(students=()), seal(path)
    Instructors' edition only: every answer, and the sealed key of the student edition.

Chapter modules (``_<chapter>.py``) register their exercises with :func:`exercise`.
"""

from __future__ import annotations

import difflib
import hashlib
import importlib
import importlib.util
import inspect
import math
import os
import pkgutil
import secrets
from dataclasses import dataclass, field, replace

import numpy as np

__all__ = ["check", "expected", "describe", "labels", "non_numeric", "numbers", "set_student",
           "answer_key", "seal", "Verdict", "Report", "Answer", "exercise", "not_numeric", "AnswerError",
           "GENERIC_MISTAKES", "DEFAULT_RTOL", "N_VARIANTS"]

#: Tolerance of a part that sets none, relative.
DEFAULT_RTOL = 0.02

#: Number of variants an exercise with ``variants=`` draws; a student id picks one.
N_VARIANTS = 32


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
        A description is shown to students: it names the mistake, never a number derived
        from the answer.
    rtol : float, optional
        Relative tolerance of a right answer (0: exact). Default: the exercise's ``rtol``,
        else :data:`DEFAULT_RTOL`.
    choices : sequence of str, optional
        Makes the part a choice between these words (case and spaces ignored).
    generic : sequence of str, optional
        Names from :data:`GENERIC_MISTAKES` to try; default depends on ``unit``.
    """

    value: object
    unit: str = "1"
    mistakes: dict = field(default_factory=dict)
    rtol: float = None
    choices: tuple = ()
    generic: tuple = None

    @property
    def is_choice(self):
        return bool(self.choices)


#: Generic mistakes: name -> (factors given/expected, explanation). No explanation says
#: which way the factor goes: the student knows what they did.
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
    "minutes": ((1 / 60, 1 / 3600, 60.0), "a factor of 60 or 3,600: minutes or hours instead of seconds "
                                          "(answers are in seconds)"),
    "sign": ((-1.0,), "the sign is wrong"),
}

_DEFAULT_GENERIC = {
    "B/s": ("direction", "bits", "gib", "prefix"),
    "B/s both": ("direction", "bits", "gib", "prefix"),
    "Hz": ("prefix",),
    "b/s": ("direction", "bits", "prefix"),
    "B": ("bits", "gib", "prefix"),
    "s": ("direction", "gib", "prefix", "minutes"),
    "FLOP/s": ("prefix",),
    "FLOP": ("prefix",),
    "1": ("percent",),
}


def _generic_names(unit, generic):
    names = generic if generic is not None else _DEFAULT_GENERIC.get(unit, ("prefix",))
    return tuple(names) + (("sign",) if "sign" not in names else ())


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
    if label in _NON_NUMERIC:
        raise AnswerError(f"label={label!r} has no numeric answer to check ({_NON_NUMERIC[label][1]}); "
                          "compare with the solution in the book")
    close = difflib.get_close_matches(label, list(_REGISTRY) + list(_NON_NUMERIC), n=3)
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
        e = _SEALED["exercises"][label]
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
    ans = _answers(ex, _which(ex, student))
    if part is None and len(ex.parts) > 1:
        return {k: a.value for k, a in ans.items()}
    return ans[_part_name(ex, part)].value


def describe(label, student=None):
    """A short text: where the exercise is, its parts with units or choices, and the
    student's own numbers for an exercise with variants."""
    ex = _get(label)
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

def _close(given, want, rtol):
    want = np.asarray(want, dtype=float)
    if given.shape != want.shape:
        return False
    return (bool(np.all(np.abs(given - want) <= rtol * np.abs(want) + 1e-300)) if rtol > 0
            else bool(np.all(given == want)))


class _OpenTarget:
    """A part's :class:`Answer`, with its value (the instructors' edition)."""

    def __init__(self, a):
        self.a = a
        self.unit, self.rtol, self.choices = a.unit, a.rtol, tuple(a.choices)
        self.is_choice = a.is_choice
        self.generic = _generic_names(a.unit, a.generic)
        self.shape = None if a.is_choice else np.asarray(a.value, dtype=float).shape

    def right_choice(self, g):
        return g == _norm(self.a.value)

    def choice_why(self, g):
        return {_norm(k): v for k, v in self.a.mistakes.items()}.get(g)

    def near(self, arr, factor=1.0):
        return _close(arr, np.asarray(self.a.value, dtype=float) * factor, self.rtol)

    def own_mistake(self, arr):
        for desc, wrong in self.a.mistakes.items():
            if _close(arr, wrong, max(self.rtol, 1e-9)):
                return desc
        return None

    def shown_expected(self):
        return _show(self.a.value, self.unit)


# ---- sealing: salted hashes of log-binned values -------------------------------------

_SUBBINS = 4  # bins per tolerance: a sealed check accepts within rtol, and rejects beyond 1.25 rtol


def _bin_width(rtol):
    return -math.log1p(-max(min(rtol, 0.4), 1e-9)) / _SUBBINS


def _token(x, width):
    """The bin of one number: its sign and floor(ln|x| / width)."""
    if x == 0:
        return "0"
    return ("+" if x > 0 else "-") + str(math.floor(math.log(abs(x)) / width))


def _near_tokens(x, width):
    """Every bin a number within the tolerance of ``x`` can fall in."""
    if x == 0:
        return ["0"]
    k = math.floor(math.log(abs(x)) / width)
    s = "+" if x > 0 else "-"
    return [f"{s}{k + j}" for j in range(-_SUBBINS, _SUBBINS + 1)]


def _h(salt, *parts):
    return hashlib.sha256("\0".join([salt, *map(str, parts)]).encode()).hexdigest()[:20]


def _seal_value(salt, where, value, rtol):
    """``[[hash, ...] per element]`` of the bins near each element of ``value``."""
    width = _bin_width(rtol)
    flat = np.asarray(value, dtype=float).ravel()
    return [sorted(_h(salt, *where, i, t) for t in _near_tokens(float(x), width)) for i, x in enumerate(flat)]


def _xor(data, key):
    stream = b""
    n = 0
    while len(stream) < len(data):
        stream += hashlib.sha256(key + n.to_bytes(4, "big")).digest()
        n += 1
    return bytes(a ^ b for a, b in zip(data, stream))


class _SealedTarget:
    """A part of the student edition's key: no value, only what verifies an answer."""

    def __init__(self, salt, label, which, part, spec):
        self.salt, self.where, self.spec = salt, (label, which, part), spec
        self.unit, self.choices = spec["unit"], tuple(spec.get("choices", ()))
        self.is_choice = bool(self.choices)
        self.rtol = spec.get("rtol", 0.0)
        self.generic = tuple(spec.get("generic", ()))
        self.shape = None if self.is_choice else tuple(spec["shape"])

    def right_choice(self, g):
        return _h(self.salt, *self.where, "choice", g) == self.spec["right"]

    def choice_why(self, g):
        box = self.spec["why"].get(_h(self.salt, *self.where, "why-id", g))
        if box is None:
            return None
        key = hashlib.sha256("\0".join([self.salt, *self.where, "why-key", g]).encode()).digest()
        return _xor(bytes.fromhex(box), key).decode()

    def _match(self, arr, sealed, rtol):
        if arr.shape != self.shape:
            return False
        width = _bin_width(rtol)
        return all(_h(self.salt, *self.where, i, _token(float(x), width)) in set(s)
                   for i, (x, s) in enumerate(zip(arr.ravel(), sealed)))

    def near(self, arr, factor=1.0):
        return self._match(arr / factor, self.spec["h"], self.rtol)

    def own_mistake(self, arr):
        for m in self.spec["mistakes"]:
            if self._match(arr, m["h"], max(self.rtol, 1e-9)):
                return m["desc"]
        return None

    def shown_expected(self):
        return None


def _seal_part(salt, label, which, part, a):
    where = (label, which, part)
    if a.is_choice:
        why = {}
        for c, text in a.mistakes.items():
            g = _norm(c)
            key = hashlib.sha256("\0".join([salt, *where, "why-key", g]).encode()).digest()
            why[_h(salt, *where, "why-id", g)] = _xor(text.encode(), key).hex()
        return {"unit": a.unit, "choices": list(a.choices), "right": _h(salt, *where, "choice", _norm(a.value)),
                "why": why}
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
    out = {"version": 1, "salt": salt, "n_variants": N_VARIANTS, "non_numeric": dict(_NON_NUMERIC),
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
    return out


def seal(path, salt=None):
    """Write the student edition's key to ``path`` (a Python module, ``sealed_key.py``).

    It holds, per exercise, part (and variant): the unit, tolerance and generic mistakes;
    salted SHA-256 hashes of the bins (width rtol / 4 in the logarithm) that a right
    answer, and each diagnosed mistake, can fall in; for a choice the hash of the right
    word and each wrong word's explanation encrypted with that word. No value.
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
                    "choices": list(a.choices) or None,
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


def _unanswered(label, part, t, missing):
    what = (f"one of {list(t.choices)}" if t.is_choice
            else "a plain number" if t.unit == "1" else f"a number in {_unit_text(t.unit)}")
    why = ("no answer given; every part is required" if missing
           else "no answer yet; replace the ... with your answer")
    return Verdict(label, part, False, ..., "no answer", f"✗ {_head(label, part)}: {why} ({what}).")


def _tol_text(rtol):
    return f"within {rtol * 100:.2g} %" if rtol > 0 else "exactly"


def _check_part(label, part, t, given):
    """The verdict on one part. ``t`` is a target (or an :class:`Answer`, for tests)."""
    if isinstance(t, Answer):
        t = _OpenTarget(t if t.rtol is not None else replace(t, rtol=DEFAULT_RTOL))
    head = _head(label, part)
    if given is ...:
        return _unanswered(label, part, t, missing=False)
    if t.is_choice:
        if not isinstance(given, str):
            raise AnswerError(f"answer={given!r} for {label!r} part {part!r} is not a word; "
                              f"expected one of {list(t.choices)}")
        g = _norm(given)
        allowed = {_norm(c): c for c in t.choices}
        if g not in allowed:
            raise AnswerError(f"answer={given!r} for {label!r} part {part!r} is not one of {list(t.choices)}")
        if t.right_choice(g):
            return Verdict(label, part, True, given, None, f"✓ {head}: {allowed[g]!r} is right.")
        why = t.choice_why(g)
        msg = f"✗ {head}: {allowed[g]!r} is not right." + (f" Likely mistake: {why}." if why else " Try again.")
        return Verdict(label, part, False, given, why, msg)

    arr = _as_number(label, part, given)
    if arr.shape != t.shape:
        raise AnswerError(f"answer for {label!r} part {part!r} has shape {arr.shape}; expected "
                          f"{'a single number' if len(t.shape) == 0 else f'an array of shape {t.shape}'}")
    shown = _show(given if arr.ndim else float(arr), t.unit)
    if t.near(arr):
        want = t.shown_expected()
        tol = f", within {t.rtol * 100:.2g} %" if t.rtol > 0 else ""
        return Verdict(label, part, True, given, None,
                       f"✓ {head}: {shown} is right (expected {want}{tol})." if want is not None
                       else f"✓ {head}: {shown} is right ({_tol_text(t.rtol)}).")
    # the exercise's own mistakes first: they are the most specific
    desc = t.own_mistake(arr)
    if desc is None:
        for name in t.generic:
            factors, text = GENERIC_MISTAKES[name]
            if any(t.near(arr, f) for f in factors):
                desc = text
                break
    if desc is not None:
        return Verdict(label, part, False, given, desc, f"✗ {head}: {shown} is not right. Likely mistake: {desc}.")
    # no diagnosis: the same words whatever the expected value (no ratio, no direction)
    return Verdict(label, part, False, given, None,
                   f"✗ {head}: {shown} is not right, and it matches none of the mistakes this checker knows. "
                   f"Answers are in {_unit_text(t.unit)}; check the exercise's parameters and try again.")


def check(label, answer, part=None, student=None):
    """Check an answer to the exercise ``label`` and say what is wrong with it.

    Parameters
    ----------
    label : str
        The exercise's label in the book, e.g. ``"coll-ex-ring"``.
    answer : float, array, str, or dict
        The answer in SI base units (bytes, seconds, bytes/s per direction, FLOP/s,
        fractions), a word for a choice, or ``{part: answer}`` with every part (a missing
        part, or ``...``, is wrong and named).
    part : str, optional
        Which part ``answer`` answers, to practise one part of an exercise with several.
    student : str, optional
        The student id whose variant is checked (default: :func:`set_student`'s, else the
        environment variable ``INTERCONNECT_STUDENT``, else the book's numbers).

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
        return Report(tuple(_check_part(label, k, targets[k], answer[k]) if k in answer
                            else _unanswered(label, k, targets[k], missing=True) for k in ex.parts))
    name = _part_name(ex, part)
    return _check_part(label, name, targets[name], answer)


# the student edition (a sealed key next to this file): no expected answers, no key
if importlib.util.find_spec(f"{__name__}.sealed_key") is not None:
    _load()
    for _name in ("expected", "answer_key", "seal"):
        del globals()[_name]
        __all__.remove(_name)
