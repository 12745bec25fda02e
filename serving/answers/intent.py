"""What a question asks for: a catalog listing (the metadata fast path), a corpus-wide question, a compound one
or a plain lookup. ``route`` is the ``auto`` mode's choice, made by the fitted router (``serving.answers.router``);
this module reads the catalog filters a listing asks for.

A listing's filters are governance predicates: review due within N days or by the end of this week, month or
year (the lexicons' ``periods``), review overdue, a department, an
approver, a person responsible, or a document type (``serving.answers.doctypes``). Names are matched against the
catalog's own values, accent- and case-insensitively.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace
from functools import cache

import numpy as np

from lakehouse.text import fold as base_fold
from models.analysis import analyze
from models.lexicon import lexicon
from serving.answers import router
from serving.answers.cards import one_edit
from serving.answers.catalog import CatalogQuery
from serving.answers.doctypes import DocTypes

_EXIST = re.compile(r"\b(existem|existe|ha|temos|tem|exist|are there|do we have)\b")
_LISTING = re.compile(r"\b(quais|which|what|existem|exist|lista\w*|list)\b")
_ANY = re.compile(r"\b(algum|alguma|algum deles|any|some of them)\b")
_DUE = re.compile(r"(?:proxim[oa]s|nos|em|next|within|in the next)\s+(\d{1,4})\s+(?:dias|days)")
_OUTDATED = re.compile(r"revisao vencida|revisoes vencidas|vencid[oa]s?\b|\bvenc(?:eram|eu)\b|\bexpir(?:aram|ou)\b|"
                       r"desatualizad|atrasad|overdue|outdated|past due|out of date|expired")


@cache
def _periods() -> tuple[re.Pattern, dict[str, str]]:
    """The lexicons' current-period phrases ("este mês", "by the end of the year") as one pattern, and each
    period word's period."""
    this, units = set(), {}
    for language in ("pt", "en"):
        lex = lexicon(language)
        this.update(lex.period_words)
        units.update(lex.periods)
    alternatives = "|".join(sorted(map(re.escape, this), key=len, reverse=True))
    return re.compile(rf"\b(?:{alternatives})\s+({'|'.join(map(re.escape, units))})\b"), units


_YEAR = re.compile(r"(?<![\w/.-])((?:19|20|21)\d\d)(?![\w/.-])")  # a year standing alone, not in a code or date
_DUE_WORD = re.compile(r"\b(vencem|vence|vencer|vencendo|vencerao|vencera|vencimento|revis\w*|due|expir\w*|"
                       r"review\w*)\b")
_APPROVER = re.compile(r"\b(aprov\w*|approv\w*)\b")
_RESPONSIBLE = re.compile(r"\b(elabor\w*|respons\w*|prepar\w*|owner\w*|autor\w*|author\w*|dono)\b")
_DEPARTMENT = re.compile(r"\b(departamento|setor|area|department|team)\b")
_CODE = re.compile(r"\b[a-z]{2,5}(?:-[a-z]{2,4})?-\d{2,4}(?:-\d{2,4})?\b")
_HONORIFIC = re.compile(r"^(?:dr|dra|enf|farm|nutr|prof|sr|sra)\.?\s+")


def fold(text: str) -> str:
    """``lakehouse.text.fold`` with runs of whitespace collapsed."""
    return " ".join(base_fold(text).split())


def doc_types_in(question: str, known: list[str]) -> tuple[str, ...]:
    """Document types named in the question (longest name wins: "protocolo gerenciado" over "protocolo")."""
    return _doc_types(tuple(known)).named(question)


@cache
def _doc_types(known: tuple[str, ...]) -> DocTypes:
    return DocTypes.of(known)


def doc_types_of(known: list[str]) -> DocTypes:
    """The catalog's document types and the words naming each (cached per list of types)."""
    return _doc_types(tuple(known))


