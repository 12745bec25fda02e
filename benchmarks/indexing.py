"""Passage encoding throughput (the dominant indexing cost) on 1 core vs all cores, with the passages in their
given order vs in length-sorted batches (order restored). Each configuration runs in a fresh process whose
engine threads are set before the model loads; CPU use is the process's CPU time over wall time.

    .venv/bin/python benchmarks/indexing.py [--model e5-small] [--passages 48]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))
from _common import print_table, save  # noqa: E402


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
    return {"passages": len(texts), "seconds": round(wall, 2), "passages_per_s": round(len(texts) / wall, 2),
            "cpu_use": round(used / wall, 2)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default="e5-small")
    parser.add_argument("--passages", type=int, default=48)
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--one", nargs=2, metavar=("THREADS", "SORTED"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(_one(args.model, args.passages, args.one[1] == "1", args.batch)))
        return
    cores = len(os.sched_getaffinity(0))
    rows = []
    load = os.getloadavg()
    for threads in (1, cores):
        for sorted_batches in (False, True):
            env = {**os.environ, "OMP_NUM_THREADS": str(threads), "HF_HUB_OFFLINE": "1",
                   "TRANSFORMERS_OFFLINE": "1", "PYTHONPATH": str(ROOT)}
            out = subprocess.run([sys.executable, __file__, "--model", args.model, "--passages",
                                  str(args.passages), "--batch", str(args.batch), "--one", str(threads),
                                  "1" if sorted_batches else "0"], env=env, check=True, capture_output=True,
                                 text=True).stdout
            rows.append({"threads": threads, "order": "length-sorted" if sorted_batches else "given",
                         **json.loads(out.strip().splitlines()[-1])})
    base = rows[0]["passages_per_s"]
    for row in rows:
        row["vs_1_core_given"] = round(row["passages_per_s"] / base, 2)
    print(f"model {args.model}, {cores} cores, load average {load[0]:.2f} before, {os.getloadavg()[0]:.2f} after")
    print_table(rows, ["threads", "order", "passages", "seconds", "passages_per_s", "cpu_use", "vs_1_core_given"])
    path = save(f"indexing-{args.model}", {"model": args.model, "cores": cores, "load_before": load,
                                            "load_after": os.getloadavg(), "rows": rows})
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
