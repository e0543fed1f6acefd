"""Checkers for the chapter "Reliability at scale" (book/parallel/reliability)."""

import numpy as np

from .. import memory
from .. import reliability as R
from ..units import day, hour, minute
from . import Answer, exercise

CHAPTER = "book/parallel/reliability"
YEAR = 365 * day
_CHOICE_TOL = 1e-12


def _mtbf_gpu_l3():
    # Dubey et al. (2024): 419 unexpected interruptions in 54 days on 16,384 GPUs
    return 54 * day / 419 * 16_384


# rel-ex-mtbf: job MTBF of 4,096 GPUs at 50,000 h each, and failures in 30 days
def _vary_mtbf(rng):
    """Per-student numbers: the vendor's MTBF per GPU (h) and the job's GPU count."""
    return {"gpu_mtbf_h": int(rng.choice([20_000, 30_000, 50_000, 80_000, 100_000])),
            "gpus": int(rng.choice([1024, 2048, 4096, 8192, 16_384]))}


@exercise("rel-ex-mtbf", CHAPTER, parts=("job_mtbf", "failures_30d"), variants=_vary_mtbf,
          doc="MTBF of a synchronous job on 4,096 GPUs of 50,000 h each, and failures expected in 30 days")
def _rel_ex_mtbf(gpu_mtbf_h=50_000, gpus=4096):
    m, n = gpu_mtbf_h * hour, gpus
    M = R.cluster_mtbf(m, n)
    return {"job_mtbf": Answer(M, "s", mistakes={"gave hours, not seconds": M / hour,
                                                 "gave minutes, not seconds": M / minute}),
            "failures_30d": Answer(30 * day / M, "1", mistakes={
                "used the per-GPU MTBF instead of the job's (divide it by the number of GPUs)": 30 * day / m})}


# rel-ex-young-daly: Young's and Daly's intervals and goodputs for M = 4 h, delta = 2 min
def _vary_young_daly(rng):
    """Per-student numbers: the job's MTBF (h) and the checkpoint time (min), kept where the
    chapter's first-order goodput stays within the 1 % tolerance below."""
    return {"mtbf_h": int(rng.choice([4, 5, 6, 8])), "checkpoint_min": float(rng.choice([1.0, 1.5, 2.0]))}


@exercise("rel-ex-young-daly", CHAPTER, parts=("young", "daly", "goodput_young", "goodput_daly"),
          variants=_vary_young_daly,
          doc="Young's and Daly's checkpoint intervals (s) and the goodput (fraction) at each, M = 4 h, delta = 2 min")
def _rel_ex_young_daly(mtbf_h=4, checkpoint_min=2.0):
    d, M = checkpoint_min * minute, mtbf_h * hour
    t_y, t_d = R.young_interval(d, M), R.daly_interval(d, M)
    # the two intervals differ by only a few percent: tolerance 0.5 %
    sqrt_dm = "forgot the 2 under the root: tau = sqrt(2 delta M), not sqrt(delta M)"
    return {"young": Answer(t_y, "s", rtol=0.005, mistakes={sqrt_dm: t_y / np.sqrt(2)}),
            "daly": Answer(t_d, "s", rtol=0.005, mistakes={"gave Young's interval for Daly's": t_y}),
            # the chapter also teaches the first-order goodput 1 - delta/tau - tau/2M, which is within
            # 0.7 % of the exact model for every variant's numbers (M >= 4 h, delta <= 2 min): 1 % accepts it
            "goodput_young": Answer(R.goodput(t_y, d, M), "1", rtol=0.01),
            "goodput_daly": Answer(R.goodput(t_d, d, M), "1", rtol=0.01)}


# rel-ex-restart: best goodput of the 16,384-GPU job, 30 s checkpoints, restart 0/10/60 min; what is worth more
@exercise("rel-ex-restart", CHAPTER,
          parts=("goodput_r0", "goodput_r10min", "goodput_r60min", "better_15s_ckpt_or_5min_restart"),
          doc="best goodput (fraction) for restarts of 0, 10, 60 min with 30 s checkpoints on 16,384 GPUs; "
              "whether 15 s checkpoints or a 5-min restart is worth more")
def _rel_ex_restart():
    M = R.cluster_mtbf(_mtbf_gpu_l3(), 16_384)

    def best(d, r):
        return float(R.goodput(R.daly_interval(d, M), d, M, r))

    out = {}
    # goodputs lie within a few percent of each other: a tolerance of 0.1 % tells them apart
    for name, r in (("goodput_r0", 0.0), ("goodput_r10min", 10 * minute), ("goodput_r60min", hour)):
        out[name] = Answer(best(30.0, r), "1", rtol=0.001, mistakes={} if r == 0 else {
            "ignored the restart time (it lowers goodput, though it does not move the best interval)": best(30.0, 0.0)})
    a, b = best(15.0, 10 * minute), best(30.0, 5 * minute)
    win = "tie" if abs(a - b) <= _CHOICE_TOL else ("checkpoint_15s" if a > b else "restart_5min")
    why = {"checkpoint_15s": "halving the checkpoint gains less: the best interval shrinks with it, so the "
                             "checkpoint overhead falls only by about 1/sqrt(2); "
                             "the restart is paid in full every failure",
           "restart_5min": "halving the checkpoint time wins here: compare the two goodputs with the library"}
    out["better_15s_ckpt_or_5min_restart"] = Answer(win, choices=("checkpoint_15s", "restart_5min", "tie"),
                                                   mistakes={k: v for k, v in why.items() if k != win})
    return out


