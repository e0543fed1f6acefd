"""Growth fits and constant-growth projections (interconnect.trends)."""

import numpy as np
import pytest

from interconnect import parallel as P
from interconnect import trends


def test_growth_per_year_recovers_an_exact_exponential():
    years = np.arange(2016, 2025)
    assert trends.growth_per_year(years, 80e9 * 1.4 ** (years - 2016)) == pytest.approx(1.4, rel=1e-12)
    with pytest.raises(ValueError, match="values"):
        trends.growth_per_year([2020], [1.0])


def test_nvlink_growth_matches_the_datasheets():
    # NVLink per GPU, per direction: P100 80 GB/s (NVLink 1, 2016) ... B200 900 GB/s (NVLink 5, 2024),
    # NVIDIA datasheets; 900 / 80 = 11.25 in 8 years, about x1.35 a year end to end
    nvl = trends.nvlink_per_gpu()
    assert (nvl[0].year, nvl[0].bandwidth, nvl[-1].year, nvl[-1].bandwidth) == (2016, 80e9, 2024, 900e9)
    fit = trends.growth_per_year([l.year for l in nvl], [l.bandwidth for l in nvl])
    assert 1.25 < fit < 1.45


def test_project_grows_from_the_h100_datasheet():
    # H100 SXM: NVLink 4 at 450 GB/s per direction, 989.4 TFLOP/s dense BF16, 2022
    r0 = trends.project(2022, 1.3, 1.5)
    assert (r0["bandwidth"], r0["peak_flops"]) == (450e9, 989.4e12)
    assert r0["bytes_per_flop"] == pytest.approx(450e9 / 989.4e12)
    r = trends.project(2032, 1.3, 1.5)
    assert r["bandwidth"] == pytest.approx(450e9 * 1.3 ** 10)
    assert r["bytes_per_flop"] == pytest.approx(450e9 / 989.4e12 * (1.3 / 1.5) ** 10)
    # t* = (p-1)/p g F f / (3 B) (Megatron-style ring balance): proportional to F / B
    assert r["dp_break_even_tokens"] == pytest.approx(r0["dp_break_even_tokens"] * (1.5 / 1.3) ** 10)
    # at the H100's measured GEMM ceiling (gemm.ceiling_fraction: 794.5 of 989.4 TFLOP/s, bekman_mamf)
    assert r0["dp_break_even_tokens"] == pytest.approx(P.dp_break_even_tokens(989.4e12, 450e9, 8, 794.5 / 989.4))
    assert trends.project(2022, 1.3, 1.5, gemm_efficiency=0.5)["dp_break_even_tokens"] == pytest.approx(
        P.dp_break_even_tokens(989.4e12, 450e9, 8, 0.5))
    # equal rates keep the ratio flat
    flat = trends.project(np.arange(2022, 2033), 1.4, 1.4)["bytes_per_flop"]
    assert np.allclose(flat, flat[0], rtol=1e-12)
