"""The exam question bank (instructors only): questions with keys, as data.

Each question is a :class:`Q`: the chapter it examines, its kind (``numeric``: a number in
SI base units; ``choice``: one of a few words; ``short``: a sentence or two;
``derivation``: a short derivation), the text shown to students, and the key. A numeric
key is a function that computes the answer with the library (the same models the chapters
and the checkers use: one model, one place), never a typed number; a text key is the
expected answer and what to accept. Numbers in a question's text are its parameters.

``tools/student_edition.py --instructor`` renders the bank, keys computed, into the
instructors' build (``question_bank.json`` and ``question_bank.html``); the student
edition never holds it (``tests/test_student_build.py`` checks the handout for the keys).
``tests/test_course.py`` checks the bank: at least 40 questions, every chapter of Parts
I-V examined, every numeric key finite and computed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from interconnect.units import GB, Gbps, GiB, per_direction

KINDS = ("numeric", "choice", "short", "derivation")


@dataclass(frozen=True)
class Q:
    """One exam question: ``key`` is a callable (numeric) or the expected text."""

    id: str
    chapter: str
    kind: str
    text: str
    key: object
    unit: str = ""
    rtol: float = 0.02
    accept: str = ""

    def answer(self):
        """The key: a float computed by the library for a numeric question, else the text."""
        if self.kind == "numeric":
            v = float(self.key())
            if not math.isfinite(v):
                raise ValueError(f"question {self.id}: key is {v}; expected a finite number")
            return v
        return self.key


# ---- numeric keys: the library's models ------------------------------------------------

def _link(name):
    from interconnect import links

    return links.get_link(name)


def _allreduce(nbytes, p, link):
    from interconnect import collectives as C

    lk = _link(link)
    return C.collective_time("allreduce", nbytes, p, lk.bandwidth, lk.latency)


def _ring_sent(nbytes, p):
    from interconnect import collectives as C

    _, b, _ = C.cost_terms("allreduce", p, "ring")
    return b * nbytes


def _busbw(nbytes, t, p):
    from interconnect import collectives as C

    return C.bus_bandwidth("allreduce", C.algorithm_bandwidth(nbytes, t), p)


def _mtbf(gpu_mtbf_h, n):
    from interconnect import reliability as R
    from interconnect.units import hour

    return R.cluster_mtbf(gpu_mtbf_h * hour, n)


def _daly(ckpt_s, mtbf_h):
    from interconnect import reliability as R
    from interconnect.units import hour

    return R.daly_interval(ckpt_s, mtbf_h * hour)


def _young(ckpt_s, mtbf_h):
    from interconnect import reliability as R
    from interconnect.units import hour

    return R.young_interval(ckpt_s, mtbf_h * hour)


def _train_mem(n, dp, stage):
    from interconnect import memory

    return memory.training_memory(n, dp=dp, zero_stage=stage)["total"]


def _kv(layers, kv_heads, head_dim, seq, batch):
    from interconnect import memory

    return memory.kv_cache_bytes(layers, kv_heads, head_dim, seq, batch)


def _bubble(p, m, v=1):
    from interconnect.parallel import pipeline_bubble_fraction

    return pipeline_bubble_fraction(p, m, v)


def _line_rate(baud, modulation):
    from interconnect import signalling

    return signalling.line_rate(baud, modulation)


def _usable(lanes, gt_s, eff):
    from interconnect import signalling

    return signalling.usable_rate(lanes, gt_s * 1e9, eff)


# ---- the bank ----------------------------------------------------------------------------

QUESTIONS = (
    # Part I: why interconnect
    Q("walls-1", "book/why/three_walls", "short",
      "Name the three walls that limit training a large model and give, for each, the hardware quantity "
      "that sets it.",
      "Compute (FLOP/s of the accelerators), memory (HBM capacity and bandwidth per GPU) and communication "
      "(bandwidth and latency of the links between GPUs). Accept 'interconnect' for communication."),
    Q("walls-2", "book/why/three_walls", "numeric",
      "A model of 7e9 parameters is trained with mixed precision and Adam without partitioning: 2 bytes of "
      "weights, 2 of gradients and 12 of optimizer state per parameter. How many bytes of model state does "
      "each GPU hold?",
      lambda: _train_mem(7e9, 1, 0), "B"),
    Q("walls-3", "book/why/three_walls", "choice",
      "Strong scaling doubles the GPUs on a fixed global batch. Does the communication share of a step rise, "
      "fall or stay the same? (rise / fall / same)",
      "rise: the compute per GPU halves while the gradient AllReduce per GPU stays about the same size"),
    Q("primer-1", "book/why/primer", "numeric",
      "Eight GPUs run a ring AllReduce of a 2 GB gradient. How many bytes does each GPU send?",
      lambda: _ring_sent(2 * GB, 8), "B"),
    Q("primer-2", "book/why/primer", "numeric",
      "How long does a ring AllReduce of 4 GiB take on 8 GPUs over NVLink 4 in the alpha-beta model, with "
      "the catalog's per-direction bandwidth and latency (links.get_link('nvlink4'))?",
      lambda: _allreduce(4 * GiB, 8, "nvlink4"), "s"),
    Q("primer-3", "book/why/primer", "short",
      "Which collective leaves every rank with the sum of all ranks' vectors, and which two collectives is it "
      "made of in the ring algorithm?",
      "AllReduce; a reduce-scatter followed by an all-gather."),
    # Part II: history
    Q("rend-1", "book/history/rendering", "short",
      "Why does alternate-frame rendering (AFR) raise throughput but not lower the latency of a frame?",
      "Each GPU still renders a whole frame; AFR overlaps frames on different GPUs, so frames per second "
      "rise while the time from input to a displayed frame does not shrink (it can grow with queued frames)."),
    Q("pcie-1", "book/history/pcie", "numeric",
      "What is the usable bandwidth per direction of a PCIe 3.0 x16 link: 8 GT/s per lane, 128b/130b encoding?",
      lambda: _usable(16, 8, 128 / 130), "B/s"),
    Q("pcie-2", "book/history/pcie", "numeric",
      "What is the usable bandwidth per direction of a PCIe 2.0 x16 link: 5 GT/s per lane, 8b/10b encoding?",
      lambda: _usable(16, 5, 8 / 10), "B/s"),
    Q("pcie-3", "book/history/pcie", "short",
      "Four GPUs sit under one PCIe switch whose single x16 uplink goes to the CPU. What limits their "
      "combined bandwidth to host memory, and why does peer-to-peer traffic between them not suffer from it?",
      "The shared x16 uplink: all four share one link's bandwidth to the CPU. Peer-to-peer traffic turns "
      "inside the switch and does not cross the uplink."),
    Q("nvl-1", "book/history/nvlink", "numeric",
      "A datasheet gives an H100's NVLink as 900 GB/s. What per-direction bandwidth belongs in the alpha-beta "
      "model? (links.get_link('nvlink4'))",
      lambda: _link("nvlink4").bandwidth, "B/s"),
    Q("nvl-2", "book/history/nvlink", "short",
      "Why does a switched NVLink domain (NVSwitch) beat the hybrid cube-mesh of the first DGX for an "
      "AllReduce among all GPUs?",
      "In a switched domain every GPU reaches every other at its full NVLink bandwidth in one hop; in the "
      "hybrid cube-mesh some pairs have no direct link, so traffic takes two hops or shares links and the "
      "ring is limited by the slowest path."),
    Q("rdma-1", "book/history/rdma_clusters", "short",
      "What does GPUDirect RDMA remove from the path of a GPU-to-GPU transfer between two servers?",
      "The copy through host memory (the bounce buffer) and the CPU: the NIC reads and writes GPU memory "
      "directly over PCIe."),
    Q("rdma-2", "book/history/rdma_clusters", "numeric",
      "A leaf switch has 64 ports of equal speed: 48 face servers and 16 face the spine. What is its "
      "oversubscription ratio (down/up)?",
      lambda: 48 / 16, "1"),
    # Part III: the four-layer stack
    Q("phys-1", "book/stack/physical_links", "numeric",
      "A SerDes lane signals at 53.125 GBd with PAM4 (2 bits a symbol). What is its raw bit rate?",
      lambda: _line_rate(53.125e9, "PAM4"), "b/s"),
    Q("phys-2", "book/stack/physical_links", "choice",
      "At the same bit rate, does PAM4 need a higher or a lower symbol rate than NRZ? (higher / lower)",
      "lower: two bits per symbol halve the symbol rate, at the cost of a smaller eye (about 9.5 dB of SNR)"),
    Q("topo-1", "book/stack/topology", "short",
      "Define bisection bandwidth, and say why it matters for AllToAll more than for a ring AllReduce.",
      "The least total bandwidth across any cut into two equal halves. AllToAll sends half of all traffic "
      "across any bisection; a ring AllReduce sends only its neighbour traffic, which crosses the cut on a "
      "few links."),
    Q("topo-2", "book/stack/topology", "short",
      "In `nvidia-smi topo -m`, what do NV12, PIX and SYS mean for a pair of GPUs?",
      "NV12: connected by 12 NVLinks; PIX: through a single PCIe switch; SYS: through PCIe and the "
      "inter-socket link between CPUs (SMP interconnect such as UPI)."),
    Q("prot-1", "book/stack/protocols", "short",
      "What does in-network reduction (SHARP, NVLS) save compared with a ring AllReduce, and what does it "
      "need from the switch?",
      "Each GPU sends and receives its data about once (n bytes) instead of 2(p-1)/p n, so the bus bandwidth "
      "needed about halves; the switch must hold arithmetic units and buffers to add the data it forwards."),
    Q("prot-2", "book/stack/protocols", "choice",
      "Two GPUs in one server cannot do peer-to-peer over PCIe. Does their transfer go through host memory "
      "or through the NIC? (host / nic)",
      "host: the data is staged through a buffer in host memory (two copies over PCIe)"),
    Q("coll-1", "book/stack/collectives", "numeric",
      "An AllReduce of 1 GiB on 16 GPUs took 40 ms. What is its bus bandwidth (nccl-tests' busbw)?",
      lambda: _busbw(GiB, 40e-3, 16), "B/s"),
    Q("coll-2", "book/stack/collectives", "derivation",
      "Derive the alpha-beta time of a ring AllReduce of n bytes on p GPUs with per-direction bandwidth B and "
      "per-step latency alpha.",
      "Reduce-scatter: p-1 steps, each sends n/p bytes; all-gather: p-1 more. "
      "T = 2(p-1) alpha + 2(p-1)/p * n / B."),
    Q("coll-3", "book/stack/collectives", "choice",
      "For an 8 KiB AllReduce on 256 GPUs, which pays less latency: ring or tree? (ring / tree)",
      "tree: its latency term grows with log p steps, the ring's with 2(p-1) steps"),
    Q("ofab-1", "book/stack/other_fabrics", "short",
      "Why must AMD xGMI, TPU ICI and NVLink figures be put on one basis before they are compared, and "
      "which basis does the book use?",
      "Vendors quote per link or per chip, one direction or both added; the book uses bytes per second per "
      "direction per accelerator."),
    # Part IV: parallelism
    Q("dp-1", "book/parallel/data_parallel", "numeric",
      "Data parallelism on 64 GPUs with ZeRO stage 3 trains a 70e9-parameter model (2+2+12 bytes per "
      "parameter). How many bytes of model state does each GPU hold?",
      lambda: _train_mem(70e9, 64, 3), "B"),
    Q("dp-2", "book/parallel/data_parallel", "short",
      "Why does the data-parallel break-even (the tokens per GPU at which compute hides the gradient "
      "AllReduce) not depend on the model's size?",
      "Both the compute (about 6 N FLOP per token) and the gradient bytes (about 2N) are proportional to "
      "the parameter count N, so N cancels from their ratio."),
    Q("dp-3", "book/parallel/data_parallel", "derivation",
      "Show that ZeRO-3 moves about 1.5 times the bytes of plain data parallelism per step.",
      "Plain DP: an AllReduce of the gradients, 2 x the model's bytes (reduce-scatter + all-gather). ZeRO-3: "
      "an all-gather of the weights in the forward, another in the backward, and a reduce-scatter of the "
      "gradients: 3 x the model's bytes, 1.5 times as much."),
    Q("tp-1", "book/parallel/tensor_parallel", "numeric",
      "Megatron tensor parallelism: how many AllReduces does one transformer layer do in a training step "
      "(forward and backward), without sequence parallelism?",
      lambda: 4, "1", 0.0),
    Q("tp-2", "book/parallel/tensor_parallel", "short",
      "Why is tensor parallelism kept inside one NVLink domain?",
      "It communicates on every layer, on the critical path, with messages proportional to the activations; "
      "across the much slower scale-out network those AllReduces would dominate the step."),
    Q("pp-1", "book/parallel/pipeline_parallel", "numeric",
      "A 1F1B pipeline has 8 stages and 32 microbatches. What is its bubble as a fraction of the ideal "
      "compute time (bubble time over the time of the useful work, not over the step)?",
      lambda: _bubble(8, 32), "1"),
    Q("pp-2", "book/parallel/pipeline_parallel", "numeric",
      "And with an interleaved schedule of 4 chunks per stage (same 8 stages, 32 microbatches)?",
      lambda: _bubble(8, 32, 4), "1"),
    Q("pp-3", "book/parallel/pipeline_parallel", "short",
      "In 1F1B, why does stage 0 hold the most activations?",
      "It starts p microbatches' forwards before its first backward returns, so it keeps p microbatches' "
      "activations in flight; the last stage keeps only one."),
    Q("cp-1", "book/parallel/context_parallel", "short",
      "In ring attention, what travels around the ring, and when does the transfer hide behind compute?",
      "Each GPU's block of keys and values; it hides when computing attention on one block takes longer "
      "than sending the next block, which happens above a number of tokens per GPU that grows as the "
      "link slows."),
    Q("ep-1", "book/parallel/expert_parallel", "numeric",
      "Expert parallelism over 8 GPUs with top-2 routing and a uniform router: what fraction of each token's "
      "expert traffic leaves its GPU?",
      lambda: 7 / 8, "1"),
    Q("ep-2", "book/parallel/expert_parallel", "short",
      "What does a capacity factor of 1.25 do, and what happens to tokens above it?",
      "It gives every expert room for 1.25 times its even share of tokens; tokens routed beyond that are "
      "dropped (they skip the expert through the residual connection)."),
    Q("plan-1", "book/parallel/planning", "short",
      "Give the usual order in which a 3D layout puts tensor, pipeline and data parallelism onto the "
      "hierarchy of links, and why.",
      "Tensor parallelism inside the NVLink domain (most traffic, on the critical path), pipeline across "
      "nodes (point-to-point activations), data parallelism outermost (one AllReduce per step, overlapped)."),
    Q("rel-1", "book/parallel/reliability", "numeric",
      "GPUs fail independently with an MTBF of 60,000 hours. What is the MTBF of a synchronous job on 8,192 "
      "of them?",
      lambda: _mtbf(60_000, 8192), "s"),
    Q("rel-2", "book/parallel/reliability", "numeric",
      "A checkpoint takes 60 s and the job's MTBF is 3 hours. What is Young's checkpoint interval?",
      lambda: _young(60.0, 3), "s"),
    Q("rel-3", "book/parallel/reliability", "numeric",
      "And Daly's interval, for the same 60 s checkpoint and 3-hour MTBF?",
      lambda: _daly(60.0, 3), "s", 0.005),
    # Part V: practice
    Q("app-1", "book/practice/applications", "numeric",
      "How many bytes of KV cache does one 8,192-token sequence need for a model with 80 layers, 8 KV heads "
      "of dimension 128, in BF16?",
      lambda: _kv(80, 8, 128, 8192, 1), "B"),
    Q("srv-1", "book/practice/serving", "short",
      "Why is prefill compute-bound and decode memory-bound?",
      "Prefill processes all prompt tokens at once, so each weight read from HBM serves many tokens (high "
      "arithmetic intensity); decode makes one token per sequence per step and reads every weight and the "
      "KV cache for it, so memory bandwidth sets its pace."),
    Q("srv-2", "book/practice/serving", "short",
      "What must move between machines in disaggregated prefill and decode, and what does its size depend on?",
      "The KV cache of each prompt, from the prefill to the decode GPUs; its size is layers x KV heads x "
      "head dimension x 2 (K and V) x bytes per element x prompt tokens."),
    Q("dis-1", "book/practice/distinctions", "numeric",
      "An 800 Gb/s port: how many bytes per second per direction?",
      lambda: 800 * Gbps, "B/s"),
    Q("dis-2", "book/practice/distinctions", "numeric",
      "How many bytes is 80 GiB?",
      lambda: 80 * GiB, "B", 0.0),
    Q("dis-3", "book/practice/distinctions", "choice",
      "A vendor's '1.8 TB/s' NVLink 5 figure counts both directions. Is the per-direction figure 0.9 TB/s or "
      "1.8 TB/s? (0.9 / 1.8)",
      "0.9: the bidirectional figure adds the two directions"),
    Q("ops-1", "book/practice/operations", "short",
      "A job's step time grows from 1.00 s on 8 GPUs to 1.25 s on 64 GPUs at the same per-GPU batch. What is "
      "its weak-scaling efficiency, and where would you look first?",
      "1.00/1.25 = 0.8 (80 %); look at the communication that grows with the GPU count: the gradient "
      "AllReduce crossing the scale-out network, its overlap with the backward pass, and stragglers."),
    Q("out-1", "book/practice/outlook", "numeric",
      "NVLink 6 is announced at 3.6 TB/s per GPU, both directions added. How many bytes per second is that "
      "per direction?",
      lambda: per_direction(3.6e12), "B/s"),
)


def bank():
    """``[{id, chapter, kind, text, key, unit, rtol}]`` with every key computed."""
    out = []
    for q in QUESTIONS:
        out.append({"id": q.id, "chapter": q.chapter, "kind": q.kind, "text": q.text, "key": q.answer(),
                    "unit": q.unit or None, "rtol": q.rtol if q.kind == "numeric" else None})
    return out
