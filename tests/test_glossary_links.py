"""The first use of every glossary term in each chapter is a {term} link (tools/glossary_links.py)."""

from __future__ import annotations

import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tools"))
import glossary_links as gl  # noqa: E402

TERMS = gl.Terms.load()
NVLINK = "NVLink (NVLink 高速互联)"
ALLREDUCE = "AllReduce (全归约)"
CHAPTERS = gl.chapters()


def _wrap(*texts, senses=()):
    return gl.wrap(list(texts), TERMS, senses)


def test_chapters_are_the_numbered_parts_of_the_toc():
    names = [p.relative_to(gl.ROOT).as_posix() for p in CHAPTERS]
    assert len(names) == 23 and all(p.exists() for p in CHAPTERS)
    for page in ("index", "preface", "cheatsheet", "appendix/", "classroom/", "bibliography"):
        assert not any(n.startswith("book/" + page) for n in names), page


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_first_use_of_every_term_is_linked(path):
    bad = gl.problems(path, TERMS)
    assert not bad, ("run `python tools/glossary_links.py --write " + path.relative_to(gl.ROOT).as_posix()
                     + "` and read the change (or add a wrong sense to OTHER_SENSES):\n" + "\n".join(bad[:10]))


def test_the_headwords_and_their_names():
    heads = gl.glossary()
    assert heads["Alpha-beta model, Hockney model (α-β 模型)"] == ["Alpha-beta model", "Hockney model"]
    assert len(heads) > 100 and NVLINK in heads and ALLREDUCE in heads


def test_the_lists_name_real_terms_and_pages():
    names = {n for ns in gl.glossary().values() for n in ns}
    heads = {h.split(" (")[0] for h in gl.glossary()}
    assert set(gl.SKIP) <= names and all(gl.SKIP.values())
    assert set(gl.ALIASES) <= heads
    for page, phrases in gl.OTHER_SENSES.items():
        text = (gl.ROOT / (page + ".ipynb")).read_text(encoding="utf-8")
        assert all(p in text for p in phrases), page


def test_only_the_first_occurrence_is_wrapped():
    (out,) = _wrap("NVLink joins GPUs; NVLink 4 is faster.")
    assert out == f"{{term}}`NVLink <{NVLINK}>` joins GPUs; NVLink 4 is faster."


def test_first_occurrence_across_cells():
    a, b = _wrap("A heading-free cell without the term.", "NVLink here, NVLink there.")
    assert a == "A heading-free cell without the term." and b.count("{term}") == 1 and b.startswith("{term}")


def test_an_existing_role_is_not_rewrapped():
    text = f"The {{term}}`NVLink <{NVLINK}>` link, then NVLink again."
    assert _wrap(text) == [text]
    assert gl.first_unlinked([text], TERMS) == {}


def test_a_later_role_does_not_excuse_an_earlier_plain_use():
    text = f"NVLink first, then {{term}}`NVLink <{NVLINK}>`."
    assert NVLINK in gl.first_unlinked([text], TERMS)


def test_code_spans_math_and_roles_are_not_prose():
    text = "`NVLink` and $\\text{NVLink}$ and {glue}`NVLink` and [NVLink](x.md), then NVLink."
    (out,) = _wrap(text)
    assert out.endswith(f"then {{term}}`NVLink <{NVLINK}>`.") and out.count("{term}") == 1


def test_headings_directive_lines_math_blocks_and_exercises_are_not_prose():
    text = ("## NVLink\n\n(sec-x)=\n```{admonition} NVLink title\n:class: NVLink\nbody\n```\n$$\nAllReduce\n$$\n"
            "```{exercise} ★ warm-up\n:label: e\nAllReduce and NVLink\n```\n"
            "```{solution-start} e\n:class: dropdown\n```\nNVLink in a solution\n```{solution-end}\n```\n"
            "After: AllReduce.")
    (out,) = _wrap(text)
    assert out == text.replace("After: AllReduce.", f"After: {{term}}`AllReduce <{ALLREDUCE}>`.")


def test_admonition_bodies_are_prose():
    (out,) = _wrap("```{note}\nNVLink here.\n```")
    assert f"{{term}}`NVLink <{NVLINK}>` here." in out


def test_a_solution_continues_across_cells():
    texts = ["```{solution-start} e\n:class: dropdown\n```\nNVLink", "still NVLink\n```{solution-end}\n```", "NVLink"]
    assert _wrap(*texts)[:2] == texts[:2] and _wrap(*texts)[2].startswith("{term}")


def test_whole_words_plurals_case_and_hyphens():
    (out,) = _wrap("two AllReduces, an allreduce, NVLinked, a fat-tree")
    assert f"{{term}}`AllReduces <{ALLREDUCE}>`" in out and "an allreduce" in out and "NVLinked" in out
    assert "{term}`fat-tree <Fat tree (胖树)>`" in out
    (low,) = _wrap("Data parallelism and tensor parallelism")
    assert "{term}`Data parallelism <" in low and "{term}`tensor parallelism <" in low
    (verb,) = _wrap("reduce the scatter of a broadcast")  # the collectives keep their capital
    assert "{term}" not in verb


def test_the_longer_name_wins():
    (out,) = _wrap("NVLink SHARP sums in the switch; NVLink carries it.")
    assert out.startswith("{term}`NVLink SHARP <NVLink SHARP, NVLS")
    assert f"{{term}}`NVLink <{NVLINK}>` carries" in out


def test_generic_words_and_other_senses_are_skipped():
    (out,) = _wrap("Bandwidth and latency of the interconnect.")
    assert "{term}" not in out
    (out,) = _wrap("the hash bucket, then a gradient bucket", senses=("hash bucket",))
    assert out == "the hash bucket, then a {term}`gradient bucket <Bucket, gradient bucket (梯度分桶)>`"


def test_wrap_is_idempotent_and_a_bad_target_is_reported():
    once = _wrap("NVLink and AllReduce; NVLink.")
    assert _wrap(*once) == once
    _, _, bad = gl.events(["{term}`foo <No such headword>`"], TERMS)
    assert bad == [(0, "{term}`foo <No such headword>`")]
