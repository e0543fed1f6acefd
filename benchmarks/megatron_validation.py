"""Validation table of the step-time model (interconnect.parallel.step_time) against
Korthikanti et al. 2022 Table 5 (iteration s) and Narayanan et al. 2021 Table 1 (TFLOP/s/GPU).

Run: .venv/bin/python benchmarks/megatron_validation.py
Optional extra columns from llm-analysis (cli99/llm-analysis), if installed in the venv
(not a project requirement), with its flops_efficiency set to our fitted gemm_efficiency.
"""

import tempfile

from interconnect.parallel import (
    CALIBRATED_COMM_EFFICIENCY,
    CALIBRATED_GEMM_EFFICIENCY,
    VALIDATION_ROWS,
    Cluster,
    calibrate,
    step_flops,
    step_time,
)


def _llm_analysis():
    """llm-analysis's train function, or None (see interconnect.calculators)."""
    from interconnect.calculators import _train

    return _train()


def _llm_analysis_predict(train, row, tmp=None):
    """llm-analysis's prediction of the row's measured quantity (seconds or TFLOP/s per GPU)."""
    from interconnect.calculators import llm_analysis_estimate

    t = llm_analysis_estimate(row.model, row.layout)["step_time"]
    if row.quantity == "iteration_s":
        return t
    return step_flops(row.model, row.layout.recompute) / (row.layout.n_gpus * t) / 1e12


def main():
    fit = calibrate()
    cl = Cluster.dgx_a100()
    train = _llm_analysis()
    print("Step-time model vs Megatron-LM measurements (DGX A100, 312 TFLOP/s, NVLink 300 GB/s, HDR 25 GB/s/GPU)")
    print(f"fitted once over all {len(VALIDATION_ROWS)} rows (least squares on log error): "
          f"gemm_efficiency = {fit['gemm_efficiency']:.4f} (stored {CALIBRATED_GEMM_EFFICIENCY}), "
          f"comm_efficiency = {fit['comm_efficiency']:.4f} (stored {CALIBRATED_COMM_EFFICIENCY}); "
          f"rms log error {100 * fit['rms_log_error']:.1f} %, worst row {100 * fit['max_abs_error']:.1f} %")
    head = (f"{'source':<17} {'configuration':<22} {'layout':<22} {'quantity':<14} "
            f"{'measured':>9} {'predicted':>9} {'error':>7}")
    head += f" {'llm-analysis':>12} {'error':>7}" if train else ""
    head += "  dominant overhead"
    print(head)
    print("-" * len(head))
    tmp = tempfile.mkdtemp()
    for r in VALIDATION_ROWS:
        st = step_time(r.model, r.layout, cl)
        pred = st.total if r.quantity == "iteration_s" else st.tflops_per_gpu
        src = "Korthikanti T5" if r.source.startswith("Korthikanti") else "Narayanan T1"
        lay = r.layout.label().replace(" b=", " b=")
        line = (f"{src:<17} {r.name:<22} {lay:<22} {r.quantity:<14} {r.measured:>9.2f} {pred:>9.2f} "
                f"{100 * (pred / r.measured - 1):>+6.1f}%")
        if train:
            try:
                la = _llm_analysis_predict(train, r, tmp)
                line += f" {la:>12.2f} {100 * (la / r.measured - 1):>+6.1f}%"
            except Exception as exc:  # noqa: BLE001 - a third-party tool; report and go on
                line += f" {'n/a':>12} {type(exc).__name__:>7}"
        share = st.shares()[st.dominant_overhead()]
        print(line + f"  {st.dominant_overhead()} {100 * share:.0f} %")
    if not train:
        print("(llm-analysis not installed: no comparison columns)")


if __name__ == "__main__":
    main()
