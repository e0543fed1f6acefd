"""The measurement catalog (interconnect.catalog.measurements): every entry is sourced and
well-formed, lookups fail helpfully, and the prose that repeats a measurement (link
catalog notes, bibliography notes) agrees with the stored value, so the two cannot drift.
"""

import json
import math
import pathlib
import re

import pytest

from interconnect.catalog import links, measurements
from interconnect.catalog.measurements import DIRECTIONS, MEASUREMENTS, UNITS, Measurement, get, names
from interconnect.units import GB

ROOT = pathlib.Path(__file__).resolve().parents[1]
BIB = (ROOT / "book" / "references.bib").read_text(encoding="utf-8")
BIB_KEYS = set(re.findall(r"^@\w+\{([^,\s]+),", BIB, flags=re.MULTILINE))


def _bib_entry(key):
    """The text of one bib entry, from its @ line to the next @ line."""
    m = re.search(r"^@\w+\{" + re.escape(key) + r",(.*?)(?=^@|\Z)", BIB, flags=re.MULTILINE | re.DOTALL)
    assert m, key
    return m.group(1)


def test_bib_parsed():
    assert len(BIB_KEYS) > 50
    assert "bekman_mlengineering" in BIB_KEYS


@pytest.mark.parametrize("name", names())
def test_entry_well_formed(name):
    m = get(name)
    assert isinstance(m, Measurement)
    assert m.name == name == name.strip().lower()
    assert m.unit in UNITS
    assert m.direction in DIRECTIONS
    if m.unit == "s":
        assert m.direction == "n/a"
    assert isinstance(m.value, float) or isinstance(m.value, int)
    assert math.isfinite(m.value) and m.value > 0
    assert m.what and m.system and m.tool
    assert m.bib_key in BIB_KEYS, f"{name}: source {m.source!r} does not start with a key of references.bib"
    year = re.search(r"year\s*=\s*\{(\d{4})\}", _bib_entry(m.bib_key))
    assert year and int(year.group(1)) == m.year, f"{name}: year {m.year} is not the bib entry's"
    assert 2000 <= m.year <= 2030


def test_names_and_dict_agree():
    assert names() == list(MEASUREMENTS)
    assert len(names()) == len(set(names()))
    assert measurements.MEASUREMENTS is MEASUREMENTS


def test_get_case_insensitive():
    assert get("  H100-NVLink4-P2P-Uni ") is MEASUREMENTS["h100-nvlink4-p2p-uni"]


def test_get_unknown_lists_close_matches():
    with pytest.raises(ValueError, match=r"not a known measurement; close matches: h100-nvlink4-p2p-uni"):
        get("h100-nvlink4-p2p-unii")
    with pytest.raises(ValueError, match=r"not a known measurement; list all names"):
        get("zzzz")


def test_get_not_a_string():
    with pytest.raises(ValueError, match=r"name=3 is not a string"):
        get(3)


@pytest.mark.parametrize(("field", "bad", "match"), [
    ("value", 0.0, "must be > 0"),
    ("value", float("nan"), "NaN or infinity"),
    ("unit", "GB/s", "unit='GB/s' is unknown"),
    ("direction", "duplex", "direction='duplex' is unknown"),
])
def test_bad_entry_rejected(field, bad, match):
    kw = dict(name="x", value=1.0, unit="B/s", direction="per direction", what="w", system="s",
              tool="t", source="bekman_mlengineering", year=2024)
    kw[field] = bad
    with pytest.raises(ValueError, match=match):
        Measurement(**kw)


def test_time_needs_no_direction():
    with pytest.raises(ValueError, match="for a time"):
        Measurement("x", 1.0, "s", "per direction", "w", "s", "t", "hf_perf_hardware", 2023)


# ---------------------------------------------------------------------------------------
# Prose that repeats a measurement must agree with it (rounded as the prose rounds it)
# ---------------------------------------------------------------------------------------
def _gbps(name, digits):
    return f"{get(name).value / GB:.{digits}f}"


NOTE_QUOTES = [
    # (link, text in the link's notes, measurement, digits after the point in the note)
    ("pcie5x16", "H2D {} GB/s", "h200-pcie5-h2d-nvbandwidth", 1),
    ("pcie5x16", "D2H {} GB/s", "h200-pcie5-d2h-nvbandwidth", 1),
    ("nvlink3", "busbw {} GB/s on 8xA100", "a100-nvlink3-allreduce-busbw", 1),
    ("nvlink4", "p2pBandwidthLatencyTest {} GB/s uni", "h100-nvlink4-p2p-uni", 0),
    ("nvlink4", "{} GB/s bidir on H100 SXM", "h100-nvlink4-p2p-bidir", 0),
    ("nvlink4-link", "p2pBandwidthLatencyTest {} GB/s uni", "h100-nvlink4-p2p-uni", 0),
    ("nvlink4-link", "{} GB/s bidir on H100 SXM", "h100-nvlink4-p2p-bidir", 0),
]


@pytest.mark.parametrize(("link", "template", "name", "digits"), NOTE_QUOTES)
def test_link_notes_agree_with_measurements(link, template, name, digits):
    notes = links.get_link(link).notes
    quoted = template.format(_gbps(name, digits))
    assert quoted in notes, f"{link} notes should say {quoted!r} (measurement {name})"


