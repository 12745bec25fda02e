"""`lakerag eval`: index a dataset, then score every retriever configuration on it.

On a BEIR folder the dense weight of the weighted fusion comes from the corpus, fitted as the publish step fits
it (``serving.evaluation.calibrate``: 5-fold cross-validated over the judged queries, adopted only when no worse
than the fixed default's) on the set's own metric, nDCG@10 (a multi-hop question's second passage counts):
``calibrated-<w>`` is scored beside the fixed weights and is the default when adopted. The fit is recorded in the
home's published snapshot (``calibration`` in its manifest), so that the answer evaluation and an API serving
that home use the same weight, and reused while the queries are the same.
"""

from __future__ import annotations

import hashlib
import json
import logging
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

from lakehouse.paths import LakePaths
from lakehouse.schemas import PUBLIC
from lakehouse.settings import Settings
from lakehouse.snapshots import annotate, current_id, read_manifest
from serving.evaluation.beir import BeirSet, load_beir, write_beir_tables
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


def calibrated_weight(settings: Settings, data: BeirSet, queries: list[tuple[str, str]], retriever: Retriever,
                      vectors: np.ndarray) -> dict | None:
    """The dense weight fitted on ``queries`` (judged by ``data.qrels``) for ``settings.home``'s index: the
    published snapshot's ``calibration`` when it was fitted on the same queries, else fitted now and recorded
    there (when the home has a published snapshot). None when the fusion is rrf (no weight to fit)."""
    from serving.evaluation.calibrate import fit_fusion_with

    if settings.index.fusion != "weighted":
        return None
    rows = [{"question": text,
             "relevant_document_ids": sorted(d for d, r in data.qrels.get(qid, {}).items() if r > 0)}
            for qid, text in queries]
    digest = hashlib.sha256(json.dumps([data.fingerprint, rows], ensure_ascii=False).encode()).hexdigest()
    paths = LakePaths(settings.home)
    snapshot = current_id(paths)
    stored = (read_manifest(paths, snapshot).get("calibration") or {}) if snapshot else {}
    if stored.get("questions_sha256") == digest and "fusion" in stored:
        return stored["fusion"]
    base = RetrievalConfig(fusion="weighted", rrf_k=settings.index.rrf_k,
                           candidates=max(settings.index.candidates, 100))
    fusion = fit_fusion_with(retriever, base, rows, settings.index.fusion_dense_weight,
                             settings.orchestration.calibration_min_questions, vectors, metric="ndcg")
    if snapshot:
        annotate(paths, snapshot, {"calibration": {
            **stored, "fusion_dense_weight": fusion["value"] if fusion["fitted"] else None,
            "min_relevance": stored.get("min_relevance"), "fusion": fusion, "questions": f"{data.name} qrels",
            "questions_sha256": digest}})
    log.info("%s: dense weight %s (%s)", data.name, fusion["value"], fusion.get("reason"))
    return fusion


def _calibrated_configs(fusion: dict | None, settings: Settings, reranker: bool) -> dict[str, RetrievalConfig]:
    if not fusion or not fusion.get("fitted"):
        return {}
    weight, base = float(fusion["value"]), max(settings.index.candidates, 100)
    name = f"calibrated-{weight:g}"
    out = {name: RetrievalConfig(fusion="weighted", dense_weight=weight, rrf_k=settings.index.rrf_k, candidates=base)}
    if reranker:
        out[f"{name}+rerank"] = RetrievalConfig(fusion="weighted", dense_weight=weight, rrf_k=settings.index.rrf_k,
                                                candidates=base, rerank=True, rerank_top=settings.index.rerank_top)
    return out


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
    calibration: dict[str, dict | None] = {}
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
        calibration[variant] = calibrated_weight(vsettings, data, queries, retriever, vectors)
        configs = {**_configs(retriever, vsettings),
                   **_calibrated_configs(calibration[variant], vsettings, retriever.reranker is not None)}
        for name, config in configs.items():
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
    default, fixed = default_name(settings), default_name(settings)
    fitted = calibration.get(_variant_of(settings))
    if fitted and fitted.get("fitted"):
        default = f"{_variant_of(settings)}/calibrated-{float(fitted['value']):g}" \
            f"{'+rerank' if settings.index.reranker_model else ''}"
    return {"dataset": data.name, "corpus": len(data.corpus), "queries": len(queries),
            "model": retriever.index.model_id, "configs": results, "default": default, "fixed_default": fixed,
            "calibration": calibration, "index_seconds": timings}


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
