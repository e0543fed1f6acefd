"""Tests for interconnect._validate: every message names the parameter and the value."""

import numpy as np
import pytest

from interconnect._validate import as_count, as_fraction, as_nonnegative, as_positive, choice, is_number


# --------------------------------------------------------------------------- as_positive
def test_as_positive_returns_float_or_array():
    assert as_positive("x", 3) == 3.0 and type(as_positive("x", 3)) is float
    out = as_positive("x", [1, 2.5])
    assert isinstance(out, np.ndarray) and out.dtype == float
    np.testing.assert_array_equal(out, [1.0, 2.5])


@pytest.mark.parametrize("value, pieces", [
    (0, ["bandwidth=0", "must be > 0 bytes/s"]),
    (-5.0, ["bandwidth=-5.0", "> 0"]),
    ([1.0, -2.0], ["bandwidth=[ 1., -2.]", "-2.0"]),
    (np.zeros(100), ["bandwidth=array of shape (100,)"]),
    (float("nan"), ["bandwidth=nan", "NaN or infinity"]),
    (float("inf"), ["bandwidth=inf", "NaN or infinity"]),
    ("450e9", ["bandwidth='450e9'", "not a number"]),
    (None, ["bandwidth=None", "not a number"]),
    ([], ["bandwidth is empty"]),
    ({"a": 1}, ["bandwidth={'a': 1}", "not a number"]),
])
def test_as_positive_messages(value, pieces):
    with pytest.raises(ValueError, match=r"^bandwidth[= ]") as e:
        as_positive("bandwidth", value, "bytes/s")
    for piece in pieces:
        assert piece in str(e.value)


def test_as_nonnegative():
    assert as_nonnegative("latency", 0) == 0.0
    with pytest.raises(ValueError, match=r"^latency=") as e:
        as_nonnegative("latency", -1e-6, "seconds")
    assert "latency=-1e-06" in str(e.value) and ">= 0 seconds" in str(e.value)


# --------------------------------------------------------------------------- as_count
def test_as_count_refuses_what_64_bits_cannot_hold():
    assert as_count("n", 2**62) == 2**62
    for big in (2.0**63, 1e19, [1, 2**64]):
        with pytest.raises(ValueError, match=r"^n=.* is too large; n must be an integer below 2\*\*63"):
            as_count("n", big)


def test_as_count_values():
    assert as_count("p", 8) == 8 and type(as_count("p", 8)) is int
    assert as_count("p", 8.0) == 8 and type(as_count("p", 8.0)) is int
    assert as_count("zero_stage", 0, minimum=0) == 0
    out = as_count("p", [1, 2, 4])
    assert out.dtype == np.int64
    np.testing.assert_array_equal(out, [1, 2, 4])


@pytest.mark.parametrize("value, minimum, pieces", [
    (2.5, 1, ["p=2.5", "integer >= 1"]),
    (0, 1, ["p=0", "integer >= 1"]),
    (-1, 0, ["p=-1", "integer >= 0"]),
    ([4, 6.5], 1, ["p=[4. , 6.5]", "integer >= 1"]),
    (True, 1, ["p=True", "bool"]),
    ("8", 1, ["p='8'", "not a number"]),
    (float("nan"), 1, ["p=nan", "NaN"]),
])
def test_as_count_messages(value, minimum, pieces):
    with pytest.raises(ValueError, match=r"^p=") as e:
        as_count("p", value, minimum=minimum)
    for piece in pieces:
        assert piece in str(e.value)


# --------------------------------------------------------------------------- as_fraction
def test_as_fraction_values():
    assert as_fraction("f", 1.0) == 1.0
    assert as_fraction("f", 0.5) == 0.5
    assert as_fraction("f", 0.0, low_open=False) == 0.0
    np.testing.assert_array_equal(as_fraction("f", [0.2, 1.0]), [0.2, 1.0])


@pytest.mark.parametrize("value, low_open, pieces", [
    (0.0, True, ["overlap=0.0", "out of range", "(0.0, 1.0]"]),
    (1.5, True, ["overlap=1.5", "(0.0, 1.0]"]),
    (-0.1, False, ["overlap=-0.1", "[0.0, 1.0]"]),
    (1.0000001, False, ["overlap=1.0000001", "[0.0, 1.0]"]),
    ("half", True, ["overlap='half'", "not a number"]),
])
def test_as_fraction_messages(value, low_open, pieces):
    with pytest.raises(ValueError, match=r"^overlap=") as e:
        as_fraction("overlap", value, low_open=low_open)
    for piece in pieces:
        assert piece in str(e.value)


# --------------------------------------------------------------------------- choice
def test_choice_normalises():
    allowed = ("allreduce", "recursive_doubling", "per direction")
    assert choice("op", "allreduce", allowed) == "allreduce"
    assert choice("op", " AllReduce ", allowed) == "allreduce"
    assert choice("op", "Recursive-Doubling", allowed) == "recursive_doubling"
    assert choice("op", "recursive doubling", allowed) == "recursive_doubling"
    assert choice("direction", "per-direction", allowed) == "per direction"


@pytest.mark.parametrize("value, pieces", [
    ("allreduc", ["op='allreduc'", "unknown", "allowed: allreduce, broadcast"]),
    (3, ["op=3", "not a string", "allowed: allreduce, broadcast"]),
    (None, ["op=None", "not a string"]),
])
def test_choice_messages(value, pieces):
    with pytest.raises(ValueError, match=r"^op=") as e:
        choice("op", value, ("allreduce", "broadcast"))
    for piece in pieces:
        assert piece in str(e.value)


def test_is_number():
    assert is_number(1) and is_number(2.5) and is_number(np.float64(1.0))
    assert not is_number(True) and not is_number("1") and not is_number(None)


# ------------------------------------------------------------ the scalar shortcut
# A valid Python or NumPy scalar skips the array (interconnect._validate._scalar): the value and type
# returned must be the array path's, and what the array path refuses must still raise (the shortcut
# passes it on, so the message is the array path's own). The array path is reached by wrapping the
# scalar in a 0-d array, which the shortcut does not take.
from hypothesis import given  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_SCALAR_VALUES = st.one_of(
    st.integers(-10**6, 10**6),
    st.floats(allow_nan=True, allow_infinity=True, width=64),
    st.sampled_from([0, 1, -1, 0.0, -0.0, 0.5, 1.0, 1.5, 2**53, 1e-300, np.float64(3.0), np.int64(7),
                     np.float32(0.25), np.int32(-2), np.float64("nan"), True, False]))


def _outcome(check, value, *args):
    try:
        out = check("x", value, *args)
    except ValueError:
        return "error", None
    return type(out), out


@pytest.mark.parametrize("check, args", [
    (as_positive, ()), (as_nonnegative, ()), (as_fraction, ()), (as_fraction, (0.0, 1.0, False)),
    (as_fraction, (-1.0, 2.5)), (as_count, ()), (as_count, (0,)), (as_count, (3,))])
@given(value=_SCALAR_VALUES)
def test_scalar_shortcut_matches_the_array_path(check, args, value):
    if check is as_count and isinstance(value, (bool, np.bool_)):
        return   # as_count rejects a bool by its type, which the 0-d array no longer has
    fast = _outcome(check, value, *args)
    slow = _outcome(check, np.asarray(value), *args)
    if fast[0] == "error" or slow[0] == "error":
        assert fast[0] == slow[0] == "error", (value, fast, slow)
        return
    assert fast[0] is slow[0], (value, fast, slow)   # float, or int for as_count
    assert fast[1] == slow[1] or (np.isnan(fast[1]) and np.isnan(slow[1])), (value, fast, slow)
