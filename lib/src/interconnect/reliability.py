"""Failures, checkpoints and goodput: the price of coupling many GPUs tightly.

A synchronous training job stops when *any* of its GPUs (or their links, hosts, power)
fails, so its mean time between failures shrinks with its size: with independent,
exponentially distributed failures, ``n`` components of MTBF ``m`` give a job MTBF of
``m / n``. The job survives by writing checkpoints; checkpointing too often wastes
time writing, too rarely wastes the work lost at each failure. Young (1974) and Daly
(2006) give the interval that balances the two.

References
----------
J. W. Young, "A first order approximation to the optimum checkpoint interval",
Communications of the ACM 17(9):530-531, 1974. doi:10.1145/361147.361115
J. T. Daly, "A higher order estimate of the optimum checkpoint interval for restart
dumps", Future Generation Computer Systems 22(3):303-312, 2006.
doi:10.1016/j.future.2004.11.016
A. Dubey et al. (Llama team), "The Llama 3 Herd of Models", arXiv:2407.21783, 2024,
sec. 3.3.4: 419 unexpected interruptions in a 54-day snapshot of 16,384 H100s.
"""

from __future__ import annotations

import numpy as np

from ._validate import as_count, as_nonnegative, as_positive
from .units import day

__all__ = ["cluster_mtbf", "young_interval", "daly_interval", "expected_wall_time", "goodput", "best_goodput",
           "LLAMA3_GPU_MTBF"]

#: Per-GPU MTBF (s) implied by the Llama 3 405B training log (Dubey et al. 2024, sec. 3.3.4):
#: 419 unexpected interruptions in 54 days on 16,384 GPUs, so a job MTBF of 54 days / 419
#: (about 3.1 hours) times 16,384 GPUs (about 5.8 years, 50,700 hours, per GPU, every cause counted).
LLAMA3_GPU_MTBF = 54 * day / 419 * 16_384


def _out(x):
    return float(x) if np.ndim(x) == 0 else x


def cluster_mtbf(component_mtbf, n_components):
    """MTBF of a job that fails when any of ``n`` independent components fails, in s.

    With exponential lifetimes the failure rates add: ``M = m / n``.

    Parameters
    ----------
    component_mtbf : float or array
        MTBF of one component (a GPU, a node), s, > 0.
    n_components : int or array
        Components the job depends on, >= 1.

    Examples
    --------
    Llama 3 405B's 16,384 GPUs: one interruption every 3.1 hours (419 in 54 days, Dubey et
    al. 2024, sec. 3.3.4):

    >>> round(cluster_mtbf(LLAMA3_GPU_MTBF, 16_384) / 3600, 2)     # hours
    3.09
    """
    m = as_positive("component_mtbf", component_mtbf, "s")
    n = as_count("n_components", n_components, minimum=1)
    return _out(m / np.asarray(n, dtype=float))


def young_interval(checkpoint_time, mtbf):
    """Young's optimum compute time between checkpoints, ``sqrt(2 delta M)``, in s.

    Parameters
    ----------
    checkpoint_time : float or array
        delta, time to write one checkpoint, s, > 0.
    mtbf : float or array
        M, mean time between failures of the job, s, > 0.

    References
    ----------
    Young (1974), eq. (3).

    Examples
    --------
    A 5-minute checkpoint against a 3-hour MTBF: checkpoint every 42 minutes or so:

    >>> round(young_interval(5 * 60.0, 3 * 3600.0) / 60, 1)      # minutes
    42.4
    """
    d = as_positive("checkpoint_time", checkpoint_time, "s")
    m = as_positive("mtbf", mtbf, "s")
    return _out(np.sqrt(2.0 * d * m))