def names_in(question: str, values: list[str], partial: bool = False) -> list[str]:
    """Catalog values (people, departments) named in the question, with or without an honorific; a name of
    several words also with one of its long words typed one letter off ("Vasconscelos"). ``partial`` (people):
    when none is named whole, the one person a part of a name names ("Dr. Roberto", "Almeida Queiroz")."""
    text = " " + re.sub(r"[^\w\s.]", " ", fold(question)) + " "
    words = re.findall(r"\w+", text)
    # a department named in English ("nursing") or in Portuguese ("segurança da informação") names the value
    # written in the other language too (the lexicon's ``departments``)
    english = lexicon("en").departments
    other = {pt: en for en, pt in english.items()}
    found = []
    for value in values:
        folded = fold(value)
        bare = _HONORIFIC.sub("", folded)
        names = {folded, bare} | {n for n in (english.get(folded), other.get(folded)) if n}
        if any(len(v) > 3 and f" {v} " in text.replace("?", " ") for v in names) or _typed(bare, words):
            found.append(value)
    if partial and not found:
        named = [value for value in values if _part_of(_HONORIFIC.sub("", fold(value)), text, question)]
        found = named if len(named) == 1 else []  # a part two people share names neither
    return found


_INITIALS = re.compile(r"\b[A-Z]{2,4}\b")
_LINK_WORDS = frozenset({"de", "da", "do", "das", "dos", "e", "of", "and", "the", "for"})


def initialled(question: str, values: list[str]) -> list[str]:
    """The values (departments) whose words' initials a word of the question written in capitals is ("TI" for
    Tecnologia da Informação, "IT" for Information Technology, "RH" for Recursos Humanos)."""
    asked = {w.lower() for w in _INITIALS.findall(question)}
    if not asked:
        return []
    english = lexicon("en").departments
    other = {pt: en for en, pt in english.items()}

    def initials(name: str) -> str:
        return "".join(w[0] for w in re.findall(r"\w+", name) if w not in _LINK_WORDS)
    # a value written in one language is named by its initials in the other too ("TI" names "Information
    # Technology", "IT" names "Tecnologia da Informação": the lexicon's ``departments``)
    return [v for v in values
            if any(initials(n) in asked for n in (fold(v), english.get(fold(v)), other.get(fold(v))) if n)]


def _part_of(name: str, text: str, question: str) -> bool:
    """Two consecutive words of ``name`` (a person's, of three words or more) in ``text`` (the folded
    ``question``), or its first or last word alone, not followed by another capitalised word ("dr. roberto", "a
    vanessa", "o queiroz"; "Helena Prada Vasconscelos" is someone else)."""
    own = [w for w in re.findall(r"\w+", name) if len(w) > 2]
    if len(own) < 3:
        return False
    plain = text.replace(".", " ")
    if any(f" {a} {b} " in plain for a, b in zip(own, own[1:], strict=False)):
        return True
    tokens = re.findall(r"\w+", question)
    return any(fold(t) in (own[0], own[-1]) and len(t) >= 4 and not (i + 1 < len(tokens) and tokens[i + 1][0].isupper())
               for i, t in enumerate(tokens))


def _typed(name: str, words: list[str]) -> bool:
    """The words of ``name`` (two or more) in a row in ``words``, one of them (of 5 letters or more) one edit
    off."""
    own = re.findall(r"\w+", name)
    if len(own) < 2:
        return False
    for at in range(len(words) - len(own) + 1):
        pairs = list(zip(own, words[at:at + len(own)], strict=True))
        off = [(a, b) for a, b in pairs if a != b]
        if len(off) == 1 and min(len(off[0][0]), len(off[0][1])) >= 5 and one_edit(*off[0]):
            return True
    return False


_PREDICATES = (_DUE_WORD, _OUTDATED, _APPROVER, _RESPONSIBLE, _DEPARTMENT)
_LETTERS = "abcdefghijklmnopqrstuvwxyz"


