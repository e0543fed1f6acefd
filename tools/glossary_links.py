"""Link the first use of every glossary term in each chapter to the glossary.

Usage::

    python tools/glossary_links.py --check             # exit 1 if a chapter's first use of a term is not linked
    python tools/glossary_links.py --check NB ...      # the same for some notebooks
    python tools/glossary_links.py --write NB ...      # wrap those first uses in {term} roles

The rule: in each chapter, the first use in prose of every glossary term (except the generic
words of :data:`SKIP`) is a ``{term}`text <Headword>``` link to ``book/appendix/glossary.md``.

* A term's names are the English names of its headword, split on ", " before the parenthesis
  (``Alpha-beta model, Hockney model (α-β 模型)`` has two), plus the spellings of
  :data:`ALIASES`. They match whole words, with a plural "s" or "es", and a space in a name
  also matches a hyphen ("fat-tree"). A word with a capital after its first letter (AllReduce,
  NVLink, RDMA) or a capitalised word after the first (lossless Ethernet) keeps its case; the
  other words match in any case. Where two names overlap ("NVLink SHARP" and "NVLink") the
  longer one wins.
* Prose is the Markdown cells' text outside headings, label lines, code spans and fences,
  math, roles (``{glue}``, ``{cite}``, existing ``{term}`` ...), Markdown links, HTML tags and
  comments, directive lines and their options (an admonition's title is on its fence line),
  the exercises and solutions (they are reused by the exercise tools and edited on their own),
  and the *Before you start* and *Takeaways* boxes that ``tools/chapter_frame.py`` writes
  (cells tagged ``chapter-frame``; a rerun of that script rewrites them).
* The check passes for a term when its first event in the chapter is a ``{term}`` role that
  names it, or when the chapter does not use it. A ``{term}`` role whose target is no headword
  is always a problem.
* ``--write`` wraps the first prose occurrence of each unlinked term as
  ``{term}`matched text <Headword>```; the cells are Markdown, so nothing needs re-executing.
"""

from __future__ import annotations

import argparse
import pathlib
import re
import sys
from dataclasses import dataclass

ROOT = pathlib.Path(__file__).resolve().parents[1]
GLOSSARY = ROOT / "book" / "appendix" / "glossary.md"
TOC = ROOT / "_toc.yml"
FRAME_TAG = "chapter-frame"  # tools/chapter_frame.py's generated boxes

# Names never required to be linked: words the whole book uses in their everyday sense on
# nearly every page, where a link at each chapter's first use would add noise, not help.
SKIP = {
    "Bandwidth": "the book's most common word; every chapter uses it from its first paragraph",
    "Latency": "as common as bandwidth, in its everyday sense",
    "Interconnect": "the book's subject, on every page",
    "Topology": "used in its everyday sense in every chapter",
    "Stage": "also 'ZeRO stage' and 'at this stage'; 'pipeline stage' is still linked",
    "Skew": "also load skew in expert routing; the term is the physical layer's timing skew",
    "Bridge": "also the PCIe-to-PCI bridge chips; the term is the graphics cards' bridge connector",
    "Encoding": "also position encodings and video encoding; 'line code' is still linked",
    "GB": "a unit written next to numbers everywhere (mostly inside glued values)",
    "GiB and Gb": "the headword's second name is not a phrase prose uses",
}

# Phrases where a term's word is used in another sense, by chapter: occurrences inside them are
# not uses of the term (the next occurrence is the first use).
OTHER_SENSES = {
    "book/history/nvlink": ("its two directions overlap",),      # full duplex, not compute/comm overlap
    "book/history/pcie": ("overlaps the two copies", "overlaps the two halves"),  # copies with each other
    "book/history/rdma_clusters": ("libraries overlap the phases",),  # phases of one collective
    "book/practice/applications": ("hash bucket",),               # a hash table's bucket
    "book/practice/operations": ("decode",),  # every 'decode' here is the loader's image decoding
}

