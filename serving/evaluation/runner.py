"""`lakerag eval`: index a dataset, then score every retriever configuration on it."""

from __future__ import annotations

import json
import logging
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

from lakehouse.paths import LakePaths
from lakehouse.schemas import PUBLIC
from lakehouse.settings import Settings
from serving.evaluation.beir import load_beir, write_beir_tables
from serving.evaluation.indexer import Indexer
from serving.evaluation.metrics import summarise
from serving.search import RetrievalConfig, Retriever
from serving.search.service import build_retriever

log = logging.getLogger(__name__)

CONFIGS: dict[str, RetrievalConfig] = {
    "bm25": RetrievalConfig(method="bm25"),
    "dense": RetrievalConfig(method="dense"),
    "rrf": RetrievalConfig(fusion="rrf"),
    "weighted-0.3": RetrievalConfig(fusion="weighted", dense_weight=0.3),
    "weighted-0.5": RetrievalConfig(fusion="weighted", dense_weight=0.5),
    "weighted-0.6": RetrievalConfig(fusion="weighted", dense_weight=0.6),
    "weighted-0.7": RetrievalConfig(fusion="weighted", dense_weight=0.7),
}


def default_name(settings: Settings) -> str:
    fused = "rrf" if settings.index.fusion == "rrf" else f"weighted-{settings.index.fusion_dense_weight:g}"
    return f"{_variant_of(settings)}/{fused}{'+rerank' if settings.index.reranker_model else ''}"


def _variant_of(settings: Settings) -> str:
    llm = settings.llm.configured
    enriched = settings.index.enrich in ("rules", "llm") or (settings.index.enrich == "auto" and llm)
    return "enriched" if enriched else "plain"


def _variants(settings: Settings, enrichment: str) -> list[tuple[str, Settings]]:
    wanted = {"both": ["plain", "enriched"], "on": ["enriched"], "off": ["plain"]}[enrichment]
    on = "auto" if settings.llm.configured else "rules"
    return [(name, settings.replace(enrich=on if name == "enriched" else "off")) for name in wanted]


def _retriever(settings: Settings) -> Retriever:
    return build_retriever(settings)


def _configs(retriever: Retriever, settings: Settings) -> dict[str, RetrievalConfig]:
    configs = {name: RetrievalConfig(method=c.method, fusion=c.fusion, dense_weight=c.dense_weight,
                                     rrf_k=settings.index.rrf_k, candidates=max(settings.index.candidates, 100))
               for name, c in CONFIGS.items()}
    if retriever.reranker is not None:
        for name in ("rrf", "weighted-0.5", "weighted-0.6", "weighted-0.7"):
            base = configs[name]
            configs[f"{name}+rerank"] = RetrievalConfig(method=base.method, fusion=base.fusion,
                                                        dense_weight=base.dense_weight, rrf_k=base.rrf_k,
                                                        candidates=base.candidates, rerank=True,
                                                        rerank_top=settings.index.rerank_top)
    return configs


def _ranked_documents(hits) -> list[str]:
    seen: dict[str, None] = {}
    for hit in hits:
        seen.setdefault(hit.document_id)
    return list(seen)


def evaluate_beir(folder: Path, settings: Settings, work: Path, indexer: Indexer, enrichment: str = "both",
                  limit: int | None = None) -> dict:
    data = load_beir(folder)
    queries = sorted(data.queries.items())[:limit] if limit else sorted(data.queries.items())
    results: dict[str, dict] = {}
    timings: dict[str, dict] = {}
    for variant, vsettings in _variants(settings, enrichment):
        home = work / f"{data.name}-{data.fingerprint}-{variant}"
        vsettings = vsettings.replace(home=home)
        paths = LakePaths(home)
        if not paths.table("chunks").exists():
            write_beir_tables(data, paths)
        timings[variant] = indexer.index_chunks(vsettings)
        retriever = _retriever(vsettings)
        started = time.perf_counter()
        vectors = retriever.embedder.embed_queries([q for _, q in queries])
        timings[variant]["query_embedding_ms_per_query"] = round(
            (time.perf_counter() - started) * 1000 / max(len(queries), 1), 2)
        for name, config in _configs(retriever, vsettings).items():
            runs, latencies = [], []
            for (qid, text), vector in zip(queries, vectors, strict=True):
                started = time.perf_counter()
                hits = retriever.search(text, {PUBLIC}, top_k=100, config=config, query_vector=vector)
                latencies.append((time.perf_counter() - started) * 1000)
                runs.append((_ranked_documents(hits), data.qrels[qid]))
            metrics = summarise(runs)
            metrics["p50_ms"] = round(float(np.percentile(latencies, 50)), 2)
            results[f"{variant}/{name}"] = metrics
            log.info("%s %s/%s %s", data.name, variant, name, metrics)
    return {"dataset": data.name, "corpus": len(data.corpus), "queries": len(queries),
            "model": retriever.index.model_id, "configs": results, "default": default_name(settings),
            "index_seconds": timings}


def evaluate_questions(questions: Path, source: Path, settings: Settings, work: Path, indexer: Indexer) -> dict:
    """The sample corpus's labelled set: relevant document in the top 5, per configuration and by kind;
    the top BM25 score of answerable and unanswerable questions (what a refusal threshold can use)."""
    vsettings = settings.replace(home=work / "sample", source=source)
    indexer.index_source(vsettings)
    retriever = _retriever(vsettings)
    rows = [json.loads(line) for line in questions.read_text(encoding="utf-8").splitlines() if line.strip()]
    vectors = retriever.embedder.embed_queries([row["question"] for row in rows])
    fused = "rrf" if settings.index.fusion == "rrf" else f"weighted-{settings.index.fusion_dense_weight:g}"
    prefix = _variant_of(settings)
    configs = {f"{prefix}/{name}": config for name, config in _configs(retriever, vsettings).items()}
    results: dict[str, dict] = {}
    refusal_scores, answer_scores = [], []
    for name, config in configs.items():
        by_kind: dict[str, list[float]] = defaultdict(list)
        for row, vector in zip(rows, vectors, strict=True):
            hits = retriever.search(row["question"], set(row.get("groups") or []), top_k=5, config=config,
                                    query_vector=vector)
            if row["answerable"]:
                relevant = set(row["relevant_document_ids"])
                by_kind[row["kind"]].append(float(bool(relevant & {h.document_id for h in hits})))
            if name == f"{prefix}/bm25":
                top = hits[0].score if hits else 0.0
                (answer_scores if row["answerable"] else refusal_scores).append(top)
        everything = [x for v in by_kind.values() for x in v]
        results[name] = {"hit@5": round(sum(everything) / len(everything), 4), "questions": len(everything),
                         "by_kind": {k: {"hit@5": round(sum(v) / len(v), 4), "questions": len(v)}
                                     for k, v in sorted(by_kind.items())}}
    return {"dataset": "sample_corpus", "questions": len(rows), "default": f"{prefix}/{fused}",
            "configs": results,
            "refusal": {"unanswerable": len(refusal_scores),
                        "median_top_bm25_unanswerable": round(float(np.median(refusal_scores or [0])), 3),
                        "median_top_bm25_answerable": round(float(np.median(answer_scores or [0])), 3)}}
