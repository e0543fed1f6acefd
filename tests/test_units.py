"""Tests for interconnect.units: constants, direction conversions, formatters, validation."""

import doctest

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import interconnect.units as u
from interconnect.units import (
    bidirectional,
    bits_to_bytes,
    bytes_to_bits,
    fmt_bandwidth,
    fmt_bytes,
    fmt_flops,
    fmt_si,
    fmt_time,
    per_direction,
)

FAST = settings(max_examples=60, deadline=None, database=None)


def test_docstring_examples():
    # fmt_bytes / fmt_bandwidth / fmt_time examples in the module's docstrings
    assert doctest.testmod(u, raise_on_error=False).failed == 0


# --------------------------------------------------------------------------- constants
def test_decimal_and_binary_sizes():
    # SI (BIPM 2019) decimal prefixes and IEC 80000-13 binary prefixes
    assert (u.KB, u.MB, u.GB, u.TB, u.PB) == (1e3, 1e6, 1e9, 1e12, 1e15)
    assert (u.KiB, u.MiB, u.GiB, u.TiB) == (1024.0, 1024.0**2, 1024.0**3, 1024.0**4)
    # the GB/GiB pitfall: one GiB is 7.4 % larger than one GB (2**30 / 1e9 = 1.073741824)
    assert u.GiB / u.GB == 1.073741824
    assert u.B == 1.0


def test_bit_rates_are_in_bytes_per_second():
    # 1 Gb/s = 1e9 bits/s = 1.25e8 bytes/s (8 bits per byte)
    assert u.Gbps == 1.25e8
    assert u.Mbps == 1.25e5
    assert u.Tbps == 1.25e11
    assert u.bit == 0.125
    # 400 Gb/s NDR InfiniBand port = 50 GB/s (REFERENCES.md sec. 1)
    assert 400 * u.Gbps == 50 * u.GBps
    assert (u.Bps, u.KBps, u.MBps, u.GBps, u.TBps) == (1.0, 1e3, 1e6, 1e9, 1e12)


def test_time_compute_power_constants():
    assert (u.s, u.ms, u.us, u.ns) == (1.0, 1e-3, 1e-6, 1e-9)
    assert (u.minute, u.hour, u.day) == (60.0, 3600.0, 86400.0)
    assert (u.GFLOP, u.TFLOP, u.PFLOP) == (1e9, 1e12, 1e15)
    assert (u.GFLOPS, u.TFLOPS, u.PFLOPS) == (1e9, 1e12, 1e15)
    assert u.GT == 1e9
    assert (u.W, u.kW, u.MW) == (1.0, 1e3, 1e6)


def test_all_names_exist():
    for name in u.__all__:
        assert hasattr(u, name), name


# --------------------------------------------------------------------------- conversions
def test_bidirectional_per_direction_values():
    # NVLink4 (H100): 450 GB/s per direction = 900 GB/s bidirectional (REFERENCES.md sec. 1)
    assert bidirectional(450e9) == 900e9
    assert per_direction(900e9) == 450e9
    np.testing.assert_array_equal(bidirectional(np.array([1.0, 2.0])), [2.0, 4.0])
    assert bidirectional(0.0) == 0.0


@FAST
@given(x=st.one_of(st.just(0.0), st.floats(1e-300, 1e300)))
def test_bidirectional_per_direction_are_inverse(x):
    # doubling and halving are exact in binary floating point (away from subnormals)
    assert per_direction(bidirectional(x)) == x
    assert bidirectional(per_direction(x)) == x


def test_bits_bytes():
    assert bits_to_bytes(8) == 1.0
    assert bytes_to_bits(1.0) == 8.0
    assert bits_to_bytes(400e9) == 50e9


@pytest.mark.parametrize("fn, name", [
    (bidirectional, "per_direction_bandwidth"), (per_direction, "bidirectional_bandwidth"),
    (bits_to_bytes, "bits"), (bytes_to_bits, "nbytes"),
])
def test_conversions_reject_negative_and_nan(fn, name):
    with pytest.raises(ValueError, match=name):
        fn(-1.0)
    with pytest.raises(ValueError, match=name):
        fn(float("nan"))
    with pytest.raises(ValueError, match=name):
        fn("450")


