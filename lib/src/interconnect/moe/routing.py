"""Token routing: expert popularity, the seeded synthetic router, capacity, dropped tokens,
imbalance.

See :mod:`interconnect.moe` for the model and its references.
"""

from __future__ import annotations

import math

import numpy as np

from .._validate import as_count, as_nonnegative, as_positive

__all__ = ["expert_popularity", "route_tokens", "dispatch_counts", "capacity", "dropped_tokens", "imbalance"]

_CHUNK = 1 << 22  # elements per block of the Gumbel top-k sampler (memory bound, ~32 MiB)


def _check_count(name, value, minimum=1):
    if np.ndim(value) != 0:
        raise ValueError(f"{name}={value!r} must be a single integer >= {minimum}, not an array")
    return int(as_count(name, value, minimum))


def _check_skew(skew):
    if np.ndim(skew) != 0:
        raise ValueError(f"skew={skew!r} must be a single number >= 0, not an array")
    return float(as_nonnegative("skew", skew))


def _check_seed(seed):
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed={seed!r} is not allowed; seed must be an integer >= 0")
    return int(seed)


def _check_topk(top_k, n_experts):
    k = _check_count("top_k", top_k)
    if k > n_experts:
        raise ValueError(f"top_k={top_k!r} is not allowed; allowed 1 to n_experts={n_experts}")
    return k


def expert_popularity(n_experts, skew=0.0, seed=0):
    """The router's probability of choosing each expert: a Zipf law of exponent ``skew``.

    The ``r``-th most popular expert has weight ``1 / r**skew`` (``r = 1, 2, ...``); the
    weights are normalised to sum to 1 and assigned to the experts in a random order drawn
    from ``seed`` (so the popular experts are not all on the first EP rank). ``skew = 0``
    is the uniform router a perfect load-balancing loss aims for.

    Parameters
    ----------
    n_experts : int
        Experts in the layer, >= 1.
    skew : float
        Zipf exponent, >= 0. Larger is more imbalanced; at 1 the most popular of 64
        experts gets about 21 % of the tokens.
    seed : int
        Seed of the random expert order, >= 0.

    Returns
    -------
    ndarray of float, shape (n_experts,)
        Probabilities summing to 1.

    Notes
    -----
    The order is the same for every ``skew`` at a given ``seed``, so a larger ``skew``
    moves probability from the less popular experts to the more popular ones and the
    largest probability never decreases.

    Examples
    --------
    >>> expert_popularity(4).tolist()                          # skew 0: uniform
    [0.25, 0.25, 0.25, 0.25]
    >>> round(float(expert_popularity(64, skew=1.0).max()), 3)  # the favourite of 64 experts at skew 1
    0.211
    """
    e = _check_count("n_experts", n_experts)
    s = _check_skew(skew)
    seed = _check_seed(seed)
    w = np.arange(1, e + 1, dtype=float) ** -s
    w /= w.sum()
    order = np.random.default_rng([seed, 0x4D6F45]).permutation(e)
    p = np.empty(e)
    p[order] = w
    return p


