"""Should rules contexts be indexed for the dense side only? nDCG@10 on a BEIR set of: each retriever on plain
chunks and on chunks with rules contexts, and the weighted fusion of the enriched dense side with the plain BM25
side (the configuration no setting offers yet), at several dense shares.

Reads the two indexes ``lakerag eval --dataset DIR --enrichment both --work WORK`` built (nothing is indexed
here), prints a table and writes JSON::

    python benchmarks/dense_contexts.py --dataset ../shared/datasets/hotpotqa-100 --work /tmp/evalwork \
        [--limit 100] [--json benchmarks/results/dense-contexts-hotpotqa.json]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from lakehouse.settings import Settings
from serving.evaluation.beir import load_beir
from serving.evaluation.metrics import ndcg_at
from serving.search.fusion import fuse
from serving.search.retriever import RetrievalConfig, _top
from serving.search.service import build_retriever

WEIGHTS = (0.5, 0.6, 0.7)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dataset", type=Path, required=True)
    parser.add_argument("--work", type=Path, required=True)
    parser.add_argument("--limit", type=int)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    data = load_beir(args.dataset)
    queries = sorted(data.queries.items())[: args.limit] if args.limit else sorted(data.queries.items())
    homes = {v: args.work / f"{data.name}-{data.fingerprint}-{v}" for v in ("plain", "enriched")}
    plain, enriched = (build_retriever(Settings(home=homes[v])) for v in ("plain", "enriched"))
    order = np.array([enriched.index.chunk_ids.index(c) for c in plain.index.chunk_ids])  # plain row -> enriched
    vectors = plain.embedder.embed_queries([q for _, q in queries])
    runs: dict[str, list[float]] = {}
    for (qid, text), qv in zip(queries, vectors, strict=True):
        dense = {"plain": plain.index.vectors @ qv, "enriched": (enriched.index.vectors @ qv)[order]}
        sparse = {"plain": plain.index.sparse.scores(text), "enriched": enriched.index.sparse.scores(text)[order]}
        everything = np.ones(len(plain.index.chunk_ids), bool)
        ranked: dict[str, np.ndarray] = {f"{v}/dense": _top(dense[v], everything, 100) for v in dense}
        ranked |= {f"{v}/bm25": _top(sparse[v], sparse[v] > 0, 100) for v in sparse}
        for w in WEIGHTS:
            config = RetrievalConfig(fusion="weighted", dense_weight=w)
            for name, d, s in (("plain", "plain", "plain"), ("enriched", "enriched", "enriched"),
                               ("dense-enriched+bm25-plain", "enriched", "plain")):
                rows, _, _ = fuse(dense[d], sparse[s], ranked[f"{d}/dense"], ranked[f"{s}/bm25"], config)
                ranked[f"{name}/weighted-{w:g}"] = rows
        for name, rows in ranked.items():
            docs = list(dict.fromkeys(plain.index.document_ids[r] for r in rows))
            runs.setdefault(name, []).append(ndcg_at(docs, data.qrels[qid], 10))
    table = {name: round(float(np.mean(v)), 4) for name, v in sorted(runs.items())}
    for name, value in table.items():
        print(f"{name:<40} {value:.4f}")
    if args.json:
        args.json.write_text(json.dumps({"dataset": data.name, "queries": len(queries), "ndcg@10": table},
                                        indent=2), encoding="utf-8")


if __name__ == "__main__":
    main()
