"""The one registry of collective algorithms: cost formula, description, source, schedule.

Every (operation, algorithm) pair the library knows is one row of :data:`REGISTRY`. A
row can carry

* ``terms``: the alpha-beta cost, as a function ``terms(p, lg, f) -> (a, b, c)`` of the
  rank count ``p`` (float), ``lg = ceil(log2 p)`` and ``f = (p - 1) / p``, giving
  ``T = a*alpha + b*n*beta + c*n*gamma`` (:func:`interconnect.collectives.cost_terms`);
* ``schedule``: a builder of the transfers between ranks, which
  :func:`interconnect.netsim.simulate_collective` times on a topology and
  :func:`interconnect.collectives.run_collective` executes on numpy arrays;

or both. Everything else is derived from the table: the costed algorithms per operation
(:func:`costed`, in the order in which :func:`~interconnect.collectives.best_algorithm`
breaks ties), the simulated ones (:func:`simulated`), ``collectives.APPLICABLE`` and
``DESCRIPTION``, and ``netsim.APPLICABLE`` and ``DESCRIPTION``.

Names
-----
A name means one algorithm for an operation, in the cost model and in the simulator
alike. Three rows were known under other names before this registry; those spellings
still work, silently, for one release, and are **deprecated**:

* ``collective_time("alltoall", ..., algorithm="direct")`` is ``"pairwise"`` (pairwise
  exchange in p - 1 steps, Thakur et al. 2005, sec. 4.7): :data:`COST_ALIASES`.
* ``simulate_collective(g, "alltoall", ..., algorithm="direct")`` is ``"all_at_once"``
  (all p(p-1) messages start together): :data:`SCHEDULE_ALIASES`.
* ``simulate_collective(g, "broadcast", ..., algorithm="ring")`` is ``"chain"`` (a
  pipelined chain; the cost model's broadcast ``"ring"`` is van de Geijn's scatter +
  allgather, which has no schedule): :data:`SCHEDULE_ALIASES`.

``collectives.APPLICABLE`` and ``collectives.DESCRIPTION`` still *list* the pairwise
AllToAll as ``"direct"`` in this release, because the book's published tables print them;
they will list ``"pairwise"`` when the aliases go. The table is called ``REGISTRY`` because
``collectives.ALGORITHMS`` is public with another meaning (the tuple of algorithm names).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from .._validate import choice
from . import schedules as _s

__all__ = [
    "OPS", "Algorithm", "REGISTRY", "COST_ALIASES", "SCHEDULE_ALIASES", "costed", "simulated",
    "cost_algorithm", "schedule_algorithm", "closed_form_of",
]

OPS = ("broadcast", "reduce", "scatter", "gather", "allgather", "reducescatter", "allreduce", "alltoall")


@dataclass(frozen=True)
class Algorithm:
    """One row of :data:`REGISTRY`.

    Attributes
    ----------
    op, name : str
        The operation and the algorithm's (canonical) name.
    terms : callable or None
        ``terms(p, lg, f) -> (a, b, c)`` with ``T = a*alpha + b*n*beta + c*n*gamma``;
        ``p`` is the rank count as float (scalar or array), ``lg = ceil(log2 p)`` and
        ``f = (p - 1) / p``. ``None`` where the algorithm has no closed form here (its
        time depends on contention or on the chunk count: simulate it).
    description : str
        What the algorithm does, in one line.
    source : str
        Where its cost comes from ("" where it is elementary).
    pow2 : bool
        Needs ``p`` a power of two (as costed and as scheduled here).
    schedule : callable or None
        ``schedule(op, p, chunks, root)`` building the transfers (see
        :mod:`interconnect.collectives.schedules`); ``None`` where not simulated.
    compare_with : str or None
        For a row without ``terms``: the costed algorithm of the same operation whose
        alpha-beta time the book sets beside this schedule's simulation.
    """

    op: str
    name: str
    terms: Callable | None = None
    description: str = ""
    source: str = ""
    pow2: bool = False
    schedule: Callable | None = None
    compare_with: str | None = None

    @property
    def text(self):
        """The description with its source in brackets."""
        return f"{self.description} ({self.source})" if self.source else self.description


def _rows(*rows):
    return {(r.op, r.name): r for r in rows}


_T41, _T44, _T45, _T46, _T47 = (f"Thakur et al. 2005, sec. 4.{k}" for k in (1, 4, 5, 6, 7))

#: One row per (op, algorithm). ``terms`` are written exactly as the cost model has always
#: evaluated them (same operations in the same order), so the coefficients are bit for bit
#: what they were. Within an operation, costed rows are in the order ``best_algorithm``
#: breaks ties.
REGISTRY = _rows(
    # ---- broadcast
    Algorithm("broadcast", "tree", lambda p, lg, f: (lg, lg, 0.0),
              "binomial tree: ceil(lg p) rounds, whole message each round", _T41,
              schedule=_s.binomial_broadcast),
    Algorithm("broadcast", "ring", lambda p, lg, f: (lg + p - 1.0, 2.0 * f, 0.0),
              "van de Geijn: binomial scatter, then ring allgather", _T41),
    Algorithm("broadcast", "recursive_doubling", lambda p, lg, f: (2.0 * lg, 2.0 * f, 0.0),
              "binomial scatter, then recursive-doubling allgather", _T41, pow2=True),
    Algorithm("broadcast", "direct", lambda p, lg, f: (p - 1.0, p - 1.0, 0.0),
              "root sends the whole message to each rank in turn"),
    Algorithm("broadcast", "chain", None,
              "pipelined chain root -> root+1 -> ... in C chunks; (p - 2 + C)(alpha + n/(C B)) on an "
              "uncontended network", "Pjesivac-Grbovic et al. 2007", schedule=_s.chain_broadcast),
    # ---- reduce
    Algorithm("reduce", "tree", lambda p, lg, f: (lg, lg, lg),
              "binomial tree: ceil(lg p) rounds, whole message each round", _T44,
              schedule=_s.binomial_reduce),
    Algorithm("reduce", "ring", lambda p, lg, f: (p - 1.0 + lg, 2.0 * f, f),
              "ring reduce-scatter, then binomial gather to the root"),
    Algorithm("reduce", "rabenseifner", lambda p, lg, f: (2.0 * lg, 2.0 * f, f),
              "recursive-halving reduce-scatter, then binomial gather", _T44, pow2=True),
    Algorithm("reduce", "direct", lambda p, lg, f: (p - 1.0, p - 1.0, p - 1.0),
              "root receives and reduces each rank's whole message in turn"),
    # ---- scatter, gather
    Algorithm("scatter", "tree", lambda p, lg, f: (lg, f, 0.0),
              "binomial tree, halves of the remaining data each round", "Thakur et al. 2005"),
    Algorithm("scatter", "direct", lambda p, lg, f: (p - 1.0, f, 0.0), "root sends each rank its n/p piece in turn"),
    Algorithm("gather", "tree", lambda p, lg, f: (lg, f, 0.0),
              "binomial tree, doubling data each round", "Thakur et al. 2005"),
    Algorithm("gather", "direct", lambda p, lg, f: (p - 1.0, f, 0.0),
              "each rank sends its n/p piece to the root in turn"),
    # ---- allgather
    Algorithm("allgather", "ring", lambda p, lg, f: (p - 1.0, f, 0.0),
              "ring: p-1 steps, n/p per step", "Thakur et al. 2005, sec. 4.2", schedule=_s.ring),
    Algorithm("allgather", "recursive_doubling", lambda p, lg, f: (lg, f, 0.0),
              "recursive doubling: lg p steps, data doubles each step", "Thakur et al. 2005, sec. 4.2", pow2=True,
              schedule=_s.halving_doubling),
    Algorithm("allgather", "direct", lambda p, lg, f: (p - 1.0, f, 0.0),
              "pairwise: in step k each rank sends its piece to rank + k (same cost as ring here)"),
    # ---- reducescatter
    Algorithm("reducescatter", "ring", lambda p, lg, f: (p - 1.0, f, f),
              "ring / pairwise: p-1 steps, n/p per step", _T45, schedule=_s.ring),
    Algorithm("reducescatter", "recursive_doubling", lambda p, lg, f: (lg, lg - f, lg - f),
              "recursive doubling, for non-commutative ops", _T45, pow2=True),
    Algorithm("reducescatter", "rabenseifner", lambda p, lg, f: (lg, f, f),
              "recursive halving", _T45, pow2=True, schedule=_s.halving_doubling),
    Algorithm("reducescatter", "direct", lambda p, lg, f: (p - 1.0, f, f),
              "pairwise exchange: p-1 steps of n/p", _T45),
    # ---- allreduce
    Algorithm("allreduce", "ring", lambda p, lg, f: (2.0 * (p - 1.0), 2.0 * f, f),
              "ring reduce-scatter then ring allgather: 2(p-1) steps of n/p", "Patarasuk and Yuan 2009",
              schedule=_s.ring),
    Algorithm("allreduce", "tree", lambda p, lg, f: (2.0 * lg, 2.0 * lg, lg),
              "binomial reduce then binomial broadcast", _T46),
    Algorithm("allreduce", "recursive_doubling", lambda p, lg, f: (lg, lg, lg),
              "recursive doubling: lg p steps of the whole message", _T46, pow2=True,
              schedule=_s.recursive_doubling_allreduce),
    Algorithm("allreduce", "rabenseifner", lambda p, lg, f: (2.0 * lg, 2.0 * f, f),
              "Rabenseifner: recursive-halving reduce-scatter, recursive-doubling allgather", _T46, pow2=True,
              schedule=_s.halving_doubling),
    Algorithm("allreduce", "direct", lambda p, lg, f: (2.0 * (p - 1.0), 2.0 * f, f),
              "pairwise reduce-scatter then pairwise allgather (same cost as ring here)"),
    # ---- alltoall
    Algorithm("alltoall", "pairwise", lambda p, lg, f: (p - 1.0, f, 0.0),
              "pairwise exchange: p-1 steps of n/p", _T47, schedule=_s.pairwise_alltoall),
    Algorithm("alltoall", "bruck", lambda p, lg, f: (lg, lg / 2.0, 0.0),
              "Bruck et al.: lg p steps of n/2", _T47, pow2=True),
    Algorithm("alltoall", "all_at_once", None,
              "all p(p-1) messages of n/p start at once and share the links; on a crossbar alpha + (p-1) n/(pB)",
              schedule=_s.all_at_once_alltoall, compare_with="pairwise"),
)

#: Deprecated spellings accepted by the cost model (``cost_terms``, ``collective_time``,
#: ``best_algorithm``, ``crossover_size``) for one release: ``(op, old name) -> name``.
COST_ALIASES = {("alltoall", "direct"): "pairwise"}

#: Deprecated spellings accepted by the simulator (``schedule``, ``run_collective``,
#: ``netsim.simulate_collective``) for one release: ``(op, old name) -> name``.
SCHEDULE_ALIASES = {("alltoall", "direct"): "all_at_once", ("broadcast", "ring"): "chain"}

#: Every algorithm name, canonical or deprecated, in registry order.
NAMES = tuple(dict.fromkeys([name for _, name in REGISTRY]
                            + [name for _, name in COST_ALIASES] + [name for _, name in SCHEDULE_ALIASES]))


def costed(op):
    """Names of the algorithms with a cost formula for ``op``, in tie-breaking order."""
    return tuple(r.name for r in REGISTRY.values() if r.op == op and r.terms is not None)


def simulated(op):
    """Names of the algorithms with a schedule for ``op``."""
    return tuple(r.name for r in REGISTRY.values() if r.op == op and r.schedule is not None)


SIMULATED_OPS = tuple(op for op in OPS if simulated(op))


def _norm(text):
    return text.strip().lower().replace("-", "_").replace(" ", "_")


def _resolve(op, algorithm, ops, names_for, aliases, kind, other, hint):
    op = choice("op", op, ops)
    if not isinstance(algorithm, str):
        raise ValueError(f"algorithm={algorithm!r} is not a string; allowed for {op}: {', '.join(names_for(op))}")
    name = _norm(algorithm)
    name = aliases.get((op, name), name)
    row = REGISTRY.get((op, name))
    if row is not None and row.name in names_for(op):
        return row
    allowed = ", ".join(names_for(op))
    if row is not None:
        raise ValueError(f"algorithm={algorithm!r} for op={op!r} has {other} but no {kind} here "
                         f"({hint}); allowed for {op}: {allowed}")
    if name in NAMES:
        raise ValueError(f"algorithm={algorithm!r} is not defined for op={op!r}; allowed for {op}: {allowed}")
    raise ValueError(f"algorithm={algorithm!r} is unknown; allowed: {', '.join(NAMES)}")


def cost_algorithm(op, algorithm):
    """The registry row the cost model means by ``(op, algorithm)``.

    Names are compared case-insensitively, with ``-`` and spaces read as ``_``. The
    deprecated spellings of :data:`COST_ALIASES` resolve to their rows.

    Raises
    ------
    ValueError
        For an unknown ``op`` or ``algorithm``, or one without a cost formula for ``op``.

    Examples
    --------
    >>> cost_algorithm("AllToAll", "direct").name      # deprecated spelling
    'pairwise'
    """
    return _resolve(op, algorithm, OPS, costed, COST_ALIASES, "cost formula", "a schedule",
                    "simulate it with netsim.simulate_collective")


def schedule_algorithm(op, algorithm):
    """The registry row the simulator means by ``(op, algorithm)``.

    As :func:`cost_algorithm`, for algorithms with a schedule; the deprecated spellings
    are those of :data:`SCHEDULE_ALIASES`.

    Examples
    --------
    >>> schedule_algorithm("broadcast", "ring").name    # deprecated spelling
    'chain'
    """
    return _resolve(op, algorithm, SIMULATED_OPS, simulated, SCHEDULE_ALIASES, "schedule", "a cost formula",
                    "cost it with collectives.collective_time")


def closed_form_of(op, algorithm):
    """Name of the costed algorithm whose alpha-beta time goes beside a simulation of
    ``(op, algorithm)``: the algorithm itself if it has a cost formula, otherwise its
    row's ``compare_with``.

    Examples
    --------
    >>> closed_form_of("alltoall", "all_at_once")
    'pairwise'
    """
    row = schedule_algorithm(op, algorithm)
    if row.terms is not None:
        return row.name
    if row.compare_with is None:
        raise ValueError(f"algorithm={algorithm!r} for op={op!r} has no closed form to compare with")
    return row.compare_with
