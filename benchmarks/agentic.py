"""The agentic and global modes on the sample corpus without an LLM, and the agentic workflow on HotpotQA-100.

    PYTHONPATH=. python benchmarks/agentic.py                       # latency, steps, must_read, global, seeds
    PYTHONPATH=. python benchmarks/agentic.py --permissions 1000    # + randomised permission requests over HTTP
    PYTHONPATH=. python benchmarks/agentic.py --hotpot ../shared/datasets/hotpotqa-100 --embedding wordllama

Sample corpus (indexed into --home first if nothing is published there): per labelled question, the agentic
mode's milliseconds and steps (p50/p95 over all questions, and per kind), the basic mode's latency beside it,
must_read coverage (share of a multi-hop question's relevant documents among the documents read in the loop;
for basic and hybrid, among the documents of their evidence), the seeds' example's verdict lines, and per
global question the distinct documents cited, citations without a document and expected documents cited.
HotpotQA: all_evidence@10 of the workflow's documents (read first, then the other hits of its searches, in
order; "agentic_first_search": of its first search only, as measured before) against the hybrid mode's, on one
index built by the pipeline. Results: benchmarks/results/agentic.json.
"""

from __future__ import annotations

import argparse
import json
import logging
import random
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks._common import save  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
SEEDS = ("O prazo de notificação de incidentes do Anexo III do CT-2024-0187 está de acordo com a Política de "
         "Segurança da Informação para Terceiros?")


def _service(home: Path, embedding: str):
    from lakehouse.paths import LakePaths
    from lakehouse.settings import Settings
    from lakehouse.snapshots import current_id
    from serving.answers import AnswerService, SnapshotHolder
    from transforms.pipeline import run_index

    settings = Settings(home=home, embedding_model=embedding, ocr=False)
    if current_id(LakePaths(home)) is None:
        run_index(settings)
    holder = SnapshotHolder(settings)
    holder.refresh()
    return settings, AnswerService(holder)


def _pct(values: list[float], q: float) -> float:
    return round(float(np.percentile(values, q)), 1) if values else 0.0


def sample(home: Path, embedding: str) -> dict:
    from serving.answers import QueryRequest
    from serving.answers.access import Caller

    _, service = _service(home, embedding)
    questions = [json.loads(line) for line in (REPO / "sample_corpus" / "questions.jsonl").read_text().splitlines()]
    rows, coverage = [], {"agentic": [], "basic": [], "hybrid": []}
    labelled = {m: [] for m in coverage}  # the questions labelled with must_read (the documents a loop must read)
    latency: dict[str, list[float]] = {"agentic": [], "basic": []}
    for q in questions:
        caller = Caller("bench", frozenset(q["groups"]) | {"public"})
        for mode in ("agentic", "basic", "hybrid"):
            if mode == "hybrid" and q["kind"] != "multi_hop" and not q.get("must_read"):
                continue
            started = time.perf_counter()
            answer = service.query(QueryRequest(question=q["question"], mode=mode), caller, "bench")
            ms = (time.perf_counter() - started) * 1000
            if mode in latency:
                latency[mode].append(ms)
            docs = {e.document_id for e in answer.evidence if e.kind == "chunk"}
            if q["kind"] == "multi_hop":
                must = set(q["relevant_document_ids"])
                coverage[mode].append(len(docs & must) / len(must))
            if q.get("must_read"):
                labelled[mode].append(len(docs & set(q["must_read"])) / len(q["must_read"]))
            if mode == "agentic":
                rows.append({"id": q["id"], "kind": q["kind"], "ms": round(ms, 1), "steps": len(answer.trace),
                             "status": answer.status})
    steps = [r["steps"] for r in rows]
    by_kind = {k: {"p50_ms": _pct([r["ms"] for r in rows if r["kind"] == k], 50),
                   "p95_ms": _pct([r["ms"] for r in rows if r["kind"] == k], 95),
                   "mean_steps": round(float(np.mean([r["steps"] for r in rows if r["kind"] == k])), 1)}
               for k in sorted({r["kind"] for r in rows})}
    seeds = service.query(QueryRequest(question=SEEDS, mode="agentic"),
                          Caller("bench", frozenset({"public", "juridico"})), "bench")
    verdicts = [line for line in seeds.answer.splitlines()
                if any(w in line for w in ("notificar", "criptografia", "anualmente", "Conclusão"))]
    glob = []
    for q in (q for q in questions if q["kind"] == "global"):
        started = time.perf_counter()
        answer = service.query(QueryRequest(question=q["question"], mode="global"),
                               Caller("bench", frozenset(q["groups"]) | {"public"}), "bench")
        ms = (time.perf_counter() - started) * 1000
        cited = {c.document_id for c in answer.citations}
        glob.append({"id": q["id"], "status": answer.status, "documents_cited": len(cited - {None}),
                     "citations_without_document": sum(c.document_id is None for c in answer.citations),
                     "expected_cited": f"{len(cited & set(q['relevant_document_ids']))}/"
                                       f"{len(q['relevant_document_ids'])}",
                     "missed": sorted(set(q["relevant_document_ids"]) - cited), "ms": round(ms, 1)})
    return {"questions": len(rows), "agentic_p50_ms": _pct(latency["agentic"], 50),
            "agentic_p95_ms": _pct(latency["agentic"], 95), "basic_p50_ms": _pct(latency["basic"], 50),
            "basic_p95_ms": _pct(latency["basic"], 95), "mean_steps": round(float(np.mean(steps)), 1),
            "max_steps": int(max(steps)), "by_kind": by_kind,
            "relevant_read_multi_hop": {m: round(float(np.mean(v)), 3) for m, v in coverage.items()},
            "must_read": {m: round(float(np.mean(v)), 3) for m, v in labelled.items() if v},
            "must_read_questions": len(labelled["agentic"]),
            "seeds_example": {"status": seeds.status, "lines": verdicts}, "global": glob,
            "global_p50_ms": _pct([g["ms"] for g in glob], 50), "global_p95_ms": _pct([g["ms"] for g in glob], 95)}


