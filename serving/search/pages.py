"""The ``pages`` signal: page images scored by late interaction (MaxSim) over the caller's readable pages only,
then fused with the text ranking as a third signal.

A page is cited as its document and page number; a page that no text hit covers joins the ranking as a hit of
its own (``chunk_id`` ``page:<document>:<n>``, ``row`` -1), so retrieval-only callers, evaluation and the answer
modes see one ranked list."""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow.compute as pc
import pyarrow.parquet as pq

from lakehouse import schemas as s
from lakehouse.settings import Settings
from models.late_interaction import maxsim
from models.vision import load_page_model
from serving.search.index import PUBLIC
from serving.search.retriever import Hit

log = logging.getLogger(__name__)

PAGE_PREFIX = "page:"


def page_id(document_id: str, page: int) -> str:
    return f"{PAGE_PREFIX}{document_id}:{page}"


@dataclass
class PageIndex:
    """Rows aligned: row i is page ``pages[i]`` of ``document_ids[i]``; its tokens are
    ``tokens[offsets[i]:offsets[i+1]]`` (float32)."""

    document_ids: list[str]
    pages: np.ndarray
    paths: list[str]
    titles: list[str]
    content_hashes: list[str]
    group_sets: list[frozenset[str]]
    tokens: np.ndarray
    offsets: np.ndarray
    model_id: str
    dpi: int

    def __len__(self) -> int:
        return len(self.document_ids)

    @classmethod
    def load(cls, tables: Path) -> PageIndex | None:
        """The ``pages`` table of a tables folder, or None when the snapshot has none."""
        path = tables / "pages.parquet"
        if not path.exists():
            return None
        table = pq.read_table(path)
        meta = table.schema.metadata or {}
        dim = int(meta.get(b"dim", b"0")) or 1
        counts = table["n_tokens"].to_numpy().astype(np.int64)
        offsets = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
        # float16 on disk, float32 in memory: numpy converts float16 in software, which dominated MaxSim time
        flat = pc.list_flatten(table["vectors"]).to_numpy(zero_copy_only=False).astype(np.float32)
        return cls(document_ids=table[s.DOCUMENT_ID].to_pylist(), pages=table["page"].to_numpy(),
                   paths=table[s.PATH].to_pylist(), titles=table["title"].to_pylist(),
                   content_hashes=table[s.CONTENT_HASH].to_pylist(),
                   group_sets=[frozenset(g) for g in table[s.ACCESS_GROUPS].to_pylist()],
                   tokens=flat.reshape(-1, dim), offsets=offsets,
                   model_id=meta.get(b"model_id", b"").decode(), dpi=int(meta.get(b"dpi", b"72")))

    def readable_by(self, caller_groups: frozenset[str]) -> np.ndarray:
        """Pages the caller may read (a page with no groups: nobody; everyone has 'public')."""
        effective = caller_groups | {PUBLIC}
        return np.fromiter((bool(g & effective) for g in self.group_sets), bool, len(self.group_sets))

    def find(self, document_id: str, page: int) -> int | None:
        for row, (doc, number) in enumerate(zip(self.document_ids, self.pages, strict=True)):
            if doc == document_id and int(number) == page:
                return row
        return None


@dataclass(frozen=True)
class PageHit:
    row: int
    document_id: str
    page: int
    title: str
    path: str
    score: float


class PageSearcher:
    """MaxSim over one PageIndex; ``model`` encodes questions (``encode_queries``), the same model the index
    was built with."""

    def __init__(self, index: PageIndex, model) -> None:
        if model.model_id != index.model_id:
            raise ValueError(f"pages were encoded with {index.model_id!r}, the question model is {model.model_id!r}")
        self.index, self.model = index, model
        self.timings: dict[str, float] = {}

    def search(self, question: str, groups: frozenset[str] | set[str] | None, top: int = 20) -> list[PageHit]:
        ix = self.index
        rows = np.flatnonzero(ix.readable_by(frozenset(groups or ())))  # the mask before any scoring
        if rows.size == 0:
            return []
        started = time.perf_counter()
        query = self.model.encode_queries([question])[0]
        self.timings["pages_encode_ms"] = (time.perf_counter() - started) * 1000
        started = time.perf_counter()
        scores = maxsim(query, ix.tokens, ix.offsets, rows)
        self.timings["pages_maxsim_ms"] = (time.perf_counter() - started) * 1000
        order = np.lexsort((rows, -scores))[:top]
        return [PageHit(int(rows[i]), ix.document_ids[rows[i]], int(ix.pages[rows[i]]), ix.titles[rows[i]],
                        ix.paths[rows[i]], float(scores[i])) for i in order]


    def fuse(self, question: str, groups: frozenset[str] | set[str] | None, hits: list[Hit], weight: float,
             top: int, documents: set[str] | None = None) -> list[Hit]:
        """The retriever's hook: ``hits`` (the text ranking) fused with this question's page ranking;
        ``documents``, when given, are the only documents the request's filters let through."""
        page_hits = self.search(question, groups, top)
        if documents is not None:
            page_hits = [p for p in page_hits if p.document_id in documents]
        return fuse_pages(hits, page_hits, weight)


def fuse_pages(hits: list[Hit], page_hits: list[PageHit], weight: float, k: int = 60) -> list[Hit]:
    """The text ranking and the page ranking as one, by weighted reciprocal ranks: a text hit on a page the
    page ranking found gains that page's share; a found page no text hit covers becomes a hit of its own."""
    page_score = {(p.document_id, p.page): p.score for p in page_hits}
    page_rank = {(p.document_id, p.page): rank for rank, p in enumerate(page_hits, start=1)}
    used: set[tuple[str, int]] = set()
    scored = []
    for rank, hit in enumerate(hits, start=1):
        matches = [page_rank[(hit.document_id, n)] for n in hit.pages if (hit.document_id, n) in page_rank]
        best = min(matches, default=None)
        used.update((hit.document_id, n) for n in hit.pages)
        fused = (1 - weight) / (k + rank) + (weight / (k + best) if best else 0.0)
        if best:
            hit.scores = {**hit.scores, "pages": max(page_score[(hit.document_id, n)] for n in hit.pages
                                                     if (hit.document_id, n) in page_score)}
        scored.append((fused, hit))
    for page in page_hits:
        if (page.document_id, page.page) in used:
            continue
        fused = weight / (k + page_rank[(page.document_id, page.page)])
        scored.append((fused, Hit(row=-1, chunk_id=page_id(page.document_id, page.page),
                                  document_id=page.document_id, title=page.title, heading_path=[page.title],
                                  path=page.path, pages=[page.page], doc_type="", text="", score=0.0,
                                  scores={"pages": page.score})))
    scored.sort(key=lambda item: -item[0])
    out = []
    for fused, hit in scored:
        hit.scores = {**hit.scores, "pages_fused": round(fused, 6)}
        hit.score = fused
        out.append(hit)
    return out


def load_page_searcher(settings: Settings, tables: Path) -> PageSearcher | None:
    """The page signal for a tables folder: None when no vision model is configured or the snapshot has no
    pages; the configured model must be the one the pages were encoded with."""
    if settings.index.pages_model is None:
        return None
    index = PageIndex.load(tables)
    if index is None or not len(index):
        return None
    st = settings.index
    return PageSearcher(index, load_page_model(Path(st.pages_model), st.pages_device, st.pages_batch_size))
