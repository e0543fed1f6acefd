"""Side by side with llm-analysis (PyPI), on the validation rows of the step-time model.

llm-analysis is installed by the Makefile with --no-deps (plus fire<0.6); the test is
skipped, with a message, where it cannot be imported. It checks that the comparison
runs on every row and gives finite, positive predictions; the full table with both
tools' errors is printed by benchmarks/megatron_validation.py and shown in the book.
"""

import math
import pathlib
import sys

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "benchmarks"))
import megatron_validation as mv  # noqa: E402

from interconnect.parallel import VALIDATION_ROWS  # noqa: E402

TRAIN = mv._llm_analysis()
pytestmark = pytest.mark.skipif(TRAIN is None, reason="llm-analysis not importable (make venv installs it)")


@pytest.mark.parametrize("row", VALIDATION_ROWS, ids=lambda r: f"{r.source.split()[0]}-{r.name}")
def test_llm_analysis_predicts_every_row(row, tmp_path):
    la = mv._llm_analysis_predict(TRAIN, row, str(tmp_path))
    assert math.isfinite(la) and la > 0
    # same quantity as the measurement: within an order of magnitude of it
    assert 0.1 < la / row.measured < 10


def test_llm_analysis_memory_is_close_to_ours_for_the_korthikanti_rows():
    # both calculators count ZeRO-style model states and Korthikanti activations: within 20 %
    from interconnect.calculators import llm_analysis_estimate
    from interconnect.parallel import layout_memory

    for row in VALIDATION_ROWS[:8:2]:
        est = llm_analysis_estimate(row.model, row.layout)
        assert est["memory"] == pytest.approx(est["model_states"] + est["activations"])
        assert est["memory"] == pytest.approx(layout_memory(row.model, row.layout), rel=0.2)


def test_llm_analysis_estimate_rejects_bad_input():
    from interconnect.calculators import llm_analysis_estimate

    with pytest.raises(ValueError, match="model="):
        llm_analysis_estimate("gpt3", VALIDATION_ROWS[0].layout)
    with pytest.raises(ValueError, match="layout="):
        llm_analysis_estimate(VALIDATION_ROWS[0].model, (1, 8, 1))
