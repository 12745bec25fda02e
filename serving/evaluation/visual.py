"""Visual questions: answers that exist only in a chart image of a PDF page. Retrieval is scored text-only and
text + pages on the same index: ``hit@5`` (a relevant document among the top 5) and ``page_hit@5`` (the page
that holds the answer among them, which text alone can only reach when the page has text). With the random test
model the numbers say nothing about quality; with real weights they show what the page signal adds."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

from lakehouse.errors import ConfigError
from lakehouse.settings import Settings
from serving.search.service import build_retriever, config_from

QUESTIONS = "visual_questions.jsonl"
NO_PAGES = ("no page signal: LAKERAG_PAGES_MODEL is unset or the index has no pages table; only text-only is "
            "scored")


def evaluate_visual(questions: Path, settings: Settings, top_k: int = 5) -> dict:
    """Score the visual questions over the index of ``settings`` (already built by the caller)."""
    if not questions.exists():
        raise ConfigError(f"--pages: {questions} does not exist (scripts/build_visual_corpus.py writes it)")
    rows = [json.loads(line) for line in questions.read_text(encoding="utf-8").splitlines() if line.strip()]
    retriever = build_retriever(settings)
    base = config_from(settings)
    configs = {"text": replace(base, pages_weight=0.0)}
    if retriever.pages is not None:
        configs["text+pages"] = replace(base, pages_weight=settings.index.pages_weight)
    results = {}
    for name, config in configs.items():
        docs = pages = 0
        for row in rows:
            hits = retriever.search(row["question"], set(row.get("groups") or []), top_k=top_k, config=config)
            relevant, wanted = set(row["relevant_document_ids"]), set(row.get("relevant_pages") or [])
            docs += bool(relevant & {h.document_id for h in hits})
            pages += any(h.document_id in relevant and wanted & set(h.pages) for h in hits)
        results[name] = {f"hit@{top_k}": round(docs / max(len(rows), 1), 4),
                         f"page_hit@{top_k}": round(pages / max(len(rows), 1), 4)}
    out = {"questions": len(rows), "configs": results,
           "pages_model": retriever.pages.model.model_id if retriever.pages is not None else None}
    if retriever.pages is None:
        out["note"] = NO_PAGES
    return out
