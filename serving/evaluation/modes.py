"""Query modes compared on a BEIR set whose questions need several passages (HotpotQA: two per question).

Per mode (``basic`` = hybrid chunk retrieval, ``local``, ``hybrid``): recall@10 over the top 10 distinct
documents and ``all_evidence@10``, the share of questions whose relevant passages are all in that top 10.
The index is the one ``evaluate_beir`` builds (same home, same stages, the ``graph`` stage included).
"""

from __future__ import annotations

import logging
import time
from pathlib import Path

import numpy as np

from lakehouse.paths import LakePaths
from lakehouse.schemas import PUBLIC
from lakehouse.settings import Settings
from serving.evaluation.beir import load_beir, write_beir_tables
from serving.evaluation.indexer import Indexer
from serving.evaluation.metrics import ndcg_at, recall_at
from serving.evaluation.runner import _ranked_documents, _variant_of
from serving.graph import GraphSearcher, GraphStore
from serving.search.service import build_retriever, config_from, serving_tables

log = logging.getLogger(__name__)

MODES = ("basic", "local", "hybrid")


def all_evidence_at(ranked: list[str], relevant: dict[str, int], k: int = 10) -> float:
    """1.0 when every relevant document is in the top k, else 0.0."""
    wanted = {d for d, r in relevant.items() if r > 0}
    return float(bool(wanted) and wanted <= set(ranked[:k]))


def evaluate_modes(folder: Path, settings: Settings, work: Path, indexer: Indexer,
                   modes: tuple[str, ...] = MODES, limit: int | None = None) -> dict:
    data = load_beir(folder)
    queries = sorted(data.queries.items())[:limit] if limit else sorted(data.queries.items())
    variant = _variant_of(settings)
    home = work / f"{data.name}-{data.fingerprint}-{variant}"
    vsettings = settings.replace(home=home)
    paths = LakePaths(home)
    if not paths.table("chunks").exists():
        write_beir_tables(data, paths)
    seconds = indexer.index_chunks(vsettings)  # includes the graph stage
    retriever = build_retriever(vsettings)
    store = GraphStore.load(serving_tables(vsettings), retriever.index)
    searcher = GraphSearcher(store, retriever, config=config_from(vsettings))
    vectors = retriever.embedder.embed_queries([q for _, q in queries])
    results: dict[str, dict] = {}
    for mode in modes:
        run = getattr(searcher, mode)
        recall, complete, ndcg, latencies = [], [], [], []
        for (qid, text), vector in zip(queries, vectors, strict=True):
            started = time.perf_counter()
            result = run(text, {PUBLIC}, top_k=20, query_vector=vector)
            latencies.append((time.perf_counter() - started) * 1000)
            ranked = _ranked_documents(result.chunks)
            relevant = data.qrels[qid]
            recall.append(recall_at(ranked, relevant, 10))
            complete.append(all_evidence_at(ranked, relevant, 10))
            ndcg.append(ndcg_at(ranked, relevant, 10))
        results[mode] = {"recall@10": round(float(np.mean(recall)), 4),
                         "all_evidence@10": round(float(np.mean(complete)), 4),
                         "ndcg@10": round(float(np.mean(ndcg)), 4),
                         "p50_ms": round(float(np.percentile(latencies, 50)), 2)}
        log.info("%s %s %s", data.name, mode, results[mode])
    return {"dataset": data.name, "corpus": len(data.corpus), "queries": len(queries),
            "model": retriever.index.model_id, "graph_entities": len(store.entity_ids),
            "modes": results, "index_seconds": seconds}
