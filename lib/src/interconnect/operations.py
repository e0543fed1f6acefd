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
* **Placement and link sensitivity.** :func:`split_rings` and :func:`tp_placement_times`
  time a tensor-parallel AllReduce with its group in one node or split over two
  (:mod:`interconnect.netsim`); :func:`link_sensitivity` is the step time of a workload
  when every link is slower, relative to the machine as it is.
* **The chapter's machines** are :meth:`interconnect.parallel.Cluster.from_links` (shared
  with the exercise checkers through :func:`interconnect.scenarios.operations`);
  :func:`image_loader_node` is the data-loading example of one DGX H100-class node.

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
           "analyse_step_log", "scaling_efficiency", "image_loader_node", "split_rings",
           "PLACEMENTS", "tp_placement_times", "link_sensitivity"]

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


def image_loader_node(gpus=8):
    """The data-loading example of the chapter: image classification on one DGX H100-class node.

    112 CPU cores and 8 GPUs on PCIe 5.0 x16 (DGX H100 user guide); the rest are typical
    values, not measurements: stored JPEGs of 110 kB decoded into 224 x 224 x 3 bytes,
    150 images/s decoded per core, 2 GB/s from a shared file system for this node, a 200 GbE
    storage link, and 3,000 images/s per GPU when the GPUs are never starved.

    Parameters
    ----------
    gpus : int
        GPUs in the node (each with its own PCIe 5.0 x16 link, each taking 3,000 images/s).

    Returns
    -------
    dict
        Keyword arguments of :func:`loader_stages`.

    Examples
    --------
    >>> stages = loader_stages(**image_loader_node())
    >>> pipeline_throughput(stages)        # 112 cores x 150 images/s: the CPUs bind
    (16800.0, 'decode')
    """
    from .links import get_link
    from .units import GB, KB

    return dict(sample_bytes=110 * KB, decoded_bytes=224 * 224 * 3, storage_bandwidth=2 * GB,
                network_bandwidth=get_link("eth-200g").bandwidth, cpu_cores=112, decode_rate=150.0,
                h2d_bandwidth=gpus * get_link("pcie5x16").bandwidth, gpu_rate=gpus * 3000.0)


def split_rings(k=4, nodes=("n0", "n1")):
    """``k`` ring orders over a group split ``k + k`` over two nodes, one ring per rail.

    Ring ``r`` visits the ``k`` GPUs of the first node starting at GPU ``r + 1``, so it
    leaves that node from GPU ``r`` (rail ``r``), then the ``k`` GPUs of the second node
    starting at GPU ``r``, so it returns on rail ``r + 1``: each rail's NIC carries one
    ring each way, as NCCL's channels do. Node names are those of
    :func:`interconnect.topology.cluster` (``"n0.gpu3"``).

    Parameters
    ----------
    k : int
        GPUs of the group in each node, >= 1.
    nodes : (str, str)
        The two nodes.

    Returns
    -------
    list of list of str
        ``k`` ring orders over the same ``2 k`` GPUs.

    Examples
    --------
    >>> split_rings(2)
    [['n0.gpu1', 'n0.gpu0', 'n1.gpu0', 'n1.gpu1'], ['n0.gpu0', 'n0.gpu1', 'n1.gpu1', 'n1.gpu0']]
    """
    k = as_count("k", k)
    a, b = nodes
    rings = []
    for r in range(k):
        s = (r + 1) % k
        rings.append([f"{a}.gpu{(s + i) % k}" for i in range(k)] + [f"{b}.gpu{(r + i) % k}" for i in range(k)])
    return rings


#: The placements :func:`tp_placement_times` compares, in its order.
PLACEMENTS = ("one node (NVLink)", "split 4 + 4, one ring", "split 4 + 4, four rings")


def tp_placement_times(nbytes, g=None):
    """AllReduce time of an 8-GPU tensor-parallel group in one node, and split 4 + 4 over two.

    Simulated with :mod:`interconnect.netsim` on two DGX H100-like nodes
    (:func:`interconnect.topology.cluster` with ``nodes=2``: NVLink 4 through NVSwitch
    inside, one NDR NIC per GPU between): the group on ``n0.gpu0-7`` (one ring over
    NVLink); on ``n0.gpu0-3`` and ``n1.gpu0-3`` with one ring, which crosses between the
    nodes through one NIC each way; and with four rings, one per rail
    (:func:`split_rings`), as NCCL spreads its channels over the NICs.

    Parameters
    ----------
    nbytes : float
        Size of the AllReduce, bytes.
    g : networkx.Graph, optional
        A two-node :func:`interconnect.topology.cluster` (default: ``cluster(nodes=2)``).

    Returns
    -------
    dict
        Seconds, keyed by :data:`PLACEMENTS`.
    """
    from .netsim import simulate_collective, simulate_rings
    from .topology import cluster

    g = cluster(nodes=2) if g is None else g
    one_node = [f"n0.gpu{i}" for i in range(8)]
    split = [f"n0.gpu{i}" for i in range(4)] + [f"n1.gpu{i}" for i in range(4)]
    times = (simulate_collective(g, "allreduce", nbytes, ranks=one_node).time,
             simulate_collective(g, "allreduce", nbytes, ranks=split).time,
             simulate_rings(g, nbytes, split_rings()).time)
    return dict(zip(PLACEMENTS, times))


def link_sensitivity(model, layout, cluster, bandwidth_divisor=1.0, latency_factor=1.0):
    """Step time with every link slower, relative to the step time on ``cluster``.

    Both levels of links (inside and between nodes) get their bandwidth divided by
    ``bandwidth_divisor`` and their latency multiplied by ``latency_factor``; the ratio of
    :func:`interconnect.parallel.step_time` on that machine to the one on ``cluster`` says
    how much the workload needs from the links (1: not at all).

    Parameters
    ----------
    model : interconnect.parallel.ModelConfig
    layout : interconnect.parallel.Layout
    cluster : interconnect.parallel.Cluster
    bandwidth_divisor : float
        >= 1 for slower links.
    latency_factor : float
        >= 1 for slower links.

    Returns
    -------
    float
    """
    from dataclasses import replace

    from .parallel import step_time

    d = as_positive("bandwidth_divisor", bandwidth_divisor)
    k = as_positive("latency_factor", latency_factor)
    slow = replace(cluster, intra_bandwidth=cluster.intra_bandwidth / d, inter_bandwidth=cluster.inter_bandwidth / d,
                   intra_latency=cluster.intra_latency * k, inter_latency=cluster.inter_latency * k)
    return step_time(model, layout, slow).total / step_time(model, layout, cluster).total
