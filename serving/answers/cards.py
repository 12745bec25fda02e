"""Document cards: a question that names one document and asks only its governance fields (who wrote or
approved it, its version, when it was issued, last reviewed or is next due, what it is about) is answered from
that document's catalog row, in the question's language, whatever language the document is written in and
however the question is worded ("quem fez e quem aprovou o POP de higiene das mãos? e qdo vence a revisao?",
"qdo vence a revisão do Data Retention Standard e quem elaborou?", "oq é o IT-TI-021?").

How a question is read:

- **Fields**: the lexicons' ``fields`` phrases (data per language, both languages tried), whole words, on the
  question with its abbreviations written out and its accents folded. A row that holds none of the fields asked
  leaves the question to the usual way.
- **The document**: among the catalog rows the caller may read, the one whose title the question covers best.
  A title term is covered by a question term equal to it, one being a prefix of the other ("higiene" covers
  "higienização"), one edit apart (a typo) when both are long, by its translation in the pt-en glossary, or by
  an acronym of consecutive title words ("SI": Segurança da Informação). A code the title carries
  (POP-ENF-014) names it alone. Otherwise at least ``MIN_COVERED`` title terms must be covered, and the question
  must also name a document type ("o POP de ...", "the standard") or cover the whole title (``MIN_SHARE``: "who
  is responsible for data retention" asks about a topic, "the Data Retention Standard" names the document). Two
  different titles covered alike name nothing; versions of one title give their newest, and documents
  sharing a title that no version number tells apart name nothing.
- **Nothing else**: every other content term of the question is an ask or filler word, a document-type word
  or a field word; a question that asks anything more (what the document says, a rule in it) is not a card.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache, lru_cache

from lakehouse.text import fold
from models.analysis import analyze, detect_language, written_out
from models.lexicon import lexicon
from serving.answers.agentic.references import CODE
from serving.answers.asking import phrase_pattern
from serving.answers.doctypes import DocTypes
from serving.answers.doctypes import key as type_key
from serving.answers.versions import asked_version
from serving.graph.bilingual import bridge
from serving.search.index import PUBLIC

__all__ = ["Card", "asked_fields", "card_of", "named_document", "one_edit", "respelled"]

MIN_COVERED = 2
MIN_SHARE = 1.0
MIN_TERM = 5  # prefix and typo tolerance only between terms this long
LEFTOVER = 0  # content terms a card question may hold beyond the document's name and the fields it asks
_ACRONYM = re.compile(r"\b[A-Z]{2,4}\b")
_LINKS = frozenset(["de", "do", "da", "dos", "das", "e", "para", "of", "the", "and", "for", "a", "o", "em", "no",
                    "na", "n", "nº", "to", "on", "in"])


@dataclass(frozen=True)
class Card:
    """The document a question names and the catalog columns it asks, in the order asked."""

    document_id: str
    fields: tuple[str, ...]


def _folded(question: str) -> str:
    text, _ = written_out(question, fillers=False)
    return " ".join(re.findall(r"[\w%]+", fold(text.lower())))


def asked_fields(question: str) -> tuple[tuple[str, ...], frozenset[str]]:
    """The catalog columns ``question`` asks (in the order asked) and the folded words asking them."""
    folded = _folded(question)
    found: list[tuple[int, str]] = []
    words: set[str] = set()
    for language in ("pt", "en"):
        for column, phrases in lexicon(language).fields.items():
            for phrase in phrases:  # each on its own: "foi revisada" and "revisada por ultimo" overlap
                for match in phrase_pattern((phrase,)).finditer(folded):
                    found.append((match.start(), column))
                    words.update(match.group(0).split())
    asked = tuple(dict.fromkeys(column for _, column in sorted(found) if column != "document"))
    return asked, frozenset(words)


def one_edit(a: str, b: str) -> bool:
    """At most one substitution, insertion or deletion apart."""
    if abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        return sum(x != y for x, y in zip(a, b, strict=True)) <= 1
    short, long = sorted((a, b), key=len)
    return any(long[:i] + long[i + 1:] == short for i in range(len(long)))


def _covers(q: str, t: str) -> bool:
    if q == t:
        return True
    if min(len(q), len(t)) >= MIN_TERM and (q.startswith(t) or t.startswith(q)):
        return True
    return min(len(q), len(t)) >= MIN_TERM + 1 and one_edit(q, t)


@dataclass(frozen=True)
class _Title:
    document_id: str
    title: str
    version: str
    terms: tuple[str, ...]  # analysed, the code's number left out
    initials: str  # first letters of the title's words (connecting words left out), for acronyms
    words: tuple[str, ...]  # the title's folded words, connecting words left out
    codes: frozenset[str]


@lru_cache(maxsize=100_000)
def _title(document_id: str, title: str, version: str = "") -> _Title:
    codes = frozenset(CODE.findall(title.upper()))
    language = detect_language(title) if title else "pt"
    numbers = {p.lower() for c in codes for p in c.split("-") if p.isdigit()} | {c.lower() for c in codes}
    terms = tuple(t for t in dict.fromkeys(analyze(title, language)) if t not in numbers and not t.isdigit())
    plain = [w for w in re.findall(r"[a-z0-9]+", fold(CODE.sub(" ", title.upper()).lower())) if w not in _LINKS]
    return _Title(document_id, title, version, terms, "".join(w[0] for w in plain), tuple(plain), codes)


@dataclass(frozen=True)
class _Titles:
    """The catalog's titles, and which documents hold each title term (by its first two letters) and code."""

    by_id: dict[str, _Title]
    buckets: dict[str, dict[str, frozenset[str]]]  # first two letters -> title term -> document ids
    codes: dict[str, frozenset[str]]


