"""What an exercise's answer is: :class:`Answer` (a part's value, unit, tolerance and the
mistakes worth diagnosing), the generic mistakes every numeric part is checked for, and the
default tolerance. Part of :mod:`interconnect.exercises` (re-exported there).
"""

from __future__ import annotations

from dataclasses import dataclass, field

#: Tolerance of a part that sets none, relative.
DEFAULT_RTOL = 0.02


class AnswerError(ValueError, TypeError):
    """An answer or label the checker cannot use (a ``ValueError`` and a ``TypeError``)."""


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
    accept : sequence of str, optional
        For a choice, the other choices that are right too: a design task accepts every
        configuration that meets its constraints within its margin of the best
        (``interconnect.exercises.design.design_answer``); ``value`` is the best.
    """

    value: object
    unit: str = "1"
    mistakes: dict = field(default_factory=dict)
    rtol: float = None
    choices: tuple = ()
    generic: tuple = None
    accept: tuple = ()

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
