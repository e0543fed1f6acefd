"""Write each chapter's reader aids from the one data file, ``book/_data/chapters.yml``.

Usage::

    python tools/chapter_frame.py           # insert or update the boxes in every chapter
    python tools/chapter_frame.py --check   # exit 1 if a chapter is not up to date (changes nothing)

For every chapter listed under ``chapters:`` in the data file the script puts two Markdown
cells into the notebook:

* **Before you start**, right under the chapter's title: its level, its prerequisites (links
  to the chapters it builds on), the chapters that build on it, and the reading paths of
  the landing page that include it;
* **Takeaways**: the chapter's three to five takeaways, first thing under its ``## Summary``
  heading (the summary's bullets follow with the details and the numbers), or right before
  the ``## Exercises`` heading in a chapter without a summary. A chapter thus has one
  summary, which opens with its takeaways.

It also writes each exercise's level (``exercises:`` of the chapter's entry, on the scale
``exercise_levels:``) into the title of its ``{exercise}`` directive, so that the book shows
"Exercise 12.3 (★★ core)": the number comes from Sphinx (the chapters' parts are numbered in
``_toc.yml``, so exercises are numbered within their chapter), the level from the data file.

The cells it writes carry the tag ``chapter-frame`` (and fixed cell ids); a rerun removes
them and writes them again, so running the script twice changes nothing. To put the title
and the Exercises heading at the start of a cell of their own, the script splits the cell
that holds them (the rest keeps the original cell's metadata); no other cell changes. The
cells are Markdown, so no notebook needs to be re-executed.

The landing page (``book/index.ipynb``) draws the chapter-dependency graph and lists the
reading paths from the same data file; :func:`problems` is what
``tests/test_chapter_frame.py`` checks the data file with.
"""

from __future__ import annotations

import copy
import json
import pathlib
import re
import sys

import yaml
from myst_text import _source as _src  # a cell's source as one string

ROOT = pathlib.Path(__file__).resolve().parents[1]
BOOK = ROOT / "book"
DATA = BOOK / "_data" / "chapters.yml"
TOC = ROOT / "_toc.yml"
TAG = "chapter-frame"
BEFORE_ID = "chapter-frame-before"
TAKEAWAYS_ID = "chapter-frame-takeaways"
LEVELS = ("introductory", "intermediate", "advanced")
EXERCISE_LEVELS = ("warm-up", "core", "challenge")
MIN_TAKEAWAYS, MAX_TAKEAWAYS = 3, 5

_H1 = re.compile(r"^# \S")
_EXERCISES = re.compile(r"^## Exercises\b")  # "## Exercises" and any suffix a chapter gives it
_SUMMARY = re.compile(r"^## Summary\s*$")
_TARGET = re.compile(r"^\([\w:.-]+\)=\s*$")  # a MyST label line, "(label)=", belongs to the heading below it
# an exercise's opening fence (with its title, if any) and its label among the options below it
_EXERCISE = re.compile(r"^(```\{exercise\})([^\n]*)(\n(?::[^\n]*\n)*?:label:[ \t]*(\S+))", re.M)


def load(path=DATA):
    """The data file as a dict (``levels``, ``chapters``, ``reference``, ``paths``)."""
    return yaml.safe_load(pathlib.Path(path).read_text(encoding="utf-8"))


def toc_pages(toc_path=TOC):
    """``(root, pages)``: the toc's root and every other page in reading order, relative to book/."""
    toc = yaml.safe_load(pathlib.Path(toc_path).read_text(encoding="utf-8"))

    def rel(f):
        return f.removeprefix("book/")

    pages = [rel(c["file"]) for part in toc.get("parts", []) for c in part.get("chapters", [])]
    return rel(toc["root"]), pages


def source_path(page, book=BOOK):
    """The notebook or Markdown file of ``page`` (relative to book/, no extension)."""
    for ext in (".ipynb", ".md"):
        p = pathlib.Path(book) / f"{page}{ext}"
        if p.exists():
            return p
    raise FileNotFoundError(f"page {page!r}: neither {page}.ipynb nor {page}.md exists under {book}")