_TITLES: dict[int, tuple[Mapping, _Titles]] = {}


def _titles(rows: Mapping[str, Mapping]) -> _Titles:
    """The titles of ``rows`` (a catalog's rows: built once per catalog)."""
    kept = _TITLES.get(id(rows))
    if kept is not None and kept[0] is rows:
        return kept[1]
    by_id = {d: _title(d, str(r.get("title") or ""), str(r.get("version") or "")) for d, r in rows.items()}
    buckets: dict[str, dict[str, set[str]]] = {}
    codes: dict[str, set[str]] = {}
    for d, t in by_id.items():
        for term in t.terms:
            buckets.setdefault(term[:2], {}).setdefault(term, set()).add(d)
        for code in t.codes:
            codes.setdefault(code, set()).add(d)
    out = _Titles(by_id, {k: {t: frozenset(v) for t, v in b.items()} for k, b in buckets.items()},
                  {c: frozenset(v) for c, v in codes.items()})
    _TITLES.clear()
    _TITLES[id(rows)] = (rows, out)
    return out


def _version(v: str) -> tuple[int, ...]:
    return tuple(int(x) for x in re.findall(r"\d+", v)) or (0,)


def named_document(question: str, rows: Mapping[str, Mapping], readable: Callable[[Mapping], bool] | None = None,
                   doc_types: DocTypes | None = None) -> tuple[str, frozenset[str]] | None:
    """(document_id, the question's terms that name it) of the one document ``question`` names among the
    catalog ``rows`` the caller may read (``readable``), or None when it names none or several."""
    titles = _titles(rows)
    text, language = written_out(question, fillers=False)
    own = analyze(text, language)
    bridged = bridge(own, language)
    # read in the other language too: "Data Retention Standard" in a Portuguese question is English words
    q_terms = list(dict.fromkeys(own + analyze(text, "en" if language == "pt" else "pt")))
    codes = set(CODE.findall(question.upper()))
    acronyms = {a.lower() for a in _ACRONYM.findall(text) if a.upper() not in codes}
    named_types = doc_types.named(question) if doc_types else ()
    typed = bool(named_types)
    # the words naming those types ("protocolo gerenciado", "managed protocol") name no one document of them
    type_words = " ".join(n for n, t in doc_types.names.items() if t in named_types) if doc_types else ""
    type_terms = set(analyze(type_words, "pt")) | set(analyze(type_words, "en")) if type_words else set()
    covered: dict[str, dict[str, set[str]]] = {}  # document id -> title term -> the question's terms covering it
    for q in q_terms:
        for x in bridged.get(q, {q}):
            for term, ids in titles.buckets.get(x[:2], {}).items():
                if _covers(x, term):
                    for d in ids:
                        covered.setdefault(d, {}).setdefault(term, set()).add(q)
    by_code = {d for c in codes for d in titles.codes.get(c, ())}
    naming_codes = {c.lower() for c in codes} | {p.lower() for c in codes for p in c.split("-")}
    if acronyms:  # "SI": the initials of consecutive title words (a rare case: every title is read)
        for d, title in titles.by_id.items():
            for acronym in acronyms:
                if (at := title.initials.find(acronym)) >= 0:
                    for term in analyze(" ".join(title.words[at:at + len(acronym)]), "pt"):
                        covered.setdefault(d, {}).setdefault(term, set()).add(acronym)
    scored: list[tuple[tuple, _Title, frozenset[str]]] = []
    for d in set(covered) | by_code:
        title, row = titles.by_id.get(d), rows.get(d)
        if title is None or row is None or (readable is not None and not readable(row)):
            continue
        held = covered.get(d, {})
        share = len(held.keys() & set(title.terms)) / max(1, len(title.terms))
        # the type the question names, when it is this document's, counts as one term naming it ("the backup
        # SOP" names "POP-TI-003 - Backup e Restauração de Dados" as "o POP de backup" does)
        count = len(held) + (1 if row.get("doc_type") in named_types and not held.keys() & type_terms else 0)
        if d not in by_code and (count < MIN_COVERED or not (typed or share >= MIN_SHARE)
                                 or not held.keys() - type_terms):
            continue
        naming = {q for qs in held.values() for q in qs} | (naming_codes if d in by_code else set())
        scored.append(((d in by_code, len(held), share), title, frozenset(naming)))
    if not scored:
        return None
    scored.sort(key=lambda s: s[0], reverse=True)
    best = scored[0]
    rivals = [s for s in scored if s[0] == best[0]]
    if len({fold(s[1].title.lower()) for s in rivals}) > 1:  # two documents named alike: neither
        return None
    versions = [s[1].version for s in rivals]
    if len(rivals) > 1 and (not all(versions) or len(set(versions)) < len(versions)):
        return None  # one title, several documents no version tells apart (the sections of an article)
    newest = max(rivals, key=lambda s: (_version(s[1].version), s[1].document_id))
    return newest[1].document_id, newest[2]


