"""The communication roofline in interconnect.parallel: closed forms, invariants, bad input."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from interconnect import devices, links
from interconnect import parallel as P


def test_roofline_is_the_minimum_of_its_roofs():
    # Williams et al. (2009): attainable = min(peak, I * B)
    assert P.attainable_flops(100.0) == 100.0
    assert P.attainable_flops(100.0, memory_intensity=2.0, memory_bandwidth=10.0) == 20.0
    assert P.attainable_flops(100.0, memory_intensity=20.0, memory_bandwidth=10.0,
                              comm_intensity=3.0, comm_bandwidth=10.0) == 30.0


def test_ridge_of_an_h100_on_nvlink4():
    # 989.4 TFLOP/s dense BF16 over 450 GB/s per direction (NVIDIA H100 datasheet): about 2,199 FLOP per byte
    h100, nv4 = devices.get_gpu("H100"), links.get_link("nvlink4")
    assert P.ridge_intensity(h100.peak_flops, nv4.bandwidth) == pytest.approx(989.4e12 / 450e9)
    # at the ridge the roof meets the peak
    i = P.ridge_intensity(h100.peak_flops, nv4.bandwidth)
    roof = P.attainable_flops(h100.peak_flops, comm_intensity=i, comm_bandwidth=nv4.bandwidth)
    assert roof == pytest.approx(h100.peak_flops)


def test_tp_intensity_closed_form():
    # 24 h^2 / t FLOPs per token and layer over 2 AllReduces x 2(t-1)/t x 2h bytes = 3h/(t-1)
    h, t = 8192, 8
    flops = 24 * h**2 / t
    sent = 2 * 2 * (t - 1) / t * 2 * h
    assert P.tp_comm_intensity(h, t) == pytest.approx(flops / sent)
    assert P.tp_comm_intensity(h, 2) == pytest.approx(3 * h)
    np.testing.assert_allclose(P.tp_comm_intensity(4096, np.array([2, 4, 8])), 3 * 4096 / np.array([1, 3, 7]))


def test_dp_intensity_closed_form():
    # 6 N T FLOPs over 2 (p-1)/p g N bytes
    n, tok, p = 7e9, 4096, 64
    assert P.dp_comm_intensity(tok, p) == pytest.approx(6 * n * tok / (2 * (p - 1) / p * 2 * n))
    assert P.dp_comm_intensity(tok, p, grad_bytes=4.0) == pytest.approx(P.dp_comm_intensity(tok, p) / 2)


@given(st.floats(1e12, 1e16), st.floats(1.0, 1e5), st.floats(1e9, 1e13), st.floats(1.0, 10.0))
def test_more_bandwidth_is_never_slower(peak, intensity, bw, factor):
    a = P.attainable_flops(peak, comm_intensity=intensity, comm_bandwidth=bw)
    b = P.attainable_flops(peak, comm_intensity=intensity, comm_bandwidth=bw * factor)
    assert b >= a and b <= peak


@given(st.integers(2, 1024), st.integers(64, 65536))
def test_larger_tp_groups_have_lower_intensity(t, h):
    assert P.tp_comm_intensity(h, t + 1) < P.tp_comm_intensity(h, t)


@pytest.mark.parametrize("kwargs, match", [
    (dict(peak_flops=0.0), "peak_flops"),
    (dict(peak_flops=1e12, comm_intensity=10.0), "give both or neither"),
    (dict(peak_flops=1e12, comm_intensity=-1.0, comm_bandwidth=1e9), "comm_intensity"),
    (dict(peak_flops=float("nan")), "peak_flops"),
])
def test_bad_input_raises(kwargs, match):
    with pytest.raises(ValueError, match=match):
        P.attainable_flops(**kwargs)


def test_bad_tp_and_dp_raise():
    with pytest.raises(ValueError, match="tp=1"):
        P.tp_comm_intensity(8192, 1)
    with pytest.raises(ValueError, match="p=1"):
        P.dp_comm_intensity(4096, 1)
    with pytest.raises(ValueError, match="bandwidth"):
        P.ridge_intensity(1e12, 0.0)