def title(page, book=BOOK):
    """The text of the page's first ``# `` heading, without Markdown emphasis."""
    p = source_path(page, book)
    if p.suffix == ".ipynb":
        text = "\n".join(_src(c) for c in json.loads(p.read_text(encoding="utf-8"))["cells"]
                         if c["cell_type"] == "markdown")
    else:
        text = p.read_text(encoding="utf-8")
    for line in text.splitlines():
        if _H1.match(line):
            return re.sub(r"[*_`]", "", line[2:]).strip()
    raise ValueError(f"{p}: no '# ' title")


def link(page, frm="", book=BOOK):
    """A Markdown link to ``page`` from a page in folder ``frm`` (both relative to book/)."""
    target = source_path(page, book).relative_to(book).as_posix()
    depth = len(pathlib.PurePosixPath(frm).parts)
    return f"[{title(page, book)}]({'../' * depth}{target})"


def dependants(data, page):
    """Chapters that list ``page`` as a prerequisite, in the order of the data file."""
    return [c for c, entry in data["chapters"].items() if page in entry["prerequisites"]]


def closure(data, page):
    """Every chapter ``page`` needs, directly or through its prerequisites."""
    seen, todo = set(), list(data["chapters"][page]["prerequisites"])
    while todo:
        c = todo.pop()
        if c not in seen:
            seen.add(c)
            todo.extend(data["chapters"].get(c, {}).get("prerequisites", []))
    return seen


def exercise_labels(nb_path):
    """The labels of a notebook's exercises, in order."""
    nb = json.loads(pathlib.Path(nb_path).read_text(encoding="utf-8"))
    return [m.group(4) for c in nb["cells"] if c["cell_type"] == "markdown" for m in _EXERCISE.finditer(_src(c))]


def level_title(data, level):
    """An exercise's title for ``level``: its stars and its name, "★★ core"."""
    return f"{data['exercise_levels'][level]['stars']} {level}"


def _digits_outside_markup(text):
    """Numerals typed in ``text`` outside math, glue, roles and code, and outside names (H100, NVLink 4)."""
    bare = re.sub(r"\{[\w:-]+\}`[^`]*`", " ", text)       # {glue}`x`, {doc}`y`, ...
    bare = re.sub(r"`[^`]*`", " ", bare)                   # code
    bare = re.sub(r"\$[^$]*\$", " ", bare)                 # math
    bare = re.sub(r"\b(NVLink|PCIe|InfiniBand|ZeRO) \d+(\.\d)?", " ", bare)  # generations are names
    return re.findall(r"(?<![\w.\-])\d[\d,.]*(?![\w\-])", bare)


def problems(data=None, toc_path=TOC, book=BOOK):
    """Everything wrong with the data file against the toc and the book; empty when all is well."""
    data = load() if data is None else data
    out = []
    root, pages = toc_pages(toc_path)
    order = {p: i for i, p in enumerate(pages)}
    chapters, reference = data.get("chapters", {}), data.get("reference", [])
    for p in pages:
        if p not in chapters and p not in reference:
            out.append(f"{p} is in the toc but has no entry in {DATA.name} (under chapters or reference)")
    for p in list(chapters) + list(reference):
        if p not in order:
            out.append(f"{p} has an entry in {DATA.name} but is not in the toc")
    for c, entry in chapters.items():
        if entry.get("level") not in LEVELS:
            out.append(f"{c}: level {entry.get('level')!r} is not one of {LEVELS}")
        if set(data.get("levels", {})) != set(LEVELS):
            out.append(f"levels: describe exactly {LEVELS}")
        for pre in entry.get("prerequisites", []):
            if pre not in chapters:
                out.append(f"{c}: prerequisite {pre} is not a chapter")
            elif c in order and pre in order and order[pre] >= order[c]:
                out.append(f"{c}: prerequisite {pre} does not come earlier in the toc")
        takeaways = entry.get("takeaways", [])
        if not MIN_TAKEAWAYS <= len(takeaways) <= MAX_TAKEAWAYS:
            out.append(f"{c}: {len(takeaways)} takeaways; want {MIN_TAKEAWAYS} to {MAX_TAKEAWAYS}")
        for t in takeaways:
            typed = _digits_outside_markup(t)
            if typed:
                out.append(f"{c}: takeaway with typed numbers {typed} (glue them or write them out): {t[:60]}")
        if c in order:
            try:
                names = glued_names(source_path(c, book))
            except FileNotFoundError:
                names = set()
            for t in takeaways:
                for name in re.findall(r"\{glue(?::\w+)?\}`([^`:]+)", t):
                    if name not in names:
                        out.append(f"{c}: takeaway glues {name!r}, which the chapter does not glue")
    if tuple(data.get("exercise_levels", {})) != EXERCISE_LEVELS:
        out.append(f"exercise_levels: describe exactly {EXERCISE_LEVELS}, in this order")
    for c, entry in chapters.items():
        levels = entry.get("exercises") or {}
        for label, lv in levels.items():
            if lv not in EXERCISE_LEVELS:
                out.append(f"{c}: exercise {label} has level {lv!r}, not one of {EXERCISE_LEVELS}")
        if c not in order:
            continue
        try:
            labels = exercise_labels(source_path(c, book))
        except FileNotFoundError:
            continue
        for label in labels:
            if label not in levels:
                out.append(f"{c}: exercise {label} has no level under exercises")
        for label in levels:
            if label not in labels:
                out.append(f"{c}: exercises lists {label}, which the chapter does not have")
    for path in data.get("paths", []):
        role, seq = path.get("role"), path.get("chapters", [])
        for extra in path.get("extra", []):
            if extra not in order:
                out.append(f"path {role}: {extra} is not in the toc")
        for i, c in enumerate(seq):
            if c not in chapters:
                out.append(f"path {role}: {c} is not a chapter")
                continue
            for pre in chapters[c]["prerequisites"]:
                if pre not in seq[:i]:
                    out.append(f"path {role}: {c} comes before its prerequisite {pre}, or the path lacks it")
    return out


