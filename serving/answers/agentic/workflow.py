"""The deterministic multi-step workflow (no LLM).

1. ``search`` with the question (the basic mode's retrieval, same filters) and read its best hits;
2. the documents the question names (codes, "Anexo III do CT-...", titles, "conforme a Política ...", "item 7.2
   da política"; in a comparison beside a code, a kind and a shortened title: "a politica de seguranca pra
   terceiros") are looked up in the caller's catalog and their best sections read;
3. then, breadth first, every reference found in what was read is followed: looked up or searched with the
   words of the sentence that holds it (not the question), restricted to documents not read yet, and the
   referenced section is read. References are followed to ``MAX_DEPTH`` hops.

The loop stops when no new reference appears, or at the budget (steps, tokens, seconds), in which case the
references left are reported as missing."""

from __future__ import annotations

import json
import re
import time
from collections import deque
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from models.analysis import analyze, detect_language, written_out
from serving.answers import cards
from serving.answers.agentic import hops, references
from serving.answers.agentic.references import CODE, Reference
from serving.answers.agentic.tools import Observation, Toolbox, ToolError, tool_name
from serving.answers.agentic.trace import Budget, Trace
from serving.answers.modes.base import retrieval_filters
from serving.answers.routing import comparison
from serving.answers.types import Filters
from serving.graph import bilingual

_ANNEX = re.compile(r"\b(?:anexos?|annex(?:es)?|schedules?)\b", re.IGNORECASE)  # the question asks of an annex
FIRST_READ = 5  # best hits of the first search read in full
MAX_DEPTH = 2


@dataclass
class Outcome:
    read: list[int]  # chunk rows read, in reading order (the citable evidence)
    trace: Trace
    followed: list[str] = field(default_factory=list)  # references followed, as written
    missing: list[str] = field(default_factory=list)  # references not followed or not found
    named: list[str] = field(default_factory=list)  # document ids the question names
    bridged: list[str] = field(default_factory=list)  # documents reached by a title named in what was read
    stopped: str = ""