# Spellings the headwords do not list, by headword (the part before the parenthesis).
ALIASES = {
    "Duplex, full and half": ("full duplex", "half duplex"),
    "Optical circuit switching, OCS": ("optical circuit switch",),
    "Ring algorithm": ("ring AllReduce",),
    "Tree algorithm": ("tree AllReduce",),
}

# Collective names that are also common verbs: linked only when written as the collective.
CASE_SENSITIVE = {"Reduce", "Scatter", "Broadcast"}

_HEADWORD = re.compile(r"^(\S[^\n]*?) \(([^\n]*)\)[ \t]*$")
_ROLE = re.compile(r"\{[\w:.-]+\}`[^`]*`")
_TERM_ROLE = re.compile(r"\{term\}`([^`]*)`")
_INLINE = re.compile(
    r"\{[\w:.-]+\}`[^`]*`"            # a role: {glue}`x`, {cite}`k`, {term}`t <T>`
    r"|(`+)[^`]*?\1"                  # a code span
    r"|\$\$.*?\$\$"                   # display math on one line
    r"|(?<![\\\w])\$[^$\n]+?\$"       # inline math
    r"|!?\[[^\]\n]*\]\([^)\n]*\)"     # a Markdown link or image
    r"|<!--.*?-->"                    # an HTML comment
    r"|</?[A-Za-z][^<>\n]*>"          # an HTML tag or an autolink
    r"|\{\{.*?\}\}",                  # a substitution
    re.S)
_FENCE = re.compile(r"^[ \t]*(`{3,}|:{3,})[ \t]*(\{([\w:-]+)\})?([^\n]*)$")
_PROSE_DIRECTIVES = {"admonition", "note", "tip", "hint", "important", "warning", "caution",
                     "attention", "danger", "error", "seealso", "dropdown", "topic", "sidebar",
                     "margin", "epigraph", "card", "tab-item"}
_OPTION = re.compile(r"^[ \t]*:[\w-]+:")
_HEADING = re.compile(r"^[ \t]*#{1,6}[ \t]")
_LABEL = re.compile(r"^\([\w.:-]+\)=[ \t]*$")


def glossary(path=GLOSSARY):
    """``{headword: [names]}`` from the ``{glossary}`` directive of ``path``."""
    text = pathlib.Path(path).read_text(encoding="utf-8")
    body = re.search(r"^```\{glossary\}[^\n]*\n(.*?)^```", text, re.M | re.S).group(1)
    out = {}
    for line in body.split("\n"):
        if not line or line[0].isspace():
            continue
        m = _HEADWORD.match(line)
        if m:
            head = m.group(1)
            out[line.strip()] = [n.strip() for n in head.split(", ")] + list(ALIASES.get(head, ()))
    return out


def _word_pattern(word, first):
    fixed = any(c.isupper() for c in word[1:]) or (not first and word[:1].isupper()) or word in CASE_SENSITIVE
    return re.escape(word) if fixed else f"(?i:{re.escape(word)})"


def name_pattern(name):
    """The regular expression of one term name (see the module's docstring)."""
    words = name.split(" ")
    parts = []
    for i, word in enumerate(words):
        parts.append("(?:[ \\n]|-)".join(_word_pattern(w, i == 0 and j == 0) for j, w in enumerate(word.split("-")))
                     if "-" in word else _word_pattern(word, i == 0))
    body = "(?:[ \\n]|-)".join(parts)
    return re.compile(rf"(?<![\w-]){body}(?:e?s)?(?![\w-])")


@dataclass
class Terms:
    """The glossary's headwords and the patterns of their names."""

    headwords: dict
    patterns: list  # [(headword, name, compiled pattern)]
    lookup: dict    # lower-cased headword -> headword

    @classmethod
    def load(cls, path=GLOSSARY, skip=None):
        skip = SKIP if skip is None else skip
        heads = glossary(path)
        pats = [(h, n, name_pattern(n)) for h, names in heads.items() for n in names if n not in skip]
        return cls(heads, pats, {h.lower(): h for h in heads})


