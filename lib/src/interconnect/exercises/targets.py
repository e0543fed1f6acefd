"""What a part is compared with: the open answer (the instructors' edition) or its sealed key
(the student edition: salted hashes of log-binned values). Part of :mod:`interconnect.exercises`.
"""

from __future__ import annotations

import hashlib
import json
import math

import numpy as np

from .answers import _generic_names
from .verdicts import LANGUAGES, _norm, _show


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
        return g == _norm(self.a.value) or g in {_norm(c) for c in self.a.accept}

    def choice_why(self, g, lang="en"):
        why = {_norm(k): v for k, v in self.a.mistakes.items()}.get(g)
        return _why_in(why, lang)

    def near(self, arr, factor=1.0):
        return _close(arr, np.asarray(self.a.value, dtype=float) * factor, self.rtol)

    def own_mistake(self, arr):
        for desc, wrong in self.a.mistakes.items():
            if _close(arr, wrong, max(self.rtol, 1e-9)):
                return desc
        return None

    def shown_expected(self):
        return _show(self.a.value, self.unit)


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


def _why_in(why, lang):
    """A wrong choice's explanation in ``lang``: the English, or its Chinese text (the English where
    it has none)."""
    if why is None or lang == "en":
        return why
    from ._choices_zh import why_zh

    return why_zh(why) or why


def _why_key(salt, where, g):
    """The key that seals a wrong choice's explanation: only that choice opens it."""
    return hashlib.sha256("\0".join([salt, *where, "why-key", g]).encode()).digest()


def _seal_why(salt, where, g, why):
    """A wrong choice's explanation in every language, encrypted with the choice."""
    box = json.dumps({lang: _why_in(why, lang) for lang in LANGUAGES}, ensure_ascii=False)
    return _xor(box.encode(), _why_key(salt, where, g)).hex()


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
        h = _h(self.salt, *self.where, "choice", g)
        return h == self.spec["right"] or h in self.spec.get("also", ())

    def choice_why(self, g, lang="en"):
        box = self.spec["why"].get(_h(self.salt, *self.where, "why-id", g))
        if box is None:
            return None
        return json.loads(_xor(bytes.fromhex(box), _why_key(self.salt, self.where, g)).decode())[lang]

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
