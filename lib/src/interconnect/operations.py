"""Selection and operations: feeding the GPUs, and reading a training log.

Two small models that the chapter "Selection and operations" needs and the rest of the
library does not have:

* **Bandwidth matching.** The data-loading path of a training node is a pipeline of
  stages (storage read, network, decode on the CPU, host-to-device copy, the GPUs
  themselves). In steady state a pipeline runs at the rate of its slowest stage:
  ``throughput = min(stage rates)``. :func:`loader_stages` turns bandwidths and sample
  sizes into per-stage rates in samples/s; :func:`pipeline_throughput` takes the minimum
  and names the stage that binds; :func:`data_stall_fraction` is the share of time the
  GPUs wait for data.
* **Measuring scaling.** :func:`synthetic_step_log` makes a deterministic, seeded log of
  step times from a :class:`interconnect.parallel.StepTime` (what a profiler would
  record: compute and exposed communication per step), and :func:`analyse_step_log`
  turns a log into throughput, MFU and communication share; :func:`scaling_efficiency`
  compares two scales.

Units are SI: bytes, seconds, bytes/s (per direction), samples/s.

References
----------
The throughput of a pipeline is that of its slowest stage: the bottleneck law of
queueing networks, E. D. Lazowska, J. Zahorjan, G. S. Graham, K. C. Sevcik,
*Quantitative System Performance*, Prentice Hall, 1984, chapter 5 (asymptotic bounds, ``X <= 1 / D_max``).
MFU: A. Chowdhery et al., "PaLM", arXiv:2204.02311, 2022, Appendix B.
Scaling efficiency: M. Shoeybi et al., "Megatron-LM", arXiv:1909.08053, 2019 (abstract and sec. 5).
"""

from __future__ import annotations

import numpy as np

from ._validate import as_count, as_fraction, as_nonnegative, as_positive, choice
from .parallel import StepTime, mfu

__all__ = ["STAGES", "loader_stages", "pipeline_throughput", "data_stall_fraction", "synthetic_step_log",
           "analyse_step_log", "scaling_efficiency", "node_cluster"]

#: The stages of :func:`loader_stages`, in the order data flows through them.
STAGES = ("storage", "network", "decode", "h2d", "gpu")


def _out(x):
    return float(x) if np.ndim(x) == 0 else np.asarray(x, dtype=float)


def loader_stages(sample_bytes, decoded_bytes, storage_bandwidth, network_bandwidth, cpu_cores, decode_rate,
                  h2d_bandwidth, gpu_rate):
    """Rate of each stage of one node's data-loading pipeline, samples/s.

    * ``storage``: ``storage_bandwidth / sample_bytes`` (what the file system can serve
      this node);
    * ``network``: ``network_bandwidth / sample_bytes`` (the node's link to storage);
    * ``decode``: ``cpu_cores * decode_rate`` (decode and augment on the CPU);
    * ``h2d``: ``h2d_bandwidth / decoded_bytes`` (host-to-device copies, all GPUs of the
      node together);
    * ``gpu``: ``gpu_rate``, what the GPUs consume when they never wait.

    Parameters
    ----------
    sample_bytes : float or array
        Bytes of one sample as stored (compressed), > 0.
    decoded_bytes : float or array
        Bytes of one sample as copied to the GPU (decoded tensor), > 0.
    storage_bandwidth, network_bandwidth : float or array
        Read bandwidth available to this node, bytes/s, > 0 (one direction: reads).
    cpu_cores : int or array
        CPU cores doing the decoding, >= 1.
    decode_rate : float or array
        Samples/s one core decodes, > 0.
    h2d_bandwidth : float or array
        Host-to-device bandwidth of the node, bytes/s per direction, > 0 (e.g. 8 PCIe
        links for 8 GPUs: ``8 * links.get_link("pcie5x16").bandwidth``).
    gpu_rate : float or array
        Samples/s the node's GPUs process when fed without stalls, > 0.

    Returns
    -------
    dict
        ``{stage: samples/s}`` for the stages of :data:`STAGES`, in that order.
    """
    s = as_positive("sample_bytes", sample_bytes, "bytes")
    d = as_positive("decoded_bytes", decoded_bytes, "bytes")
    sb = as_positive("storage_bandwidth", storage_bandwidth, "bytes/s")
    nb = as_positive("network_bandwidth", network_bandwidth, "bytes/s")
    c = as_count("cpu_cores", cpu_cores)
    r = as_positive("decode_rate", decode_rate, "samples/s per core")
    h = as_positive("h2d_bandwidth", h2d_bandwidth, "bytes/s")
    g = as_positive("gpu_rate", gpu_rate, "samples/s")
    rates = (sb / s, nb / s, c * r, h / d, g)
    return {k: _out(v) for k, v in zip(STAGES, rates)}


def _check_stages(stages):
    if not isinstance(stages, dict) or not stages:
        raise ValueError(f"stages={stages!r} is not a non-empty dict of stage name -> samples/s")
    return {k: as_positive(f"stages[{k!r}]", v, "samples/s") for k, v in stages.items()}