def permissions(home: Path, embedding: str, n: int) -> dict:
    from tests.fixtures.api import KEYS, serve, settings_for
    from tests.fixtures.leaks import Restricted, random_request

    questions = [json.loads(line)["question"] for line in
                 (REPO / "sample_corpus" / "questions.jsonl").read_text().splitlines()]
    settings = settings_for(home).replace(embedding_model=embedding)
    with serve(settings) as server:
        engine = server.holder.require()
        callers = [None, *KEYS]
        restricted = {k: Restricted(engine, frozenset(KEYS.get(k, [])) | {"public"}) for k in callers}
        rng = random.Random(20261202)
        leaked, statuses, modes = 0, {}, {}
        for _ in range(n):
            key, body = random_request(rng, questions, callers)
            response = server.client.post("/v1/query", json=body, headers=server.key(key))
            statuses[response.status_code] = statuses.get(response.status_code, 0) + 1
            if response.status_code == 200:
                answer = response.json()
                modes[answer["mode_used"]] = modes.get(answer["mode_used"], 0) + 1
                leaked += len(restricted[key].leaks(answer, body["question"]))
    return {"requests": n, "leaked_names_or_text": leaked, "statuses": statuses, "modes": modes}


def hotpot(folder: Path, work: Path, embedding: str, limit: int) -> dict:
    from types import SimpleNamespace

    from lakehouse.paths import LakePaths
    from lakehouse.schemas import PUBLIC
    from lakehouse.settings import Settings
    from lakerag.indexer import PipelineIndexer
    from serving.answers.agentic.tools import Toolbox
    from serving.answers.agentic.workflow import Workflow
    from serving.answers.relevance import Relevance
    from serving.evaluation.beir import load_beir, write_beir_tables
    from serving.evaluation.modes import all_evidence_at
    from serving.graph import GraphSearcher, GraphStore
    from serving.search.service import build_retriever, config_from, serving_tables

    data = load_beir(folder)
    queries = sorted(data.queries.items())[:limit]
    home = work / f"hotpot-{embedding}"
    settings = Settings(home=home, embedding_model=embedding)
    if not LakePaths(home).table("chunks").exists():
        write_beir_tables(data, LakePaths(home))
    PipelineIndexer().index_chunks(settings)
    retriever = build_retriever(settings)
    ix = retriever.index
    store = GraphStore.load(serving_tables(settings), ix)
    searcher = GraphSearcher(store, retriever, config=config_from(settings))
    documents: dict[str, list[int]] = {}
    for row, doc in enumerate(ix.document_ids):
        documents.setdefault(doc, []).append(row)
    engine = SimpleNamespace(index=ix, documents=documents, catalog=SimpleNamespace(rows={}),
                             config=config_from(settings), readable=ix.readable_by, retriever=lambda: retriever,
                             embed=lambda text: retriever.embedder.embed_queries([text])[0],
                             relevance=Relevance(ix))
    vectors = retriever.embedder.embed_queries([q for _, q in queries])
    scores = {"hybrid": [], "agentic": [], "agentic_first_search": [], "agentic_read_only": []}
    doc_of = dict(zip(ix.chunk_ids, ix.document_ids, strict=True))
    steps, latencies = [], []
    for (qid, text), vector in zip(queries, vectors, strict=True):
        relevant = data.qrels[qid]
        hybrid = searcher.hybrid(text, {PUBLIC}, top_k=20, query_vector=vector)
        ranked = list(dict.fromkeys(e.document_id for e in hybrid.chunks))
        scores["hybrid"].append(all_evidence_at(ranked, relevant, 10))
        started = time.perf_counter()
        box = Toolbox(engine, frozenset({PUBLIC}), vector, text)
        flow = Workflow(box, text, engine_budget(), top_k=10)
        outcome = flow.run()
        latencies.append((time.perf_counter() - started) * 1000)
        steps.append(len(outcome.trace.steps))
        read = list(dict.fromkeys(ix.document_ids[r] for r in outcome.read))
        searched = [s for s in outcome.trace.steps if s.tool.startswith("search")]
        seen = [doc_of[c] for s in searched for c in s.ids]
        first = [doc_of[c] for s in searched[:1] for c in s.ids]
        scores["agentic"].append(all_evidence_at(list(dict.fromkeys(read + seen)), relevant, 10))
        scores["agentic_first_search"].append(all_evidence_at(list(dict.fromkeys(read + first)), relevant, 10))
        scores["agentic_read_only"].append(all_evidence_at(read, relevant, 10))
    return {"dataset": data.name, "queries": len(queries), "embedding": embedding,
            "all_evidence@10": {k: round(float(np.mean(v)), 4) for k, v in scores.items()},
            "agentic_mean_steps": round(float(np.mean(steps)), 1), "agentic_p95_ms": _pct(latencies, 95)}


