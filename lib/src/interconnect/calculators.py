"""Reconciling two calculators: our step-time and memory model beside ``llm-analysis``.

`llm-analysis <https://pypi.org/project/llm-analysis/>`_ (C. Li, 2023) estimates the
latency and memory of training a transformer from its shape, the parallel layout and a
GPU description. The book compares it with :func:`interconnect.parallel.step_time` and
:func:`interconnect.parallel.layout_memory` on the same validation rows. It is optional:
install it with ``pip install --no-deps llm-analysis==0.2.2 "fire<0.6" six termcolor``
(``make venv`` does); its heavy, pinned dependencies are only needed by its command line
and model-hub lookups, which the book does not use.
"""

from __future__ import annotations

import json
import logging
import os
import sys
import tempfile
import types

from .parallel import CALIBRATED_GEMM_EFFICIENCY, Layout, ModelConfig

__all__ = ["llm_analysis_available", "llm_analysis_estimate"]

_RECOMPUTE = {"none": 0, "selective": 1, "full": 2}  # llm-analysis ActivationRecomputation


def _train():
    try:
        import fire  # noqa: F401
    except ImportError:  # only its command line uses fire
        sys.modules["fire"] = types.SimpleNamespace(Fire=lambda *a, **k: None)
    import contextlib
    import io

    try:
        # its import warns (in colour, on stderr) that transformers is missing; we do not need it
        with contextlib.redirect_stderr(io.StringIO()), contextlib.redirect_stdout(io.StringIO()):
            from llm_analysis.analysis import train
    except ImportError:
        return None
    logging.getLogger("llm_analysis").setLevel(logging.ERROR)
    return train


def llm_analysis_available():
    """True if ``llm_analysis`` can be imported."""
    return _train() is not None


def llm_analysis_estimate(model, layout, gpu_name="a100-sxm-80gb", flops_efficiency=CALIBRATED_GEMM_EFFICIENCY):
    """Step time and memory per GPU that llm-analysis predicts for ``model`` on ``layout``.

    Parameters
    ----------
    model : interconnect.parallel.ModelConfig
    layout : interconnect.parallel.Layout
    gpu_name : str
        An llm-analysis GPU name (default the A100 SXM 80 GB of the validation rows).
    flops_efficiency : float
        Fraction of peak its matrix multiplies reach; default our calibrated GEMM
        efficiency, so the two tools differ only in what else they model.

    Returns
    -------
    dict
        ``step_time`` (s per iteration), ``model_states`` (weights, gradients and
        optimizer state, bytes per GPU), ``activations`` (bytes per GPU) and
        ``memory`` (their sum, bytes per GPU).

    Raises
    ------
    ValueError
        If ``model`` or ``layout`` has the wrong type.
    RuntimeError
        If llm-analysis is not installed.
    """
    if not isinstance(model, ModelConfig):
        raise ValueError(f"model={model!r} is not an interconnect.parallel.ModelConfig")
    if not isinstance(layout, Layout):
        raise ValueError(f"layout={layout!r} is not an interconnect.parallel.Layout")
    train = _train()
    if train is None:
        raise RuntimeError("llm-analysis is not installed: "
                           "pip install --no-deps llm-analysis==0.2.2 'fire<0.6' six termcolor")
    cfg = {"name": model.name or "model", "num_layers": model.layers, "n_head": model.heads,
           "hidden_dim": model.hidden, "vocab_size": model.vocab, "max_seq_len": model.seq_len,
           "ffn_embed_dim": 4 * model.hidden}
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "model.json")
        with open(path, "w") as f:
            json.dump(cfg, f)
        out = train(model_name=path, gpu_name=gpu_name, log_level="ERROR", seq_len=model.seq_len,
                    batch_size_per_gpu=layout.microbatch, global_batch_size=model.global_batch,
                    tp_size=layout.tp, pp_size=layout.pp, dp_size=layout.dp,
                    sp_size=layout.tp if layout.sequence_parallel else 1,
                    activation_recomputation=_RECOMPUTE[layout.recompute], flash_attn=False,
                    softmax_dropout=True, flops_efficiency=flops_efficiency,
                    total_num_tokens=model.global_batch * model.seq_len)
    states = float(out["(weight+op_state+grad)_memory_per_gpu"])
    acts = float(out["activation_memory_per_gpu"])
    return {"step_time": float(out["latency_per_iter"]), "model_states": states, "activations": acts,
            "memory": states + acts}
