"""The Chinese edition's message catalogs (tools/i18n.py).

* The pages in ``i18n.COMPLETE`` (every page once ``i18n.ALL_PAGES_COMPLETE`` is set) are
  100 % translated, with no fuzzy and no obsolete entry: a changed English paragraph makes
  its message fuzzy or new (``make po``) and fails here until it is translated again.
* Every translation keeps the roles of its English message that carry shared content:
  ``{glue}``/``{glue:text}`` (the computed numbers), ``{doc}``, ``{numref}``, ``{cite}``,
  ``{term}`` and the math, so numbers and links are identical in both editions.
* The catalogs hold exactly the messages of the English source (``make zh`` extracts them into
  ``_build/gettext`` with ``python tools/i18n.py pot`` and sets I18N_REQUIRED=1 to run this).
"""

from __future__ import annotations

import os
import re
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tools"))
import i18n  # noqa: E402

ROLE = re.compile(r"\{(glue(?::\w+)?|doc|numref|cite(?::\w+)?|term|ref|eq)\}`[^`]*`|\$[^$]+\$")


def test_every_page_has_a_catalog():
    pages = i18n.catalogs()
    assert pages, f"no catalogs under {i18n.CATALOGS}: run make po"
    for page in i18n.required_complete():
        assert page in pages, f"{page} has no catalog {i18n.CATALOGS / (page + '.po')}: run make po"


@pytest.mark.parametrize("page", i18n.required_complete())
def test_required_pages_are_complete(page):
    path = i18n.catalogs()[page]
    cat = i18n.read_catalog(path)
    untranslated = [m.id for m in cat if m.id and not m.fuzzy and not m.string]
    fuzzy = [m.id for m in cat if m.id and m.fuzzy]
    assert not untranslated and not fuzzy and not cat.obsolete, (
        f"{path}: {len(untranslated)} untranslated, {len(fuzzy)} fuzzy, {len(cat.obsolete)} obsolete; "
        f"translate them (a fuzzy one's English changed: check the msgstr, then delete the '#, fuzzy' line). "
        f"First: {(untranslated + fuzzy + list(cat.obsolete))[:3]}")


# a {term}, {ref} or {doc} role's visible text may be translated ({term}`总线带宽 <Bus bandwidth,
# busbw (总线带宽)>`, {ref}`张量并行放在哪里 <tp-where>`): what must stay is its target
LINK_TEXT = re.compile(r"\{(term|ref|doc)\}`(?:[^`<]*<([^`>]*)>|([^`]*))`")


def _roles(text):
    return sorted(LINK_TEXT.sub(lambda t: "{" + t.group(1) + "}<" + (t.group(2) or t.group(3)).strip() + ">",
                                m.group(0))
                  for m in ROLE.finditer(text))


@pytest.mark.parametrize("page", sorted(i18n.catalogs()))
def test_translations_keep_glue_links_and_math(page):
    bad = []
    for m in i18n.read_catalog(i18n.catalogs()[page]):
        if m.id and m.string and not m.fuzzy and _roles(m.id) != _roles(m.string):
            bad.append(f"  {m.id[:70]!r}\n    English: {_roles(m.id)}\n    Chinese: {_roles(m.string)}")
    assert not bad, (f"{page}: translations must keep every {{glue}}, {{doc}}, {{numref}}, {{cite}}, {{term}} "
                     "role and $math$ of the English message, unchanged (a {term}, {ref} or {doc} role "
                     "may translate its text, not its target):\n" + "\n".join(bad[:10]))


def test_catalogs_in_sync_with_the_english_source():
    # only right after the messages were extracted from the current text (make zh sets I18N_REQUIRED):
    # a _build/gettext left from an earlier run may describe an older text
    if not os.environ.get("I18N_REQUIRED"):
        pytest.skip("make zh checks this after extracting the messages (python tools/i18n.py pot)")
    if not i18n.POT.exists():
        pytest.fail(f"{i18n.POT} is missing: python tools/i18n.py pot")
    bad = i18n.out_of_sync()
    assert not bad, ("catalogs out of date with the English text; run `make po` and translate what it marks:\n"
                     + "\n".join(f"  {page}: {why}" for page, why in bad.items()))


def test_complete_switch_is_one_setting(monkeypatch):
    monkeypatch.setattr(i18n, "ALL_PAGES_COMPLETE", True)
    assert i18n.required_complete() == sorted(i18n.catalogs())


