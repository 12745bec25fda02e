"""Global search built at query time (the LazyGraphRAG idea): communities are an index-time structure, every
summary is deferred to the question and built from the chunks the caller may read.

0. a question that names its documents' subject ("os documentos de controle de infecção e de saúde do
   colaborador") keeps to the documents with a sentence or title line stating all of a subject's terms, and
   those terms leave the coverage below (they say where to look);
1. rank the communities of a level by relevance to the question: the BM25 and dense scores of their members'
   readable evidence chunks (mean of each community's best ``PER_COMMUNITY``), each scaled to its best
   community, summed; the BM25 part is the better of the question's and its glossary translation's
   (``bilingual``), so a document in the other language (an English playbook, a Portuguese policy) competes;
2. within the best ``TOP_COMMUNITIES``, take their best chunks and the best chunk of each of their best
   documents (one long document must not crowd out the others);
3. keep the sentences (units) that address the question: IDF-weighted coverage of its terms (a Portuguese
   term also through a specific enough member of its word family: "respondidas" for "resposta"), a unit in the
   other language through the terms' translations (stricter: ``CROSS_COVERAGE`` of the content terms, the
   value asked for stated, its document quoted once); never a sentence that addresses an assistant;
4. a theme per community: its most connected visible member names, and quotes from as many distinct documents
   as it has (at least two where they exist), each quote citing its chunk.

No text of a chunk the caller cannot read, and no name of an entity without a readable chunk, can reach a
theme: the material is the caller's readable chunks, selected at query time. With an LLM, the same material
goes through map (points rated 0-100 per community) and reduce, whose citations are checked against it."""

from __future__ import annotations

import math
import re
import time
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from models.analysis import analyze, detect_language
from models.injection import is_injection
from serving.graph import bilingual
from serving.graph.graph_store import GraphStore, Report
from serving.graph.visibility import View

TOP_COMMUNITIES = 6
PER_COMMUNITY = 4  # chunks per community that rank it and that it contributes
QUOTES = 4  # documents quoted per theme (one unit each, or up to VALUES_PER_DOC that state a value asked for)
VALUES_PER_DOC = 3
MIN_COVERAGE = 0.2
MIN_DOCUMENTS = 3  # fewer documents quoted: the best other readable chunks fill a last theme ("other documents")
FILL_CHUNKS = 40  # best-scoring readable chunks searched for that theme
FILL_SCORE = 0.5  # ... among those scoring at least this share of the best chunk's score
FILL_COVERAGE = 1.5 * MIN_COVERAGE  # ... and covering the question this much (no community vouches for them)
# A unit in the other language than the question's is matched through translations (``bilingual``), a looser
# match: it must cover this share of the question's content terms (its scope words, "nos documentos da
# organização", left out), most of what is asked and not one shared word ("supplier", "infection control").
# Only the terms a unit there can hold count: those with a translation, codes and numbers ("What time targets do
# the managed protocols set?": "set" has none). Dev rewordings: 1 partly -> correct, 1 wrong and 1 declined ->
# partly; test: 1 wrong and 1 declined -> partly; nothing lost.
CROSS_COVERAGE = 0.5
OTHER = "other"  # that theme's id (it has no title: it is no community)
# words that say where to look, not what: "nos documentos da organização", "across the organisation's documents"
# (with the verb that says they are there: "aparecem nos documentos da organização", "os documentos ... definem")
_THERE = r"(?:aparecem|constam|existem|definem|estabelecem|preveem|appear|exist|define|set)"
_SCOPE = re.compile(rf"(?:\b{_THERE}\s+)?\b(?:(?:n|d)?[oa]s\s+)?documentos\s+d[ao]\s+"
                    rf"(?:organiza[çc][ãa]o|empresa|hospital|institui[çc][ãa]o)(?:\s+{_THERE}\b)?|"
                    rf"(?:\b{_THERE}\s+)?\b(?:across\s+|in\s+)?the\s+(?:organi[sz]ation|company|hospital)'?s?\s+"
                    rf"documents|\b(?:os\s+)?documentos\s+(?:definem|aparecem)", re.IGNORECASE)