def test_every_measured_note_is_checked():
    """Every "N GB/s" in a link note's "Measured: ..." sentence is some measurement, rounded
    to the digits the note shows; a new measured figure in a note needs an entry here."""
    stored = [m.value / GB for m in MEASUREMENTS.values() if m.unit == "B/s"]
    seen = 0
    for lk in links.catalog():
        for sentence in re.findall(r"Measured: [^()]*", lk.notes):
            for num in re.findall(r"(\d+(?:\.\d+)?) GB/s", sentence):
                digits = len(num.split(".")[1]) if "." in num else 0
                assert any(f"{v:.{digits}f}" == num for v in stored), (
                    f"{lk.name}: measured {num} GB/s in its notes is not in catalog.measurements")
                seen += 1
    assert seen >= 5


BIB_QUOTES = [
    # (bib key, text in its note, measurement, unit divisor, digits)
    ("bekman_mlengineering", "8 x A100 (NVLink 3) {} GB/s", "a100-nvlink3-allreduce-busbw", GB, 2),
    ("nccl_issue1264", "about {} GB/s unidirectional", "h100-nvlink4-p2p-uni", GB, 0),
    ("nccl_issue1264", "{} GB/s bidirectional", "h100-nvlink4-p2p-bidir", GB, 0),
    ("hf_perf_hardware", "{} s with NVLink", "titanrtx-gpt2-ddp-nvlink-time", 1.0, 1),
    ("hf_perf_hardware", "{} s with NCCL", "titanrtx-gpt2-ddp-no-p2p-time", 1.0, 1),
]


@pytest.mark.parametrize(("key", "template", "name", "scale", "digits"), BIB_QUOTES)
def test_bib_notes_agree_with_measurements(key, template, name, scale, digits):
    quoted = template.format(f"{get(name).value / scale:.{digits}f}")
    assert quoted in _bib_entry(key), f"{key} should say {quoted!r} (measurement {name})"
    assert get(name).bib_key == key


def _reader_text(cells):
    """The chapter's markdown as a reader sees it: a glossary link {term}`text <Headword>` is its text."""
    prose = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
    return re.sub(r"\{term\}`([^`<]*?)\s*<[^`>]*>`|\{term\}`([^`]*)`", lambda m: m.group(1) or m.group(2), prose)


# Chapter prose that types a measurement (markdown, not glued) must agree with it too.
PROSE_QUOTES = [
    # (notebook, text in a markdown cell, measurement, unit divisor, digits)
    ("history/nvlink.ipynb", "an NCCL ring reaches {} GB/s busbw", "h200-nvlink4-allreduce-ring-busbw-b", GB, 1),
    ("history/nvlink.ipynb", "NVLink SHARP {} GB/s", "h200-nvlink4-allreduce-nvls-busbw-b", GB, 1),
    ("history/nvlink.ipynb", "H100 pair reaches about {} GB/s", "h100-nvlink4-p2p-uni", GB, 0),
    ("why/three_walls.ipynb", "GPT-2 took {} s with their NVLink", "titanrtx-gpt2-ddp-nvlink-time", 1.0, 1),
    ("why/three_walls.ipynb", "bridge and {} s with peer-to-peer", "titanrtx-gpt2-ddp-no-p2p-time", 1.0, 1),
    ("stack/protocols.ipynb", "8 × H200 at 16 GiB is {} GB/s", "h200-nvlink4-allreduce-nvls-busbw", GB, 0),
]


@pytest.mark.parametrize(("notebook", "template", "name", "scale", "digits"), PROSE_QUOTES)
def test_chapter_prose_agrees_with_measurements(notebook, template, name, scale, digits):
    cells = json.loads((ROOT / "book" / notebook).read_text(encoding="utf-8"))["cells"]
    prose = _reader_text(cells)
    quoted = template.format(f"{get(name).value / scale:.{digits}f}")
    assert quoted in prose, f"{notebook} should say {quoted!r} (measurement {name})"


def test_pcie_exercise_fraction_is_the_measurement():
    """pcie-ex-headline's "88 %" is nvbandwidth's H2D copy over the PCIe 5.0 x16 peak."""
    frac = get("h200-pcie5-h2d-nvbandwidth").value / links.get_link("pcie5x16").bandwidth
    cells = json.loads((ROOT / "book" / "history" / "pcie.ipynb").read_text(encoding="utf-8"))["cells"]
    prose = _reader_text(cells)
    assert f"at the {100 * frac:.0f} % that measured PCIe 5.0 copies reach" in prose
    code = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "code")
    assert f"{round(frac, 2)} * p6.bandwidth" in code   # the solution cell types the same fraction


def test_nvlink_chapter_ring_fraction():
    """The NVLink chapter's "about 82 % of the peak busbw" is the measured ring over NVLink 4's peak."""
    frac = get("h200-nvlink4-allreduce-ring-busbw-b").value / links.get_link("nvlink4").bandwidth
    cells = json.loads((ROOT / "book" / "history" / "nvlink.ipynb").read_text(encoding="utf-8"))["cells"]
    prose = _reader_text(cells)
    assert f"NVLink 4 about {100 * frac:.0f} % of the peak busbw" in prose