def prose_mask(text, state=None, inline=True):
    """``text`` with everything that is not prose replaced by NUL characters (newlines kept).

    ``state`` (a dict) carries whether the text is inside a solution from one cell to the next;
    ``inline=False`` blanks only whole lines (headings, fences, math blocks ...), not the spans
    (code, roles, inline math, links) inside a prose line.
    """
    state = {} if state is None else state
    chars = list(text)
    stack = []  # open fences: (fence string, directive name or "")
    pos = 0

    def blank(a, b):
        for k in range(a, b):
            if chars[k] != "\n":
                chars[k] = "\0"

    in_math = False
    for line in text.split("\n"):
        start, end = pos, pos + len(line)
        pos = end + 1
        m = _FENCE.match(line)
        if in_math:
            blank(start, end)
            if "$$" in line:
                in_math = False
            continue
        if m and stack and line.strip() == stack[-1][0]:
            stack.pop()
            blank(start, end)
            continue
        code = stack and stack[-1][1] not in _PROSE_DIRECTIVES | {"exercise"}
        if m and not code:
            name = m.group(3) or ""
            blank(start, end)
            if name == "solution-start":
                state["solution"] = True
            elif name == "solution-end":
                state["solution"] = False
            stack.append((m.group(1), name if m.group(2) else "code"))
            continue
        inside_prose = all(n in _PROSE_DIRECTIVES for _, n in stack)
        if (code or not inside_prose or state.get("solution") or _HEADING.match(line) or _LABEL.match(line)
                or (stack and _OPTION.match(line))):
            blank(start, end)
            continue
        if line.strip().startswith("$$"):
            blank(start, end)
            in_math = not (len(line.strip()) > 2 and line.strip().endswith("$$"))
            continue
        if inline:
            for mm in _INLINE.finditer(text, start, end):
                blank(mm.start(), mm.end())
    return "".join(chars)


def _cells(nb):
    """The chapter's Markdown cells ``(index, cell)``, less the generated boxes."""
    for i, c in enumerate(nb["cells"]):
        if c["cell_type"] == "markdown" and FRAME_TAG not in c.get("metadata", {}).get("tags", []):
            yield i, c


def _source(cell):
    return "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]


def events(texts, terms, other_senses=()):
    """Every first-use candidate in ``texts`` (a chapter's Markdown cells, in order).

    Returns ``(matches, roles, bad)``: the plain prose occurrences of the names, not
    overlapping and in order, as ``(cell, start, end, headword)``; the ``{term}`` roles in prose
    as ``(cell, start, headword)``; and the roles whose target is no headword.
    """
    state, matches, roles, bad = {}, [], [], []
    for k, text in enumerate(texts):
        lines = prose_mask(text, dict(state), inline=False)
        masked = prose_mask(text, state)
        for phrase in other_senses:
            for m in re.finditer(re.escape(phrase), masked):
                masked = masked[:m.start()] + "\0" * len(phrase) + masked[m.end():]
        for r in _TERM_ROLE.finditer(text):
            if lines[r.start()] != "\0":
                shown, _, target = r.group(1).partition(" <")
                target = (target.rstrip(">") if target else shown).strip()
                head = terms.lookup.get(target.lower())
                (roles.append((k, r.start(), head)) if head else bad.append((k, r.group(0))))
        found = []
        for head, _name, pat in terms.patterns:
            found.extend((m.start(), -(m.end() - m.start()), m.end(), head) for m in pat.finditer(masked))
        last = -1
        for start, _neg, end, head in sorted(found):
            if start >= last:
                matches.append((k, start, end, head))
                last = end
    return matches, roles, bad


