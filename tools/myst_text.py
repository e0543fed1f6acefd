"""MyST roles and directives as plain Jupyter Markdown, for notebooks read outside the book.

JupyterLab's Markdown renderer knows no MyST: opened there, a chapter shows
``{cite}`thakur2005``` where the book shows "(Thakur and Rabenseifner, 2005)". This module
rewrites a chapter's Markdown into what JupyterLab renders well, with the same words the
HTML book shows where it can:

===========================  ==============================================================
MyST                          plain Markdown
===========================  ==============================================================
``{cite}`a,b```               (Author, Year; Author et al., Year), author-year as in the book
``{cite:t}`a```               Author (Year)
``{doc}`../x```               [the chapter's title](../x.ipynb)
``{ref}`label```              [the section's title](chapter.ipynb), or its title alone on its own page
``{ref}`text <label>```       [text](chapter.ipynb)
``{numref}`fig-x```           the figure "first words of its caption"
``{term}`text <t>```          *text* (the glossary's term, in italics)
``{func}`name```              ``name``
``(label)=`` lines            removed
exercise fences               a quoted block: **Exercise** (``label``) and its text
solution fences               **Solution** (``label``) ... a horizontal rule
``{glossary}``                each term in bold, its definition under it
other fences ``{note}`` ...   a quoted block with the directive's title in bold
===========================  ==============================================================

Glued numbers are not this module's business (``tools/student_edition.render_glue``
writes them in from the notebook's outputs).
"""

from __future__ import annotations

import json
import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[1]

ROLE = re.compile(r"\{(cite(?::[tp])?|doc|ref|numref|term|func|class|mod|meth|data|attr)\}`([^`]+)`")
LABEL_LINE = re.compile(r"^\([A-Za-z0-9_.:-]+\)=[ \t]*\n", re.M)
FENCE = re.compile(r"^(?P<fence>`{3,}|:{3,})\{(?P<name>[a-z-]+)\}[ \t]*(?P<arg>[^\n]*)\n"
                   r"(?P<body>.*?)^(?P=fence)[ \t]*$", re.M | re.S)
OPTION = re.compile(r"^:([a-z-]+):[ \t]*(.*)$")


def _source(cell):
    return "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]


def _first_heading(text):
    m = re.search(r"^#[ \t]+(.+)$", text, re.M)
    return m.group(1).strip() if m else None


def _short(text, words=8):
    text = re.sub(r"\s+", " ", re.sub(r"\{[a-z:-]+\}`([^`]*)`", r"\1", text)).strip()
    first = re.split(r"(?<=[.:;])\s", text, maxsplit=1)[0].rstrip(".:;")
    parts = first.split(" ")
    return " ".join(parts[:words]) + (" ..." if len(parts) > words else "")


class BookIndex:
    """What the roles point at, read from the book's sources: titles of pages, section
    labels, figure captions and the bibliography."""

    def __init__(self, root=ROOT, bib=None):
        self.root = pathlib.Path(root)
        self.titles, self.labels, self.figures = {}, {}, {}
        self.absent = set()   # pages the copy being written leaves out: linked by title only
        for path in sorted((self.root / "book").rglob("*")):
            if path.suffix not in (".ipynb", ".md") or ".ipynb_checkpoints" in path.parts:
                continue
            doc = path.relative_to(self.root).with_suffix("").as_posix()
            cells = self._cells(path)
            for text, meta in cells:
                if doc not in self.titles and _first_heading(text):
                    self.titles[doc] = _first_heading(text)
                for m in re.finditer(r"^\(([A-Za-z0-9_.:-]+)\)=[ \t]*\n+#+[ \t]+(.+)$", text, re.M):
                    self.labels[m.group(1)] = (doc, m.group(2).strip())
                fig = (meta.get("mystnb") or {}).get("figure") or {}
                if fig.get("name"):
                    self.figures[fig["name"]] = (doc, _short(fig.get("caption", "")))
                for m in re.finditer(r"^```\{exercise\}[^\n]*\n(?::[^\n]*\n)*?:label:[ \t]*(\S+)", text, re.M):
                    self.labels.setdefault(m.group(1), (doc, f"exercise {m.group(1)}"))
        self.bib = self._bib(bib or self.root / "book" / "references.bib")

    @staticmethod
    def _cells(path):
        if path.suffix == ".md":
            return [(path.read_text(encoding="utf-8"), {})]
        nb = json.loads(path.read_text(encoding="utf-8"))
        return [(_source(c), c.get("metadata", {})) for c in nb["cells"] if c["cell_type"] == "markdown"] + \
               [("", c.get("metadata", {})) for c in nb["cells"] if c["cell_type"] == "code"]

    @staticmethod
    def _bib(path):
        import pybtex.database

        out = {}
        for key, e in pybtex.database.parse_file(str(path)).entries.items():
            people = e.persons.get("author") or e.persons.get("editor") or []
            last = [" ".join(p.last_names).replace("{", "").replace("}", "") for p in people]
            if not last:
                org = e.fields.get("organization") or e.fields.get("institution") or e.fields.get("publisher") or key
                who = org.replace("{", "").replace("}", "")
            elif len(last) == 1:
                who = last[0]
            elif len(last) == 2:
                who = f"{last[0]} and {last[1]}"
            else:
                who = f"{last[0]} et al."
            year = e.fields.get("year") or e.fields.get("date", "")[:4] or "n.d."
            out[key] = (who, year)
        return out


