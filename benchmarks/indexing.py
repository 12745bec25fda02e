"""Passage encoding throughput (the dominant indexing cost) on 1 core vs all cores, and the demo's first index.

Each encoding configuration runs in a fresh process whose engine threads and OpenMP wait policy are set before
the model loads; the configurations take turns for ``--rounds`` rounds (so a change in the machine's load hits
them alike) and the median is reported. CPU use is the process's CPU time over wall time (2.0 = both cores);
``query_ms`` is the median time to encode one question alone (what a lone API request waits for).
``passive`` is the project's default (``OMP_WAIT_POLICY=PASSIVE``, set by ``models.embedding``: threads sleep at
a barrier); ``spin`` is the engine's own default (libgomp spins ``GOMP_SPINCOUNT=300000`` times first), which
on a busy machine burns the time slice of the thread it waits for.

``--demo`` also times what ``make demo`` runs first: ``lakerag index`` of the bundled sample corpus into a fresh
home (no caches), as the installed console script, once per ``--wait`` policy: wall time, the share of the
cores it used, and the embed stage's passages/s from the run record.

    .venv/bin/python benchmarks/indexing.py [--model e5-small] [--passages 48] [--rounds 2]
    .venv/bin/python benchmarks/indexing.py --demo --wait spin,passive     # + the demo's index, before/after
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))
from _common import print_table, save  # noqa: E402

WAIT = {"passive": {}, "spin": {"GOMP_SPINCOUNT": "300000"}}  # spin: libgomp's default count, which overrides
SCRIPT = Path(sys.executable).parent / "lakerag"
QUESTIONS = [f"Qual é o prazo para prestar contas da viagem número {n}?" for n in range(12)]


def _texts(count: int) -> list[str]:
    """Sections of the sample corpus's Markdown sources, cut like chunks (~800 characters)."""
    texts: list[str] = []
    for path in sorted((ROOT / "sample_corpus" / "src" / "docs").rglob("*.md")):
        body = path.read_text(encoding="utf-8")
        texts += [body[i:i + 800] for i in range(0, len(body), 700) if body[i:i + 800].strip()]
    return texts[:count]


def _one(model: str, count: int, sorted_batches: bool, batch: int) -> dict:
    from models.embedding import load_embedder

    embedder = load_embedder(model, batch_size=batch)
    texts = _texts(count)
    embedder.embed_passages(texts[:2])  # warm up
    inner = getattr(embedder, "_model", None)
    started, cpu = time.perf_counter(), time.process_time()
    if sorted_batches or inner is None or not hasattr(inner, "passage"):
        embedder.embed_passages(texts)
    else:  # the given order, the same batch size
        for i in range(0, len(texts), batch):
            inner.passage(texts[i:i + batch])
    wall, used = time.perf_counter() - started, time.process_time() - cpu
    query_ms = []
    for question in QUESTIONS:  # one at a time, as the API encodes a lone question
        started = time.perf_counter()
        embedder.embed_queries([question])
        query_ms.append((time.perf_counter() - started) * 1000)
    return {"passages": len(texts), "seconds": round(wall, 2), "passages_per_s": round(len(texts) / wall, 2),
            "cpu_use": round(used / wall, 2), "query_ms": round(float(np.median(query_ms)), 1)}