# --------------------------------------------------------------------------- formatters
@pytest.mark.parametrize("value, binary, text", [
    (0, True, "0 B"),
    (1, True, "1 B"),
    (512, True, "512 B"),
    (1024, True, "1 KiB"),
    (1536, True, "1.5 KiB"),
    (2**20, True, "1 MiB"),
    (2**30, True, "1 GiB"),
    (80 * 2**30, True, "80 GiB"),
    (1e9, True, "954 MiB"),  # 1 GB is 0.93 GiB: the pitfall, shown
    (2**40, True, "1 TiB"),
    (2**50, True, "1 PiB"),
    (1e9, False, "1 GB"),
    (141e9, False, "141 GB"),
    (999, False, "999 B"),
    (1000, False, "1 kB"),
    (1.6e9, False, "1.6 GB"),
    (819200, False, "819 kB"),
])
def test_fmt_bytes(value, binary, text):
    assert fmt_bytes(value, binary=binary) == text


def test_fmt_bytes_digits():
    assert fmt_bytes(1.2345 * 2**30, digits=2) == "1.2 GiB"
    assert fmt_bytes(1.2345 * 2**30, digits=4) == "1.234 GiB" or fmt_bytes(1.2345 * 2**30, digits=4) == "1.235 GiB"


@pytest.mark.parametrize("value, direction, text", [
    (450e9, "per direction", "450 GB/s per direction"),
    (900e9, "bidirectional", "900 GB/s bidirectional"),
    (63.015e9, "per direction", "63 GB/s per direction"),
    (50e9, "Per-Direction", "50 GB/s per direction"),  # case and hyphen are normalised
    (1.8e12, "bidirectional", "1.8 TB/s bidirectional"),
    (12.5e6, "per direction", "12.5 MB/s per direction"),
    (0.0, "per direction", "0 B/s per direction"),
])
def test_fmt_bandwidth(value, direction, text):
    assert fmt_bandwidth(value, direction) == text


@FAST
@given(x=st.floats(0.0, 1e16), direction=st.sampled_from(["per direction", "bidirectional"]))
def test_fmt_bandwidth_always_names_the_direction(x, direction):
    # STYLE.md units table: bandwidth is shown in decimal B/s with the direction said explicitly
    text = fmt_bandwidth(x, direction)
    assert text.endswith(" " + direction)
    assert "B/s" in text


@pytest.mark.parametrize("seconds, text", [
    (0, "0 s"),
    (1e-9, "1 ns"),
    (999e-9, "999 ns"),
    (1e-6, "1 µs"),      # boundary: exactly 1 µs is shown in µs
    (2.5e-6, "2.5 µs"),
    (999e-6, "999 µs"),
    (1e-3, "1 ms"),      # boundary
    (3.959e-3, "3.96 ms"),
    (1.0, "1 s"),        # boundary
    (119.0, "119 s"),
    (120.0, "2 min"),    # boundary: below 2 minutes stays in seconds
    (3600.0, "60 min"),
    (7200.0, "2 h"),     # boundary: below 2 hours stays in minutes
    (86400.0, "24 h"),
    (2 * 86400.0, "2 days"),  # boundary
    (34 * 86400.0, "34 days"),
])
def test_fmt_time(seconds, text):
    assert fmt_time(seconds) == text


def test_fmt_time_just_below_boundaries_uses_smaller_unit():
    # the unit is chosen from the value, before rounding to 3 significant figures
    assert fmt_time(0.5e-6).endswith(" ns")
    assert fmt_time(0.5e-3).endswith(" µs")
    assert fmt_time(0.5).endswith(" ms")
    assert fmt_time(100.0).endswith(" s")
    assert fmt_time(3000.0).endswith(" min")
    assert fmt_time(100000.0).endswith(" h")


def test_fmt_flops_and_si():
    assert fmt_flops(989e12) == "989 TFLOP/s"
    assert fmt_flops(15.1e15) == "15.1 PFLOP/s"
    assert fmt_si(4.5e11, "B/s") == "450 GB/s"
    assert fmt_si(1500, "B") == "1.5 kB"
    assert fmt_si(0.5, "s") == "0.5 s"


# --------------------------------------------------------------------------- errors
def test_formatter_errors():
    with pytest.raises(ValueError, match="nbytes"):
        fmt_bytes(-1)
    with pytest.raises(ValueError, match="bandwidth"):
        fmt_bandwidth(-1.0)
    with pytest.raises(ValueError, match="bandwidth"):
        fmt_bandwidth(float("nan"))
    with pytest.raises(ValueError, match="direction='duplex' is unknown"):
        fmt_bandwidth(450e9, "duplex")
    with pytest.raises(ValueError, match="direction"):
        fmt_bandwidth(450e9, 2)
    with pytest.raises(ValueError, match="seconds"):
        fmt_time(-1e-6)
    with pytest.raises(ValueError, match="seconds"):
        fmt_time("1 s")
    with pytest.raises(ValueError, match="flops_per_s"):
        fmt_flops(0)
