"""Load test of the query API over loopback: the server runs in its own process (``lakerag serve``), the
clients in this one. 16 concurrent clients for 60 s ask the sample corpus's labelled questions, basic and hybrid
mixed (half of them with a key that reads every group); reported: requests/s, p50/p95/p99 per mode, errors.

    .venv/bin/python benchmarks/load.py                     # the sample corpus (indexed first if needed)
    .venv/bin/python benchmarks/load.py --chunks 100000     # the sample chunks replicated to ~100k chunks
    .venv/bin/python benchmarks/load.py --compare           # before/after, one run (4 x 60 s)
    .venv/bin/python benchmarks/load.py --unique            # every question asked once (no cache helps)

``--compare`` runs the server four times on the same snapshot and load: per-request encoding as before the
shared encoder (2 workers x 1 engine thread, batches of one, no cache) and the default (1 worker x all cores,
batched, cached, questions awaited on the event loop), each with the labelled questions (repeated: the cache
answers most of them after the first seconds, so answer composition is what is measured) and with every
question made unique (``-unique``: the encoder is what is measured). The encoder's batch sizes come from /ready.

Hybrid mode needs the snapshot's graph index (built by ``run_index``); without one it falls back to basic and
the ``partial`` column counts those answers. The replicated corpus replicates the graph too: each entity,
relation, community and report keeps its text and gets the copies of its evidence chunks.
Results go to benchmarks/results/load-<label>.json.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))
from _common import machine, print_table, save  # noqa: E402

KEY = "bench-all-groups"
GROUPS = ["juridico", "compras", "rh", "diretoria", "gestores"]


def _questions() -> list[str]:
    rows = [json.loads(line) for line in (ROOT / "sample_corpus" / "questions.jsonl").read_text().splitlines()]
    return [r["question"] for r in rows if r["kind"] != "governance"]


def _sample_home(work: Path, model: str) -> Path:
    from lakehouse.paths import LakePaths
    from lakehouse.settings import Settings
    from lakehouse.snapshots import current_id
    from transforms.pipeline import run_index

    home = work / f"sample-{model}"
    if current_id(LakePaths(home)) is None:
        print(f"indexing the sample corpus into {home} ...", flush=True)
        run_index(Settings(home=home, embedding_model=model))
    return home


def _replicate(sample: Path, work: Path, target: int, model: str) -> Path:
    """A home whose published snapshot holds the sample chunks replicated to ~``target`` chunks."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from lakehouse.paths import LakePaths
    from lakehouse.snapshots import create_snapshot, current_id, publish, snapshot_tables
    from lakehouse.storage import write_json, write_table
    from models.analysis import analyze
    from models.sparse import build_sparse_index, save_sparse_index

    home = work / f"replicated-{target}-{model}"
    if current_id(LakePaths(home)) is not None:
        return home
    source = snapshot_tables(LakePaths(sample))
    chunks = pq.read_table(source / "chunks.parquet")
    documents = pq.read_table(source / "documents.parquet").filter(pa.compute.field("is_current"))
    vectors = pq.read_table(source / "vectors.parquet")
    copies = max(1, round(target / chunks.num_rows))
    print(f"replicating {chunks.num_rows} chunks x {copies} ...", flush=True)
    paths = LakePaths(home).ensure()
    rows, docs = chunks.to_pylist(), documents.to_pylist()
    out_chunks, out_docs = [], []
    for k in range(copies):
        for r in rows:
            out_chunks.append({**r, "chunk_id": f"{r['chunk_id']}_{k}", "document_id": f"{r['document_id']}_{k}",
                               "path": f"copia-{k}/{r['path']}", "text": f"{r['text']} (cópia {k})"})
        for d in docs:
            out_docs.append({**d, "document_id": f"{d['document_id']}_{k}", "path": f"copia-{k}/{d['path']}"})
    write_table(pa.Table.from_pylist(out_chunks, schema=chunks.schema), paths.table("chunks"))
    write_table(pa.Table.from_pylist(out_docs, schema=documents.schema), paths.table("documents"))
    shutil.copy2(source / "extracted.parquet", paths.table("extracted"))
    base = np.stack(vectors["vector"].to_numpy(zero_copy_only=False))
    rng = np.random.default_rng(0)
    tiled = np.tile(base, (copies, 1)) + rng.normal(0, 0.01, (copies * len(base), base.shape[1]))
    tiled = (tiled / np.linalg.norm(tiled, axis=1, keepdims=True)).astype(np.float32)
    ids = [c["chunk_id"] for c in out_chunks]
    vector_type = vectors.schema.field("vector").type
    table = pa.table({"chunk_id": ids, "vector": pa.array(list(tiled), type=vector_type)})
    write_table(table.replace_schema_metadata(vectors.schema.metadata), paths.table("vectors"))
    started = time.perf_counter()
    sparse = build_sparse_index(ids, [analyze(c["text"]) for c in out_chunks])
    print(f"BM25 over {len(ids)} chunks built in {time.perf_counter() - started:.0f} s", flush=True)
    save_sparse_index(sparse, paths.tables / "sparse-replicated")
    write_json({"dir": "sparse-replicated", "run_id": "replicated"}, paths.tables / "sparse.json")
    _replicate_graph(source, paths.tables, copies)
    publish(paths, create_snapshot(paths, "replicated", {"models": {"embedding": model}}))
    return home