def pipeline_throughput(stages):
    """Steady-state throughput of a pipeline, and the stage that limits it.

    ``throughput = min_i rate_i``: every sample passes through every stage, and with
    buffers between them the pipeline settles at the pace of its slowest stage (ties go
    to the stage listed first).

    Parameters
    ----------
    stages : dict
        ``{name: rate}``, samples/s, > 0; scalars or arrays of one shape (e.g. from
        :func:`loader_stages`).

    Returns
    -------
    (float or ndarray, str or ndarray of str)
        The throughput in samples/s and the name of the binding stage.
    """
    st = _check_stages(stages)
    names = list(st)
    arr = np.stack(np.broadcast_arrays(*[np.asarray(v, dtype=float) for v in st.values()]))
    idx = np.argmin(arr, axis=0)
    rate = np.min(arr, axis=0)
    if np.ndim(rate) == 0:
        return float(rate), names[int(idx)]
    return rate, np.asarray(names, dtype=object)[idx]


def data_stall_fraction(stages, consumer="gpu"):
    """Fraction of time the consumer waits for data: ``1 - throughput / rate[consumer]``.

    Parameters
    ----------
    stages : dict
        As for :func:`pipeline_throughput`; must contain ``consumer``.
    consumer : str
        The last stage, whose idle time is wanted (default ``"gpu"``).

    Returns
    -------
    float or ndarray
        In [0, 1): 0 when the consumer is the slowest stage.
    """
    st = _check_stages(stages)
    if consumer not in st:
        raise ValueError(f"consumer={consumer!r} is not a stage; allowed: {', '.join(map(str, st))}")
    rate, _ = pipeline_throughput(st)
    return _out(1.0 - np.asarray(rate) / np.asarray(st[consumer]))


def synthetic_step_log(step, steps=200, jitter=0.01, comm_jitter=0.05, straggler_rate=0.0, straggler_factor=3.0,
                       seed=0):
    """A deterministic synthetic training log built on the step-time model.

    Step ``k`` takes ``compute_k + comm_k`` seconds, where ``compute_k`` is
    ``step.compute + step.bubble`` times a log-normal factor of spread ``jitter`` and
    ``comm_k`` is the exposed communication (``tp_comm + pp_comm + ep_comm +
    dp_comm_exposed``) times a log-normal factor of spread ``comm_jitter``. With
    probability ``straggler_rate`` a step is a *straggler step* whose communication
    takes ``straggler_factor`` times longer (one slow GPU or link makes every rank wait).
    The factors have median 1, so the log's median is close to the model's step time.

    Parameters
    ----------
    step : interconnect.parallel.StepTime
        The model's step, from :func:`interconnect.parallel.step_time`.
    steps : int
        Steps in the log, >= 1.
    jitter, comm_jitter : float
        Standard deviations of the log of the compute and communication factors, >= 0.
    straggler_rate : float
        Probability of a straggler step, in [0, 1].
    straggler_factor : float
        Slow-down of a straggler step's communication, >= 1.
    seed : int
        Seed of ``numpy.random.default_rng``; the same seed gives the same log.

    Returns
    -------
    dict of ndarray
        ``step`` (0, 1, ...), ``compute``, ``comm`` (exposed communication) and
        ``total`` (seconds per step).
    """
    if not isinstance(step, StepTime):
        raise ValueError(f"step={step!r} is not a StepTime; use interconnect.parallel.step_time(...)")
    n = as_count("steps", steps)
    j = as_nonnegative("jitter", jitter)
    cj = as_nonnegative("comm_jitter", comm_jitter)
    p = as_fraction("straggler_rate", straggler_rate, 0.0, 1.0, low_open=False)
    f = as_positive("straggler_factor", straggler_factor)
    if f < 1:
        raise ValueError(f"straggler_factor={straggler_factor!r} is not allowed; it must be >= 1")
    s = as_count("seed", seed, minimum=0)
    rng = np.random.default_rng(s)
    comp0 = step.compute + step.bubble
    comm0 = step.tp_comm + step.pp_comm + step.ep_comm + step.dp_comm_exposed
    comp = comp0 * np.exp(j * rng.standard_normal(n))
    comm = comm0 * np.exp(cj * rng.standard_normal(n))
    slow = rng.random(n) < p
    comm = np.where(slow, comm * f, comm)
    return {"step": np.arange(n), "compute": comp, "comm": comm, "total": comp + comm}