def glued_names(nb_path):
    """Names a notebook glues (from its committed outputs)."""
    nb = json.loads(pathlib.Path(nb_path).read_text(encoding="utf-8"))
    return {o["metadata"]["scrapbook"]["name"] for c in nb["cells"] for o in c.get("outputs", [])
            if "scrapbook" in o.get("metadata", {})}


def _cell(cid, text):
    return {"cell_type": "markdown", "id": cid, "metadata": {"tags": [TAG]}, "source": text}


def before_cell(data, page, book=BOOK):
    """The "Before you start" cell of ``page``."""
    entry = data["chapters"][page]
    here = str(pathlib.PurePosixPath(page).parent)
    frm = "" if here == "." else here
    level = entry["level"]
    lines = ["```{admonition} Before you start", ":class: note ic-before", "",
             f"**Level:** {level} ({data['levels'][level]}).", ""]
    pres = entry["prerequisites"]
    if pres:
        lines.append("**Read first:** " + "; ".join(link(p, frm, book) for p in pres) + ".")
    else:
        lines.append("**Read first:** nothing; this chapter starts from scratch.")
    lines.append("")
    after = dependants(data, page)
    if after:
        lines += ["**Builds towards:** " + "; ".join(link(p, frm, book) for p in after) + ".", ""]
    roles = [p["role"] for p in data.get("paths", []) if page in p["chapters"]]
    index = "../" * len(pathlib.PurePosixPath(frm).parts) + "index.ipynb"
    on = f"on the {', '.join(roles)} reading path{'s' if len(roles) > 1 else ''}" if roles else "on no reading path"
    lines.append(f"This chapter is {on} of the [front page]({index}), which draws how all chapters depend "
                 "on each other.")
    lines.append("```")
    return _cell(BEFORE_ID, "\n".join(lines))


def takeaways_cell(data, page):
    """The "Takeaways" cell of ``page``."""
    items = [f"* {t}" for t in data["chapters"][page]["takeaways"]]
    return _cell(TAKEAWAYS_ID, "\n".join(["```{admonition} Takeaways", ":class: tip ic-takeaways", "", *items, "```"]))


def _split(nb, i, at, suffix):
    """Split cell ``i`` before line ``at``; the second part is a new cell after it."""
    cell = nb["cells"][i]
    lines = _src(cell).split("\n")
    head, tail = "\n".join(lines[:at]).rstrip("\n"), "\n".join(lines[at:]).lstrip("\n")
    cell["source"] = head
    new = {"cell_type": "markdown", "id": f"{cell.get('id', 'cell')}-{suffix}"[:64],
           "metadata": copy.deepcopy({k: v for k, v in cell.get("metadata", {}).items() if k != "tags"}),
           "source": tail}
    nb["cells"].insert(i + 1, new)