def _replicate_graph(source: Path, tables: Path, copies: int) -> None:
    """The sample's graph tables with every chunk id list extended to the chunk's copies."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from lakehouse.storage import read_json, write_json

    if not (source / "graph.json").exists():
        return
    folder = source / read_json(source / "graph.json")["dir"]
    target = tables / "graph-replicated"
    target.mkdir(parents=True, exist_ok=True)

    def spread(ids: list[str]) -> list[str]:
        return [f"{c}_{k}" for k in range(copies) for c in ids or []]

    for part in folder.glob("*.parquet"):
        table = pq.read_table(part)
        rows = table.to_pylist()
        for row in rows:
            if "chunk_ids" in row:
                row["chunk_ids"] = spread(row["chunk_ids"])
            for finding in row.get("findings") or []:
                finding["chunk_ids"] = spread(finding["chunk_ids"])
        pq.write_table(pa.Table.from_pylist(rows, schema=table.schema), target / part.name)
    write_json({"dir": target.name, "run_id": "replicated"}, tables / "graph.json")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _start_server(home: Path, port: int, model: str, log: Path, workers: int,
                  extra: dict[str, str] | None = None) -> subprocess.Popen:
    env = {**os.environ, "LAKERAG_EMBEDDING_MODEL": model, "LAKERAG_API_KEYS": json.dumps({KEY: GROUPS}),
           "LAKERAG_API_WORKERS": str(workers), "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
           "PYTHONPATH": str(ROOT), **(extra or {})}
    log.parent.mkdir(parents=True, exist_ok=True)
    process = subprocess.Popen([sys.executable, "-m", "lakerag.cli", "serve", "--home", str(home), "--port",
                                str(port)], cwd=ROOT, env=env, stdout=log.open("w"), stderr=subprocess.STDOUT)
    deadline, ready_in_a_row = time.monotonic() + 300, 0
    while time.monotonic() < deadline:
        try:  # every worker must be ready: ask until many answers in a row say so
            ok = httpx.get(f"http://127.0.0.1:{port}/ready", timeout=2).status_code == 200
            ready_in_a_row = ready_in_a_row + 1 if ok else 0
            if ready_in_a_row >= 20:
                return process
            if ok:
                continue
        except httpx.HTTPError:
            ready_in_a_row = 0
        if process.poll() is not None:
            raise SystemExit(f"the server exited; see {log}")
        time.sleep(0.5)
    process.kill()
    raise SystemExit("the server did not become ready")


async def _client(port: int, requests: list[tuple[str, bytes]], start: float, warmup: float, seconds: float,
                  results: list[tuple]) -> None:
    """One keep-alive HTTP/1.1 connection sending requests back to back (a raw client: httpx's own overhead
    saturates a core near 300 requests/s here, which would measure the client rather than the server)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    i = 0
    try:
        while (now := time.perf_counter()) - start < warmup + seconds:
            mode, request = requests[i % len(requests)]
            i += 1
            t = time.perf_counter()
            try:
                writer.write(request)
                await writer.drain()
                head = await reader.readuntil(b"\r\n\r\n")
                status = int(head.split(b" ", 2)[1])
                length = next(int(line.split(b":", 1)[1]) for line in head.split(b"\r\n")
                              if line.lower().startswith(b"content-length:"))
                body = await reader.readexactly(length)
                answer = json.loads(body).get("status") if status == 200 else None
            except (OSError, asyncio.IncompleteReadError, ValueError, StopIteration) as exc:
                status, answer = type(exc).__name__, None
                writer.close()
                reader, writer = await asyncio.open_connection("127.0.0.1", port)
            if now - start >= warmup:
                results.append((mode, status, time.perf_counter() - t, answer))
    finally:
        writer.close()