def _sample(rng, n_tokens, p, k):
    """Tokens per expert when each of n_tokens picks k distinct experts with weights p."""
    e = p.size
    if k == 1:
        return rng.multinomial(n_tokens, p).astype(np.int64)
    if k == e:
        return np.full(e, n_tokens, dtype=np.int64)
    # Gumbel top-k: the k largest of log p + Gumbel noise are a weighted sample without
    # replacement (successive sampling), as a top-k router over noisy logits would pick.
    logp = np.log(np.maximum(p, 1e-300))
    counts = np.zeros(e, dtype=np.int64)
    block = max(1, _CHUNK // e)
    for lo in range(0, n_tokens, block):
        m = min(block, n_tokens - lo)
        keys = logp + rng.gumbel(size=(m, e))
        top = np.argpartition(-keys, k - 1, axis=1)[:, :k]
        counts += np.bincount(top.ravel(), minlength=e)
    return counts


def route_tokens(n_tokens, n_experts, top_k=1, skew=0.0, seed=0):
    """Tokens each expert receives from a seeded synthetic top-k router.

    Each token chooses ``top_k`` *distinct* experts, drawn without replacement with the
    probabilities of :func:`expert_popularity` (top-1: a multinomial draw; top-k: the
    Gumbel top-k trick, i.e. the top-k of noisy log-probabilities).

    Parameters
    ----------
    n_tokens : int
        Tokens entering the MoE layer, >= 0.
    n_experts : int
        Experts, >= 1.
    top_k : int
        Experts per token, 1 <= top_k <= n_experts (Switch Transformer: 1; GShard: 2).
    skew : float
        Zipf exponent of the popularity, >= 0 (0 = uniform).
    seed : int
        Random seed, >= 0; the same arguments always give the same counts.

    Returns
    -------
    ndarray of int, shape (n_experts,)
        Token assignments per expert; they sum to ``n_tokens * top_k``.

    Examples
    --------
    >>> int(route_tokens(1000, 4, top_k=2, seed=1).sum())
    2000
    """
    n = _check_count("n_tokens", n_tokens, 0)
    e = _check_count("n_experts", n_experts)
    k = _check_topk(top_k, e)
    p = expert_popularity(e, skew, seed)
    rng = np.random.default_rng([_check_seed(seed), 1])
    return _sample(rng, n, p, k)


def dispatch_counts(n_tokens, n_experts, ep, top_k=1, skew=0.0, seed=0):
    """Tokens that each EP rank routes to each expert: a matrix, shape ``(ep, n_experts)``.

    The ``n_tokens`` of the layer are split evenly over the ``ep`` ranks (each holds its own
    micro-batch); every rank's router uses the same popularity (:func:`expert_popularity`)
    and draws its tokens independently.

    Parameters
    ----------
    n_tokens : int
        Tokens in the whole EP group, >= 0, divisible by ``ep``.
    n_experts, top_k, skew, seed
        As in :func:`route_tokens`.
    ep : int
        Expert-parallel ranks, >= 1, dividing ``n_experts``.

    Returns
    -------
    ndarray of int, shape (ep, n_experts)
        Row ``i``: the token assignments of rank ``i``'s tokens; the total is
        ``n_tokens * top_k`` and each row sums to ``n_tokens / ep * top_k``.

    Examples
    --------
    >>> c = dispatch_counts(1024, 8, ep=4, top_k=2)
    >>> c.shape, c.sum(axis=1).tolist()         # each rank routes 256 tokens x 2 experts
    ((4, 8), [512, 512, 512, 512])
    """
    n = _check_count("n_tokens", n_tokens, 0)
    e = _check_count("n_experts", n_experts)
    r = _check_ep(ep, e)
    k = _check_topk(top_k, e)
    if n % r:
        raise ValueError(f"n_tokens={n_tokens!r} is not divisible by ep={ep}; allowed: multiples of {r}")
    p = expert_popularity(e, skew, seed)
    s = _check_seed(seed)
    return np.stack([_sample(np.random.default_rng([s, 2, i]), n // r, p, k) for i in range(r)])


def capacity(n_tokens, n_experts, top_k=1, capacity_factor=1.0):
    """Expert capacity: the most tokens one expert may take, ``ceil(c * N * k / E)``.

    Switch Transformer (Fedus et al. 2022, eq. 3): expert capacity = (tokens per batch /
    number of experts) x capacity factor, for top-1 routing; with top-k routing each token
    makes ``k`` assignments, so the average load is ``N k / E`` (GShard's top-2 gating
    likewise bounds each expert's load by a capacity of order ``N / E``, Lepikhin et al.
    2021, sec. 2.2). The result is rounded up to a whole token.

    Parameters
    ----------
    n_tokens : int
        Tokens in the batch routed together, >= 0.
    n_experts : int
        Experts, >= 1.
    top_k : int
        Experts per token, 1 <= top_k <= n_experts.
    capacity_factor : float
        ``c > 0``; 1.0 leaves no slack for imbalance (the Switch Transformer paper compares
        1.0, 1.25 and 2.0, Table 1).

    Returns
    -------
    int
        Tokens per expert.

    Examples
    --------
    The Switch Transformer's capacity factor 1.25: 1,024 tokens over 8 experts, 25 % slack:

    >>> capacity(1024, 8, capacity_factor=1.25)
    160
    """
    n = _check_count("n_tokens", n_tokens, 0)
    e = _check_count("n_experts", n_experts)
    k = _check_topk(top_k, e)
    if np.ndim(capacity_factor) != 0:
        raise ValueError(f"capacity_factor={capacity_factor!r} must be a single number > 0")
    c = float(as_positive("capacity_factor", capacity_factor))
    # round in exact rationals first, so that e.g. 1.25 * 1024 / 8 is 160, not 160.00000001
    return int(math.ceil(round(c * n * k / e, 9)))


def _as_counts(name, value, ndim=(1,)):
    arr = np.asarray(value)
    if arr.ndim not in ndim or arr.size == 0:
        raise ValueError(f"{name} has shape {arr.shape}; expected a non-empty array with "
                         f"{' or '.join(map(str, ndim))} dimension(s)")
    if not np.issubdtype(arr.dtype, np.number) or np.issubdtype(arr.dtype, np.complexfloating):
        raise ValueError(f"{name} has dtype {arr.dtype}; expected token counts (integers >= 0)")
    if not np.all(np.isfinite(arr)) or np.any(arr < 0) or np.any(arr != np.round(arr)):
        raise ValueError(f"{name} contains a value that is not an integer >= 0; expected token counts")
    return arr.astype(np.int64)


def dropped_tokens(tokens_per_expert, capacity):
    """Token assignments that overflow the expert capacity (dropped, or passed on by the residual).

    Parameters
    ----------
    tokens_per_expert : array of int, shape (n_experts,)
        Assignments per expert, e.g. from :func:`route_tokens`.
    capacity : int
        Expert capacity in tokens, >= 0 (:func:`capacity`).

    Returns
    -------
    int
        ``sum(max(0, load_e - capacity))``; 0 when ``capacity >= max(load)``. In the Switch
        Transformer a dropped token skips the expert and goes on through the residual
        connection (Fedus et al. 2022, sec. 2.2).

    Examples
    --------
    >>> dropped_tokens([150, 100, 50, 100], capacity=100)     # the first expert overflows by 50
    50
    """
    t = _as_counts("tokens_per_expert", tokens_per_expert)
    c = _check_count("capacity", capacity, 0)
    return int(np.maximum(t - c, 0).sum())


def imbalance(tokens_per_expert):
    """Load imbalance ``max / mean`` of expert (or rank) loads; 1 is perfectly balanced.

    Parameters
    ----------
    tokens_per_expert : array of int
        Loads, not all zero.

    Returns
    -------
    float
        ``max(load) / mean(load)``, between 1 and ``len(load)``. The slowest (most loaded)
        expert or rank sets the time of the layer, so this is the slowdown against a perfect
        router.

    Examples
    --------
    >>> imbalance([150, 100, 50, 100])       # the busiest expert has 1.5x the mean load
    1.5
    """
    t = _as_counts("tokens_per_expert", tokens_per_expert)
    if t.sum() == 0:
        raise ValueError("tokens_per_expert sums to 0; the imbalance of no tokens is undefined")
    return float(t.max() / t.mean())

def _check_ep(ep, n_experts):
    r = _check_count("ep", ep)
    if n_experts % r:
        raise ValueError(f"ep={ep!r} does not divide n_experts={n_experts}; allowed: divisors of {n_experts}")
    return r
