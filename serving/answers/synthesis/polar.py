"""Yes or no to a question that compares names: "Are Medici and Senet both board games?", "Does Puneet Sira
also have one?" (after "Armando Iannucci has an OBE."), "Are Nantong and Jingdezhen in the same province?",
"O POP-ENF-014 e o POP-HIG-002 são ambos do mesmo departamento?". The words that make such a question are data
(``polar`` in the question lexicons); the names are the capitalised spans the question joins with "and"/"e".

The inner synthesizer's answer keeps its quoted evidence; a verdict line goes before it when what the evidence
says of each name decides one (a chunk titled by the name, else the units that name it, in the question's
language):

- both / also: the predicate is the question's other words ("board games", "American directors"). A predicate
  term stated of one name and not of another is a "no" that names both; every term stated of every name is a
  "yes"; a single name whose evidence states none of the predicate is a "no" that says the documents do not
  state it (some of it stated decides nothing).
- same X: the name each one's evidence writes beside X ("Jiangsu province", "province of Jiangxi"). Different
  names are a "no", a shared one a "yes".

No verdict otherwise: a name the evidence does not mention, a predicate no evidence states, the inner
synthesizer's refusal. Text inside the documents is only read for the names and words of the question.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from lakehouse.text import fold
from models.analysis import LANGUAGES, analyze, detect_language
from models.lexicon import lexicon
from serving.answers.compose import Draft
from serving.answers.grading import Question, held_terms
from serving.answers.relevance import terms
from serving.answers.sentences import split_units
from serving.answers.synthesis.base import Graded, Synthesizer

__all__ = ["Ask", "Polar", "parse", "verdict"]

# a word, a code ("CT-2024-0187") or a punctuation mark; names are runs of capitalised words
_TOKEN = re.compile(r"[\w’'][\w’'.-]*[\w]|[\w]|[^\w\s]")
# a sentence ends after a word of three letters or more ("OBE."), not after "Dr." or "E. B."
_SENTENCE = re.compile(r"(?<=\w\w\w[.!?])\s+(?=[A-ZÀ-Ý])")

WORDS = {
    "en": {"yes": "Yes", "no": "No", "both": "the documents say “{terms}” of {names}",
           "not_of": "the documents say “{terms}” of {a} but not of {b}",
           "absent": "not according to the documents: they do not say “{terms}” of {a}",
           "same": "{values}", "value": "{value} for {name}", "and": "and"},
    "pt": {"yes": "Sim", "no": "Não", "both": "os documentos dizem “{terms}” de {names}",
           "not_of": "os documentos dizem “{terms}” de {a}, mas não de {b}",
           "absent": "não segundo os documentos: eles não dizem “{terms}” de {a}",
           "same": "{values}", "value": "{value} para {name}", "and": "e"},
}


@dataclass(frozen=True)
class Ask:
    """A yes-or-no question that compares: ``kind`` both, also or same; the names it compares; the predicate's
    analysed terms (both, also) with the question's words for them, or the attribute (same)."""

    kind: str
    names: tuple[str, ...]
    terms: tuple[str, ...] = ()
    surface: dict[str, str] | None = None
    attribute: str = ""


def _capitalised(token: str) -> bool:
    return token[:1].isupper() or (any(c.isdigit() for c in token) and any(c.isupper() for c in token))


def _spans(tokens: list[str], connectors: frozenset[str], skip_first: bool) -> list[tuple[int, int]]:
    """(start, end) of each run of capitalised tokens, lower-case connectors inside ("Escape from the Dark")."""
    out: list[tuple[int, int]] = []
    i = 1 if skip_first else 0
    while i < len(tokens):
        if not _capitalised(tokens[i]):
            i += 1
            continue
        j = i + 1
        while j < len(tokens):
            if _capitalised(tokens[j]):
                j += 1
            else:
                k = j
                while k < len(tokens) and fold(tokens[k].lower()) in connectors:
                    k += 1
                if k == j or k == len(tokens) or not _capitalised(tokens[k]):
                    break
                j = k + 1
        out.append((i, j))
        i = j
    return out


def _groups(tokens: list[str], spans: list[tuple[int, int]], joins: frozenset[str],
            language: str) -> list[list[tuple[int, int]]]:
    """Runs of names joined by commas and the word for "and", articles between ("A, B and C", "o POP-1 e o
    POP-2"); no comma after the "and" ("A and B, British publications")."""
    groups: list[list[tuple[int, int]]] = []
    closed = False  # the last group's "and" was read
    for span in spans:
        if groups and not closed:
            between = [fold(t.lower()) for t in tokens[groups[-1][-1][1]:span[0]]]
            joined = [t for t in between if t == "," or t in joins]
            if joined and all(t == "," or t in joins or not analyze(t, language) for t in between):
                groups[-1].append(span)
                closed = any(t in joins for t in joined)
                continue
        groups.append([span])
        closed = False
    return groups