# rel-ex-bandwidth: aggregate write bandwidth for 85 % goodput, 175 B model, 16,384 GPUs, 10-min restart
def _vary_bandwidth(rng):
    """Per-student numbers: the model's parameters and the GPUs."""
    return {"params": float(rng.choice([70e9, 405e9])), "gpus": int(rng.choice([4096, 8192, 32_768]))}


@exercise("rel-ex-bandwidth", CHAPTER, variants=_vary_bandwidth,
          doc="aggregate checkpoint write bandwidth (B/s) that gives 85 % goodput")
def _rel_ex_bandwidth(params=175e9, gpus=16_384):
    M = R.cluster_mtbf(_mtbf_gpu_l3(), gpus)
    st = memory.training_memory(params)
    nbytes = st["params"] + st["optimizer"]
    deltas = np.logspace(0, np.log10(3600), 2000)
    g = R.goodput(R.daly_interval(deltas, M), deltas, M, 10 * minute)
    d_max = deltas[g >= 0.85].max()
    # the grid step is 0.4 %: allow 2 % for a finer search or a root finder
    # storage write bandwidth has one direction: no per-direction mistake to diagnose
    return Answer(nbytes / d_max, "B/s", generic=("bits", "gib", "prefix"), mistakes={
        "checkpointed the parameters only (the optimizer state must be saved too)": st["params"] / d_max,
        "counted the gradients too (they are recomputed after a restart, not saved)":
            (nbytes + st["grads"]) / d_max})


# rel-ex-scale: 2e6 GPU-hours of work on 8,192 and 16,384 GPUs
@exercise("rel-ex-scale", CHAPTER, parts=("wall_8192", "wall_16384", "gpu_hours_8192", "gpu_hours_16384",
                                          "doubling_halves_time"),
          doc="expected wall-clock time (s) and GPU-hours spent on 8,192 and 16,384 GPUs; "
              "whether doubling halves the time")
def _rel_ex_scale():
    work, d, r = 2e6 * hour, 5 * minute, 10 * minute
    out, walls = {}, {}
    for n in (8192, 16_384):
        M = R.cluster_mtbf(_mtbf_gpu_l3(), n)
        wall = float(R.expected_wall_time(work / n, R.daly_interval(d, M), d, M, r))
        walls[n] = wall
        ideal = work / n
        out[f"wall_{n}"] = Answer(wall, "s", rtol=0.005, mistakes={
            "gave the failure-free time (work / GPUs), without checkpoints and failures": ideal})
        out[f"gpu_hours_{n}"] = Answer(n * wall / hour, "1", rtol=0.005, generic=("prefix",), mistakes={
            "gave the failure-free GPU-hours (the work itself)": work / hour,
            "gave GPU-seconds, not GPU-hours": n * wall})
    halves = "yes" if walls[16_384] <= walls[8192] / 2 * (1 + 1e-9) else "no"
    why = {"yes": "the job MTBF halves with twice the GPUs, so goodput drops and the time falls by less than half",
           "no": "compare the two wall-clock times: here doubling does halve it"}
    out["doubling_halves_time"] = Answer(halves, choices=("yes", "no"),
                                         mistakes={k: v for k, v in why.items() if k != halves})
    return out


# rel-ex-node: job MTBF of 2,048 nodes (GPU failures plus 20-year hosts) and the hosts' share of failures
def _vary_node(rng):
    """Per-student numbers: the GPUs (8 a node) and the MTBF of one host (years)."""
    return {"gpus": int(rng.choice([4096, 8192, 24_576, 32_768])), "host_years": float(rng.choice([5, 10, 15]))}


@exercise("rel-ex-node", CHAPTER, parts=("job_mtbf", "host_share"), variants=_vary_node,
          doc="job MTBF (s) of 16,384 GPUs in 2,048 nodes whose hosts fail every 20 years, and the hosts' share")
def _rel_ex_node(gpus=16_384, host_years=20.0):
    M_gpus = R.cluster_mtbf(_mtbf_gpu_l3(), gpus)
    M_hosts = R.cluster_mtbf(host_years * YEAR, gpus // 8)
    rate = 1 / M_gpus + 1 / M_hosts
    share = (1 / M_hosts) / rate
    # the hosts change the MTBF by under 4 %: a tolerance of 1 % still tells the GPUs alone from the job
    slips = {"averaged the two MTBFs (add the failure rates instead)": (M_gpus + M_hosts) / 2,
             "left out the hosts (GPU failures alone)": M_gpus,
             "gave hours, not seconds": 1 / rate / hour}
    return {"job_mtbf": Answer(1 / rate, "s", rtol=0.01, mistakes={
                k: v for k, v in slips.items() if abs(v * rate - 1) > 0.025}),
            "host_share": Answer(share, "1", mistakes={"gave the GPUs' share": 1 - share})}