# the subject a question names for the documents it asks about: "os documentos de controle de infecção e de saúde
# do colaborador definem", "the documents on supplier onboarding" (not the whole collection: "da organização")
_SUBJECT = re.compile(r"\bdocumentos\s+(?:de|do|da|dos|das|sobre)\s+(?!(?:organizacao|empresa|hospital|instituicao)\b)"
                      rf"(.+?)(?=\s+{_THERE}\b|[?.,;:]|$)|\bdocuments\s+(?:on|about)\s+(?!the\s)(.+?)"
                      rf"(?=\s+{_THERE}\b|[?.,;:]|$)")
_AND = re.compile(r"\s+(?:e|ou|and|or)\s+")
_BOUNDARY = re.compile(r"(?<=[.!?;])\s+(?=[A-ZÀ-Ý0-9\"“(])")


def units(text: str) -> list[str]:
    """Sentences, list items and table rows of a chunk (its "[Title — Section]" line and headings left out)."""
    out: list[str] = []
    header: list[str] | None = None
    for line in text.splitlines():
        line = line.strip()
        if not line.startswith("|"):
            header = None
        if not line or line.startswith(("#", "[")) or set(line) <= set("|-: "):
            continue
        if line.startswith("|"):
            cells = [c.strip() for c in line.strip("|").split("|")]
            if header is None:
                header = cells
            else:
                out.append("; ".join(f"{h}: {c}" if h else c for h, c in zip(header, cells, strict=False) if c))
            continue
        out.extend(s.strip() for s in _BOUNDARY.split(line) if len(s.strip()) > 15)
    return [u.replace("**", "") for u in out]


@dataclass
class Quote:
    row: int
    text: str
    score: float
    translated: bool = False  # matched through translations (a document in the other language)


@dataclass
class Theme:
    community_id: str
    title: str
    score: float
    quotes: list[Quote] = field(default_factory=list)


_INCIDENCE: dict[tuple[int, int], tuple[GraphStore, list[str], sp.csr_matrix]] = {}


def community_chunks(store: GraphStore, level: int) -> tuple[list[str], sp.csr_matrix]:
    """(community ids of ``level``, community x chunk-row incidence), cached per store and level."""
    key = (id(store), level)
    kept = _INCIDENCE.get(key)
    if kept is not None and kept[0] is store:
        return kept[1], kept[2]
    ids = sorted(c for c, (lvl, _) in store.communities.items() if lvl == level)
    members = sp.lil_matrix((len(ids), len(store.entity_ids)), dtype=np.float32)
    for i, community in enumerate(ids):
        for position in store.communities[community][1]:
            members[i, position] = 1.0
    incidence = (members.tocsr() @ store.entity_chunks).tocsr()
    incidence.data[:] = 1.0
    if len(_INCIDENCE) > 8:
        _INCIDENCE.clear()
    _INCIDENCE[key] = (store, ids, incidence)
    return ids, incidence


def _scaled(values: np.ndarray) -> np.ndarray:
    top = float(values.max()) if values.size else 0.0
    return values / top if top > 0 else np.zeros_like(values)


def chunk_scores(view: View, question: str) -> np.ndarray:
    """BM25 + dense similarity of every chunk, each scaled to its best readable chunk; 0 outside the mask.
    The BM25 part is the better of the question's own and that of its translation into the other language
    (``bilingual``), so that a document written in the other language is not ranked on its dense part alone."""
    sparse_index = view.store.index.sparse
    sparse = _scaled(np.where(view.mask, sparse_index.scores(question), 0.0))
    language = detect_language(question)
    translated = bilingual.translate(question, language)
    if translated:
        other = sparse_index.scores(translated, bilingual.OTHER[language])
        sparse = np.maximum(sparse, _scaled(np.where(view.mask, other, 0.0)))
    dense = np.clip(view.chunk_similarity, 0.0, None)  # already 0 outside the mask
    return (sparse + _scaled(dense)).astype(np.float32)


