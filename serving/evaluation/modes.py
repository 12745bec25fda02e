"""Query modes compared on a BEIR set whose questions need several passages (HotpotQA: two per question).

Per mode (``basic`` = hybrid chunk retrieval, ``local``, ``hybrid``): recall@10 over the top 10 distinct
documents and ``all_evidence@10``, the share of questions whose relevant passages are all in that top 10.
The index is the one ``evaluate_beir`` builds (same home, same stages). The graph comes from the ``graph``
index stage; while that is not registered, from ``graph_index.workflow.graph`` directly, and without a
builder from a stand-in (capitalised names per passage, co-occurrence relations, no communities). The result
says which.
"""

from __future__ import annotations

import hashlib
import logging
import re
import time
from collections import defaultdict
from collections.abc import Callable
from itertools import combinations
from pathlib import Path

import numpy as np
import pyarrow as pa

from graph_index import schemas as g
from graph_index.search import GraphSearcher, GraphStore
from graph_index.search.names import fold
from lakehouse.paths import LakePaths
from lakehouse.settings import Settings
from lakehouse.storage import read_table, write_json, write_table
from serving.evaluation.beir import load_beir, write_beir_tables
from serving.evaluation.metrics import ndcg_at, recall_at
from serving.evaluation.runner import _index_stages, _ranked_documents, _variant_of
from serving.search.service import build_retriever, config_from, serving_tables
from transforms.stages import RunContext
from transforms.stopwords import ENGLISH, PORTUGUESE

log = logging.getLogger(__name__)

MODES = ("basic", "local", "hybrid")
_UPPER = "A-ZÀ-ÖØ-Þ"
_WORD = rf"[{_UPPER}][\w'’.-]*"
_NAME = re.compile(rf"\b{_WORD}(?:\s+(?:(?:of|the|de|da|do|dos|das|von|van|y)\s+)*{_WORD})*")
_COMMON = ENGLISH | PORTUGUESE  # a capitalised stopword starts a sentence, not a name


def all_evidence_at(ranked: list[str], relevant: dict[str, int], k: int = 10) -> float:
    """1.0 when every relevant document is in the top k, else 0.0."""
    wanted = {d for d, r in relevant.items() if r > 0}
    return float(bool(wanted) and wanted <= set(ranked[:k]))


def _names(text: str) -> set[str]:
    found = set()
    for sentence in re.split(r"(?<=[.!?;:])\s+|\n+", text):
        for match in _NAME.finditer(sentence):
            words = match.group(0).rstrip(".'’").split()
            while words and fold(words[0]) in _COMMON:
                words = words[1:]
            if words and len(" ".join(words)) > 2:
                found.add(" ".join(words))
    return found


def _sha(prefix: str, *parts: str) -> str:
    return prefix + hashlib.sha256("\x1f".join(parts).encode("utf-8")).hexdigest()[:16]


def write_stand_in_graph(paths: LakePaths) -> None:
    """Entities = capitalised names per chunk, relations = co-occurrence in a chunk (graph_index schemas)."""
    chunks = read_table(paths.table("chunks")).select(["chunk_id", "document_id", "text"]).to_pylist()
    evidence: dict[str, list[str]] = defaultdict(list)
    surface: dict[str, str] = {}
    pairs: dict[tuple[str, str], list[str]] = defaultdict(list)
    for c in chunks:
        keys = sorted({fold(n): n for n in _names(c["text"])}.items())
        for key, name in keys:
            evidence[key].append(c["chunk_id"])
            surface.setdefault(key, name)
        for (a, _), (b, _) in combinations(keys, 2):
            pairs[(a, b)].append(c["chunk_id"])
    doc_of = {c["chunk_id"]: c["document_id"] for c in chunks}
    degree = defaultdict(int)
    for a, b in pairs:
        degree[a] += 1
        degree[b] += 1
    entities = [{"entity_id": _sha("ent_", k), "name": surface[k], "canonical": k, "type": "NAME",
                 "description": "", "aliases": [], "chunk_ids": ids,
                 "document_ids": sorted({doc_of[i] for i in ids}), "frequency": len(ids), "degree": degree[k]}
                for k, ids in sorted(evidence.items())]
    relations = [{"relationship_id": _sha("rel_", a, b), "source_id": _sha("ent_", a),
                  "target_id": _sha("ent_", b), "description": f"{surface[a]} and {surface[b]} co-occur",
                  "weight": float(len(ids)), "chunk_ids": ids, "count": len(ids)}
                 for (a, b), ids in sorted(pairs.items())]
    folder = paths.tables / "graph-stand-in"
    tables = {"entities": entities, "relationships": relations, "text_units": [], "communities": [],
              "community_reports": [], "aliases": []}
    for name, rows in tables.items():
        schema = getattr(g, name.upper())
        write_table(pa.Table.from_pylist(rows, schema=schema), folder / f"{name}.parquet")
    write_json({"dir": folder.name, "run_id": "stand-in"}, paths.tables / "graph.json")


def _graph_stage() -> tuple[str, Callable | None]:
    """Where the graph comes from: the registered index stage, the builder's stage function when it is not
    registered yet, or the stand-in."""
    from transforms.pipeline import INDEX_STAGES

    if "graph" in INDEX_STAGES:
        return "index stage", None
    try:
        from graph_index.workflow import graph
    except ImportError:
        return "stand-in", None
    return "graph_index.workflow.graph", graph


def evaluate_modes(folder: Path, settings: Settings, work: Path, modes: tuple[str, ...] = MODES,
                   limit: int | None = None) -> dict:
    data = load_beir(folder)
    queries = sorted(data.queries.items())[:limit] if limit else sorted(data.queries.items())
    variant = _variant_of(settings)
    home = work / f"{data.name}-{data.fingerprint}-{variant}"
    vsettings = settings.model_copy(update={"home": home})
    paths = LakePaths(home)
    if not paths.table("chunks").exists():
        write_beir_tables(data, paths)
    seconds = _index_stages(vsettings)
    graph, stage = _graph_stage()
    if graph != "index stage":
        started = time.perf_counter()
        if stage is not None:
            stage(RunContext(settings=vsettings, run_id="eval"))
        else:
            write_stand_in_graph(paths)
        seconds["graph"] = round(time.perf_counter() - started, 2)
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
            result = run(text, {"public"}, top_k=20, query_vector=vector)
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
            "model": retriever.index.model_id, "graph": graph, "graph_entities": len(store.entity_ids),
            "modes": results, "index_seconds": seconds}
