"""Retrieval latency at 100k (and 1M) chunks on this machine: the search itself (mask, dense, BM25, fusion;
query vectors computed beforehand), the hybrid search with its query encoding, float32 vs int8 dense scans, the
fast path against the exact path it replaced (mask rebuilt per request, every row scored and fused), and a
plain numpy + bm25s hybrid as the baseline, all in one run.

The corpus is BEIR SciFact's passages replicated to 100k (each copy gets a distinct suffix token), analysed and
indexed for real; 1M replicates the 100k BM25 postings and vectors ten times (the cost of a search depends on
the postings' and matrix's sizes, not on their values). Dense vectors are the real vectors of the first 256
passages (``--base``) tiled with small noise. 10% of the rows belong to a restricted group, so every search
applies a mask.

    .venv/bin/python benchmarks/retrieval.py [--sizes 100000 1000000] [--queries 100] [--precisions float32 int8]

The int8 (and float16) scans use SimSIMD's kernels when ``simsimd`` is installed (requirements.lock), else
numpy blocks; the notes say which. Their rows carry recall@10 against the float32 path's top 10.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from threadpoolctl import threadpool_limits

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import peak_rss_mb, print_table, save  # noqa: E402

from lakehouse.settings import Settings  # noqa: E402
from models.analysis import analyze  # noqa: E402
from models.embedding import load_embedder  # noqa: E402
from models.sparse import SparseIndex, build_sparse_index  # noqa: E402
from serving.search import RetrievalConfig, Retriever, SearchIndex, kernels  # noqa: E402
from serving.search.fusion import fuse  # noqa: E402

SCIFACT = Path(__file__).resolve().parents[1] / ".." / "shared" / "datasets" / "beir-scifact"
GROUPS = {"public"}


def _corpus() -> tuple[list[str], list[str]]:
    docs = [json.loads(line) for line in (SCIFACT / "corpus.jsonl").read_text(encoding="utf-8").splitlines()]
    queries = [json.loads(line)["text"] for line in (SCIFACT / "queries.jsonl").read_text().splitlines()]
    return [f"{d['title']}\n{d['text']}" for d in docs], queries


def _vectors(size: int, base: np.ndarray) -> np.ndarray:
    rng, out = np.random.default_rng(0), np.empty((size, base.shape[1]), dtype=np.float32)
    for start in range(0, size, 65536):
        end = min(size, start + 65536)
        block = base[np.arange(start, end) % len(base)] + rng.standard_normal((end - start, base.shape[1]),
                                                                              dtype=np.float32) * 0.01
        out[start:end] = block / np.linalg.norm(block, axis=1, keepdims=True)
    return out


def _index(sparse: SparseIndex, vectors: np.ndarray, precision: str) -> SearchIndex:
    size = len(sparse.chunk_ids)
    nat = np.full(size, np.datetime64("NaT"), dtype="datetime64[D]")
    return SearchIndex(
        snapshot_id="bench", chunk_ids=sparse.chunk_ids, document_ids=sparse.chunk_ids, titles=[""] * size,
        heading_paths=[[]] * size, texts=[""] * size, paths=[""] * size, pages=[[]] * size,
        doc_types=np.array(["beir"] * size, dtype=object), departments=np.array([""] * size, dtype=object),
        issue_dates=nat, review_dates=nat, group_sets=[frozenset({"public"}), frozenset({"rh"})],
        group_codes=(np.arange(size) % 10 == 0).astype(np.int32), vectors=vectors, model_id="bench",
        sparse=sparse, dense_precision=precision)


def _replicate(sparse: SparseIndex, copies: int) -> SparseIndex:
    rows = sp.vstack([sparse.matrix.tocsr()] * copies).tocsc()
    rows.has_canonical_format = True
    ids = [f"{c}_{k}" for k in range(copies) for c in sparse.chunk_ids]
    return SparseIndex(ids, sparse.vocabulary, rows, sparse.k1, sparse.b, sparse.avgdl)


def _old_path(index: SearchIndex, query: str, vector: np.ndarray, config: RetrievalConfig) -> list[int]:
    """The search as it was: the mask rebuilt, every row scored, top-k over every masked row."""
    allowed = [c for c, g in enumerate(index.group_sets) if g & GROUPS]
    mask = np.isin(index.group_codes, np.array(allowed, dtype=np.int32))

    def top(scores: np.ndarray, m: np.ndarray, k: int) -> np.ndarray:
        rows = np.flatnonzero(m)
        values = scores[rows]
        if rows.size > k:
            keep = np.argpartition(-values, k - 1)[:k]
            rows, values = rows[keep], values[keep]
        return rows[np.lexsort((rows, -values))]

    dense = index.vectors @ vector if config.method != "bm25" else None
    sparse = index.sparse.scores(query) if config.method != "dense" else None
    if dense is None:
        return top(sparse, mask & (sparse > 0), config.candidates)[:10].tolist()
    if sparse is None:
        return top(dense, mask, config.candidates)[:10].tolist()
    rows, _, _ = fuse(top(dense, mask, config.candidates), top(sparse, mask & (sparse > 0), config.candidates),
                      lambda r: dense[r], lambda r: sparse[r], config)
    return rows[:10].tolist()


def _bm25s_hybrid(tokens: list[list[str]], vectors: np.ndarray, config: RetrievalConfig):
    """The baseline: bm25s (Lucene scoring) over the same analysed tokens, numpy brute-force top-k over the same
    vectors, weighted fusion of the two top-k lists."""
    import bm25s

    started = time.perf_counter()
    retriever = bm25s.BM25(method="lucene")
    retriever.index(tokens, show_progress=False)
    build_s = time.perf_counter() - started
    k = config.candidates
    vocabulary = retriever.vocab_dict

    def search(query: str, vector: np.ndarray) -> list[int]:
        ids = [[vocabulary[t] for t in dict.fromkeys(analyze(query, "en")) if t in vocabulary]]
        if not ids[0]:
            docs, scores = np.zeros((1, 0), dtype=np.int64), np.zeros((1, 0), dtype=np.float32)
        else:
            docs, scores = retriever.retrieve(ids, k=k, show_progress=False, n_threads=1)
        dense = vectors @ vector
        dense_rows = np.argpartition(-dense, k - 1)[:k]
        sparse = dict(zip(docs[0].tolist(), scores[0].tolist(), strict=True))
        rows, _, _ = fuse(dense_rows, docs[0], lambda r: dense[r],
                          lambda r: np.array([sparse.get(int(x), 0.0) for x in r]), config)
        return rows[:10].tolist()

    return search, build_s


def _time(fn, items, results: list | None = None) -> dict:
    ms = []
    for item in items:
        started = time.perf_counter()
        out = fn(*item)
        ms.append((time.perf_counter() - started) * 1000)
        if results is not None:
            results.append(out)
    return {"p50_ms": round(float(np.percentile(ms, 50)), 2), "p95_ms": round(float(np.percentile(ms, 95)), 2),
            "qps": round(1000 / float(np.mean(ms)), 1)}


def _phases(retriever: Retriever, config: RetrievalConfig, items) -> dict:
    """Median milliseconds of each phase the retriever times (mask, dense scan, BM25, fusion)."""
    seen: dict[str, list[float]] = {}
    for query, vector in items:
        retriever.search(query, GROUPS, None, 10, config, query_vector=vector)
        for name, ms in retriever.timings.items():
            seen.setdefault(name.removesuffix("_ms"), []).append(ms)
    return {name: round(float(np.median(ms)), 2) for name, ms in seen.items() if name != "embed"}


def _recall(got: list, want: list) -> float:
    """Mean share of the exact path's top 10 that this path also returns in its top 10."""
    shares = [len({h.chunk_id for h in a} & {h.chunk_id for h in b}) / max(1, len(b))
              for a, b in zip(got, want, strict=True)]
    return round(float(np.mean(shares)), 4)