def rank_communities(view: View, level: int, scores: np.ndarray) -> list[tuple[str, float, np.ndarray]]:
    """(community id, score, the readable chunk rows it contributes), best first; communities with nothing
    readable or nothing relevant are left out. A community is ranked by its best ``PER_COMMUNITY`` rows and
    contributes those and the best row of each of its best ``QUOTES`` documents: a theme quotes one sentence
    per document, so three chunks of one long document must not crowd out the next document's best one."""
    ids, incidence = community_chunks(view.store, level)
    documents = view.store.index.document_ids
    ranked = []
    for i, community in enumerate(ids):
        rows = incidence.indices[incidence.indptr[i]:incidence.indptr[i + 1]]
        rows = rows[view.mask[rows]]
        if not rows.size:
            continue
        ordered = rows[np.lexsort((rows, -scores[rows]))]
        best = ordered[:PER_COMMUNITY]
        score = float(scores[best].mean())
        if score > 0:
            first: dict[str, int] = {}
            for row in ordered.tolist():
                if len(first) >= QUOTES:
                    break
                if scores[row] > 0:
                    first.setdefault(documents[row], row)
            extra = [r for r in first.values() if r not in set(best.tolist())]
            ranked.append((community, score, np.concatenate([best, np.array(extra, dtype=best.dtype)])))
    ranked.sort(key=lambda c: (-c[1], c[0]))
    return ranked[:TOP_COMMUNITIES]


def _weights(view: View, question: str, language: str) -> dict[str, float]:
    return {term: _idf(view, term) for term in dict.fromkeys(analyze(question, language))}


def _idf(view: View, term: str, df: int | None = None) -> float:
    sparse = view.store.index.sparse
    n = max(sparse.matrix.shape[0], 1)
    if df is None:
        column = sparse.vocabulary.get(term)
        df = 0 if column is None else int(sparse.matrix.indptr[column + 1] - sparse.matrix.indptr[column])
    return math.log(1 + (n - df + 0.5) / (df + 0.5))


def _title(view: View, community: str, limit: int = 3) -> str:
    """The community's most evidenced member names the caller can see (through readable chunks)."""
    positions = [p for p in view.store.communities[community][1] if view.entity_visible(p)]
    positions.sort(key=lambda p: (-view.entity_counts[p], view.store.names[p]))
    return ", ".join(view.store.names[p] for p in positions[:limit])


def restrict(view: View, doc_types: tuple[str, ...]) -> View:
    """The view narrowed to chunks of ``doc_types`` (a question that names them: "os protocolos clínicos"),
    unless none of the caller's chunks is of those types."""
    if not doc_types:
        return view
    wanted = np.isin(view.store.index.doc_types.astype(str), list(doc_types))
    mask = view.mask & wanted
    if not mask.any():
        return view
    return View.of(view.store, view.groups, mask, view.readable, view.chunk_similarity)


def subjects(question: str, language: str) -> list[tuple[str, ...]]:
    """The subjects a question names for its documents, each as its index terms: "os documentos de controle de
    infecção e de saúde do colaborador" -> [("control", "infecca"), ("saud", "colabor")]."""
    folded = "".join(c for c in unicodedata.normalize("NFKD", question.lower()) if not unicodedata.combining(c))
    out = []
    for match in _SUBJECT.finditer(folded):
        for part in _AND.split(match.group(1) or match.group(2)):
            terms = tuple(dict.fromkeys(analyze(part, language)))
            if terms and terms not in out:
                out.append(terms)
    return out


def restrict_subjects(view: View, question: str, language: str) -> tuple[View, set[str]]:
    """The view narrowed to the documents that name one of the question's subjects (all of its terms in one
    sentence or title line of a readable chunk), unless none does: "os documentos de controle de infecção e de
    saúde do colaborador" keeps the hand-hygiene procedure (audited by the "Comissão de Controle de Infecção") and
    the staff vaccination notice ("Serviço de Saúde Ocupacional ... colaboradores"), not the sepsis protocol (an
    infection, and a "Controle do documento" table). Also the subjects' terms, which then say where to look."""
    named = subjects(question, language)
    if not named:
        return view, set()
    index = view.store.index
    sparse = index.sparse
    kept: set[str] = set()
    for terms in named:
        rows = np.flatnonzero(view.mask)
        for term in terms:
            column = sparse.vocabulary.get(term)
            having = [] if column is None else sparse.matrix.indices[sparse.matrix.indptr[column]:
                                                                     sparse.matrix.indptr[column + 1]]
            rows = np.intersect1d(rows, having)
        for row in rows.tolist():
            if index.document_ids[row] in kept:
                continue
            own = detect_language(index.texts[row])
            sentences = (s for line in index.texts[row].splitlines() for s in _BOUNDARY.split(line))
            if any(set(terms) <= set(analyze(s, own)) for s in sentences):
                kept.add(index.document_ids[row])
    if not kept:
        return view, set()
    mask = view.mask & np.isin(np.asarray(index.document_ids, dtype=object), list(kept))
    return View.of(view.store, view.groups, mask, view.readable, view.chunk_similarity), {t for n in named for t in n}


