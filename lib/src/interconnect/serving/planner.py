"""The serving planner: how many GPUs, in what layout, to serve a model at a rate within latency objectives.

:func:`plan_serving` enumerates, on each machine it is given:

* **colocated** replicas of ``tp x pp`` GPUs (continuous batching,
  :func:`~interconnect.serving.continuous_batching`), ``tp`` dividing the heads within the
  NVLink domain, ``pp`` in ``pp_options``;
* **disaggregated** systems (:func:`~interconnect.serving.disaggregated`): prefill instances
  of ``tp_p`` GPUs and decode instances of ``tp_d x pp_d`` GPUs, the KV cache sent over
  ``link``; for an MoE model also decode instances of ``ep`` GPUs with data-parallel
  attention and expert parallelism (:func:`~interconnect.serving.moe_decode_step_time`).

Each candidate must hold its weights and the running batch's KV cache
(:func:`~interconnect.serving.kv_capacity`); its *goodput* is the largest rate one instance
serves within both objectives (TTFT, TPOT; :func:`~interconnect.serving.colocated_goodput`,
:func:`~interconnect.serving.prefill_goodput`, :func:`~interconnect.serving.decode_goodput`),
and the number of instances is ``ceil(rate / goodput)`` for each phase (DistServe's placement:
each phase sized for its own objective). Candidates are ranked by GPUs, then by cost
(``prices``, per GPU-hour), then by TPOT and TTFT at the rate.

The models are the steady-state fluid models of the package (mean latencies, no tail); the
planner is as good as they are: see :func:`~interconnect.serving.validation_table`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from .._validate import as_count, as_positive
from .disagg import _decode_point, _md1_wait, _setup, kv_transfer_time
from .goodput import _colocated_goodput, _decode_goodput, _slo, prefill_goodput
from .steps import as_machine, prefill_time

__all__ = ["ServingOption", "ServingPlan", "plan_serving"]


@dataclass(frozen=True)
class ServingOption:
    """One feasible layout of :func:`plan_serving`.

    Attributes
    ----------
    machine : str
    kind : str
        ``"colocated"`` or ``"disaggregated"``.
    prefill_tp, prefill_replicas : int
        TP degree and number of prefill instances (colocated: of the replicas).
    decode_tp, decode_pp, decode_ep, decode_replicas : int
        Shape and number of decode instances (colocated: the replicas'; ``decode_ep`` > 1:
        data-parallel attention and expert parallelism over that many GPUs).
    pp : int
        Pipeline stages of a colocated replica (1 disaggregated: prefill instances run without).
    gpus : int
        GPUs in all.
    cost : float or None
        ``gpus x price`` per hour, where ``prices`` gives the machine's.
    ttft, tpot : float
        Mean time to first token and per output token at the planned rate, seconds.
    goodput : float
        Largest rate the layout serves within the objectives, requests/s.
    limit : str
        What sets the number of instances.
    prefill_goodput, decode_goodput : float
        Largest rate one prefill and one decode instance serve within their objective
        (colocated: both one replica's).
    """

    machine: str
    kind: str
    prefill_tp: int
    prefill_replicas: int
    decode_tp: int
    decode_pp: int
    decode_ep: int
    decode_replicas: int
    pp: int
    gpus: int
    cost: float | None
    ttft: float
    tpot: float
    goodput: float
    limit: str
    prefill_goodput: float = 0.0
    decode_goodput: float = 0.0

    def label(self):
        """A one-line description, e.g. ``'dgx-h100 colocated 3 x (tp=8)'``."""
        if self.kind == "colocated":
            shape = f"tp={self.decode_tp}" + (f" pp={self.pp}" if self.pp > 1 else "")
            return f"{self.machine} colocated {self.decode_replicas} x ({shape})"
        dec = f"ep={self.decode_ep}" if self.decode_ep > 1 else \
            f"tp={self.decode_tp}" + (f" pp={self.decode_pp}" if self.decode_pp > 1 else "")
        return (f"{self.machine} disaggregated {self.prefill_replicas} x (tp={self.prefill_tp}) prefill + "
                f"{self.decode_replicas} x ({dec}) decode")


@dataclass(frozen=True)
class ServingPlan:
    """Result of :func:`plan_serving`.

    Attributes
    ----------
    ranked : list of ServingOption
        Feasible layouts, fewest GPUs first.
    rejected : list of (str, str)
        Layouts enumerated and rejected, with the reason.
    explanation : str
        The winner and what it is made of, or why nothing is feasible.
    """

    ranked: list = field(default_factory=list)
    rejected: list = field(default_factory=list)
    explanation: str = ""

    @property
    def best(self):
        """The first of :attr:`ranked`, or None."""
        return self.ranked[0] if self.ranked else None

    @property
    def why(self):
        """Why the winner beats the runner-up of the other kind (colocated against
        disaggregated), in one sentence; empty without one."""
        if not self.ranked:
            return ""
        best = self.ranked[0]
        other = next((o for o in self.ranked[1:] if o.kind != best.kind), None)
        if other is None:
            return f"Only {best.kind} layouts are feasible."
        text = f"The best {other.kind} layout, {other.label()}, needs {other.gpus} GPUs against {best.gpus}: "
        if other.kind == "colocated":
            text += f"one replica serves {other.decode_goodput:.3g} requests/s before {other.limit}"
        else:
            text += (f"one prefill instance serves {other.prefill_goodput:.3g} requests/s within the TTFT "
                     f"objective and one decode instance {other.decode_goodput:.3g} within the TPOT objective")
        if best.kind == "colocated":
            text += f"; a replica of the winner serves {best.decode_goodput:.3g}"
        else:
            text += (f"; the winner's prefill instances serve {best.prefill_goodput:.3g} and its decode instances "
                     f"{best.decode_goodput:.3g} each")
        return text + "."


def _tp_options(model, cl):
    return [t for t in (1, 2, 4, 8, 16, 32, 64) if t <= cl.gpus_per_node and model.heads % t == 0]


def _colocated(model, name, cl, rate, prompt, output, t_slo, d_slo, tp, pp, fp8, kv_bytes, price, rtol):
    st = _setup(model, name, tp, prompt, output, fp8, kv_bytes, 16, 0.1, "auto", None) if pp == 1 else \
        _setup_pp(model, name, tp, pp, prompt, output, fp8, kv_bytes)
    g = _colocated_goodput(st, t_slo, d_slo)
    if g <= 0:
        return None, "misses an objective even at a trickle of requests"
    n = math.ceil(rate / g * (1 - 1e-9))
    sol = st.solve(rate / n)
    while sol is None:          # at the goodput itself the fixed point may sit on the capacity's edge
        n += 1
        sol = st.solve(rate / n)
    t, b = sol
    ttft = st.ttft(t, b)
    gpus = n * tp * pp
    return ServingOption(machine=name, kind="colocated", prefill_tp=tp, prefill_replicas=n, decode_tp=tp,
                         decode_pp=pp, decode_ep=1, decode_replicas=n, pp=pp, gpus=gpus,
                         cost=None if price is None else gpus * price, ttft=ttft, tpot=t, goodput=n * g,
                         limit=_limit_at(st, g, t_slo, d_slo), prefill_goodput=g, decode_goodput=g), ""


def _setup_pp(model, name, tp, pp, prompt, output, fp8, kv_bytes):
    from .batching import _Setup

    return _Setup(model, name, tp, prompt, output, fp8, kv_bytes, 16, 0.1, "auto", None, pp)


def _limit_at(st, g, t_slo, d_slo):
    sol = st.solve(g * 1.001)
    if sol is None:
        return "it saturates (prefill fills the GPUs or the KV cache is full)"
    t, b = sol
    return "its TPOT objective breaks" if t > d_slo else "its TTFT objective breaks"


def _ep_decode(model, name, cl, output, context, d_slo, ep, fp8, kv_bytes, rtol=1e-4):
    """(goodput, tpot at a given rate fn) of an EP decode instance; goodput 0 when nothing fits."""
    from ..devices import get_gpu
    from ..parallel.machines import MACHINES
    from .kv import kv_bytes_per_token
    from .moe import _expert_params, moe_decode_step_time

    gpu = get_gpu(MACHINES[name].gpu)
    wb = 1.0 if fp8 else 2.0
    routed = model.moe_layers * model.num_experts * _expert_params(model)
    weights = wb * (model.params - routed + routed / ep)
    free = 0.9 * gpu.memory - weights
    per_seq = context * kv_bytes_per_token(model, 1, 1, kv_bytes)
    b_max = int(free // per_seq) if free > 0 else 0
    if b_max < 1:
        return 0.0, None, "the weights leave no room for one sequence"

    def step(b):
        return moe_decode_step_time(model, name, b, round(context), ep, fp8=fp8, kv_bytes=kv_bytes,
                                    node_limit=min(4, ep // cl.gpus_per_node) if ep > cl.gpus_per_node else None).total

    if step(1) > d_slo:
        return 0.0, None, "misses the TPOT objective at batch 1"
    lo, hi = 1, b_max
    if step(hi) <= d_slo:
        lo = hi
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if step(mid) <= d_slo else (lo, mid)
    t = step(lo)
    return ep * lo / (output * t), step, ""


def plan_serving(model, rate, prompt, output, ttft_slo, tpot_slo, machines=("dgx-h100",), fp8=False, kv_bytes=2,
                 link="rdma", pp_options=(1, 2, 4), disaggregate=True, prices=None, max_gpus=1024):
    """How many GPUs, in what layout, serve ``model`` at ``rate`` within TTFT and TPOT objectives.

    Parameters
    ----------
    model : ModelConfig
        A model of :mod:`interconnect.catalog.models`.
    rate : float
        Requests per second, > 0.
    prompt, output : int
        Tokens per prompt and per answer, >= 1.
    ttft_slo, tpot_slo : float
        Mean time to first token and per output token allowed, seconds (``math.inf``: none).
    machines : sequence of str
        Machine presets (:func:`interconnect.parallel.machines.machine_names`).
    fp8 : bool
        FP8 weights and GEMMs.
    kv_bytes : float
        Bytes per KV element.
    link : {"nvlink", "pcie", "rdma"} or (float, float)
        The KV path of disaggregated layouts (:func:`~interconnect.serving.kv_transfer_time`).
    pp_options : sequence of int
        Pipeline depths tried for colocated replicas and decode instances.
    disaggregate : bool
        Also try disaggregated layouts.
    prices : dict, optional
        Machine name -> price per GPU-hour, for :attr:`ServingOption.cost`.
    max_gpus : int
        Layouts needing more GPUs are rejected.

    Returns
    -------
    ServingPlan

    Examples
    --------
    Llama 3 70B at 20 requests per second, prompts of 1,024 and answers of 256 tokens, first
    token within 0.5 s and each next within 30 ms, on DGX H100:

    >>> from interconnect.catalog import models
    >>> p = plan_serving(models.get("llama3-70b"), 20.0, 1024, 256, 0.5, 0.03)
    >>> p.best.label(), p.best.gpus
    ('dgx-h100 disaggregated 3 x (tp=2) prefill + 1 x (tp=4) decode', 10)
    >>> print(p.why)    # doctest: +NORMALIZE_WHITESPACE
    The best colocated layout, dgx-h100 colocated 3 x (tp=4), needs 12 GPUs against 10: one replica
    serves 7.45 requests/s before its TPOT objective breaks; the winner's prefill instances serve
    8.07 and its decode instances 35.6 each.
    """
    from ..parallel.machines import MACHINES
    from .kv import kv_capacity

    lam = float(as_positive("rate", rate, "requests/s"))
    prompt, output = as_count("prompt", prompt), as_count("output", output)
    t_slo, d_slo = _slo("ttft_slo", ttft_slo), _slo("tpot_slo", tpot_slo)
    max_gpus = as_count("max_gpus", max_gpus)
    if isinstance(machines, str):
        machines = (machines,)
    pps = sorted({as_count("pp", p) for p in pp_options})
    if not isinstance(disaggregate, bool):
        raise ValueError(f"disaggregate={disaggregate!r} is not a bool; allowed True or False")
    prices = {str(k).strip().lower(): float(as_positive(f"prices[{k!r}]", v, "per GPU-hour"))
              for k, v in dict(prices or {}).items()}
    ranked, rejected = [], []
    for name in machines:
        if not isinstance(name, str) or name.strip().lower() not in MACHINES:
            raise ValueError(f"machines contains {name!r}; allowed: names of "
                             f"interconnect.parallel.machines ({', '.join(MACHINES)})")
        name = name.strip().lower()
        cl = as_machine(name)
        price = prices.get(name)
        tps = _tp_options(model, cl)
        for tp in tps:
            for pp in pps:
                lab = f"{name} colocated tp={tp} pp={pp}"
                try:
                    opt, why = _colocated(model, name, cl, lam, prompt, output, t_slo, d_slo, tp, pp, fp8,
                                          kv_bytes, price, 1e-4)
                except ValueError as err:
                    rejected.append((lab, str(err).split(";")[0]))
                    continue
                if opt is None:
                    rejected.append((lab, why))
                elif opt.gpus > max_gpus:
                    rejected.append((lab, f"needs {opt.gpus} GPUs > max_gpus={max_gpus}"))
                else:
                    ranked.append(opt)
        if not disaggregate:
            continue
        # decode instances: tp x pp (continuous batching without prefill) and, for MoE, EP
        decodes = []
        for tp in tps:
            for pp in pps:
                try:
                    st = _setup(model, name, tp, prompt, output, fp8, kv_bytes, 16, 0.1, "auto", None) if pp == 1 \
                        else _setup_pp(model, name, tp, pp, prompt, output, fp8, kv_bytes)
                except ValueError as err:
                    rejected.append((f"{name} decode tp={tp} pp={pp}", str(err).split(";")[0]))
                    continue
                g = _decode_goodput(st, d_slo)
                if g <= 0:
                    rejected.append((f"{name} decode tp={tp} pp={pp}", "misses the TPOT objective at batch 1"))
                    continue
                decodes.append((tp, pp, 1, g, st))
        if model.num_experts is not None:
            context = prompt + output / 2
            for ep in (8, 16, 32, 64, 128, 256):
                if model.num_experts % ep or ep > max_gpus or (ep > cl.gpus_per_node and ep % cl.gpus_per_node):
                    continue
                g, step, why = _ep_decode(model, name, cl, output, context, d_slo, ep, fp8, kv_bytes)
                if g <= 0:
                    rejected.append((f"{name} decode ep={ep}", why))
                    continue
                decodes.append((1, 1, ep, g, step))
        for ptp in tps:
            try:
                p = prefill_time(model, name, prompt, ptp, fp8, kv_bytes=kv_bytes).total
            except ValueError as err:
                rejected.append((f"{name} prefill tp={ptp}", str(err).split(";")[0]))
                continue
            # the prefill instance holds the weights and one prompt's cache
            try:
                kv_capacity(model, MACHINES[name].gpu, tp=ptp, weight_bytes=1 if fp8 else 2, kv_bytes=kv_bytes)
            except ValueError as err:
                rejected.append((f"{name} prefill tp={ptp}", str(err).split(";")[0]))
                continue
            for dtp, dpp, ep, g_d, st in decodes:
                # with data-parallel attention (EP decode) a sequence's cache goes to one GPU
                kv = kv_transfer_time(model, prompt, link, name, tp=ptp, decode_tp=1 if ep > 1 else dtp,
                                      kv_bytes=kv_bytes, layerwise=True, prefill=p).exposed
                g_p = prefill_goodput(model, name, prompt, t_slo, ptp, kv, fp8, kv_bytes)
                if g_p <= 0:
                    rejected.append((f"{name} prefill tp={ptp}", "misses the TTFT objective at a trickle"))
                    continue
                n_p, n_d = math.ceil(lam / g_p * (1 - 1e-9)), math.ceil(lam / g_d * (1 - 1e-9))
                if ep == 1:
                    point = _decode_point(st, lam / n_d)
                    while point is None:
                        n_d += 1
                        point = _decode_point(st, lam / n_d)
                size_d = ep if ep > 1 else dtp * dpp
                gpus = n_p * ptp + n_d * size_d
                if gpus > max_gpus:
                    rejected.append((f"{name} disaggregated tp={ptp} / {size_d}",
                                     f"needs {gpus} GPUs > max_gpus={max_gpus}"))
                    continue
                ttft = _md1_wait(lam / n_p, p) + p + kv
                if ep > 1:
                    tpot = _ep_tpot(st, lam / n_d, output, ep, d_slo)
                else:
                    tpot = point[0]
                # the phase whose instances are the most loaded sets the size
                limit = "its prefill instances' TTFT objective breaks" if lam / (g_p * n_p) >= lam / (g_d * n_d) \
                    else "its decode instances' TPOT objective breaks"
                ranked.append(ServingOption(machine=name, kind="disaggregated", prefill_tp=ptp, prefill_replicas=n_p,
                                            decode_tp=dtp, decode_pp=dpp, decode_ep=ep, decode_replicas=n_d, pp=1,
                                            gpus=gpus, cost=None if price is None else gpus * price, ttft=ttft,
                                            tpot=tpot, goodput=min(n_p * g_p, n_d * g_d), limit=limit,
                                            prefill_goodput=g_p, decode_goodput=g_d))
    ranked.sort(key=lambda o: (o.gpus, math.inf if o.cost is None else o.cost, o.tpot, o.ttft))
    return ServingPlan(ranked=ranked, rejected=rejected, explanation=_explain(ranked, rejected, lam))


def _ep_tpot(step, rate, output, ep, d_slo):
    """TPOT of an EP decode instance at ``rate``: the smallest per-GPU batch ``b`` whose step
    ``T(b)`` carries the rate, ``ep b >= rate output T(b)``."""
    lo, hi = 1, 1
    while ep * hi < rate * output * step(hi):
        hi *= 2
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if ep * mid >= rate * output * step(mid) else (mid, hi)
    return step(hi if ep * lo < rate * output * step(lo) else lo)


def _explain(ranked, rejected, rate):
    if not ranked:
        return f"No layout serves {rate:g} requests/s within the objectives ({len(rejected)} rejected)."
    b = ranked[0]
    text = (f"Best of {len(ranked)} feasible layouts ({len(rejected)} rejected): {b.label()}, {b.gpus} GPUs, "
            f"TTFT {b.ttft * 1e3:.3g} ms and TPOT {b.tpot * 1e3:.3g} ms at {rate:g} requests/s "
            f"(up to {b.goodput:.3g} within the objectives; the number of instances is set where {b.limit}).")
    return text