def engine_budget():
    from serving.answers.agentic.trace import Budget

    return Budget()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--home", type=Path, default=REPO / "var" / "bench-agentic")
    parser.add_argument("--embedding", default="wordllama")
    parser.add_argument("--permissions", type=int, default=0)
    parser.add_argument("--hotpot", type=Path)
    parser.add_argument("--hotpot-limit", type=int, default=100)
    parser.add_argument("--skip-sample", action="store_true")
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    out: dict = {"embedding": args.embedding}
    if not args.skip_sample:
        out["sample"] = sample(args.home, args.embedding)
        print(json.dumps(out["sample"], indent=1, ensure_ascii=False))
    if args.permissions:
        out["permissions"] = permissions(args.home, args.embedding, args.permissions)
        print(json.dumps(out["permissions"], indent=1))
    if args.hotpot:
        out["hotpot"] = hotpot(args.hotpot, args.home.parent / "bench-agentic-hotpot", args.embedding,
                               args.hotpot_limit)
        print(json.dumps(out["hotpot"], indent=1))
    parts = [p for p, ran in (("sample", "sample" in out), ("permissions", args.permissions),
                              ("hotpot", args.hotpot)) if ran]
    print("saved", save(f"agentic-{args.embedding}-{'-'.join(parts)}", out))


if __name__ == "__main__":
    main()