def _requests(seed: int, modes: list[str], count: int = 200, unique: bool = False) -> list[tuple[str, bytes]]:
    """``count`` requests cycled by one client; ``unique``: each question gets a suffix no other request has (a
    cache miss for the query encoder and every per-question cache), and enough of them for any run."""
    rng = random.Random(seed)
    questions = _questions()
    out = []
    for n in range(count * (20 if unique else 1)):
        mode = modes[n % len(modes)]
        question = rng.choice(questions) + (f" (pedido {seed}-{n})" if unique else "")
        body = json.dumps({"question": question, "mode": mode}).encode()
        key = f"x-api-key: {KEY}\r\n" if rng.random() < 0.5 else ""
        head = (f"POST /v1/query HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n{key}"
                f"content-length: {len(body)}\r\n\r\n")
        out.append((mode, head.encode() + body))
    return out


async def _run(port: int, clients: int, seconds: float, warmup: float, modes: list[str],
               unique: bool = False) -> list[tuple]:
    results: list[tuple] = []  # (mode, HTTP status or error name, seconds, answer status)
    start = time.perf_counter()
    await asyncio.gather(*(_client(port, _requests(i, modes, unique=unique), start, warmup, seconds, results)
                           for i in range(clients)))
    return results


def _summary(results: list[tuple], seconds: float) -> list[dict]:
    rows = []
    for mode in sorted({r[0] for r in results}) + ["all"]:
        picked = [r for r in results if mode in ("all", r[0])]
        ms = np.array([r[2] * 1000 for r in picked])
        rows.append({"mode": mode, "requests": len(picked), "rps": round(len(picked) / seconds, 1),
                     "p50_ms": round(float(np.percentile(ms, 50)), 1), "p95_ms": round(float(np.percentile(ms, 95)), 1),
                     "p99_ms": round(float(np.percentile(ms, 99)), 1),
                     "errors": sum(r[1] != 200 for r in picked),
                     "partial": sum(r[3] == "partial" for r in picked)})
    return rows


PER_REQUEST = {"LAKERAG_API_ENCODER_THREADS": "1", "LAKERAG_API_ENCODER_MAX_BATCH": "1",
               "LAKERAG_API_ENCODER_WINDOW_MS": "0", "LAKERAG_API_QUERY_CACHE_SIZE": "0"}
CONFIGS = {  # name -> (workers, server environment, unique questions)
    "per-request": (2, PER_REQUEST, False),
    "default": (1, {}, False),
    "per-request-unique": (2, PER_REQUEST, True),
    "default-unique": (1, {}, True),
}


def _encoder_stats(port: int, tries: int = 20) -> list[dict]:
    """The encoder statistics of every worker that answered /ready (one entry per process)."""
    seen: dict[int, dict] = {}
    for _ in range(tries):
        stats = httpx.get(f"http://127.0.0.1:{port}/ready", timeout=10).json().get("encoder")
        if stats:
            seen[stats["pid"]] = stats
    return list(seen.values())