def _has(folded: str, phrases: tuple[str, ...]) -> str | None:
    return next((p for p in phrases if re.search(rf"(?<!\w){re.escape(p)}(?!\w)", folded)), None)


def parse(question: str, language: str) -> Ask | None:
    """The comparison a yes-or-no question asks, or None when it is not one."""
    if language not in LANGUAGES:
        return None
    lex = lexicon(language)
    words = lex.polar
    if not words:
        return None
    sentences = [s for s in _SENTENCE.split(question.strip()) if s.strip()]
    if not sentences:
        return None
    last = next((s for s in reversed(sentences) if "?" in s), sentences[-1])
    before = sentences[sentences.index(last) - 1] if sentences.index(last) > 0 else ""
    tokens = _TOKEN.findall(last)
    if not tokens:
        return None
    folded = fold(last.lower())
    first = fold(tokens[0].lower())
    opens = words.get("opens", ())
    if opens and first not in opens:
        return None
    if not opens and (first in lex.asking or any(folded.startswith(p) for p in lex.procedure)):
        return None
    both, same, also = (_has(folded, words.get(k, ())) for k in ("both", "same", "also"))
    connectors = frozenset(words.get("connectors", ()))
    skip = bool(opens) or not analyze(tokens[0], language)  # "Are", "O": the first word opens, it names nothing
    spans = _spans(tokens, connectors, skip)
    groups = _groups(tokens, spans, frozenset(words.get("and", ())), language)
    joined = max(groups, key=len, default=[])
    if same and len(joined) >= 2:
        after = _TOKEN.findall(folded.split(same, 1)[1])
        attribute = next((w for w in after if analyze(w, language)), "")
        if not attribute:
            return None
        return Ask("same", tuple(" ".join(tokens[a:b]) for a, b in joined), attribute=attribute)
    if len(joined) >= 2 and both:
        names, kind = joined, "both"
    elif also and spans:
        names, kind = [spans[0]], "also"
    else:
        return None
    marks = set(opens) | {w for k in ("both", "also", "and") for p in words.get(k, ()) for w in p.split()}
    # the predicate follows the names ("both board games", "also have one"); words before them describe them
    rest = [t for t in tokens[names[-1][1]:] if fold(t.lower()) not in marks]
    predicate = analyze(" ".join(rest), language)
    pronouns = set(words.get("pronouns", ()))
    if all(fold(t.lower()) in pronouns | set(words.get("verbs", ())) or not analyze(t, language)
           for t in rest if t.isalnum()) and before:  # "also have one": the object of the sentence before
        said = _TOKEN.findall(before)
        verbs = set(words.get("verbs", ()))
        at = next((i for i, t in enumerate(said) if fold(t.lower()) in verbs), None)
        predicate = analyze(" ".join(said[at + 1:]), language) if at is not None else []
        rest = said[at + 1:] if at is not None else []
    predicate = [t for t in dict.fromkeys(predicate) if t not in pronouns]
    if not predicate:
        return None
    surface: dict[str, str] = {}
    for word in rest:
        for t in analyze(word, language):
            surface.setdefault(t, word)
    return Ask(kind, tuple(" ".join(tokens[a:b]) for a, b in names), tuple(predicate), surface)


def _about(name: str, evidence: Graded) -> list[tuple[int, str]]:
    """(source number, text) of what the evidence says of ``name``: chunks titled by it, else units naming it,
    in the question's language."""
    key = fold(name.lower())
    titled, naming = [], []
    for item in evidence.retrieved.evidence:
        if item.n is None or item.kind != "chunk" or detect_language(item.text[:2000]) != evidence.language:
            continue
        if key in fold((item.title or "").lower()):
            titled.append((item.n, f"{item.title} {item.text}"))
        else:
            naming += [(item.n, u) for u in split_units(item.text) if key in fold(u.lower())]
    return titled or naming


def _elsewhere(q: Question, name: str, wanted: set[str], evidence: Graded) -> bool:
    """Does a chunk not retrieved, of a document titled by ``name``, state any of ``wanted``? A "no" is only
    said of what the whole document leaves out, not of what the search happened to bring back."""
    engine = evidence.request.engine if evidence.request is not None else None
    documents = getattr(engine, "documents", None)
    if not documents:
        return False
    key = fold(name.lower())
    ids = {i.document_id for i in evidence.retrieved.evidence
           if i.kind == "chunk" and i.document_id and key in fold((i.title or "").lower())}
    texts = engine.index.texts
    return any(held_terms(q, terms(texts[row], q.language)) & wanted for d in ids for row in documents.get(d, ()))