def test_the_sync_check_can_fail(tmp_path):
    """A changed English paragraph is reported as one new and one removed message."""
    from babel.messages.catalog import Catalog
    from babel.messages.pofile import write_po

    for page, path in i18n.catalogs().items():
        pot = Catalog()
        for m in i18n.read_catalog(path):
            if m.id:
                pot.add(m.id + (" Changed." if page == "book/preface" and m.id == "Preface" else ""))
        out = tmp_path / f"{page}.pot"
        out.parent.mkdir(parents=True, exist_ok=True)
        with open(out, "wb") as f:
            write_po(f, pot)
    assert i18n.out_of_sync(tmp_path) == {"book/preface": "1 new message(s), 1 removed, 0 obsolete"}


def _glossary_terms():
    """``[(English names, Chinese names)]`` from the glossary's headwords, ``English, ABBR (中文 / 别名)``."""
    out = []
    for m in i18n.read_catalog(i18n.catalogs()["book/appendix/glossary"]):
        mm = re.fullmatch(r"(.+?) \((.+)\)", m.id or "")
        if mm:
            out.append(([s.strip() for s in mm.group(1).split(",")],
                        [s.strip() for s in re.split(r" / |、|与", mm.group(2))]))
    return out


def _prose(text):
    """A message less its code, roles, link targets and HTML tags."""
    return re.sub(r"`[^`]*`|\{[a-z:]+\}|\]\([^)]*\)|<[^>]+>", " ", text)


@pytest.mark.parametrize("page", [p for p in i18n.required_complete() if p != "book/appendix/glossary"])
def test_glossary_terms_are_the_ones_used(page):
    """Where an English message names a glossary term, its translation uses the glossary's Chinese
    name (or keeps the English name, as for product names and collectives: NVLink, AllReduce; in
    any case, as "rank" is). A word that only looks like a term (the verb "rank", "zero" in
    non-return-to-zero, "lanes" inside math) is excused by a translator comment on its entry,
    ``# glossary: not Rank``, which ``make po`` keeps."""
    bad = []
    for m in i18n.read_catalog(i18n.catalogs()[page]):
        if not m.id or not m.string or m.fuzzy:
            continue
        english = _prose(m.id)
        excused = set()
        for comment in m.user_comments:
            if mm := re.fullmatch(r"glossary: not (.+)", comment.strip()):
                excused |= {w.strip() for w in mm.group(1).split(",")}
        for names, chinese in _glossary_terms():
            for name in names:
                # a single ordinary word ("overlap", "stage", "rank", "reduces the stutter") names the
                # term only in some sentences; where it is the term, the chapter links it and the roles
                # test keeps the link. Multi-word names and acronyms are checked here
                if name.isalpha() and name[0].isupper() and name[1:].islower():
                    continue
                if len(name) < 4 or " and " in name or not re.search(rf"\b{re.escape(name)}s?\b", english, re.I):
                    continue
                if name in excused:
                    break
                # "per direction" is 单向 where the headword says 单向带宽 (unidirectional bandwidth)
                accepted = names + chinese + [c.removesuffix("带宽") for c in chinese if len(c) > 3]
                if not any(n.lower() in m.string.lower() for n in accepted):
                    bad.append(f"  {name!r}: the glossary says {chinese}, the translation reads {m.string[:60]!r}")
                break
    assert not bad, f"{page}: glossary terms translated otherwise:\n" + "\n".join(bad)


def test_a_term_role_may_translate_its_text_not_its_target():
    assert _roles("see {ref}`Where TP lives <tp-where>`") == _roles("见 {ref}`张量并行放在哪里 <tp-where>`")
    assert _roles("see {ref}`Where TP lives <tp-where>`") != _roles("见 {ref}`张量并行放在哪里 <tp-how>`")
    role = "<Bus bandwidth, busbw (总线带宽)>"
    english = f"the {{term}}`bus bandwidth {role}` of {{term}}`AllReduce`, {{glue}}`x`"
    assert _roles(english) == _roles(f"{{term}}`总线带宽 {role}` 与 {{term}}`AllReduce`，{{glue}}`x`")
    assert _roles(english) != _roles("{term}`总线带宽 <Bus bandwidth>` 与 {term}`AllReduce`，{glue}`x`")
    assert _roles(english) != _roles(f"{{term}}`总线带宽 {role}` 与 AllReduce，{{glue}}`x`")