def _merge(stats: list[dict]) -> dict:
    sizes: dict[str, int] = {}
    for s in stats:
        for size, count in s["batch_sizes"].items():
            sizes[str(size)] = sizes.get(str(size), 0) + count
    batches = sum(sizes.values())
    encoded = sum(int(k) * v for k, v in sizes.items())
    return {"workers_seen": len(stats), "batches": batches, "encoded": encoded,
            "mean_batch": round(encoded / batches, 2) if batches else 0,
            "max_batch": max((int(k) for k in sizes), default=0),
            "cache_hits": sum(s["cache_hits"] for s in stats),
            "batch_sizes": dict(sorted(sizes.items(), key=lambda kv: int(kv[0])))}


def _one_run(home: Path, args, name: str, workers: int, extra: dict[str, str], unique: bool) -> dict:
    port = _free_port()
    log = args.work / f"load-server-{port}.log"
    server = _start_server(home, port, args.model, log, workers, extra)
    load_before = os.getloadavg()
    try:
        ready = httpx.get(f"http://127.0.0.1:{port}/ready").json()
        print(f"[{name}] server ready: {ready.get('snapshot_id')} {ready.get('chunks')} chunks", flush=True)
        results = asyncio.run(_run(port, args.clients, args.seconds, args.warmup, args.modes.split(","), unique))
        encoder = _merge(_encoder_stats(port))
    finally:
        server.send_signal(signal.SIGINT)
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
    rows = _summary(results, args.seconds)
    print_table(rows, ["mode", "requests", "rps", "p50_ms", "p95_ms", "p99_ms", "errors", "partial"])
    print(f"[{name}] encoder: {encoder}", flush=True)
    return {"config": name, "workers": workers, "env": extra, "unique": unique, "chunks": ready.get("chunks"),
            "graph": ready.get("graph"), "results": rows, "encoder": encoder,
            "load_before": load_before, "load_after": os.getloadavg()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--home", type=Path,
                        help="a home with a published snapshot (default: index the sample)")
    parser.add_argument("--work", type=Path, default=ROOT / "var" / "bench",
                        help="where bench homes are kept")
    parser.add_argument("--model", default="e5-small", help="embedding model of the index and the server")
    parser.add_argument("--chunks", type=int, default=0, help="replicate the sample to this many chunks")
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--warmup", type=float, default=5)
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--modes", default="basic,hybrid")
    parser.add_argument("--workers", type=int, default=1, help="server worker processes (default: the rule's 1)")
    parser.add_argument("--compare", action="store_true", help="per-request vs shared encoder, same load")
    parser.add_argument("--unique", action="store_true", help="make every question unique (no cache hits)")
    args = parser.parse_args()
    home = args.home or _sample_home(args.work, args.model)
    if args.chunks:
        home = _replicate(home, args.work, args.chunks, args.model)
    args.work.mkdir(parents=True, exist_ok=True)
    single = f"w{args.workers}" + ("-unique" if args.unique else "")
    configs = CONFIGS if args.compare else {single: (args.workers, {}, args.unique)}
    runs = [_one_run(home, args, name, *config) for name, config in configs.items()]
    basic = {r["config"]: next((m for m in r["results"] if m["mode"] == "basic"), {}) for r in runs}
    summary = [{"config": r["config"], "workers": r["workers"],
                **{k: v for k, v in r["results"][-1].items() if k != "mode"},
                "basic_p95_ms": basic[r["config"]].get("p95_ms"),
                "mean_batch": r["encoder"]["mean_batch"], "max_batch": r["encoder"]["max_batch"],
                "cache_hits": r["encoder"]["cache_hits"], "load": round(r["load_before"][0], 1)} for r in runs]
    if args.compare:  # against per-request encoding with the same questions
        rps = {row["config"]: row["rps"] for row in summary}
        for row in summary:
            base = rps["per-request-unique" if row["config"].endswith("-unique") else "per-request"] or 1
            row["rps_vs_per_request"] = round(row["rps"] / base, 2)
    print()
    print_table(summary, list(summary[0]))
    label = f"{'sample' if not args.chunks else f'{args.chunks // 1000}k'}-{args.model}"
    label += "-compare" if args.compare else f"-{single}"
    path = save(f"load-{label}", {"clients": args.clients, "seconds": args.seconds, "model": args.model,
                                  "summary": summary, "runs": runs, "machine": machine()})
    print(f"saved {path}")


if __name__ == "__main__":
    main()