def _listed(names: list[str], language: str) -> str:
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} {WORDS[language]['and']} {names[-1]}"


def _values(attribute: str, text: str, language: str) -> set[str]:
    """The capitalised names ``text`` writes just before or after the attribute ("Jiangxi province", "the band
    Alphaville", "State of Louisiana"); the attribute's word ending a name ("United States") is not it."""
    tokens = _TOKEN.findall(text)
    stem = analyze(attribute, language)
    out: set[str] = set()
    for i, t in enumerate(tokens):
        if analyze(t, language) != stem or (_capitalised(t) and i > 0 and _capitalised(tokens[i - 1])):
            continue
        j = i
        while j > 0 and _capitalised(tokens[j - 1]):
            j -= 1
        if j < i:
            out.add(" ".join(tokens[j:i]))
            continue
        k = i + 1
        while k < len(tokens) and fold(tokens[k].lower()) in ("of", "the", "de", "da", "do"):
            k += 1
        m = k
        while m < len(tokens) and _capitalised(tokens[m]):
            m += 1
        if m > k:
            out.add(" ".join(tokens[k:m]))
    return out


def verdict(ask: Ask, evidence: Graded) -> tuple[str, list[int]] | None:
    """The verdict line and the sources it cites, or None when the evidence decides none."""
    language = evidence.language if evidence.language in WORDS else "en"
    said = WORDS[language]
    about = {name: _about(name, evidence) for name in ask.names}
    if not all(about.values()):
        return None
    first = {name: about[name][0][0] for name in ask.names}

    def cite(name: str) -> str:
        return f"{name} [{first[name]}]"
    if ask.kind == "same":
        values = {name: set().union(*(_values(ask.attribute, text, language) for _, text in about[name]))
                  - set(ask.names) for name in ask.names}
        if not all(values.values()):
            return None
        shared = set.intersection(*values.values())
        answer = said["yes"] if shared else said["no"]
        parts = [said["value"].format(value=sorted(shared or values[n])[0], name=cite(n)) for n in ask.names]
        return f"{answer}: {_listed(parts, language)}.", list(dict.fromkeys(first.values()))
    q = Question(" ".join(ask.names), language, {t: 1.0 for t in ask.terms}, dict(ask.surface or {}), (), None)
    held = {name: set().union(*(held_terms(q, terms(text, language)) for _, text in about[name]))
            for name in ask.names}
    stated = set().union(*held.values())
    if not stated and ask.kind != "also":
        return None

    def words(ts) -> str:
        return " ".join((ask.surface or {}).get(t, t) for t in ask.terms if t in ts)
    if ask.kind == "also":
        name = ask.names[0]
        if held[name] >= set(ask.terms):
            return f"{said['yes']}: {said['both'].format(terms=words(ask.terms), names=cite(name))}.", [first[name]]
        if held[name] or _elsewhere(q, name, set(ask.terms), evidence):  # some of it is said: nothing decided
            return None
        return f"{said['no']}, {said['absent'].format(terms=words(ask.terms), a=cite(name))}.", [first[name]]
    for b in ask.names:
        if (missing := stated - held[b]) and not _elsewhere(q, b, missing, evidence):
            a = next(n for n in ask.names if held[n] & missing)
            gap = missing & held[a]
            return (f"{said['no']}: {said['not_of'].format(terms=words(gap), a=cite(a), b=cite(b))}.",
                    [first[a], first[b]])
        if missing:
            return None
    if stated >= set(ask.terms):
        names = _listed([cite(n) for n in ask.names], language)
        return f"{said['yes']}: {said['both'].format(terms=words(stated), names=names)}.", list(first.values())
    return None


@dataclass
class Polar:
    """``inner``'s answer, after the verdict line when the question is a yes-or-no comparison the evidence
    decides (``parse``, ``verdict``); ``inner``'s draft alone otherwise, its refusal included."""

    inner: Synthesizer
    name: str = ""

    def __post_init__(self) -> None:
        self.name = self.name or self.inner.name

    def draft(self, evidence: Graded) -> Draft | None:
        out = self.inner.draft(evidence)
        if out is None or out.status not in ("answered", "partial") or (ask := parse(evidence.question,
                                                                                     evidence.language)) is None:
            return out
        decided = verdict(ask, evidence)
        if decided is None:
            return out
        line, cited = decided
        return Draft(f"{line}\n{out.text}", list(dict.fromkeys([*cited, *out.cited])), out.status, out.generator,
                     list(out.warnings), out.streamed)