def _edits(word: str) -> set[str]:
    """The words one deletion, transposition, substitution or insertion from ``word``."""
    splits = [(word[:i], word[i:]) for i in range(len(word) + 1)]
    deleted = {a + b[1:] for a, b in splits if b}
    swapped = {a + b[1] + b[0] + b[2:] for a, b in splits if len(b) > 1}
    replaced = {a + c + b[1:] for a, b in splits if b for c in _LETTERS}
    return deleted | swapped | replaced | {a + c + b for a, b in splits for c in _LETTERS}


def respelled(text: str, known: Callable[[str], bool]) -> str:
    """``text`` (folded) with each word of 5 letters or more that the index does not hold (``known``) and that
    names no predicate replaced by the word one edit away that makes it name one ("revisao vencidda", "vecem")."""
    words = text.split()
    for i, word in enumerate(words):
        bare = word.strip("?.,;:!")
        if len(bare) < 5 or not bare.isalpha() or known(bare):
            continue
        before = sum(len(p.findall(text)) for p in _PREDICATES)
        for candidate in sorted(_edits(bare)):
            trial = " ".join([*words[:i], word.replace(bare, candidate), *words[i + 1:]])
            if sum(len(p.findall(trial)) for p in _PREDICATES) > before:
                words[i] = word.replace(bare, candidate)
                text = " ".join(words)
                break
    return text


def _documents_of(text: str, department: str) -> bool:
    """``text`` (folded) names documents of ``department``: a word for documents, then "da"/"do"/"of" and the
    department's name ("algum documento da qualidade", "docs do RH")."""
    words = {w for lang in ("pt", "en") for w in lexicon(lang).fields.get("document", ())}
    name = fold(department)
    return any(re.search(rf"\b{re.escape(w)}\s+(?:da|do|de|das|dos|of the|of|from the|from)\s+{re.escape(name)}\b",
                         text) for w in words)


def catalog_query(question: str, departments: list[str], people: dict[str, list[str]],
                  doc_types: list[str], known: Callable[[str], bool] | None = None) -> CatalogQuery | None:
    """The catalog query a listing question asks, or None when it names no governance predicate; ``known``:
    whether the index holds a word (a word it does not hold may be a predicate's word typed off, ``respelled``)."""
    text = fold(question)
    if known is not None:
        text = respelled(text, known)
    q = CatalogQuery(doc_types=doc_types_in(question, doc_types))
    predicate = False
    if (m := _DUE.search(text)) and _DUE_WORD.search(text):
        q, predicate = replace(q, due_within_days=int(m.group(1))), True
    elif (m := _periods()[0].search(text)) and _DUE_WORD.search(text):  # "vencem este mês": up to its end
        q, predicate = replace(q, due_by=_periods()[1][m.group(1)]), True
    elif len(years := set(_YEAR.findall(text))) == 1 and _DUE_WORD.search(text):  # "vencem em 2027"
        q, predicate = replace(q, due_year=int(years.pop())), True
    if _OUTDATED.search(text):
        predicate = True
        # "which X exist, and is any overdue?": show them all, do not filter; "tem algum X vencido?" filters
        if not (_ANY.search(text) and q.doc_types and _LISTING.search(text)):
            q = replace(q, outdated=True)
    if _APPROVER.search(text) and (found := names_in(question, people.get("approver", []), partial=True)):
        q, predicate = replace(q, approver=found[0]), True
    if _RESPONSIBLE.search(text) and (found := names_in(question, people.get("responsible", []), partial=True)):
        q, predicate = replace(q, responsible=found[0]), True
    found = names_in(question, departments) or (initialled(question, departments) if _DEPARTMENT.search(text)
                                                 else [])
    # a long name needs no "departamento"; nor one that documents belong to ("documentos da Qualidade")
    if found and (_DEPARTMENT.search(text) or len(found[0]) > 12 or _documents_of(text, found[0])):
        q, predicate = replace(q, departments=tuple(found)), True
    if q.doc_types and _EXIST.search(text):
        predicate = True
    if not predicate:
        return None
    shown = [c for c, rx in (("approver", _APPROVER), ("responsible", _RESPONSIBLE)) if rx.search(text)]
    return replace(q, show=tuple(shown))