def build_themes(view: View, question: str, level: int, doc_types: tuple[str, ...] = (),
                 answers: Callable[[str], bool] | None = None) -> tuple[list[Theme], dict[str, float]]:
    """The themes; ``answers`` (when the question asks for a kind of value: a deadline, an amount) says
    whether a sentence states one, and a sentence matched only through translations must."""
    started = time.perf_counter()
    language = detect_language(question)
    view, where = restrict_subjects(restrict(view, doc_types), question, language)
    index = view.store.index
    weights = _weights(view, question, language)
    weights = {t: w for t, w in weights.items() if t not in where} or weights
    total = math.fsum(weights.values()) or 1.0
    scores = chunk_scores(view, question)
    content = {t: w for t, w in _weights(view, _SCOPE.sub(" ", question), language).items() if t not in where
               } or weights  # what, not where
    themes, used = [], set()  # units quoted, and documents quoted through translations
    for community, score, rows in rank_communities(view, level, scores):
        quotes = _best_quotes(view, rows, scores, weights, total, language, used, content, answers)
        if quotes:
            used.update(q.text for q in quotes)
            # a looser, translated match quotes its document once, in the best theme
            used.update(index.document_ids[q.row] for q in quotes if q.translated)
            themes.append(Theme(community, _title(view, community) or community, score, quotes))
    quoted = {index.document_ids[q.row] for t in themes for q in t.quotes}
    if len(quoted) < MIN_DOCUMENTS:
        rows = np.flatnonzero(view.mask & (scores >= FILL_SCORE * float(scores.max(initial=0.0))) & (scores > 0))
        rows = rows[np.lexsort((rows, -scores[rows]))][:FILL_CHUNKS]
        rows = np.array([r for r in rows if index.document_ids[r] not in quoted], dtype=np.int64)
        whole = math.fsum(content.values()) or 1.0
        quotes = [q for q in _best_quotes(view, rows, scores, content, whole, language, used, content, answers)
                  if q.score >= FILL_COVERAGE][:MIN_DOCUMENTS - len(quoted)]
        if quotes:
            themes.append(Theme(OTHER, "", float(np.mean([q.score for q in quotes])), quotes))
    timings = {"themes_ms": (time.perf_counter() - started) * 1000}
    return themes, timings


FAMILY = 5  # Portuguese stems sharing this many first letters, all but their last two, are one word family
FAMILY_IDF = 0.75  # ... counted where the unit's member has at least this share of the question term's IDF
FAMILY_SHARE = 0.75  # ... as this share of the term's weight


def _family(term: str, found: set[str]) -> list[str]:
    """The unit's stems of ``term``'s (Portuguese) word family, whose stemmer keeps a verb and its noun apart
    ("resposta" -> "respost", "respondidas" -> "respond")."""
    if len(term) < FAMILY:
        return []
    return [f for f in found if len(f) >= FAMILY and _shared(term, f) >= max(FAMILY, min(len(term), len(f)) - 2)]


def _family_weight(view: View, content: dict[str, float], found: set[str], rare: float) -> float:
    """The weight of the content terms a unit states only through their word family, by a member nearly as
    specific as the term ("respondidas" for "resposta", not the ubiquitous "responsável"; ``rare``: the IDF of
    a term one chunk uses, for a term none uses), less than the word itself ("Enfermeiro(a)" before "Técnico de
    Enfermagem")."""
    return FAMILY_SHARE * math.fsum(w for t, w in content.items() if t not in found and any(
        _idf(view, f) >= FAMILY_IDF * min(w, rare) for f in _family(t, found)))


