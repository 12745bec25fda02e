"""Retrieval latency at 10k and 100k chunks, query embedding included (reranker excluded), on this machine.

The corpus is BEIR SciFact's passages replicated to the target size (each copy gets a distinct suffix token);
BM25 is built for real over the replicated texts; dense vectors are the real vectors of the first 256
passages tiled with small noise (brute-force search cost does not depend on the values); queries are SciFact's,
embedded by the configured model for every search.

    .venv/bin/python benchmarks/retrieval.py [--sizes 10000 100000] [--queries 200]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import peak_rss_mb, print_table, save  # noqa: E402

from lakehouse.settings import Settings  # noqa: E402
from models.analysis import analyze  # noqa: E402
from models.embedding import load_embedder  # noqa: E402
from models.sparse import build_sparse_index  # noqa: E402
from serving.search import RetrievalConfig, Retriever, SearchIndex  # noqa: E402

SCIFACT = Path(__file__).resolve().parents[1] / ".." / "shared" / "datasets" / "beir-scifact"


def _corpus() -> tuple[list[str], list[str]]:
    docs = [json.loads(line) for line in (SCIFACT / "corpus.jsonl").read_text(encoding="utf-8").splitlines()]
    queries = [json.loads(line)["text"] for line in (SCIFACT / "queries.jsonl").read_text().splitlines()]
    return [f"{d['title']}\n{d['text']}" for d in docs], queries


def _index(size: int, texts: list[str], base_vectors: np.ndarray) -> tuple[SearchIndex, dict]:
    rng = np.random.default_rng(0)
    rows = [f"{texts[i % len(texts)]} copy{i // len(texts)}" for i in range(size)]
    started = time.perf_counter()
    tokens = [analyze(t, "en") for t in rows]
    analyse_s = time.perf_counter() - started
    started = time.perf_counter()
    sparse = build_sparse_index([f"c{i}" for i in range(size)], tokens)
    bm25_s = time.perf_counter() - started
    tiled = base_vectors[np.arange(size) % len(base_vectors)] + rng.normal(0, 0.01, (size, base_vectors.shape[1]))
    vectors = (tiled / np.linalg.norm(tiled, axis=1, keepdims=True)).astype(np.float32)
    nat = np.full(size, np.datetime64("NaT"), dtype="datetime64[D]")
    index = SearchIndex(
        snapshot_id="bench", chunk_ids=sparse.chunk_ids, document_ids=sparse.chunk_ids, titles=[""] * size,
        heading_paths=[[]] * size, texts=rows, paths=[""] * size, pages=[[]] * size,
        doc_types=np.array(["beir"] * size, dtype=object), departments=np.array([""] * size, dtype=object),
        issue_dates=nat, review_dates=nat, group_sets=[frozenset({"public"}), frozenset({"rh"})],
        group_codes=(np.arange(size) % 10 == 0).astype(np.int32), vectors=vectors, model_id="bench",
        sparse=sparse)
    return index, {"analyse_s": round(analyse_s, 2), "bm25_build_s": round(bm25_s, 2),
                   "analyse_chunks_per_s": round(size / analyse_s)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--queries", type=int, default=200)
    args = parser.parse_args()
    settings = Settings()
    embedder = load_embedder(settings.index.embedding_model)
    texts, queries = _corpus()
    started = time.perf_counter()
    base = embedder.embed_passages(texts[:256])
    embed_rate = 256 / (time.perf_counter() - started)
    queries = queries[: args.queries]
    rows = []
    for size in args.sizes:
        index, build = _index(size, texts, base)
        retriever = Retriever(index, embedder)
        for name, config in (("bm25", RetrievalConfig(method="bm25")), ("dense", RetrievalConfig(method="dense")),
                             ("hybrid", RetrievalConfig(fusion=settings.index.fusion,
                                                        dense_weight=settings.index.fusion_dense_weight))):
            latencies = []
            for query in queries:
                started = time.perf_counter()
                retriever.search(query, {"public"}, top_k=10, config=config)
                latencies.append((time.perf_counter() - started) * 1000)
            rows.append({"chunks": size, "method": name, "p50_ms": round(float(np.percentile(latencies, 50)), 2),
                         "p95_ms": round(float(np.percentile(latencies, 95)), 2),
                         "qps": round(1000 / float(np.mean(latencies)), 1), **build})
    print(f"model {embedder.model_id}: {embed_rate:.1f} passages/s embedding (SciFact abstracts)")
    print_table(rows, ["chunks", "method", "p50_ms", "p95_ms", "qps", "analyse_chunks_per_s", "bm25_build_s"])
    path = save("retrieval", {"model": embedder.model_id, "embed_passages_per_s": round(embed_rate, 2),
                              "rows": rows, "peak_rss_mb": round(peak_rss_mb(), 1)})
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