def _rel(from_doc, to_doc, suffix=".ipynb"):
    a = pathlib.PurePosixPath(from_doc).parent
    b = pathlib.PurePosixPath(to_doc)
    up = len(a.parts)
    common = 0
    while common < min(up, len(b.parts)) and a.parts[common] == b.parts[common]:
        common += 1
    return "/".join([".."] * (up - common) + list(b.parts[common:])) + suffix


def _resolve_doc(from_doc, target):
    return (pathlib.PurePosixPath(from_doc).parent / target).as_posix() if not target.startswith("/") else target[1:]


def _norm(path):
    out = []
    for p in path.split("/"):
        if p == "..":
            out.pop()
        elif p not in ("", "."):
            out.append(p)
    return "/".join(out)


def render_roles(text, doc, index):
    """Replace the MyST roles of one Markdown text of page ``doc`` (e.g. ``book/stack/topology``)."""
    suffix = {d: (".md" if (index.root / f"{d}.md").exists() else ".ipynb") for d in index.titles}

    def link(title, target):
        if target == doc:
            return f"*{title}*"
        if target in index.absent:
            return f"*{title}* (in the HTML book)"
        return f"[{title}]({_rel(doc, target, suffix.get(target, '.ipynb'))})"

    def role(m):
        name, body = m.group(1), m.group(2)
        shown, _, target = body.partition(" <")
        explicit = bool(target)
        target = target.rstrip(">") if explicit else body
        if name.startswith("cite"):
            keys = [k.strip() for k in target.split(",") if k.strip()]
            refs = [index.bib.get(k, (k, "")) for k in keys]
            if name == "cite:t":
                return "; ".join(f"{who} ({year})" for who, year in refs)
            return "(" + "; ".join(f"{who}, {year}" for who, year in refs) + ")"
        if name == "doc":
            dest = _norm(_resolve_doc(doc, target))
            return link(shown if explicit else index.titles.get(dest, dest.rsplit("/", 1)[-1]), dest)
        if name == "ref":
            dest, title = index.labels.get(target, (doc, target))
            return link(shown if explicit else title, dest)
        if name == "numref":
            dest, caption = index.figures.get(target, (doc, ""))
            words = f"the figure “{caption}”" if caption else "the figure"
            return words if dest == doc else f"{words} in {link(index.titles.get(dest, dest), dest)}"
        if name == "term":
            return f"*{shown if explicit else target}*"
        return f"`{target.lstrip('~')}`"

    def md_link(m):  # a plain Markdown link to a page this copy leaves out
        dest = _norm(_resolve_doc(doc, m.group(2).rsplit(".", 1)[0]))
        return f"*{m.group(1)}* (in the HTML book)" if dest in index.absent else m.group(0)

    text = LABEL_LINE.sub("", text)
    text = re.sub(r"\[([^\]]+)\]\(([^)#\s:]+\.(?:md|ipynb))\)", md_link, text)
    return ROLE.sub(role, text)


def render_directives(text):
    """Exercise, solution and admonition fences as plain Markdown."""

    def fence(m):
        name, arg, body = m.group("name"), m.group("arg").strip(), m.group("body")
        lines = body.split("\n")
        opts = {}
        while lines and OPTION.match(lines[0]):
            k, v = OPTION.match(lines[0]).groups()
            opts[k] = v
            lines.pop(0)
        body = "\n".join(lines).strip("\n")
        if name == "glossary":  # terms flush left, their definitions indented under them
            out = []
            for ln in lines:
                if ln.strip() and not ln.startswith((" ", "\t")):
                    out.append(f"**{ln.strip()}**  ")
                else:
                    out.append(ln.strip())
            return "\n".join(out).strip("\n") + "\n"
        if name == "exercise":
            label = opts.get("label", "")
            head = f"**Exercise** (`{label}`)" + (f": {arg}" if arg else "")
        elif name == "solution-start":
            return f"**Solution** (`{arg}`)\n"
        elif name == "solution-end":
            return "\n---\n"
        else:
            head = f"**{arg or name.replace('-', ' ').capitalize()}**"
        quoted = "\n".join(("> " + ln) if ln.strip() else ">" for ln in body.split("\n"))
        return f"> {head}\n>\n{quoted}\n" if body else f"> {head}\n"

    prev = None
    while prev != text:  # nested fences (a note in an exercise) unwrap from the inside out
        prev = text
        text = FENCE.sub(fence, text)
    return text


def render_markdown(text, doc, index):
    return render_directives(render_roles(text, doc, index))


def render_notebook(nb, doc, index):
    """A copy of notebook ``nb`` (page ``doc``) with every Markdown cell in plain Markdown."""
    out = dict(nb)
    cells = []
    for cell in nb["cells"]:
        if cell["cell_type"] == "markdown":
            cell = dict(cell)
            cell["source"] = render_markdown(_source(cell), doc, index)
        cells.append(cell)
    out["cells"] = cells
    return out


def leftovers(text):
    """MyST constructs still present in ``text`` (what the tests check is empty)."""
    found = [m.group(0)[:40] for m in re.finditer(r"\{[a-z:-]+\}`[^`]*`", text)]
    found += [m.group(0)[:40] for m in re.finditer(r"^(`{3,}|:{3,})\{[a-z-]+\}", text, re.M)]
    return found
