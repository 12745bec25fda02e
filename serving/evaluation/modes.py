"""Query modes compared on a BEIR set whose questions need several passages (HotpotQA: two per question).

Per mode (``basic`` = hybrid chunk retrieval, ``local``, ``hybrid``, and ``agentic`` when asked for): recall@10
over the top 10 distinct documents and ``all_evidence@10``, the share of questions whose relevant passages are all
in that top 10. The index is the one ``evaluate_beir`` builds (same home, same stages, the ``graph`` stage
included), fused with the corpus's calibrated dense weight when one is adopted (``runner.calibrated_weight``), as
served. ``agentic`` runs the answer layer's mode (``serving.answers.modes``) over that index published as a
snapshot, as the API would; its ranking is the documents of its evidence in reading order.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import numpy as np

from lakehouse.errors import ConfigError
from lakehouse.paths import LakePaths
from lakehouse.schemas import PUBLIC
from lakehouse.settings import Settings
from serving.evaluation.beir import load_beir, write_beir_tables
from serving.evaluation.indexer import Indexer
from serving.evaluation.metrics import ndcg_at, recall_at
from serving.evaluation.runner import _ranked_documents, _variant_of, calibrated_weight
from serving.graph import GraphSearcher, GraphStore
from serving.search.service import build_retriever, config_from, serving_tables

log = logging.getLogger(__name__)

MODES = ("basic", "local", "hybrid")  # the default comparison
KNOWN = (*MODES, "agentic")


def all_evidence_at(ranked: list[str], relevant: dict[str, int], k: int = 10) -> float:
    """1.0 when every relevant document is in the top k, else 0.0."""
    wanted = {d for d, r in relevant.items() if r > 0}
    return float(bool(wanted) and wanted <= set(ranked[:k]))


def evaluate_modes(folder: Path, settings: Settings, work: Path, indexer: Indexer,
                   modes: tuple[str, ...] = MODES, limit: int | None = None) -> dict:
    if unknown := [m for m in modes if m not in KNOWN]:
        raise ConfigError(f"--modes: unknown mode(s) {', '.join(unknown)}; retrieval compares {', '.join(KNOWN)}")
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
    vectors = retriever.embedder.embed_queries([q for _, q in queries])
    config = config_from(vsettings)
    fusion = calibrated_weight(vsettings, data, queries, retriever, vectors)  # the corpus's weight, as served
    if fusion and fusion.get("fitted"):
        config = replace(config, dense_weight=float(fusion["value"]))
    searcher = GraphSearcher(store, retriever, config=config)
    results: dict[str, dict] = {}
    for mode in modes:
        if mode == "agentic":
            run = _agentic(folder, settings, work, indexer)
        else:
            search = getattr(searcher, mode)

            def run(text: str, vector: np.ndarray, search=search) -> list[str]:
                return _ranked_documents(search(text, {PUBLIC}, top_k=20, query_vector=vector).chunks)
        recall, complete, ndcg, latencies = [], [], [], []
        for (qid, text), vector in zip(queries, vectors, strict=True):
            started = time.perf_counter()
            ranked = run(text, vector)
            latencies.append((time.perf_counter() - started) * 1000)
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
            "dense_weight": config.dense_weight,
            "modes": results, "index_seconds": seconds}


def _agentic(folder: Path, settings: Settings, work: Path, indexer: Indexer) -> Callable[[str, np.ndarray], list[str]]:
    """The agentic mode over the set's index, published and loaded as the API loads a snapshot (deterministic
    workflow: no generator); a question's ranking is its evidence's documents in reading order."""
    from lakehouse.snapshots import current_id
    from serving.answers.engine import load_engine
    from serving.answers.modes import ModeRequest, retrieve
    from serving.evaluation.answer_sets import _published_home

    vsettings = _published_home(folder, settings, work, indexer)
    engine = load_engine(vsettings, current_id(LakePaths(vsettings.home)), mode="agentic")

    def run(text: str, vector: np.ndarray) -> list[str]:
        found = retrieve("agentic", ModeRequest(engine, text, frozenset({PUBLIC}), top_k=20, vector=vector))
        return list(dict.fromkeys(e.document_id for e in found.evidence if e.document_id))
    return run