def analyse_step_log(total, tokens_per_step, flops_per_token, n_gpus, peak_flops, comm=None, warmup=0):
    """Throughput, MFU and communication share from a log of step times.

    Parameters
    ----------
    total : array
        Seconds per step, > 0.
    tokens_per_step : float
        Tokens the whole job processes per step (global batch x sequence length), > 0.
    flops_per_token : float
        Model FLOPs per token (``interconnect.parallel.model_flops_per_token``, or the
        model's ``model_flops() / tokens``), > 0.
    n_gpus : int
        GPUs in the job, >= 1.
    peak_flops : float
        Dense peak per GPU, FLOP/s, > 0.
    comm : array, optional
        Exposed communication seconds per step (from a profiler), >= 0, same length as
        ``total``; gives ``comm_share``.
    warmup : int
        Leading steps to drop (start-up, compilation), >= 0, fewer than the log's length.

    Returns
    -------
    dict
        ``steps`` (analysed), ``mean``, ``median``, ``p99`` (seconds per step),
        ``tokens_per_second`` (tokens over the mean step: the wall clock counts every
        slow step), ``mfu`` (:func:`interconnect.parallel.mfu`) and, with ``comm``,
        ``comm_share`` (sum of exposed communication over sum of step times).
    """
    t = as_positive("total", total, "seconds")
    t = np.atleast_1d(t)
    w = as_count("warmup", warmup, minimum=0)
    if w >= t.size:
        raise ValueError(f"warmup={warmup!r} is not allowed; it must be < the log's {t.size} steps")
    tok = as_positive("tokens_per_step", tokens_per_step, "tokens")
    t = t[w:]
    mean = float(np.mean(t))
    tps = tok / mean
    out = {"steps": int(t.size), "mean": mean, "median": float(np.median(t)), "p99": float(np.percentile(t, 99)),
           "tokens_per_second": tps, "mfu": float(mfu(tps, flops_per_token, n_gpus, peak_flops))}
    if comm is not None:
        c = np.atleast_1d(as_nonnegative("comm", comm, "seconds"))
        if c.size != t.size + w:
            raise ValueError(f"comm has {c.size} steps but total has {t.size + w}; they must match")
        out["comm_share"] = float(np.sum(c[w:]) / np.sum(t))
    return out


def scaling_efficiency(time_base, time_scaled, scale, mode="weak"):
    """Scaling efficiency from two step times, ``scale`` times more GPUs apart.

    * ``"weak"`` (the work per GPU is fixed, the batch grows with the GPUs): ideal
      scaling keeps the step time constant; efficiency ``t_base / t_scaled``, speed-up
      ``scale * efficiency``.
    * ``"strong"`` (the total work is fixed): ideal scaling divides the step time by
      ``scale``; efficiency ``t_base / (scale * t_scaled)``.

    Parameters
    ----------
    time_base, time_scaled : float or array
        Seconds per step at the base scale and at ``scale`` times the GPUs, > 0.
    scale : float or array
        Ratio of GPU counts, > 0 (usually >= 1).
    mode : {"weak", "strong"}

    Returns
    -------
    float or ndarray
        The efficiency; 1 is linear scaling.

    References
    ----------
    Shoeybi et al. (2019), abstract and sec. 5 (weak scaling: 76 % on 512 GPUs against one).
    """
    a = as_positive("time_base", time_base, "seconds")
    b = as_positive("time_scaled", time_scaled, "seconds")
    k = as_positive("scale", scale)
    m = choice("mode", mode, ("weak", "strong"))
    eff = np.asarray(a) / np.asarray(b) if m == "weak" else np.asarray(a) / (np.asarray(k) * np.asarray(b))
    return _out(eff)


def node_cluster(intra, inter, gpu="H100", gpus_per_node=8, nics_per_node=None):
    """A cluster of identical nodes, from catalog names: the machine the chapters compare.

    :class:`interconnect.parallel.Cluster` with the GPU's peak and HBM bandwidth
    (:mod:`interconnect.devices`), ``intra`` between the GPUs of a node and ``inter`` between
    nodes, and the efficiencies :data:`interconnect.parallel.CALIBRATED_GEMM_EFFICIENCY` and
    :data:`interconnect.parallel.CALIBRATED_COMM_EFFICIENCY` (fitted on DGX A100).

    Parameters
    ----------
    intra, inter : str or interconnect.links.Link
        Catalog names (``"nvlink4"``, ``"pcie5x16"``; ``"ib-ndr"``, ``"eth-100g"``) or entries.
    gpu : str
        A GPU of :mod:`interconnect.devices`.
    gpus_per_node : int
        GPUs sharing the ``intra`` domain, >= 1.
    nics_per_node : int, optional
        NICs of type ``inter`` per node, shared by its GPUs: each GPU gets
        ``inter.bandwidth * nics_per_node / gpus_per_node``. None (default): one NIC per GPU.

    Returns
    -------
    interconnect.parallel.Cluster

    Examples
    --------
    >>> c = node_cluster("nvlink4", "ib-ndr")
    >>> c.intra_bandwidth / 1e9, c.inter_bandwidth / 1e9      # GB/s per direction per GPU
    (450.0, 50.0)
    """
    from .devices import get_gpu
    from .links import get_link
    from .parallel import CALIBRATED_COMM_EFFICIENCY, CALIBRATED_GEMM_EFFICIENCY, Cluster

    d = get_gpu(gpu)
    a, b = (get_link(x) if isinstance(x, str) else x for x in (intra, inter))
    inter_bw = b.bandwidth
    if nics_per_node is not None:
        inter_bw = b.bandwidth * as_count("nics_per_node", nics_per_node) / gpus_per_node
    return Cluster(gpus_per_node, d.peak_flops, a.bandwidth, a.latency, inter_bw, b.latency,
                   CALIBRATED_GEMM_EFFICIENCY, CALIBRATED_COMM_EFFICIENCY, d.memory_bandwidth)