def _leftover(question: str, naming: frozenset[str], field_words: frozenset[str], doc_types: DocTypes | None,
              title: str = "") -> list[str]:
    """The question's content terms that neither name the document, nor ask a field, nor ask at all."""
    text, language = written_out(question, fillers=True)
    lex = lexicon(language)
    asked = set()
    for words in (field_words, lex.asking, *(lex.asks.values())):
        for w in words:
            asked.update(analyze(w, language))
            asked.update(analyze(w, "en" if language == "pt" else "pt"))
    said = f" {type_key(question)} "
    named = [name for name in (doc_types.names if doc_types else {}) if f" {name} " in said]
    types = {t for name in named for t in [*analyze(name, language), *name.split()]}
    own = set(naming) | set(_title("", title).terms)
    words = re.findall(r"[a-z0-9]+", fold(title.lower()))
    out = []
    for term in dict.fromkeys(analyze(text, language)):
        if term in asked or term in types or any(_covers(term, n) for n in own) or any(
                w.startswith(term) for w in words):  # a stem of the title's word ("dat" of "Data")
            continue
        if term.isdigit() or term in {p.lower() for c in CODE.findall(question.upper()) for p in c.split("-")}:
            continue
        out.append(term)
    return out


@cache
def _field_words() -> frozenset[str]:
    return frozenset(w for language in ("pt", "en") for phrases in lexicon(language).fields.values()
                     for p in phrases for w in p.split() if len(w) >= MIN_TERM)


