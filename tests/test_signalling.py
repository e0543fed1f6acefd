"""Tests for interconnect.signalling: closed forms, cross-checks with links, properties, errors."""

import doctest
import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import interconnect.signalling as sig
from interconnect.links import get_link


def test_doctests():
    assert doctest.testmod(sig).failed == 0


# ----------------------------------------------------------------------- closed forms
def test_pam4_penalty_is_20_log10_3():
    # three stacked eyes in one swing: voltage ratio 3 -> 20 log10 3 dB
    assert sig.pam4_snr_penalty_db() == pytest.approx(20 * math.log10(3), rel=1e-12)
    assert sig.snr_penalty_db("NRZ") == 0.0
    assert sig.eye_height_fraction("PAM4") == pytest.approx(1 / 3)
    assert sig.eye_height_fraction("nrz") == 1.0


def test_pam4_crossover_closed_form():
    # loss ~ f: PAM4 saves L/2, so crossover at 2 x 20 log10 3
    assert sig.pam4_crossover_loss_db() == pytest.approx(40 * math.log10(3))


def test_ndr_lane_line_rate():
    # IEEE 802.3 100G-per-lane / InfiniBand NDR: 53.125 GBd PAM4 = 106.25 Gb/s
    assert sig.line_rate(53.125e9, "PAM4") == 106.25e9
    assert sig.symbol_rate(106.25e9, "PAM4") == 53.125e9
    assert sig.nyquist_frequency(53.125e9) == pytest.approx(26.5625e9)


def test_100g_lane_exactly_100g_after_coding():
    # 106.25 x 256/257 x 514/544 = 100 exactly (IEEE 802.3 clause 119 PCS + RS(544,514))
    eff = sig.encoding_efficiency("256b/257b+RS(544,514)", exact=True)
    assert Fraction(10625, 100) * eff == 100
    assert eff == Fraction(256, 257) * Fraction(514, 544) == Fraction(16, 17)
    assert sig.usable_rate(1, 106.25e9, eff) * 8 == pytest.approx(100e9, rel=1e-15)


def test_rs528_keeps_the_64b66b_line_rate():
    # IEEE 802.3bj: 100GBASE-KR4 lanes stay at 25.78125 Gb/s with RS(528,514)
    assert sig.encoding_efficiency("256b/257b+RS(528,514)", exact=True) == Fraction(64, 66)


def test_pcie5_lane_matches_links():
    # PCIe 5.0: 32 GT/s x 128/130 / 8 = 3.938 GB/s per lane per direction
    bw = sig.usable_rate(1, 32e9, "128b/130b")
    assert bw == pytest.approx(3.938e9, rel=1e-3)
    assert bw == pytest.approx(get_link("pcie5x1").bandwidth, rel=1e-12)


@pytest.mark.parametrize("name, encoding", [
    ("pcie1x16", "8b/10b"), ("pcie3x16", "128b/130b"), ("pcie6x16", "PCIe6 flit"),
    ("ib-qdr", "8b/10b"), ("ib-edr", "64b/66b"), ("ib-ndr", "256b/257b+RS(544,514)"),
    ("eth-400g", "256b/257b+RS(544,514)"),
])
def test_encodings_agree_with_link_catalog(name, encoding):
    link = get_link(name)
    assert sig.encoding_efficiency(encoding) == pytest.approx(link.encoding_efficiency, rel=1e-12)
    assert sig.usable_rate(link.lanes, link.lane_rate, encoding) == pytest.approx(link.bandwidth, rel=1e-12)


def test_overheads():
    assert sig.overhead_fraction("8b/10b") == pytest.approx(0.2)
    assert sig.overhead_fraction("1b/1b") == 0.0


def test_power_and_beachfront():
    # 10 pJ/bit x 1.8 TB/s = 1.8e12 x 8 x 1e-11 W = 144 W
    assert sig.link_power(1.8e12, 10.0) == pytest.approx(144.0)
    # 10 mm x 2 lanes/mm x 100 Gb/s = 2 Tb/s = 250 GB/s per direction
    assert sig.bandwidth_wall(10.0, 2.0, 100e9) == pytest.approx(250e9)


def test_fec_block_and_amplitude():
    # one RS(544,514) codeword (5440 bits) at 106.25 Gb/s: 51.2 ns
    assert sig.fec_block_time(5440, 106.25e9) == pytest.approx(51.2e-9)
    # Astera Labs: 800 mV at 36 dB -> about 12.7 mV
    assert 0.8 * sig.amplitude_ratio(36.0) == pytest.approx(0.0127, abs=5e-5)


def test_trace_model_inverse():
    f = 16e9
    L = sig.trace_reach(16.0, f, 51.2, 8e9)
    assert sig.trace_loss_db(L, f, 51.2, 8e9) == pytest.approx(16.0)


# -------------------------------------------------------------------------- properties
rates = st.floats(1e8, 1e12)


