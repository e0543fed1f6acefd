"""Checkpoint intervals and goodput against Young (1974) and Daly (2006)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import minimize_scalar

from interconnect import reliability as R


def test_cluster_mtbf_scales_inversely_with_size():
    # independent exponential failures: rates add, M = m / n
    assert R.cluster_mtbf(50_000 * 3600, 10_000) == pytest.approx(5 * 3600)
    np.testing.assert_allclose(R.cluster_mtbf(1000.0, np.array([1, 2, 4])), [1000, 500, 250])


def test_young_closed_form():
    # Young 1974: tau = sqrt(2 delta M)
    assert R.young_interval(60.0, 3600.0 * 8) == pytest.approx(np.sqrt(2 * 60 * 28800))


def test_daly_approaches_young_for_cheap_checkpoints():
    # Daly 2006: the higher-order terms vanish as delta / M -> 0
    d, m = 1.0, 1e7
    assert R.daly_interval(d, m) == pytest.approx(R.young_interval(d, m), rel=1e-3)


def test_daly_is_m_when_checkpoints_take_longer_than_2m():
    # Daly 2006, eq. 37: tau = M for delta >= 2M
    assert R.daly_interval(300.0, 100.0) == pytest.approx(100.0)


@pytest.mark.parametrize("d, m, r", [(60, 3600, 0), (60, 3600 * 4, 600), (600, 3600, 300), (10, 36000, 60)])
def test_daly_interval_is_close_to_the_exact_optimum(d, m, r):
    # Daly 2006 reports < 0.2 % relative error of eq. 37 against the optimum of the complete model;
    # the waste at Daly's interval must be within 0.2 % of the minimum waste
    res = minimize_scalar(lambda t: R.expected_wall_time(1.0, t, d, m, r), bounds=(1e-3, 10 * m), method="bounded",
                          options={"xatol": 1e-9 * m})
    best = res.fun
    assert R.expected_wall_time(1.0, R.daly_interval(d, m), d, m, r) <= best * (1 + 2e-3)


def test_goodput_is_one_without_failures_or_checkpoints():
    assert R.goodput(100.0, 0.0, 1e15) == pytest.approx(1.0, rel=1e-9)


@settings(max_examples=60, deadline=None)
@given(st.floats(1.0, 1e4), st.floats(1e2, 1e6), st.floats(0.0, 1e3))
def test_goodput_in_unit_interval_and_shorter_mtbf_is_never_better(d, m, r):
    tau = R.daly_interval(d, m)
    g1 = R.goodput(tau, d, m, r)
    g2 = R.goodput(tau, d, m / 2, r)
    assert 0.0 < g1 <= 1.0
    assert g2 <= g1 * (1 + 1e-12)


def test_errors_name_the_parameter():
    with pytest.raises(ValueError, match="mtbf"):
        R.young_interval(10.0, 0.0)
    with pytest.raises(ValueError, match="n_components"):
        R.cluster_mtbf(100.0, 0)
    with pytest.raises(ValueError, match="restart_time"):
        R.expected_wall_time(1.0, 1.0, 1.0, 1.0, -1.0)


def test_llama3_gpu_mtbf_is_the_published_log():
    # Dubey et al. 2024, sec. 3.3.4: 419 unexpected interruptions in 54 days on 16,384 GPUs
    assert R.cluster_mtbf(R.LLAMA3_GPU_MTBF, 16_384) == pytest.approx(54 * 24 * 3600 / 419)
    assert R.cluster_mtbf(R.LLAMA3_GPU_MTBF, 16_384) / 3600 == pytest.approx(3.09, abs=0.01)
    assert R.LLAMA3_GPU_MTBF / (365 * 24 * 3600) == pytest.approx(5.79, abs=0.01)   # about 50,700 GPU-hours


@pytest.mark.parametrize("d, m", [(30.0, 100 * 3600.0), (10.0, 30 * 24 * 3600.0), (60.0, 10 * 3600.0)])
def test_best_goodput_is_youngs_first_order_balance(d, m):
    # Young (1974): at tau = sqrt(2 delta M) the waste is delta/tau + tau/(2M) = sqrt(2 delta / M),
    # to first order; the higher-order terms are O(delta / M)
    assert R.best_goodput(d, m) == pytest.approx(1 - np.sqrt(2 * d / m), abs=2 * d / m)
    # a restart R multiplies the wall time by exp(R / M) (Daly 2006), whatever the interval
    assert R.best_goodput(d, m, 600.0) == pytest.approx(R.best_goodput(d, m) * np.exp(-600.0 / m), rel=1e-12)
    # and no interval does better than Daly's (within its 0.2 % accuracy)
    taus = np.logspace(0, 7, 2000)
    assert R.goodput(taus, d, m).max() <= R.best_goodput(d, m) * 1.002
