"""Evidence constructors: every citation they put in is a chunk the caller's view lets through."""

from __future__ import annotations

from serving.graph.types import Evidence
from serving.graph.visibility import View
from serving.search.index import SearchIndex

MAX_CITATIONS = 10


def chunk(ix: SearchIndex, row: int, score: float, **extra) -> Evidence:
    return Evidence("chunk", ix.chunk_ids[row], float(score), ix.texts[row], [ix.chunk_ids[row]],
                    document_id=ix.document_ids[row], title=ix.titles[row], path=ix.paths[row],
                    heading_path=list(ix.heading_paths[row]), pages=list(ix.pages[row]), extra=dict(extra))


def entity(view: View, i: int, score: float, **extra) -> Evidence:
    s = view.store
    rows = view.evidence_rows(s.entity_chunks, i, MAX_CITATIONS)
    return Evidence("entity", s.entity_ids[i], float(score), s.descriptions[i],
                    [s.index.chunk_ids[r] for r in rows[:MAX_CITATIONS]],
                    extra={"name": s.names[i], "type": s.types[i], "evidence": int(view.entity_counts[i]),
                           **extra})  # no aliases: one may be a surface form seen only in restricted text


def relationship(view: View, j: int, score: float, **extra) -> Evidence:
    s = view.store
    rows = view.evidence_rows(s.relationship_chunks, j, MAX_CITATIONS)
    return Evidence("relationship", s.relationship_ids[j], float(score), s.relationship_texts[j],
                    [s.index.chunk_ids[r] for r in rows[:MAX_CITATIONS]],
                    extra={"source": s.names[s.sources[j]], "target": s.names[s.targets[j]],
                           "source_id": s.entity_ids[s.sources[j]], "target_id": s.entity_ids[s.targets[j]],
                           "weight": float(s.weights[j]), "evidence": int(view.relationship_counts[j]),
                           **extra})


def report(view: View, community_id: str, score: float, **extra) -> Evidence:
    """Only for a report ``view.report_visible`` accepted; its summary and findings are the text."""
    r = view.store.reports[community_id]
    text = " ".join([r.summary, *(f for f, _ in r.findings)]).strip()
    return Evidence("report", community_id, float(score), text, list(r.chunk_ids[:MAX_CITATIONS]),
                    extra={"title": r.title, "level": r.level, "rating": r.rating, **extra})