@given(rates, rates)
def test_line_rate_monotonic_and_pam4_doubles(a, b):
    lo, hi = sorted((a, b))
    assert sig.line_rate(lo) <= sig.line_rate(hi)
    assert sig.line_rate(a, "PAM4") == pytest.approx(2 * sig.line_rate(a, "NRZ"))
    assert sig.nyquist_frequency(sig.symbol_rate(a, "PAM4")) == pytest.approx(
        sig.nyquist_frequency(sig.symbol_rate(a, "NRZ")) / 2)


@given(st.integers(1, 64), st.integers(1, 64), rates,
       st.sampled_from(sorted(sig.ENCODINGS)))
def test_usable_rate_monotonic_in_lanes_and_below_raw(n1, n2, r, enc):
    lo, hi = sorted((n1, n2))
    assert sig.usable_rate(lo, r, enc) <= sig.usable_rate(hi, r, enc)
    assert sig.usable_rate(hi, r, enc) <= hi * r / 8 * (1 + 1e-12)


@given(st.floats(0, 1e13), st.floats(0, 1e13), st.floats(0.01, 100))
def test_power_monotonic_and_linear(b1, b2, e):
    lo, hi = sorted((b1, b2))
    assert sig.link_power(lo, e) <= sig.link_power(hi, e)
    assert sig.link_power(lo + hi, e) == pytest.approx(sig.link_power(lo, e) + sig.link_power(hi, e))


@given(st.floats(0.1, 100), st.floats(0.1, 100), st.floats(1e9, 1e11))
def test_trace_reach_falls_with_frequency(budget, f1, f2):
    lo, hi = sorted((f1 * 1e9, f2 * 1e9))
    assert sig.trace_reach(budget, hi, 50.0, 8e9) <= sig.trace_reach(budget, lo, 50.0, 8e9) * (1 + 1e-12)


def test_vectorised():
    out = sig.usable_rate(np.array([1, 4, 16]), 32e9, "128b/130b")
    assert out.shape == (3,)
    assert sig.link_power(np.array([1e9, 2e9]), 5.0).tolist() == pytest.approx([0.04, 0.08])


@settings(max_examples=10, deadline=None)
@given(st.floats(0, 20))
def test_eye_closes_with_loss(loss):
    # more loss never opens the (noise-free, unequalised) eye
    a = sig.eye_opening(sig.simulate_waveform("PAM4", 400, 16, loss))["min"]
    b = sig.eye_opening(sig.simulate_waveform("PAM4", 400, 16, loss + 3))["min"]
    assert b <= a + 1e-9


def test_ideal_eyes_and_seeding():
    for m, h in (("NRZ", 1.0), ("PAM4", 1 / 3)):
        w = sig.simulate_waveform(m, 500, 8)
        assert sig.eye_opening(w)["min"] == pytest.approx(h)
    w1 = sig.simulate_waveform("PAM4", 200, 8, 6, 0.05, seed=3)
    w2 = sig.simulate_waveform("PAM4", 200, 8, 6, 0.05, seed=3)
    assert np.array_equal(w1["v"], w2["v"])
    img = sig.eye_diagram(w1)
    assert img.shape == (96, 16) and img.sum() == (200 // 2) * 16


def test_tables():
    assert {p.medium for p in sig.REACH} == set(sig.media())
    for p in sig.reach_table():
        assert p.reach > 0 and p.lane_rate > 0 and p.source
    dac = sig.reach_table("passive copper (DAC)")
    assert [p.reach for p in dac] == sorted((p.reach for p in dac), reverse=True)
    e = sig.energy_table()
    assert [p.pj_per_bit for p in e] == sorted(p.pj_per_bit for p in e)
    assert all(p.basis and p.source and p.year > 2000 for p in e)
    assert sig.energy_table("co-packaged optics")[0].pj_per_bit < sig.energy_table("pluggable optics")[0].pj_per_bit


# ------------------------------------------------------------------------------ errors
@pytest.mark.parametrize("call, text", [
    (lambda: sig.line_rate(0), "baud"),
    (lambda: sig.line_rate(1e9, "PAM8"), "modulation"),
    (lambda: sig.encoding_efficiency("4b/5b"), "encoding"),
    (lambda: sig.encoding_efficiency(3), "encoding"),
    (lambda: sig.usable_rate(0, 1e9, 1.0), "lanes"),
    (lambda: sig.usable_rate(1, 1e9, 1.5), "efficiency"),
    (lambda: sig.link_power(-1, 5), "bandwidth"),
    (lambda: sig.link_power(1, 0), "pj_per_bit"),
    (lambda: sig.bandwidth_wall(0, 1, 1e9), "edge_length"),
    (lambda: sig.reach_table("copper wire"), "medium"),
    (lambda: sig.simulate_waveform(n_symbols=3), "n_symbols"),
    (lambda: sig.trace_loss_db(1, 1e9, 1, 1e9, exponent=3), "exponent"),
])
def test_errors_name_the_parameter(call, text):
    with pytest.raises(ValueError, match=text):
        call()


def test_tables_live_in_the_catalog():
    """The data tables are catalog.media's objects, re-exported, and its doctests pass."""
    import interconnect.catalog.media as media_mod

    for name in media_mod.__all__:
        if hasattr(sig, name):
            assert getattr(sig, name) is getattr(media_mod, name), name
    assert doctest.testmod(media_mod).failed == 0
