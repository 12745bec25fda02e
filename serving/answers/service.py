"""``AnswerService``: what the API's controllers call. Every method takes the caller, reads the engine in
service once (so a snapshot switch never splits a request) and applies the caller's groups before ranking."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace
from datetime import date

import msgspec

from models.analysis import analyze
from serving.answers import cards, compose, grading, llm_grading, modes, page_images, refine, rewrite, synthesis
from serving.answers.access import Caller
from serving.answers.catalog import CatalogQuery
from serving.answers.catalog_search import mention_filters, search_catalog
from serving.answers.conversations import Conversations
from serving.answers.engine import Engine
from serving.answers.errors import InvalidRequest, ModeUnavailable, NotFound
from serving.answers.intent import catalog_query, doc_types_of, route
from serving.answers.prepared import Prepared
from serving.answers.relevance import terms
from serving.answers.reloader import SnapshotHolder
from serving.answers.streaming import stream_answer
from serving.answers.types import (
    CITABLE,
    Answer,
    CatalogPage,
    Citation,
    Document,
    DocumentMeta,
    QueryRequest,
    SearchHit,
    SearchRequest,
    SearchResults,
    Section,
    SectionList,
    SectionRef,
    Turn,
)
from serving.answers.wording import injection_warnings, language_of
from serving.graph import bilingual
from serving.graph.errors import GraphNotReady, GraphSearchError
from serving.search.retriever import RetrievalConfig, SearchError

DEFAULT_MIN_RELEVANCE = grading.AMBIGUOUS_AT


def _ms(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 3)


class AnswerService:
    def __init__(self, holder: SnapshotHolder, min_relevance: float = DEFAULT_MIN_RELEVANCE,
                 conversations: Conversations | None = None, rewrite_with_llm: bool = True,
                 correct_at: float = grading.CORRECT_AT, grade_with_llm: bool = True,
                 synthesizer: str | None = None, generate_with_llm: bool = True) -> None:
        self.holder = holder
        answers = holder.settings.answers if isinstance(holder, SnapshotHolder) else None
        self.synthesizer = synthesis.build(synthesizer or (answers and answers.synthesizer) or synthesis.DEFAULT,
                                           near_miss=answers.near_miss_refusal if answers else True)
        self.min_relevance = min_relevance
        self.conversations = conversations or Conversations()
        self.rewrite_with_llm = rewrite_with_llm
        self.correct_at = max(correct_at, min_relevance)
        self.grade_with_llm = grade_with_llm  # when the snapshot's engine has an LLM and the request generates
        self.generate_with_llm = generate_with_llm  # the LLM writes the answer (else the extractive one stands)

    def thresholds(self, engine: Engine) -> tuple[float, float]:
        """(correct at, ambiguous at): the refusal threshold is the snapshot's fitted one when it has one."""
        ambiguous_at = engine.min_relevance if engine.min_relevance is not None else self.min_relevance
        return max(self.correct_at, ambiguous_at), ambiguous_at

    # -- questions -------------------------------------------------------------------------------------------
    def catalog_names(self, engine: Engine | None = None) -> tuple[list[str], dict[str, list[str]], list[str]]:
        """Departments, people (approvers, responsibles) and document types, for reading catalog questions."""
        cat = (engine or self.holder.require()).catalog
        return cat.values("department"), {k: cat.values(k) for k in ("approver", "responsible")}, \
            cat.values("doc_type")

    @staticmethod
    def known(engine: Engine, language: str) -> Callable[[str], bool]:
        """Whether the snapshot's index holds a word (as the question's language analyses it)."""
        return lambda word: any(engine.relevance.df(t) > 0 for t in analyze(word, language))

    def card_query(self, question: str, caller: Caller) -> CatalogQuery | None:
        """The one-document catalog query of a card question (``card``), or None."""
        card = self.card(" ".join(question.split()), self.holder.require(), caller)
        return None if card is None else CatalogQuery(document_id=card.document_id, show=card.fields)

    def card(self, question: str, engine: Engine, caller: Caller) -> cards.Card | None:
        """The document card ``question`` asks for (``serving.answers.cards``), among what the caller may read."""
        language = language_of(question, engine.index.language_shares)

        def holds(document_id: str, term: str) -> bool:  # the document's text, read in the question's language
            rows = engine.documents.get(document_id, ())
            return any(term in terms(engine.index.texts[row], language) for row in rows)
        return cards.card_of(question, engine.catalog.rows, caller.effective,
                             doc_types_of(engine.catalog.values("doc_type")), self.known(engine, language), holds)

    def prepare(self, req: QueryRequest, caller: Caller) -> Prepared:
        """Everything up to the answer text: the mode, the evidence, the relevance and the refusal decision."""
        engine = self.holder.require()
        started = time.perf_counter()
        question = " ".join(req.question.split())
        if not question:
            raise InvalidRequest("question must not be blank", "question")
        language = language_of(question, engine.index.language_shares)
        followup = self.follow_up(req, question, caller, engine, language)
        question = followup.question
        if followup.filters is not req.filters:
            req = msgspec.structs.replace(req, filters=followup.filters)
        mode, cq = req.mode, None
        t = time.perf_counter()
        vector = engine.embed(question) if engine.embedder is not None and mode != "catalog" else None
        embed_ms = _ms(t)
        card = self.card(question, engine, caller) if mode in ("auto", "catalog") else None
        if card is not None:  # one document's governance fields: its catalog row answers, in any wording
            mode, cq = "catalog", CatalogQuery(document_id=card.document_id, show=card.fields)
        elif mode == "auto":  # the router's dense head reads the same embedding retrieval uses
            model_id = engine.embedder.model_id if engine.embedder is not None else None
            mode, cq = route(question, engine.graph is not None, *self.catalog_names(engine), vector, model_id,
                             language, self.known(engine, language))
        elif mode == "catalog":
            cq = catalog_query(question, *self.catalog_names(engine), self.known(engine, language))
            if cq is None:
                raise InvalidRequest("mode 'catalog' needs a listing question about document metadata (review "
                                     "dates, owners, departments, types); use GET /v1/catalog for filters", "mode")
        if cq is not None:
            cq = CatalogQuery(**{**cq.__dict__, "as_of": req.as_of or date.today()})
            items, total = engine.catalog.query(cq, caller.effective)
            listed = modes.Retrieved("catalog", evidence=compose.catalog_evidence(items, engine))
            listed.timings["catalog_ms"] = _ms(started)
            draft = compose.catalog_text(items, total, cq, language)
            if draft.status == "answered" or not items:  # a listing names its filters, found or not
                draft.text = mention_filters(draft.text, cq, language)
            return Prepared(engine, question, language, mode, req, caller, started, listed,
                            catalog=(cq, items, total), draft=draft, followup=followup)
        try:
            retrieved = modes.retrieve(mode, modes.ModeRequest(engine, question, caller.effective, req.filters,
                                                               req.top_k, req.community_level, vector))
        except SearchError as exc:
            raise InvalidRequest(str(exc)) from exc
        except GraphNotReady as exc:  # graph tables that do not load
            raise ModeUnavailable(str(exc)) from exc
        except GraphSearchError as exc:  # a bad community level
            raise InvalidRequest(str(exc)) from exc
        retrieved.timings["embed_ms"] = embed_ms
        weights = engine.relevance.weights(question, language)
        q = grading.Question.of(question, language, weights, vector, engine.relevance.spelled)
        alternatives = engine.relevance.synonyms(question, language)
        # a passage in the other language holds a term by its translation ("amount" by "valor"; the pt-en
        # glossary, ``serving.graph.bilingual``), as a colloquial term is held by the word documents write for it
        for t, others in bilingual.bridge(list(q.weights), language, q.surface).items():
            if others - {t}:
                alternatives[t] = tuple(dict.fromkeys([*alternatives.get(t, ()), *sorted(others - {t})]))
        q = replace(q, absent=tuple(q.surface.get(t, t) for t in q.weights
                                    if engine.relevance.df(t) == 0 and t not in alternatives), synonyms=alternatives)
        correct_at, ambiguous_at = self.thresholds(engine)
        grades = grading.grade_evidence(engine, q, retrieved, correct_at, ambiguous_at)
        # the documents the question names by code answer it (``refine.add_coded``); not in agentic, whose
        # evidence is what its loop read (every citation must have been read), nor in global
        if mode not in ("global", "agentic"):
            refine.add_coded(refine.Request(engine, q, retrieved, grades, caller.effective, correct_at, ambiguous_at))
        if mode == "global":  # rated points (0-100) already measure how each report finding covers the question
            relevance = max((e.score for e in retrieved.evidence), default=0.0) / 100
        else:
            relevance = max((g.score for g in grades.values()), default=0.0)
        missing = engine.relevance.missing_codes(
            weights, lambda: engine.retriever().mask(caller.effective, modes.retrieval_filters(req.filters)),
            question, language)
        if missing:
            retrieved.warnings.append(
                f"no readable document contains {', '.join(m if m[:1].isupper() else m.upper() for m in missing)}")
        below = all(g.grade == grading.INCORRECT for g in grades.values()) and mode != "global"
        if self.grade_with_llm and engine.generator is not None and req.generate and not (below or missing):
            t = time.perf_counter()
            llm_grading.regrade(engine.generator.client, question, retrieved, grades)
            retrieved.timings["grading_ms"] = _ms(t)
            below = all(g.grade == grading.INCORRECT for g in grades.values()) and mode != "global"
        refused = not retrieved.sources or below or missing
        return Prepared(engine, question, language, retrieved.mode_used, req, caller, started, retrieved,
                        relevance=round(relevance, 4), weights=weights,
                        draft=compose.refusal(language) if refused else None, followup=followup, q=q,
                        grades=grades)

    def follow_up(self, req: QueryRequest, question: str, caller: Caller, engine: Engine,
                  language: str) -> rewrite.FollowUp:
        """The question made self-contained from the earlier turns (``history`` or the kept conversation)."""
        gen = engine.generator
        chat = ((lambda m: gen.client.chat(m, temperature=0.0, max_tokens=120).text)
                if gen is not None and req.generate and self.rewrite_with_llm else None)
        return rewrite.for_request(req, question, lambda cid: self.conversations.turns(caller, cid),
                                   engine.catalog, caller.effective, language, chat,
                                   gen.client.reject if chat is not None and gen is not None else None)

    def fallback(self, state: Prepared) -> compose.Draft:
        """The answer without an LLM: the configured synthesizer over the graded evidence
        (``serving.answers.synthesis``)."""
        evidence = synthesis.Graded.of(state, *self.thresholds(state.engine))
        return self.synthesizer.draft(evidence) or compose.refusal(state.language)

    def finish(self, state: Prepared, draft: compose.Draft, request_id: str) -> Answer:
        engine, retrieved, req = state.engine, state.retrieved, state.req
        status = draft.status
        if status == "answered" and retrieved.partial:
            status = "partial"
        by_n = {e.n: e for e in retrieved.evidence if e.n is not None}
        cites = [Citation(n=n, kind=e.kind if e.kind in CITABLE else "chunk", id=e.id,
                          document_id=e.document_id, title=e.title, section=e.section, pages=e.pages, path=e.path,
                          doc_type=e.doc_type, metadata=e.metadata)
                 for n in draft.cited if (e := by_n.get(n)) is not None]
        flagged = {s.n: s.title for s in retrieved.sources if s.flagged}  # named only when cited (listed)
        listed = sorted((c.n, flagged[c.n]) for c in cites if c.n in flagged)
        injected = injection_warnings(listed, len(flagged) - len(listed), state.language)
        timings = dict(retrieved.timings)
        timings["total_ms"] = _ms(state.started)
        followup, conversation_id = state.followup, None
        if not req.history:  # callers who send their history keep it themselves
            conversation_id = self.conversations.add(state.caller, req.conversation_id, Turn(
                question=state.question[:2000], answer=draft.text,
                cited_document_ids=list(dict.fromkeys(c.document_id for c in cites if c.document_id)),
                filters=req.filters))
        return Answer(request_id=request_id, question=req.question, mode=req.mode,
                      mode_used=state.mode_used,
                      status=status, answer=draft.text, language=state.language, citations=cites,
                      evidence=retrieved.evidence,
                      suggestions=compose.suggestions(engine, retrieved) if status == "not_found" else [],
                      filters=req.filters, generator=draft.generator, relevance=state.relevance,
                      timings=timings, snapshot_id=engine.snapshot_id,
                      warnings=[*retrieved.warnings, *injected, *draft.warnings,
                                *(followup.warnings if followup else [])],
                      rewritten_question=followup.question if followup and followup.rewritten else None,
                      conversation_id=conversation_id, trace=retrieved.trace)

    def query(self, req: QueryRequest, caller: Caller, request_id: str) -> Answer:
        state = self.prepare(req, caller)
        draft = state.draft
        if draft is None:
            fallback = self.fallback(state)
            gen = state.engine.generator
            if gen is not None and req.generate and self.generate_with_llm and fallback.status != "not_found":
                t = time.perf_counter()
                draft = compose.generated(gen, state.question, state.language, state.retrieved,
                                          req.filters, fallback)
                state.retrieved.timings["generation_ms"] = _ms(t)
            else:
                draft = fallback
        return self.finish(state, draft, request_id)

    def query_stream(self, req: QueryRequest, caller: Caller, request_id: str):
        """Server-sent events (event name, data) for one question; see ``streaming``."""
        state = self.prepare(req, caller)
        return stream_answer(state, self.fallback, self.finish, request_id, self.generate_with_llm)

    def readiness(self) -> dict:
        engine = self.holder.engine
        body: dict = {"ready": engine is not None, "snapshot_id": engine.snapshot_id if engine else None}
        if engine is not None:
            body.update(chunks=len(engine.index), documents=len(engine.documents),
                        graph=engine.graph is not None,
                        catalog=engine.catalog.source, llm=engine.generator.model if engine.generator else None)
        if self.holder.failed:
            body["refused"] = dict(self.holder.failed)
        if self.holder.encoder is not None:  # this process's query-encoder batches and cache
            body["encoder"] = self.holder.encoder.stats()
        return body

    # -- retrieval, documents, catalog -----------------------------------------------------------------------
    def search(self, req: SearchRequest, caller: Caller) -> SearchResults:
        engine = self.holder.require()
        retriever = engine.retriever()
        config = RetrievalConfig(**{**engine.config.__dict__, "method": req.method})
        try:
            hits = retriever.search(req.question, caller.effective, modes.retrieval_filters(req.filters),
                                    req.top_k, config)
        except SearchError as exc:
            raise InvalidRequest(str(exc), "question") from exc
        return SearchResults(query=req.question, snapshot_id=engine.snapshot_id,
                             timings={k: round(v, 3) for k, v in retriever.timings.items()},
                             analysis_languages=list(retriever.trace.analysis_languages),
                             hits=[SearchHit(chunk_id=h.chunk_id, document_id=h.document_id, title=h.title,
                                             section=modes.section_of(h.heading_path), heading_path=h.heading_path,
                                             pages=h.pages, path=h.path, doc_type=h.doc_type, text=h.text,
                                             score=round(h.score, 6),
                                             scores={k: round(v, 6) for k, v in h.scores.items() if v == v})
                                   for h in hits])

    def page_image(self, document_id: str, page: int, caller: Caller) -> bytes:
        """PNG of a page a citation names, permission-checked (``serving.answers.page_images``)."""
        return page_images.page_image(self.holder.require(), self.holder.paths, document_id, page, caller)

    def _rows(self, engine: Engine, document_id: str, caller: Caller) -> list[int]:
        rows = engine.documents.get(document_id)
        if not rows or not engine.row_readable(rows[0], caller.effective):
            raise NotFound("document not found (or not readable with this key)")
        return rows

    def _section(self, engine: Engine, row: int) -> Section:
        ix = engine.index
        return Section(chunk_id=ix.chunk_ids[row], document_id=ix.document_ids[row],
                       ordinal=engine.ordinals[row],
                       heading_path=list(ix.heading_paths[row]), section=modes.section_of(list(ix.heading_paths[row])),
                       pages=list(ix.pages[row]), text=ix.texts[row])

    def document(self, document_id: str, caller: Caller) -> Document:
        engine = self.holder.require()
        rows = self._rows(engine, document_id, caller)
        ix = engine.index
        row = engine.catalog.rows.get(document_id) or {}
        return Document(document_id=document_id, title=row.get("title") or ix.titles[rows[0]],
                        path=ix.paths[rows[0]], doc_type=str(ix.doc_types[rows[0]]),
                        metadata=engine.catalog.meta(document_id) or DocumentMeta(),
                        sections=[SectionRef(chunk_id=ix.chunk_ids[r], ordinal=engine.ordinals[r],
                                             section=modes.section_of(list(ix.heading_paths[r])),
                                             pages=list(ix.pages[r])) for r in rows],
                        snapshot_id=engine.snapshot_id)

    def sections(self, document_id: str, caller: Caller) -> SectionList:
        engine = self.holder.require()
        rows = self._rows(engine, document_id, caller)
        return SectionList(document_id=document_id, sections=[self._section(engine, r) for r in rows],
                           snapshot_id=engine.snapshot_id)

    def section(self, document_id: str, chunk_id: str, caller: Caller) -> Section:
        engine = self.holder.require()
        rows = self._rows(engine, document_id, caller)
        for r in rows:
            if engine.index.chunk_ids[r] == chunk_id:
                return self._section(engine, r)
        raise NotFound("section not found in this document")

    def catalog(self, query: CatalogQuery, caller: Caller, text: str | None = None) -> CatalogPage:
        """The catalog filtered by ``query``; with ``text``, searched (``catalog_search``) within the filters."""
        engine = self.holder.require()
        query = CatalogQuery(**{**query.__dict__, "as_of": query.as_of or date.today()})
        if text is not None:
            items, total, query = search_catalog(engine.catalog, text, caller.effective, query)
        else:
            items, total = engine.catalog.query(query, caller.effective)
        return CatalogPage(items=items, total=total, as_of=query.as_of, snapshot_id=engine.snapshot_id,
                           query=query.describe())
