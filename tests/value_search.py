"""Whether a number is written in a text: the search the two answer-leak tests share
(``tests/test_exercises.py``, the sealed key; ``tests/test_student_edition.py``, the student library)."""

import re


def value_forms(x):
    """The ways ``x`` would be written (``repr``, 6 and 5 significant digits), each as a
    ``(literal, pattern)`` pair; the pattern refuses a match inside a longer number or hex digest."""
    return [(f, re.compile(r"(?<![0-9a-f.])" + re.escape(f) + r"(?![0-9a-f])"))
            for f in {repr(float(x)), f"{x:.6g}", f"{x:.5g}"}]


def written_in(forms, text):
    """Whether any of ``forms`` is in ``text``. The literal is looked for first: a pattern that starts
    with a lookbehind scans every position of a long text (0.6 s for the 7 MB sealed key), and it
    cannot match where its literal is absent."""
    return any(f in text and p.search(text) for f, p in forms)