def daly_interval(checkpoint_time, mtbf):
    """Daly's higher-order optimum compute time between checkpoints, in s.

    ``sqrt(2 delta M) [1 + (1/3) sqrt(delta / (2M)) + (1/9) (delta / (2M))] - delta``
    for ``delta < 2M``, else ``M``. Accurate to about 0.2 % against the exact optimum of
    :func:`expected_wall_time`; the restart time drops out.

    References
    ----------
    Daly (2006), eq. (37).

    Examples
    --------
    The same 5-minute checkpoint and 3-hour MTBF as :func:`young_interval` (42.4 min):
    Daly's correction shortens the interval:

    >>> round(daly_interval(5 * 60.0, 3 * 3600.0) / 60, 1)       # minutes
    39.2
    """
    d = as_positive("checkpoint_time", checkpoint_time, "s")
    m = as_positive("mtbf", mtbf, "s")
    x = np.asarray(d / (2.0 * m), dtype=float)
    tau = np.sqrt(2.0 * d * m) * (1.0 + np.sqrt(x) / 3.0 + x / 9.0) - d
    return _out(np.where(x < 1.0, tau, np.broadcast_to(m, np.shape(tau))))


def expected_wall_time(solve_time, interval, checkpoint_time, mtbf, restart_time=0.0):
    """Expected wall-clock time to finish ``solve_time`` of work with checkpoints, in s.

    ``T_w = M exp(R/M) (exp((tau + delta)/M) - 1) T_s / tau`` for exponentially
    distributed failures of mean ``M``: each segment of ``tau`` work plus a ``delta``
    checkpoint is retried until it completes, and each failure costs a restart ``R``.

    Parameters
    ----------
    solve_time : float or array
        T_s, failure-free compute time of the job, s, > 0.
    interval : float or array
        tau, compute time between checkpoints, s, > 0.
    checkpoint_time : float or array
        delta, s, >= 0.
    mtbf : float or array
        M, s, > 0.
    restart_time : float or array
        R, time from a failure to resuming from the last checkpoint, s, >= 0.

    References
    ----------
    Daly (2006), the expected wall-clock time under exponentially distributed failures
    (the model whose optimum eq. (37) approximates).

    Examples
    --------
    30 days of work on the Llama 3 cluster (MTBF 3.1 h), 5-minute checkpoints at Daly's
    interval and 10-minute restarts:

    >>> m = cluster_mtbf(LLAMA3_GPU_MTBF, 16_384)
    >>> round(expected_wall_time(30 * day, daly_interval(300.0, m), 300.0, m, 600.0) / day, 1)   # days
    40.3
    """
    ts = as_positive("solve_time", solve_time, "s")
    tau = as_positive("interval", interval, "s")
    d = as_nonnegative("checkpoint_time", checkpoint_time, "s")
    m = as_positive("mtbf", mtbf, "s")
    r = as_nonnegative("restart_time", restart_time, "s")
    return _out(m * np.exp(r / m) * np.expm1((tau + d) / m) * ts / tau)


def goodput(interval, checkpoint_time, mtbf, restart_time=0.0):
    """Fraction of wall-clock time that is useful work, ``T_s / T_w``, in (0, 1].

    Independent of the job's length in this model; see :func:`expected_wall_time`.

    Examples
    --------
    On the Llama 3 cluster with 5-minute checkpoints: Daly's interval against checkpointing
    every hour:

    >>> m = cluster_mtbf(LLAMA3_GPU_MTBF, 16_384)
    >>> round(goodput(daly_interval(300.0, m), 300.0, m), 3), round(goodput(3600.0, 300.0, m), 3)
    (0.785, 0.771)
    """
    return _out(1.0 / expected_wall_time(1.0, interval, checkpoint_time, mtbf, restart_time))


def best_goodput(checkpoint_time, mtbf, restart_time=0.0):
    """Goodput when checkpointing at Daly's interval: the best a job of this MTBF can do.

    ``goodput(daly_interval(delta, M), delta, M, R)``. For cheap checkpoints
    (``delta << M``) it is about ``(1 - sqrt(2 delta / M)) exp(-R / M)``: Young's
    first-order balance of writing against lost work, times the restarts.

    Parameters
    ----------
    checkpoint_time : float or array
        delta, s, > 0.
    mtbf : float or array
        M, the job's MTBF (:func:`cluster_mtbf`), s, > 0.
    restart_time : float or array
        R, s, >= 0.

    Returns
    -------
    float or ndarray
        In (0, 1].

    Examples
    --------
    >>> round(best_goodput(5 * 60.0, cluster_mtbf(LLAMA3_GPU_MTBF, 16_384), 10 * 60.0), 3)
    0.744
    """
    tau = daly_interval(checkpoint_time, mtbf)
    return goodput(tau, checkpoint_time, mtbf, restart_time)