def respelled(question: str, known: Callable[[str], bool]) -> str:
    """``question`` with each word of 5 letters or more that the index does not hold (``known``) written as the
    word of the lexicons' ``fields`` one edit from it that makes the question ask a field or name a document
    ("deve ser revisdo", "o documetno"); a word two such words fit equally is left as typed."""
    vocabulary = _field_words()
    words = re.findall(r"[^\W\d_]+", question)
    for word in dict.fromkeys(words):
        folded = fold(word.lower())
        if len(folded) < MIN_TERM or folded in vocabulary or known(folded):
            continue
        near = [v for v in sorted(vocabulary) if abs(len(v) - len(folded)) <= 1 and (
            one_edit(folded, v) or _swapped(folded, v))]
        before = len(asked_fields(question)[1])
        fits = [(v, trial) for v in near
                if len(asked_fields(trial := re.sub(rf"\b{re.escape(word)}\b", v, question))[1]) > before]
        if len(fits) == 1:
            question = fits[0][1]
    return question


def _swapped(a: str, b: str) -> bool:
    """Two adjacent letters swapped ("documetno")."""
    if len(a) != len(b):
        return False
    diff = [i for i, (x, y) in enumerate(zip(a, b, strict=True)) if x != y]
    return len(diff) == 2 and diff[1] == diff[0] + 1 and a[diff[0]] == b[diff[1]] and a[diff[1]] == b[diff[0]]


def _described(question: str, doc_types: DocTypes | None) -> set[str]:
    """The folded words that follow a document type's name in the same clause ("o POP de coleta de sangue",
    "the protocol for chest pain"): they describe the document the question names."""
    if doc_types is None:
        return set()
    covered = doc_types.covered(question)
    out: set[str] = set()
    at, after = -1, False
    for m in re.finditer(r"[a-z0-9]+|[?,;!]", fold(question)):
        word = m.group(0)
        if not word[0].isalnum():
            after = False
            continue
        at += 1
        if at in covered:
            after = True
        elif word in ("e", "and", "ou", "or"):
            after = False
        elif after:
            out.add(word)
    return out


def card_of(question: str, rows: Mapping[str, Mapping], groups: frozenset[str],
            doc_types: DocTypes | None = None, known: Callable[[str], bool] | None = None,
            holds: Callable[[str, str], bool] | None = None) -> Card | None:
    """The card ``question`` asks for, among the catalog ``rows`` the caller (``groups``) may read; None when
    it asks no field, names no single document, asks something more, or the row holds none of the fields.
    ``known``: whether the index holds a word (one it does not hold may be a field's word typed off);
    ``holds(document_id, term)``: whether the document's text holds an analysed term. A word describing the
    document after its type's name ("o POP de coleta de sangue") that its text holds names it too."""
    if asked_version(question) is not None:  # "na versão 1 da política, qual era ...": a version selects a
        return None  # document to read, it is not its version field asked
    if known is not None:
        question = respelled(question, known)
    fields, field_words = asked_fields(question)
    if not fields:
        return None
    allowed = groups | {PUBLIC}
    named = named_document(question, rows, lambda r: bool(set(r.get("access_groups") or ()) & allowed), doc_types)
    if named is None:
        return None
    document_id, naming = named
    if "summary" in fields and len(fields) > 1:  # "qual a versão ...": the other fields, not what it is about
        fields = tuple(f for f in fields if f != "summary")
    row = rows[document_id]
    left = _leftover(question, naming, field_words, doc_types, str(row.get("title") or ""))
    if left and holds is not None:
        text, language = written_out(question, fillers=True)
        described = {t for w in _described(text, doc_types) for t in analyze(w, language)}
        left = [t for t in left if not (t in described and holds(document_id, t))]
    if len(left) > LEFTOVER:
        return None
    held = tuple(f for f in fields if row.get(f) not in (None, ""))
    if not held:
        return None
    return Card(document_id, held)