def _time_pair(fn, other, items) -> tuple[dict, dict]:
    a, b = [], []
    for item in items:
        for fun, out in ((fn, a), (other, b)):
            started = time.perf_counter()
            fun(*item)
            out.append((time.perf_counter() - started) * 1000)

    def stats(ms: list[float]) -> dict:
        return {"p50_ms": round(float(np.percentile(ms, 50)), 2), "p95_ms": round(float(np.percentile(ms, 95)), 2),
                "qps": round(1000 / float(np.mean(ms)), 1)}

    return stats(a), stats(b)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[100_000])
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--encoded", type=int, default=40, help="queries searched with their encoding")
    parser.add_argument("--base", type=int, default=256, help="real passage vectors tiled to the corpus size")
    parser.add_argument("--precisions", nargs="+", default=["float32", "int8"], choices=["float32", "float16", "int8"],
                        help="dense scan matrices to time (float32 first: the others' recall is measured against it)")
    args = parser.parse_args()
    load_before = os.getloadavg()
    threadpool_limits(1, user_api="blas")  # as the API does: parallel requests, one BLAS thread each
    settings = Settings()
    embedder = load_embedder(settings.index.embedding_model)
    texts, queries = _corpus()
    base = embedder.embed_passages(texts[: args.base])
    queries = queries[: args.queries]
    vectors_q = embedder.embed_queries(queries)
    hybrid = RetrievalConfig(fusion=settings.index.fusion, dense_weight=settings.index.fusion_dense_weight)
    configs = {"bm25": RetrievalConfig(method="bm25"), "dense": RetrievalConfig(method="dense"), "hybrid": hybrid}
    first = min(args.sizes)
    started = time.perf_counter()
    analysed = [analyze(t, "en") for t in texts]  # each copy is the passage plus one suffix token
    tokens = [[*analysed[i % len(texts)], f"copy{i // len(texts)}"] for i in range(first)]
    analyse_s = time.perf_counter() - started
    started = time.perf_counter()
    sparse_first = build_sparse_index([f"c{i}" for i in range(first)], tokens)
    rows, notes = [], {"analysis_s": round(analyse_s, 1), "bm25_build_s": round(time.perf_counter() - started, 1)}
    for size in sorted(args.sizes):
        sparse = sparse_first if size == first else _replicate(sparse_first, size // first)
        vectors = _vectors(len(sparse.chunk_ids), base)
        n = len(sparse.chunk_ids)
        few = min(len(queries), args.queries if size <= 200_000 else 30)
        items = [(q, v) for q, v in zip(queries[:few], vectors_q[:few], strict=True)]
        exact: dict[str, list] = {}
        bm25_mb = round(sum(a.nbytes for a in (sparse.matrix.data, sparse.matrix.indices, sparse.matrix.indptr))
                        / 2**20)
        for precision in args.precisions:
            index = _index(sparse, vectors, precision)
            retriever = Retriever(index, embedder)
            memory = index.dense.memory()
            for name, config in configs.items():
                fast_fn = lambda q, v, c=config, r=retriever: r.search(q, GROUPS, None, 10, c, query_vector=v)  # noqa: E731
                hits: list = []
                if precision == "float32":  # the old path and the new, query by query, so load hits both alike
                    fast, old = _time_pair(fast_fn, lambda q, v, c=config, ix=index: _old_path(ix, q, v, c), items)
                    exact[name] = [fast_fn(*item) for item in items]
                else:
                    fast, old = _time(fast_fn, items, hits), None
                row = {"chunks": n, "precision": precision, "method": name, **fast,
                       "scan_mb": round((memory["scan_bytes"] or memory["float32_bytes"]) / 2**20),
                       "index_mb": round(sum(memory.values()) / 2**20) + bm25_mb,
                       "phases_ms": _phases(retriever, config, items[:30])}
                if old:
                    row.update(old_p50_ms=old["p50_ms"], old_p95_ms=old["p95_ms"],
                               speedup_p50=round(old["p50_ms"] / fast["p50_ms"], 2))
                if hits and name in exact:  # the approximate scan's top 10 against the exact float32 top 10
                    row["recall@10"] = _recall(hits, exact[name])
                rows.append(row)
            encoded = _time(lambda q, r=retriever: r.search(q, GROUPS, None, 10, hybrid),
                            [(q,) for q in queries[: min(args.encoded, few)]])
            rows.append({"chunks": n, "precision": precision, "method": "hybrid+encoding", **encoded})
            index = retriever = None  # free the scan copies before the next precision
        if size == first:
            search, bm25s_s = _bm25s_hybrid(tokens, vectors, hybrid)
            baseline = _time(search, items)
            ours = next(r for r in rows if r["chunks"] == n and r["method"] == "hybrid"
                        and r["precision"] == "float32")
            rows.append({"chunks": n, "precision": "float32", "method": "numpy+bm25s hybrid", **baseline,
                         "speedup_p50": round(baseline["p50_ms"] / ours["p50_ms"], 2)})
            notes["bm25s_build_s"] = round(bm25s_s, 1)
        del vectors, sparse
    columns = ["chunks", "precision", "method", "p50_ms", "p95_ms", "qps", "scan_mb", "index_mb", "recall@10",
               "old_p50_ms", "old_p95_ms", "speedup_p50"]
    load_after = os.getloadavg()
    notes["dense_kernel"] = "simsimd" if kernels.available() else "numpy blocks (simsimd not installed)"
    print(f"model {embedder.model_id}; load average {load_before[0]:.1f} before, {load_after[0]:.1f} after; "
          f"peak RSS {peak_rss_mb():.0f} MB; {notes}")
    print("speedup_p50: the exact old path's p50 (or the baseline's) over this path's, same run; recall@10: "
          "share of the float32 path's top 10 found by the quantised scan + exact rescoring")
    print_table(rows, columns)
    print("\nphases (median ms of 30 searches; the mask comes from the cache after the first)")
    phased = [{"chunks": r["chunks"], "precision": r["precision"], "method": r["method"], **r["phases_ms"]}
              for r in rows if "phases_ms" in r]
    print_table(phased, ["chunks", "precision", "method", "filter", "dense", "bm25", "fusion"])
    path = save("retrieval", {"model": embedder.model_id, "rows": rows, "notes": notes,
                              "peak_rss_mb": round(peak_rss_mb(), 1), "load_before": load_before,
                              "load_after": load_after})
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