def _level_exercises(nb, page, data):
    """Write each exercise's level into its directive's title (in place)."""
    levels = data["chapters"][page].get("exercises") or {}

    def title(m):
        label = m.group(4)
        if label not in levels:
            raise ValueError(f"{page}: exercise {label} has no level in {DATA.name}")
        return f"{m.group(1)} {level_title(data, levels[label])}{m.group(3)}"

    for cell in nb["cells"]:
        if cell["cell_type"] == "markdown" and "{exercise}" in _src(cell):
            new = _EXERCISE.sub(title, _src(cell))
            if new != _src(cell):
                cell["source"] = new


def frame(nb, page, data, book=BOOK):
    """``nb`` (a notebook as a dict) with the chapter's boxes and exercise levels in place; ``nb`` is not changed."""
    nb = copy.deepcopy(nb)
    _level_exercises(nb, page, data)
    nb["cells"] = [c for c in nb["cells"] if TAG not in c.get("metadata", {}).get("tags", [])]
    md = [i for i, c in enumerate(nb["cells"]) if c["cell_type"] == "markdown"]
    # the title: alone in its cell
    t = next((i for i in md if any(_H1.match(ln) for ln in _src(nb["cells"][i]).split("\n"))), None)
    if t is None:
        raise ValueError(f"{page}: no '# ' title in a Markdown cell")
    lines = _src(nb["cells"][t]).split("\n")
    at = next(k for k, ln in enumerate(lines) if _H1.match(ln)) + 1
    if "\n".join(lines[at:]).strip():
        _split(nb, t, at, "intro")
    # the Exercises heading (with its label line, if any): at the start of its cell
    x = None
    for i in range(t + 1, len(nb["cells"])):
        cell = nb["cells"][i]
        if cell["cell_type"] != "markdown":
            continue
        lines = _src(cell).split("\n")
        k = next((k for k, ln in enumerate(lines) if _EXERCISES.match(ln)), None)
        if k is None:
            continue
        if k > 0 and _TARGET.match(lines[k - 1]):
            k -= 1
        if "\n".join(lines[:k]).strip():
            _split(nb, i, k, "exercises")
            x = i + 1
        else:
            x = i
        break
    if x is None:
        raise ValueError(f"{page}: no '## Exercises' heading; the Takeaways box goes before it")
    # a "## Summary" heading before the exercises: the box goes right under it, at the end of its cell
    at = x
    for i in range(t + 1, x):
        cell = nb["cells"][i]
        if cell["cell_type"] != "markdown":
            continue
        lines = _src(cell).split("\n")
        k = next((k for k, ln in enumerate(lines) if _SUMMARY.match(ln)), None)
        if k is not None:
            if "\n".join(lines[k + 1:]).strip():
                _split(nb, i, k + 1, "summary")
            at = i + 1
            break
    nb["cells"].insert(at, takeaways_cell(data, page))
    nb["cells"].insert(t + 1, before_cell(data, page, book))
    return nb


def run(check_only=False, data=None, book=BOOK):
    """Frame every chapter of the data file; return the pages whose notebook changed (or would)."""
    import nbformat

    data = load() if data is None else data
    bad = problems(data, book=book) if book == BOOK else []
    if bad:
        raise ValueError(f"{DATA.name} has problems:\n  " + "\n  ".join(bad))
    changed = []
    for page in data["chapters"]:
        path = source_path(page, book)
        text = path.read_text(encoding="utf-8")
        nb = nbformat.reads(text, as_version=4)
        new = nbformat.from_dict(frame(nb, page, data, book))
        out = nbformat.writes(new) + "\n"
        if out != text:
            changed.append(page)
            if not check_only:
                path.write_text(out, encoding="utf-8")
    return changed


def main(argv):
    check_only = argv == ["--check"]
    if argv and not check_only:
        print(__doc__)
        return 2
    changed = run(check_only)
    verb = "not up to date" if check_only else "updated"
    print(f"{len(changed)} chapter(s) {verb}" + (": " + ", ".join(changed) if changed else ""))
    return 1 if (check_only and changed) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