class Workflow:
    def __init__(self, box: Toolbox, question: str, budget: Budget, filters: Filters | None = None,
                 top_k: int = 8) -> None:
        self.box, self.question, self.filters, self.top_k = box, question, filters, top_k
        self._asked = question  # the question with its abbreviations written out, for finding what it names
        self.out = Outcome([], Trace(budget))
        self.depth: dict[int, int] = {}
        self.seen: set[tuple[str, str]] = set()
        self.queue: deque[tuple[Reference, str, int]] = deque()  # (reference, document it was found in, depth)

    # -- steps -----------------------------------------------------------------------------------------------
    def _run(self, name: str, args: dict, call) -> Observation | None:
        if (limit := self.out.trace.exhausted()) is not None:  # every step is bounded, not just follow-ups
            self.out.stopped = self.out.stopped or f"budget: {limit}"
            self.out.missing.append(self._describe(name, args))
            return None
        started = time.perf_counter()
        try:
            obs = call()
        except ToolError as exc:
            self.out.trace.record(name, args, [], 0, started, note=str(exc))
            return None
        self.out.trace.record(name, args, obs.ids, obs.tokens, started)
        return obs

    def _describe(self, name: str, args: dict) -> str:
        doc = self.box.directory.docs.get(str(args.get("document_id", "")))
        if doc is not None:
            section = str(args.get("section", ""))
            return f"{doc.title}" + (f" ({section})" if section and not section.startswith("chk_") else "")
        return f"{name}: {args.get('query', '')}"[:160]

    def _read(self, document_id: str, section: str | None, depth: int) -> list[int]:
        obs = self._run("read_document", {"document_id": document_id, **({"section": section} if section else {})},
                        lambda: self.box.read_document(document_id, section))
        return self._keep(obs.read if obs else [], depth)

    def _read_rows(self, rows: list[int], depth: int) -> list[int]:
        ix = self.box.engine.index
        rows = [r for r in rows if r not in self.depth]
        if not rows:
            return []
        ids = [ix.chunk_ids[r] for r in rows]
        obs = self._run("read_document", {"document_id": ix.document_ids[rows[0]], "section": ", ".join(ids)},
                        lambda: _read_many(self.box, rows))
        return self._keep(obs.read if obs else [], depth)

    def _keep(self, rows: list[int], depth: int) -> list[int]:
        new = [r for r in rows if r not in self.depth]
        titles = self.box.directory.title_map()
        ix = self.box.engine.index
        for row in new:
            self.depth[row] = depth
            self.out.read.append(row)
            if depth < MAX_DEPTH:
                for ref in references.find(ix.texts[row], titles):
                    if ref.ident not in self.seen:
                        self.queue.append((ref, ix.document_ids[row], depth))
        return new

    def _read_docs(self) -> set[str]:
        ix = self.box.engine.index
        return {ix.document_ids[r] for r in self.out.read}

    def _best_in(self, document_id: str, query: str, depth: int, limit: int = 1) -> list[int]:
        doc = self.box.directory.docs[document_id]
        mask = self.box.readable.copy()
        mask[:] = False
        mask[list(doc.rows)] = True
        for row in self.out.read:
            mask[row] = False
        rows = self.box.rank(query, mask, limit)
        if not rows and mask.any():  # no word or meaning of the query in it (a one-chunk document): its start
            rows = [int(r) for r in np.flatnonzero(mask)[:limit]]
        return self._read_rows(rows, depth)

    # -- the workflow ----------------------------------------------------------------------------------------
    def run(self) -> Outcome:
        engine, box = self.box.engine, self.box
        started = time.perf_counter()
        retriever = engine.retriever()
        hits = retriever.search(self.question, box.groups, retrieval_filters(self.filters), self.top_k,
                                engine.config, query_vector=box.vector)
        self.out.trace.record("search", {"query": self.question, "top_k": self.top_k},
                              [h.chunk_id for h in hits], 0, started)
        self._read_rows([h.row for h in hits[:FIRST_READ]], 0)
        self._question_references()
        hops.part_searches(self)
        while self.queue:
            if (limit := self.out.trace.exhausted()) is not None or self.out.stopped:
                limit = limit or self.out.stopped.split(": ")[-1]
                self.out.stopped = f"budget: {limit}"
                self.out.missing += [ref.text for ref, _, _ in self.queue if ref.ident not in self.seen]
                break
            ref, origin, depth = self.queue.popleft()
            if ref.ident in self.seen:
                continue
            self.seen.add(ref.ident)
            if self._follow(ref, origin, depth + 1):
                self.out.followed.append(ref.text)
        self.out.stopped = self.out.stopped or "no new reference"
        self.out.trace.stopped = self.out.stopped
        self.out.missing = list(dict.fromkeys(self.out.missing))
        return self.out

    def _question_references(self) -> None:
        # titles are matched as their words are written: "a política de segurança pra terceiros" names the
        # "Política de Segurança da Informação para Terceiros" (the lexicon's abbreviations, written out)
        self._asked = written_out(self.question)[0]
        refs = references.find(self._asked, self.box.directory.title_map())
        codes = [r.key for r in refs if r.kind == "code"]
        annexes = [r.key for r in refs if r.kind == "annex"]
        named: list[str] = []
        for ref in refs:
            if ref.kind in ("code", "annex", "title", "policy", "item"):  # the others wait for the evidence
                self.seen.add(ref.ident)
            if ref.kind == "code":
                named += self._code_docs(ref.key, annexes)
            elif ref.kind == "annex":
                named += self._annex_docs(ref.key, codes)
            elif ref.kind == "title":
                named.append(self.box.directory.titles[ref.key])
            elif ref.kind == "policy" and not any(t.kind == "title" and t.key in ref.key for t in refs):
                named += self._lookup(ref.text)[:1]
        across = [] if any(r.kind == "title" for r in refs) else self._titles_across()
        if codes and comparison(self.question) and not any(r.kind in ("title", "policy") for r in refs):
            # a code names the side checked; the requirement side may be named by a shortened title
            named += [d for d in self._title_shortened() if d not in named]
        named = list(dict.fromkeys(named + across))
        items = [r for r in refs if r.kind == "item"]
        for item in items:
            target = self._item_target(item, named)
            if target is not None:
                named.append(target)
                self._read(target, item.key, 1)
        # a title named in the other language: its document is searched with the question's translated words too
        translated = f"{self.question} {bilingual.translate(self.question, detect_language(self.question))}" \
            if across else self.question
        for document_id in named:
            if not any(self.box.engine.index.document_ids[r] == document_id for r in self.out.read[FIRST_READ:]):
                self._best_in(document_id, translated if document_id in across else self.question, 1)
        self.out.named = list(dict.fromkeys(named))

    def _title_shortened(self) -> list[str]:
        """The one document the question names by its kind and a shortened or misspelt title
        (``cards.named_document``, read without the codes the question names: those name documents of their own)."""
        catalog = getattr(self.box.engine, "catalog", None)
        types = self.box.directory.types
        text = CODE.sub(" ", self._asked)
        if catalog is None or not types.named(text):
            return []
        docs = self.box.directory.docs
        found = cards.named_document(text, catalog.rows, lambda row: row.get("document_id") in docs, types)
        return [found[0]] if found is not None and found[0] in docs else []

    def _titles_across(self) -> list[str]:
        """The documents a question names by a title written in the other language: each content word of the
        title is one of the question's words or of their translations (``bilingual``), "the Third-Party
        Information Security Policy" for the "Política de Segurança da Informação para Terceiros"."""
        language = detect_language(self._asked)
        terms = analyze(self._asked, language)
        held = set(terms) | {t for ts in bilingual.bridge(terms, language).values() for t in ts}
        out = []
        for doc in self.box.directory.docs.values():
            written, words = _title_terms(doc.title)
            if written != language and len(words) >= 2 and words <= held:
                out.append(doc.document_id)
        return out

    def _lookup(self, query: str) -> list[str]:
        obs = self._run("lookup_catalog", {"query": query}, lambda: self.box.lookup_catalog(query))
        if obs is None:
            return []
        key = set(references.title_key(query).split())
        # a lookup by title needs most of the title's words, else it is a guess
        return [d for d in obs.ids if len(key & set(references.title_key(self.box.directory.docs[d].title).split()))
                >= max(2, 0.6 * len(set(references.title_key(self.box.directory.docs[d].title).split())))
                or any(c in query.upper() for c in self.box.directory.docs[d].codes)]

    def _code_docs(self, code: str, annexes: list[str]) -> list[str]:
        docs = self._lookup(code)
        docs = [d for d in docs if code in self.box.directory.docs[d].codes]
        is_annex = {d: bool(re.search(r"\banexo\b", references.title_key(self.box.directory.docs[d].title)))
                    for d in docs}
        if annexes:
            return [d for d in docs if is_annex[d]] or docs
        return [d for d in docs if not is_annex[d]] or docs

    def _annex_docs(self, number: str, codes: list[str]) -> list[str]:
        query = f"Anexo {number} {' '.join(codes)}".strip()
        docs = self._lookup(query)
        wanted = f"anexo {number.lower()}"
        return [d for d in docs if re.search(rf"\b{wanted}\b", references.title_key(self.box.directory.docs[d].title))
                and (not codes or any(c in self.box.directory.docs[d].codes for c in codes))]

    def _item_target(self, item: Reference, named: list[str]) -> str | None:
        """The document an "item 7.2 da política" points to: a named one of that type, or the best one of it."""
        after = references.title_key(self._asked.split(item.text, 1)[-1])[:40].split()
        wanted = next(iter(self.box.directory.types.named(" ".join(after[:3]))), None)
        docs = self.box.directory.docs
        for document_id in named:
            if wanted is None or docs[document_id].doc_type == wanted:
                return document_id
        if wanted is None or tool_name(wanted) not in self.box.search_tools:
            return None
        obs = self._run(tool_name(wanted), {"query": self.question},
                        lambda: self.box.search(self.question, wanted, top_k=3, tool=tool_name(wanted)))
        if not obs or not obs.hits:
            return None
        return self.box.engine.index.document_ids[obs.hits[0]]

    def _follow(self, ref: Reference, origin: str, depth: int) -> bool:
        """Follow one reference found in ``origin``'s text; True when something new was read."""
        read = self._read_docs()
        terms = _terms(ref)
        if ref.kind == "item":
            return bool(self._read(origin, ref.key, depth)) if origin in self.box.directory.docs else False
        if ref.kind == "law":
            return hops.follow_law(self, ref, terms, origin, depth)
        if ref.kind == "code":
            targets = [d for d in self.box.directory.by_code(ref.key) if d not in read and d != origin]
            if not targets:
                return False
            if len(targets) > 1:  # the contract, or its annex when the question asks of an annex
                targets = [d for d in self._code_docs(ref.key, ["*"] if _ANNEX.search(self.question) else [])
                           if d not in read and d != origin] or targets
        elif ref.kind == "annex":
            codes = list(self.box.directory.docs[origin].codes) if origin in self.box.directory.docs else []
            codes += [m.group(0).upper() for m in references.CODE.finditer(ref.sentence)]
            found = self._annex_docs(ref.key, list(dict.fromkeys(codes)))
            targets = [d for d in found if d not in read]
            if not targets:
                if not found:  # an annex read already is no missing reference
                    self.out.missing.append(f"{ref.text} ({', '.join(codes[:1])}): not in the catalog you may read")
                return False
        elif ref.kind == "annex_generic":
            return self._annex_search(terms, origin, depth)
        elif ref.kind == "title":
            targets = [self.box.directory.titles[ref.key]]
            # a title borne by a document read already (or by the one naming it) leads nowhere new
            if (self.box.directory.shared.get(ref.key, set()) | {targets[0]}) & (read | {origin}):
                return False
            if self._best_in(targets[0], terms, depth):
                self.out.bridged.append(targets[0])
                return True
            return False
        else:  # policy: the best catalog match only, and nothing when that one was read already
            found = self._lookup(ref.text)[:1]
            if found and (found[0] in read or found[0] == origin):
                return False
            targets = found
            if not targets:
                self.out.missing.append(f"{ref.text}: not found in the catalog you may read")
                return False
        return any([self._best_in(d, terms, depth) for d in targets[:2]])

    def _annex_search(self, terms: str, origin: str, depth: int) -> bool:
        """"anexo contratual": search the contract annexes with the sentence's words, preferring annexes of the
        contracts already read."""
        box = self.box
        if "anexo_contratual" not in box.search_tools.values():
            return False
        read = self._read_docs()
        codes = {c for d in read | {origin} if d in box.directory.docs for c in box.directory.docs[d].codes}
        own = [d.document_id for d in box.directory.docs.values()
               if d.doc_type == "anexo_contratual" and codes & set(d.codes)]
        if any(d in read for d in own):  # an annex of a contract already read answers "the contract's annex"
            return False
        name = tool_name("anexo_contratual")
        exclude = sorted(read | {origin})
        args = {"query": terms, "exclude_document_ids": exclude, **({"document_ids": own} if own else {})}
        obs = self._run(name, args, lambda: box.search(terms, "anexo_contratual", own or None, exclude, 3, name))
        if not obs or not obs.hits:
            return False
        return bool(self._read_rows(obs.hits[:2], depth))


@lru_cache(maxsize=200_000)
def _title_terms(title: str) -> tuple[str, frozenset[str]]:
    """A title's language and its analysed words in it (cached: every agentic question reads every title)."""
    written = detect_language(title)
    return written, frozenset(analyze(title, written))


def _read_many(box: Toolbox, rows: list[int]) -> Observation:
    ix = box.engine.index
    parts = [{"id": ix.chunk_ids[r], "document_id": ix.document_ids[r], "title": ix.titles[r],
              "text": ix.texts[r]} for r in rows]
    return Observation("read_document", json.dumps(parts, ensure_ascii=False), [p["id"] for p in parts], read=rows)


def _terms(ref: Reference) -> str:
    """The words of the sentence that holds a reference, without the reference itself."""
    return " ".join(ref.sentence.replace(ref.text, " ").split()) or ref.text
