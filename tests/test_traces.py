"""The real tool output of the trace-reading exercises (interconnect.catalog.traces): sourced,
shown verbatim in a chapter, and read by the parsers as the tools' documentation defines the
columns (nccl-tests doc/PERFORMANCE.md for algbw and busbw, the nvidia-smi topo -m legend)."""

import json
import pathlib
import re

import pytest

from interconnect.catalog import traces as T

ROOT = pathlib.Path(__file__).resolve().parent.parent
BIB = (ROOT / "book" / "references.bib").read_text(encoding="utf-8")


def _markdown_of_book():
    out = []
    for nb in (ROOT / "book").rglob("*.ipynb"):
        if "_build" in nb.parts:
            continue
        for c in json.loads(nb.read_text(encoding="utf-8"))["cells"]:
            if c["cell_type"] == "markdown":
                out.append("".join(c["source"]))
    return "\n".join(out)


@pytest.mark.parametrize("name", T.names())
def test_every_trace_is_sourced(name):
    t = T.get(name)
    assert re.search(r"^@\w+\{" + re.escape(t.bib_key) + ",", BIB, re.M), f"{t.bib_key} not in references.bib"
    assert t.url.startswith("https://github.com/") and t.url in BIB
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", t.accessed)
    assert t.posted is None or re.fullmatch(r"\d{4}-\d{2}-\d{2}", t.posted)
    assert t.tool in T.TOOLS


def test_every_trace_is_shown_verbatim_in_an_exercise():
    text = _markdown_of_book()
    for name in T.names():
        assert "~~~text\n" + T.get(name).text + "\n~~~" in text, f"trace {name!r} is not printed in a chapter"


def test_unknown_trace_and_bad_tool_raise():
    with pytest.raises(ValueError, match="a100-pcie-nvbridge-topo"):
        T.get("a100-pcie-nvbridge-topp")
    with pytest.raises(ValueError, match="tool="):
        T.Trace("x", "lspci", "m", "text", "k", "https://github.com/x")
    with pytest.raises(ValueError, match="transport="):
        T.transport_kind("NVLS")
    with pytest.raises(ValueError, match="GPU0"):
        T.topo_labels("no matrix here")
    with pytest.raises(ValueError, match="rows"):
        T.nccl_tests_rows("# only comments")


def test_topo_matrix_is_symmetric_and_counts_pairs_by_socket():
    gpus, lab = T.topo_labels(T.get("a100-pcie-nvbridge-topo").text)
    n = len(gpus)
    assert n == 8 and all(lab[i][i] == "X" for i in range(n))
    assert all(lab[i][j] == lab[j][i] for i in range(n) for j in range(n))
    # the NUMA Affinity column puts GPUs 0-3 on socket 0 and 4-7 on socket 1: SYS is exactly the
    # 4 x 4 pairs across, as the legend defines it (the SMP interconnect between NUMA nodes)
    pairs = [(i, j) for i in range(n) for j in range(i + 1, n)]
    assert {(i, j) for i, j in pairs if lab[i][j] == "SYS"} == {(i, j) for i, j in pairs if i < 4 <= j}
    assert sum(lab[i][j] == "NV12" for i, j in pairs) == 4


def test_nccl_tests_rows_follow_the_definitions_of_algbw_and_busbw():
    text = T.get("rtx4090-x4-allreduce").text
    p = T.nccl_tests_header(text)["nGpus"]
    rows = T.nccl_tests_rows(text)
    assert p == 4 and [r["size"] for r in rows] == [2**28, 2**29, 2**30]
    for r in rows:
        assert r["count"] * 4 == r["size"]  # float
        assert r["algbw"] == pytest.approx(r["size"] / r["time"], abs=0.006e9)  # printed to 0.01 GB/s
        assert r["busbw"] == pytest.approx(r["algbw"] * 2 * (p - 1) / p, abs=0.011e9)


def test_nccl_rings_are_permutations_that_cross_between_the_nodes_twice():
    log = T.nccl_log(T.get("ib-2x8-nccl-rings").text)
    assert (log["nranks"], log["nnodes"], log["local_ranks"], log["n_channels"]) == (16, 2, 8, 8)
    for ring in log["rings"].values():
        assert sorted(ring) == list(range(16))
        hops = zip(ring, ring[1:] + ring[:1])
        assert sum(a // 8 != b // 8 for a, b in hops) == 2


def test_nccl_connections_name_their_transports():
    log = T.nccl_log(T.get("ib-2x4-nccl-info").text)
    assert (log["nranks"], log["local_ranks"], log["n_channels"]) == (8, 4, 8)
    kinds = {(s // 4 != d // 4, T.transport_kind(t)) for _, s, d, _, t in log["connections"]}
    assert kinds == {(False, "p2p"), (True, "ib")}
    log = T.nccl_log(T.get("socket-fallback-nccl-info").text)
    kinds = {(s // 8 != d // 8, T.transport_kind(t)) for _, s, d, _, t in log["connections"]}
    assert kinds == {(False, "p2p"), (True, "socket")}
