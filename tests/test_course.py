"""The instructors' course material: the exam question bank (tools/question_bank.py) and the
course plan on the instructors' page (book/classroom/instructors.md)."""

import math
import pathlib
import re
import sys

import yaml

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import question_bank as QB  # noqa: E402

PAGE = (ROOT / "book/classroom/instructors.md").read_text()


def _chapters_by_part():
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    parts = {}
    for part in toc["parts"]:
        if part["caption"] == "Appendices":
            break
        if part["caption"] == "Start here":
            continue  # the preface: no chapter to teach or examine
        parts[part["caption"]] = [c["file"] for c in part["chapters"]]
    return parts


def test_the_bank_has_40_questions_across_every_chapter():
    bank = QB.bank()
    assert len(bank) >= 40
    assert len({q["id"] for q in bank}) == len(bank)
    chapters = {c for cs in _chapters_by_part().values() for c in cs}
    examined = {q["chapter"] for q in bank}
    assert examined <= chapters, examined - chapters
    assert chapters - examined == set(), f"chapters without an exam question: {chapters - examined}"
    assert {q["kind"] for q in bank} == set(QB.KINDS)


def test_numeric_keys_are_computed_by_the_library():
    numeric = [q for q in QB.QUESTIONS if q.kind == "numeric"]
    assert len(numeric) >= 15
    for q in numeric:
        assert callable(q.key), q.id  # a model call, never a typed number
        v = q.answer()
        assert math.isfinite(v) and v != 0, q.id
        assert q.unit, q.id
    for q in QB.QUESTIONS:
        if q.kind != "numeric":
            assert isinstance(q.key, str) and len(q.key) >= 3, q.id


def test_keys_agree_with_the_closed_forms():
    keys = {q["id"]: q["key"] for q in QB.bank()}
    assert keys["primer-1"] == 2 * 7 / 8 * 2e9  # ring AllReduce: 2(p-1)/p n
    assert math.isclose(keys["pcie-1"], 16 * 8e9 * 128 / 130 / 8)
    assert math.isclose(keys["pp-1"], 7 / 32) and math.isclose(keys["pp-2"], 7 / (4 * 32))
    assert math.isclose(keys["rel-1"], 60_000 * 3600 / 8192)
    assert math.isclose(keys["rel-2"], math.sqrt(2 * 60 * 3 * 3600))
    assert keys["rel-3"] < keys["rel-2"]  # Daly's interval is below Young's for delta << M
    assert keys["app-1"] == 2 * 80 * 8 * 128 * 8192 * 2  # K and V, layers, heads, dim, tokens, BF16
    assert math.isclose(keys["coll-1"], 2**30 / 40e-3 * 2 * 15 / 16)


def test_the_semester_starts_parallelism_before_week_8():
    rows = re.findall(r"^\| (\d+) \| ([^|]+) \|", PAGE.split("## A 12-week semester")[1].split("## A 2-day")[0], re.M)
    assert [int(w) for w, _ in rows] == list(range(1, 13))
    first = min(int(w) for w, c in rows if "parallelism" in c.lower())
    assert first < 8
    # every chapter of Parts I-V has a week
    titles = {"three_walls": "three walls", "primer": "collectives in one page", "rendering": "rendering",
              "pcie": "pcie", "nvlink": "nvlink", "rdma_clusters": "rdma", "physical_links": "physical links",
              "topology": "topology", "protocols": "protocols", "collectives": "collective communication",
              "other_fabrics": "other fabrics", "data_parallel": "data", "tensor_parallel": "tensor",
              "pipeline_parallel": "pipeline", "context_parallel": "context", "expert_parallel": "expert",
              "planning": "planning", "reliability": "reliability", "applications": "applications",
              "serving": "serving", "distinctions": "confusable", "operations": "operations",
              "outlook": "outlook"}
    plan = " ".join(c.lower() for _, c in rows)
    for files in _chapters_by_part().values():
        for f in files:
            assert titles[f.split("/")[-1]] in plan, f


def test_the_page_has_objectives_rubric_workshop_and_exercise_labels():
    from interconnect import exercises as E

    objectives = PAGE.split("## Learning objectives by chapter")[1].split("## ")[0]
    for files in _chapters_by_part().values():
        for f in files:
            assert f"({f.replace('book/', '../')}.ipynb)" in objectives, f
    rubric = PAGE.split("**Project rubric**")[1].split("**Exams.**")[0]
    points = [int(p) for p in re.findall(r"^\| [^|]+ \| (\d+) \|", rubric, re.M)]
    assert sum(points) == 100 and len(points) >= 5
    assert "## A 2-day workshop" in PAGE
    labels = set(re.findall(r"\{ref\}`([a-z0-9-]+) <", PAGE))
    assert len(labels) >= 40
    assert labels <= set(E.labels()), labels - set(E.labels())