def _env(threads: int | None, wait: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("OMP_NUM_THREADS", "OMP_WAIT_POLICY", "GOMP_SPINCOUNT")}
    env.update({"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "PYTHONPATH": str(ROOT), **WAIT[wait]})
    if threads:
        env["OMP_NUM_THREADS"] = str(threads)
    return env


def _median(runs: list[dict], key: str) -> float:
    return round(float(np.median([r[key] for r in runs])), 2)


def _encoding(args: argparse.Namespace, cores: int) -> list[dict]:
    configs = [(1, "passive", order) for order in args.orders] + \
              [(cores, wait, order) for wait in args.wait for order in args.orders]
    runs: dict[tuple, list[dict]] = {c: [] for c in configs}
    for _ in range(args.rounds):
        for threads, wait, order in configs:
            out = subprocess.run([sys.executable, __file__, "--model", args.model, "--passages", str(args.passages),
                                  "--batch", str(args.batch), "--one", "1" if order == "length-sorted" else "0"],
                                 env=_env(threads, wait), check=True, capture_output=True, text=True).stdout
            runs[(threads, wait, order)].append(json.loads(out.strip().splitlines()[-1]))
    rows = []
    for (threads, wait, order), done in runs.items():
        rows.append({"threads": threads, "wait": wait, "order": order, "passages": done[0]["passages"],
                     "rounds": len(done), "passages_per_s": _median(done, "passages_per_s"),
                     "cpu_use": _median(done, "cpu_use"), "query_ms": _median(done, "query_ms")})
    base = rows[0]["passages_per_s"] or 1
    for row in rows:
        row["vs_1_core"] = round(row["passages_per_s"] / base, 2)
    return rows


def _demo(wait: str) -> dict:
    """``lakerag index`` of the sample corpus into a fresh home, as ``make demo`` runs it."""
    command = [str(SCRIPT)] if SCRIPT.exists() else [sys.executable, "-m", "lakerag.cli"]
    with tempfile.TemporaryDirectory(prefix="lakerag-demo-") as tmp:
        env = {**_env(None, wait), "LAKERAG_HOME": str(Path(tmp) / "var")}
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        subprocess.run([*command, "index", "--quiet"], cwd=ROOT, env=env, check=True, capture_output=True)
        wall = time.perf_counter() - started
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        record = json.loads(next((Path(tmp) / "var" / "runs").glob("*/run.json")).read_text(encoding="utf-8"))
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    embed = record["stage_seconds"].get("embed", 0.0)
    return {"wait": wait, "seconds": round(wall, 1), "cpu_use": round(cpu / wall, 2), "chunks": record["chunks"],
            "embed_s": round(embed, 1), "embed_share": round(embed / wall, 2),
            "embed_passages_per_s": round(record["chunks"] / embed, 2) if embed else None}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default="e5-small")
    parser.add_argument("--passages", type=int, default=48)
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--rounds", type=int, default=2, help="turns each configuration takes (median reported)")
    parser.add_argument("--wait", default="passive,spin", help="OpenMP wait policies at all cores: passive,spin")
    parser.add_argument("--orders", default="length-sorted", help="length-sorted and/or given (passage order)")
    parser.add_argument("--demo", action="store_true", help="also time the demo's first `lakerag index`")
    parser.add_argument("--one", metavar="SORTED", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(_one(args.model, args.passages, args.one == "1", args.batch)))
        return
    args.wait = [w for w in args.wait.split(",") if w]
    args.orders = [o for o in args.orders.split(",") if o]
    cores = len(os.sched_getaffinity(0))
    load = os.getloadavg()
    rows = _encoding(args, cores)
    print(f"model {args.model}, {cores} cores, load average {load[0]:.2f} before, {os.getloadavg()[0]:.2f} after")
    print_table(rows, ["threads", "wait", "order", "passages", "rounds", "passages_per_s", "cpu_use", "vs_1_core",
                       "query_ms"])
    demo = []
    if args.demo:
        demo_load = os.getloadavg()
        demo = [{**_demo(wait), "load_before": round(demo_load[0], 2)} for wait in args.wait]
        print(f"\nthe demo's first index (sample corpus, fresh home), load average {demo_load[0]:.2f} before, "
              f"{os.getloadavg()[0]:.2f} after")
        print_table(demo, ["wait", "seconds", "cpu_use", "chunks", "embed_s", "embed_share", "embed_passages_per_s"])
    path = save(f"indexing-{args.model}", {"model": args.model, "cores": cores, "load_before": load,
                                            "load_after": os.getloadavg(), "rows": rows, "demo": demo})
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
