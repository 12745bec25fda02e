"""Query analysis language: lakerag BM25 nDCG@10 with the detector alone (before: an undecided short query falls
back on spelling, else Portuguese) against the index's language shares (after), and bm25s in the same run.

Every BEIR folder under ../shared/datasets, plus two ``mixed`` sets: HotpotQA or SciFact (English) with FaQuAD
(Portuguese) in one index with both query sets, where an undecided query has two candidate languages. Two ways
of using them are compared: ``after`` (what ``SparseIndex`` searches: the one candidate language whose terms
the index vocabulary knows the largest share of) and ``merge`` (every candidate language's terms,
``analyze_query(..., shares)``).

    .venv/bin/python benchmarks/query_language.py
"""

from __future__ import annotations

import json
import os
import sys
from collections import Counter
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import print_table, save  # noqa: E402
from sparse import DATASETS, ndcg10  # noqa: E402

from models.analysis import analyze, analyze_query, detect_language  # noqa: E402
from models.sparse import SparseIndex, build_sparse_index  # noqa: E402

BM25S_LANGUAGE = {"faquad-pt": "pt"}  # bm25s gets one language per corpus; English unless named here


def load_set(folder: Path) -> tuple[list[str], list[str], dict[str, str], dict[str, dict[str, int]]]:
    """Corpus ids and texts (title + text, as ``write_beir_tables`` joins them), the judged queries, qrels."""
    docs = [json.loads(line) for line in (folder / "corpus.jsonl").open(encoding="utf-8") if line.strip()]
    qrels: dict[str, dict[str, int]] = {}
    for line in (folder / "qrels" / "test.tsv").read_text(encoding="utf-8").splitlines()[1:]:
        qid, did, score = line.split("\t")[:3]
        qrels.setdefault(qid, {})[did] = int(score)
    queries = {q["_id"]: q["text"] for q in map(json.loads, (folder / "queries.jsonl").open(encoding="utf-8"))
               if q["_id"] in qrels}
    texts = [f"{d['title']}\n{d['text']}" if d.get("title") else d["text"] for d in docs]
    return [d["_id"] for d in docs], texts, queries, qrels




def bm25s_search(ids: list[str], texts: list[str], language: str):
    import bm25s
    import Stemmer

    stemmer = Stemmer.Stemmer({"en": "english", "pt": "portuguese"}[language])
    retriever = bm25s.BM25(k1=1.2, b=0.75, method="lucene")
    retriever.index(bm25s.tokenize(texts, stopwords=language, stemmer=stemmer, show_progress=False),
                    show_progress=False)

    def search(q: str) -> list[str]:
        tokens = bm25s.tokenize([q], stopwords=language, stemmer=stemmer, show_progress=False)
        docs, _ = retriever.retrieve(tokens, k=10, show_progress=False, n_threads=1)
        return [ids[i] for i in docs[0]]
    return search, bm25s.__version__


def measure(name: str, ids: list[str], texts: list[str], queries: dict[str, str],
            qrels: dict[str, dict[str, int]], bm25s_language: str | None) -> dict:
    languages = [detect_language(t) for t in texts]
    after = build_sparse_index(ids, [analyze(t, lang) for t, lang in zip(texts, languages, strict=True)],
                               languages=languages)
    before = replace(after, languages={})  # the same postings, no shares: today's detector-alone path

    def ranked(index: SparseIndex, terms: list[str]) -> list[str]:
        from models.sparse_search import query_columns, top_k

        rows, _ = top_k(index.matrix, query_columns(index.vocabulary, terms), 10, None)
        return [ids[r] for r in rows.tolist()]

    runs = {"lakerag before": {q: [ids[r] for r, _ in before.search(t, 10)] for q, t in queries.items()},
            "lakerag after": {q: [ids[r] for r, _ in after.search(t, 10)] for q, t in queries.items()},
            "lakerag merge": {q: ranked(after, analyze_query(t, shares=after.languages)) for q, t in queries.items()}}
    if bm25s_language:
        search, version = bm25s_search(ids, texts, bm25s_language)
        runs[f"bm25s {version} ({bm25s_language})"] = {q: search(t) for q, t in queries.items()}
    detected = Counter(detect_language(t) for t in queries.values())
    read_as = Counter("+".join(after.query_languages(t)) for t in queries.values())
    changed = sum(before.query_languages(t) != after.query_languages(t) for t in queries.values())
    return {"dataset": name, "documents": len(ids), "queries": len(queries), "index_languages": after.languages,
            "detected": dict(detected), "analysed_in": dict(read_as), "queries_changed": changed,
            "ndcg@10": {system: ndcg10(run, qrels) for system, run in runs.items()}}


def main() -> None:
    load_before = os.getloadavg()
    folders = sorted(p for p in DATASETS.iterdir() if (p / "corpus.jsonl").exists() and (p / "qrels").is_dir())
    results, loaded = [], {}
    for folder in folders:
        loaded[folder.name] = load_set(folder)
        results.append(measure(folder.name, *loaded[folder.name], BM25S_LANGUAGE.get(folder.name, "en")))
    for english in ("hotpotqa-100", "beir-scifact"):  # an English corpus with the Portuguese one
        if {english, "faquad-pt"} <= set(loaded):
            (ei, et, eq, er), (pi, pt, pq, pr) = loaded[english], loaded["faquad-pt"]
            results.append(measure(f"mixed ({english} + faquad-pt)", ei + pi, et + pt,
                                   {**{f"en-{k}": v for k, v in eq.items()}, **{f"pt-{k}": v for k, v in pq.items()}},
                                   {**{f"en-{k}": v for k, v in er.items()}, **{f"pt-{k}": v for k, v in pr.items()}},
                                   None))
    rows = [{"dataset": r["dataset"], "queries": r["queries"], "changed": r["queries_changed"],
             "index": " ".join(f"{k}:{v:.3f}" for k, v in r["index_languages"].items()),
             **r["ndcg@10"]} for r in results]
    columns = list(dict.fromkeys(c for row in rows for c in row))
    print_table(rows, columns)
    load_after = os.getloadavg()
    print(f"load average {load_before[0]:.1f} before, {load_after[0]:.1f} after")
    print(f"wrote {save('query_language', {'results': results, 'load': [load_before, load_after]})}")


if __name__ == "__main__":
    main()