def _shared(a: str, b: str) -> int:
    n = 0
    while n < min(len(a), len(b)) and a[n] == b[n]:
        n += 1
    return n


def _coverage(weights: dict[str, float], alternatives: dict[str, frozenset[str]], found: set[str]) -> float:
    return math.fsum(weights[t] for t, alts in alternatives.items() if t in weights and alts & found) / (
        math.fsum(weights.values()) or 1.0)


def _best_quotes(view: View, rows: np.ndarray, scores: np.ndarray, weights: dict[str, float], total: float,
                 language: str, used: set[str], content: dict[str, float],
                 answers: Callable[[str], bool] | None = None) -> list[Quote]:
    """The best unit of each document among ``rows`` that covers the question, best first (those that state
    the kind of value the question asks for, ``answers``, before one that does not). A unit is
    analysed in its chunk's language, and a question term counts as covered by its translations too
    (``bilingual.bridge``); a unit that addresses an assistant (``models.injection``) is never quoted."""
    index = view.store.index
    per_doc: dict[str, list[tuple[Quote, frozenset[str]]]] = {}  # a document's units, with the question terms held
    rare = _idf(view, "", df=1)  # a term no chunk uses is compared as one that a single chunk uses
    translated = bilingual.bridge({*weights, *content}, language)  # for units in the other language only: a
    # translation may be a word of the question's own language ("resposta" -> "respons", "responsável")
    # the content a unit in the other language can hold: the terms the glossary translates, and codes and numbers
    # (written alike in both languages); a word with no translation ("recur", "set") is matched by no unit there
    matchable = {t: w for t, w in content.items()
                 if translated.get(t, frozenset({t})) != {t} or not t.isalpha()} or content

    def states(unit: str) -> bool:
        return answers is not None and answers(unit)
    for row in rows:
        row = int(row)
        own = detect_language(index.texts[row])
        for unit in units(index.texts[row]):
            found = set(analyze(unit, own))
            if own == language:
                coverage = (math.fsum(weights[t] for t in found & weights.keys())
                            + (_family_weight(view, content, found, rare) if own == "pt" else 0.0)) / total
                if coverage < MIN_COVERAGE:
                    continue
            else:
                coverage = _coverage(weights, translated, found)
                if (_coverage(matchable, translated, found) < CROSS_COVERAGE or (answers and not answers(unit))
                        or index.document_ids[row] in used):
                    continue
            if unit in used or is_injection(unit):
                continue
            held = frozenset(t for t in weights if t in found or own != language and translated.get(t, set()) & found)
            per_doc.setdefault(index.document_ids[row], []).append(
                (Quote(row, unit, coverage + 0.1 * float(scores[row]), own != language), held))
    chosen = []
    for quotes in per_doc.values():
        # a question asking for a kind of value: the units stating one go before the document's others, and
        # after the first, up to ``VALUES_PER_DOC``, each that holds a word of the question the ones before it
        # do not (a part of its own: "limites para presentes e para diligência")
        quotes.sort(key=lambda qh: (not states(qh[0].text), -qh[0].score, qh[0].row))
        picked, covered = [quotes[0][0]], set(quotes[0][1])
        for quote, held in quotes[1:]:
            if len(picked) < VALUES_PER_DOC and states(quote.text) and held - covered:
                picked.append(quote)
                covered |= held
        chosen.append(picked)
    chosen.sort(key=lambda qs: (-qs[0].score, qs[0].row))
    return [q for qs in chosen[:QUOTES] for q in qs]


def theme_reports(view: View, themes: list[Theme]) -> list[Report]:
    """The themes as the map step's report blocks (``graph_store.Report``), built from the caller's quotes."""
    index = view.store.index
    out = []
    for theme in themes:
        ids = [index.chunk_ids[q.row] for q in theme.quotes]
        out.append(Report(theme.community_id, 0, theme.title, "", [(q.text, [index.chunk_ids[q.row]])
                                                                    for q in theme.quotes],
                          theme.score, ids, np.array([q.row for q in theme.quotes], dtype=np.int64), []))
    return out