def first_unlinked(texts, terms, other_senses=()):
    """``{headword: (cell, start, end)}`` of each term whose first use in ``texts`` is not a link."""
    matches, roles, _ = events(texts, terms, other_senses)
    first = {}
    for k, start, head in roles:
        first.setdefault(head, ("role", k, start))
    for k, start, end, head in matches:
        if head not in first or (k, start) < first[head][1:3]:
            first[head] = ("text", k, start, end)
    return {h: e[1:] for h, e in first.items() if e[0] == "text"}


def wrap(texts, terms, other_senses=()):
    """``texts`` with each term's first unlinked use wrapped in a ``{term}`` role."""
    texts = list(texts)
    todo = sorted(((k, s, e, h) for h, (k, s, e) in first_unlinked(texts, terms, other_senses).items()),
                  reverse=True)
    for k, s, e, h in todo:
        shown = re.sub(r"\s+", " ", texts[k][s:e])
        texts[k] = texts[k][:s] + f"{{term}}`{shown} <{h}>`" + texts[k][e:]
    return texts


def chapters(toc_path=TOC):
    """The chapters the rule applies to, as paths: the toc's numbered parts (no front or back matter)."""
    import yaml

    toc = yaml.safe_load(pathlib.Path(toc_path).read_text(encoding="utf-8"))
    return [ROOT / (c["file"] + ".ipynb") for part in toc.get("parts", []) if part.get("numbered")
            for c in part.get("chapters", [])]


def _senses(path):
    rel = pathlib.Path(path).resolve().relative_to(ROOT).with_suffix("").as_posix()
    return OTHER_SENSES.get(rel, ())


def problems(path, terms):
    """Human-readable problems of one notebook (empty when it follows the rule)."""
    import nbformat

    nb = nbformat.read(str(path), as_version=4)
    cells = list(_cells(nb))
    texts = [_source(c) for _, c in cells]
    out = []
    senses = _senses(path)
    _, _, bad = events(texts, terms, senses)
    for k, role in bad:
        out.append(f"{path.name} cell {cells[k][1].get('id')}: {role} names no glossary headword")
    for head, (k, s, e) in sorted(first_unlinked(texts, terms, senses).items(), key=lambda x: x[1]):
        snippet = texts[k][max(0, s - 30):e + 30].replace("\n", " ")
        out.append(f"{path.name} cell {cells[k][1].get('id')}: first use of {head!r} not linked: ...{snippet}...")
    return out


def write(path, terms):
    """Wrap the first unlinked uses in notebook ``path``; returns how many it wrapped."""
    import nbformat

    text = pathlib.Path(path).read_text(encoding="utf-8")
    nb = nbformat.reads(text, as_version=4)
    cells = list(_cells(nb))
    texts = [_source(c) for _, c in cells]
    new = wrap(texts, terms, _senses(path))
    n = sum(a.count("{term}") for a in new) - sum(a.count("{term}") for a in texts)
    for (_, c), old, t in zip(cells, texts, new):
        if t != old:
            c["source"] = t
    out = nbformat.writes(nb) + "\n"
    if out != text:
        pathlib.Path(path).write_text(out, encoding="utf-8")
    return n


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument("--check", action="store_true", help="report unlinked first uses; exit 1 if any")
    g.add_argument("--write", action="store_true", help="wrap the first uses in {term} roles")
    ap.add_argument("notebooks", nargs="*", type=pathlib.Path, help="default: every chapter of _toc.yml")
    args = ap.parse_args(argv)
    terms = Terms.load()
    paths = [p.resolve() for p in args.notebooks] or chapters()
    if args.write:
        for p in paths:
            print(f"{p.relative_to(ROOT)}: {write(p, terms)} term link(s) added")
        return 0
    bad = [msg for p in paths for msg in problems(p, terms)]
    print("\n".join(bad) if bad else f"{len(paths)} chapter(s): every first use of a glossary term is linked")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
