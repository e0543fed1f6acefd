"""Mixture-of-experts token routing: expert loads, capacity, dropped tokens, AllToAll traffic.

A mixture-of-experts (MoE) layer replaces a transformer's feed-forward block by
``n_experts`` expert FFNs and a router that sends each token to ``top_k`` of them
(Shazeer et al. 2017; GShard, Lepikhin et al. 2021; Switch Transformer, Fedus et al.
2022). With expert parallelism (EP) the experts live on different GPUs, so every MoE
layer moves each token's hidden state to the GPUs of its experts (the *dispatch*
AllToAll) and the expert outputs back (the *combine* AllToAll).

This module counts what the router does, as plain integers and arrays:

* :func:`expert_popularity` and :func:`route_tokens`: a seeded synthetic router whose
  expert popularity follows a Zipf law with exponent ``skew`` (0 = uniform);
* :func:`dispatch_counts`: the same, for the tokens of each EP rank separately;
* :func:`capacity` and :func:`dropped_tokens`: the Switch Transformer expert capacity and
  the tokens that overflow it;
* :func:`imbalance` and :func:`rank_loads`: max/mean load of experts or of EP ranks;
* :func:`alltoall_matrix` and :func:`alltoall_flows`: the bytes each EP rank sends to each
  other rank in the dispatch (the combine is the transpose), and the same traffic as
  :class:`interconnect.netsim.Flow` objects for the simulator;
* :func:`simulate_dispatch`: one dispatch AllToAll simulated on a cluster of 8-GPU nodes;
* :func:`moe_layer_time`: one MoE layer's expert FFN compute against its AllToAlls;
* :func:`cross_node_dispatch`: the bytes a token's dispatch sends across the network, with and
  without node-limited routing (DeepSeek-V3) and per-node deduplication (DeepEP).

Units: tokens are counts; bytes are bytes; times seconds; bandwidths bytes/s per direction.

References
----------
N. Shazeer et al., "Outrageously large neural networks: the sparsely-gated
mixture-of-experts layer", ICLR 2017.
D. Lepikhin et al., "GShard: scaling giant models with conditional computation and
automatic sharding", ICLR 2021 (arXiv:2006.16668, 2020).
W. Fedus, B. Zoph, N. Shazeer, "Switch Transformers: scaling to trillion parameter models
with simple and efficient sparsity", JMLR 23(120):1-39, 2022 (arXiv:2101.03961, 2021),
sec. 2.2, eq. (3) (expert capacity).
DeepSeek-AI, "DeepSeek-V3 Technical Report", arXiv:2412.19437, 2024, sec. 2.1.2
(node-limited routing) and sec. 3.2.2 (dispatch over IB to one GPU per node, then NVLink).
"""


from __future__ import annotations

from .dispatch import (
                       alltoall_flows,
                       alltoall_matrix,
                       cross_node_dispatch,
                       moe_layer_time,
                       rank_loads,
                       simulate_dispatch,
)
from .routing import capacity, dispatch_counts, dropped_tokens, expert_popularity, imbalance, route_tokens

__all__ = [
    "expert_popularity", "route_tokens", "dispatch_counts", "capacity", "dropped_tokens", "imbalance",
    "rank_loads", "alltoall_matrix", "alltoall_flows", "simulate_dispatch", "moe_layer_time",
    "cross_node_dispatch",
]