def plain_listing(question: str, departments: list[str], doc_types: list[str],
                  language: str | None = None, people: dict[str, list[str]] | None = None) -> CatalogQuery | None:
    """A question that only asks for a list of documents: it names a document type, a department or a person
    of the catalog, and each of its other words is a listing word (the lexicons' ``listing``: "lista", "todos",
    "how many"), a word for documents or departments, a word asking who wrote or approved them, or a word with
    no content ("lista de todos os POPs", "quais são os protocolos gerenciados da enfermagem?", "list all the
    policies", "which policies did Dr. Roberto approve?"). Its listing filters by them (a person through
    ``catalog_query``); None for a question with any other word ("quais são os protocolos de sepse?")."""
    types = doc_types_of(doc_types)
    named = types.named(question)
    found = names_in(question, departments) or initialled(question, departments)  # "da TI"
    persons = [p for values in (people or {}).values() for p in names_in(question, values, partial=True)]
    if not named and not found and not persons:
        return None
    languages = (language,) if language in ("pt", "en") else ("pt", "en")
    allowed = {w for lang in languages for w in (*lexicon(lang).listing, *lexicon(lang).fields.get("document", ()))}
    english = lexicon("en").departments
    other = {pt: en for en, pt in english.items()}
    allowed |= {w for d in found for name in (base_fold(d), english.get(fold(d)), other.get(fold(d))) if name
                for w in re.findall(r"[a-z0-9]+", name)}
    allowed |= {w.lower() for w in _INITIALS.findall(question) if initialled(w, departments)}
    if persons:  # the words of their names and of the fields that name them ("aprovou", "wrote")
        allowed |= {w for p in persons for w in re.findall(r"[a-z0-9]+", base_fold(p))}
        allowed |= {w for lang in languages for column in ("approver", "responsible")
                    for phrase in lexicon(lang).fields.get(column, ()) for w in phrase.split()}
        allowed |= {"dr", "dra", "sr", "sra", "enf", "farm", "nutr", "prof", "by", "por", "pela", "pelo"}
    covered = types.covered(question)
    for i, word in enumerate(re.findall(r"[a-z0-9]+", base_fold(question))):
        if i in covered or word in allowed or _DEPARTMENT.fullmatch(word):
            continue
        if all(analyze(word, lang) for lang in languages):  # a word with content: something to search for
            return None
    if persons:
        query = catalog_query(question, departments, people or {}, doc_types)
        return query if query is not None and (query.approver or query.responsible) else None
    return CatalogQuery(doc_types=named, departments=tuple(found))


def route(question: str, has_graph: bool, departments: list[str], people: dict[str, list[str]],
          doc_types: list[str], vector: np.ndarray | None = None,
          model_id: str | None = None, language: str | None = None,
          known: Callable[[str], bool] | None = None) -> tuple[str, CatalogQuery | None]:
    """The mode ``auto`` picks: catalog for a plain listing (``plain_listing``), else from the router's ranking:
    catalog (when the listing names a predicate; the
    next route otherwise), global (corpus-wide; basic without a graph index), agentic (compound), else hybrid
    when several codes are named and a graph exists, else basic. ``vector`` (the question's embedding by the
    snapshot's encoder ``model_id``) selects the router's dense head; ``language``: the question's, read with
    the index's language shares (a short question no word decides is read in the index's main language)."""
    if (listing := plain_listing(question, departments, doc_types, language, people)) is not None:
        return "catalog", listing  # nothing but a list of documents is asked: the router need not weigh it
    names = router.Names(_doc_types(tuple(doc_types)), tuple(departments),
                         tuple(v for values in people.values() for v in values))
    for name, _ in router.load().ranked(question, names, vector, model_id, language):
        if name == "catalog":
            if (query := catalog_query(question, departments, people, doc_types, known)) is not None:
                return "catalog", query
            continue
        if name == "corpus" and has_graph:
            return "global", None
        if name == "compound":
            return "agentic", None
        break
    if has_graph and len(set(_CODE.findall(fold(question)))) >= 2:
        return "hybrid", None
    return "basic", None
