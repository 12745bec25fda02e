"""Regenerate benchmarks/README.md's search-and-serving speed table from benchmarks/results/*.json (the table
between the ``speed:search`` markers; the table above it belongs to the other benchmarks).

    .venv/bin/python benchmarks/speed_table.py [--check]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"
BEGIN, END = "<!-- speed:search:begin -->", "<!-- speed:search:end -->"


def _read(name: str) -> dict | None:
    path = RESULTS / f"{name}.json"
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else None


def _load(value) -> str:
    return f"load {value[0]:.1f}" if isinstance(value, list | tuple) else f"load {value}"


def _retrieval(data: dict) -> list[str]:
    rows, out = data["rows"], []
    for n in sorted({r["chunks"] for r in rows}):
        at = {(r["method"], r["precision"]): r for r in rows if r["chunks"] == n}
        hybrid, int8 = at.get(("hybrid", "float32")), at.get(("hybrid", "int8"))
        if not hybrid:
            continue
        parts = [f"search itself, float32 scan: hybrid p50 {hybrid['p50_ms']} / p95 {hybrid['p95_ms']} ms "
                 f"({hybrid.get('speedup_p50', '?')}x the exact old path)"]
        if int8:
            recall = f", recall@10 {int8['recall@10']} vs float32" if "recall@10" in int8 else ""
            default = " (the default from 50k chunks)" if n >= 50_000 else ""
            parts.append(f"int8 scan{default}: hybrid p50 {int8['p50_ms']} / p95 {int8['p95_ms']} ms "
                         f"({int8['scan_mb']} MB scan copy{recall})")
        if bm25 := at.get(("bm25", "float32")):
            parts.append(f"BM25 p95 {bm25['p95_ms']} ms")
        for precision in ("float32", "int8"):
            if encoded := at.get(("hybrid+encoding", precision)):
                parts.append(f"{precision} with the e5 query encoding p50 {encoded['p50_ms']} / p95 "
                             f"{encoded['p95_ms']} ms")
        if baseline := at.get(("numpy+bm25s hybrid", "float32")):
            parts.append(f"numpy+bm25s hybrid baseline p50 {baseline['p50_ms']} ms ({baseline['speedup_p50']}x slower)")
        out.append(f"| retrieval at {n // 1000}k chunks | {'; '.join(parts)}; peak RSS {data['peak_rss_mb']:.0f} MB, "
                   f"{_load(data['load_before'])} | `benchmarks/retrieval.py` |")
    return out


def _load_rows() -> list[str]:
    out = []
    for path in sorted(RESULTS.glob("load-*-compare.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        cells = [f"{r['config']} ({r['workers']} worker{'s' if r['workers'] > 1 else ''}): {r['rps']} req/s, "
                 f"p50 {r['p50_ms']} / p95 {r['p95_ms']} / p99 {r['p99_ms']} ms"
                 + (f" (basic p95 {r['basic_p95_ms']} ms)" if r.get("basic_p95_ms") is not None else "")
                 + f", {r['errors']} errors, mean encoder batch {r['mean_batch']} (max {r.get('max_batch', '?')}), "
                 f"{r['cache_hits']} cache hits" for r in data["summary"]]
        out.append(f"| API load, {data['model']}, {data['clients']} clients x {data['seconds']:.0f} s | "
                   f"{'; '.join(cells)} ({_load(data['summary'][0]['load'])}) | `benchmarks/load.py --compare` |")
    return out


def _sparse(data: dict) -> list[str]:
    cells = [f"{r['dataset']}: {r['qps_ratio']}x {r['peer']}'s queries/s (index {r['index_s_ours']} s vs "
             f"{r['index_s_peer']} s)" for r in data.get("ratios", [])]
    return [f"| BM25 vs peers | {'; '.join(cells)}, {_load(data.get('load_before', '?'))} | `benchmarks/sparse.py` |"] \
        if cells else []


def _indexing(data: dict) -> list[str]:
    rows = data["rows"]
    one = next((r for r in rows if r["threads"] == 1), None)
    if one is None or "wait" not in one:
        return []
    cells = [f"1 core {one['passages_per_s']} passages/s (CPU use {one['cpu_use']})"]
    cells += [f"{r['threads']} cores, {r['wait']} wait: {r['passages_per_s']} passages/s ({r['vs_1_core']}x, CPU use "
              f"{r['cpu_use']}), one query {r.get('query_ms', '?')} ms" for r in rows if r["threads"] > 1]
    cells += [f"demo's first index ({d['wait']} wait): {d['seconds']} s, {d['embed_s']} s of it embedding "
              f"({d['embed_passages_per_s']} passages/s), CPU use {d['cpu_use']}, load {d['load_before']}"
              for d in data.get("demo", [])]
    return [f"| passage encoding ({data['model']}) | {'; '.join(cells)}, {_load(data['load_before'])} "
            "| `benchmarks/indexing.py` |"]


def _request_profile(data: dict) -> list[str]:
    cpu = data["cpu_ms_per_request"]
    top = ", ".join(f"{f['function']} {f['cum_share']:.0%}" for f in data["functions"][3:8])
    return [f"| a query request's CPU besides encoding ({data['model']}, vectors cached) | answer service "
            f"{cpu['service.query']} ms, response encoding {cpu['response encoding']} ms, request log line "
            f"{cpu['request log line']} ms; most cumulative time: {top}, {_load(data['load_before'])} "
            "| `benchmarks/request_profile.py` |"]


def _cli(data: dict) -> list[str]:
    cells = [f"{r['how']} {r['mode']}: p50 {r['p50_s']} s (max {r['max_s']} s, {r['runs']} runs)" for r in data["rows"]]
    return [f"| `lakerag query`, whole command | {'; '.join(cells)}, {_load(data['load_before'])} "
            "| `benchmarks/cli.py` |"]


def rows() -> list[str]:
    out: list[str] = []
    if data := _read("retrieval"):
        out += _retrieval(data)
    out += _load_rows()
    if data := _read("sparse"):
        out += _sparse(data)
    if data := _read("request_profile"):
        out += _request_profile(data)
    if data := _read("cli"):
        out += _cli(data)
    for path in sorted(RESULTS.glob("indexing-*.json")):
        out += _indexing(json.loads(path.read_text(encoding="utf-8")))
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="fail if benchmarks/README.md is not up to date")
    args = parser.parse_args()
    readme = ROOT / "benchmarks" / "README.md"
    text = readme.read_text(encoding="utf-8")
    if BEGIN not in text or END not in text:
        print(f"{readme} has no {BEGIN} ... {END} block", file=sys.stderr)
        return 2
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    table = ["| what | measured (machine load while it ran) | script |", "|---|---|---|", *rows()]
    new = head + BEGIN + "\n" + "\n".join(table) + "\n" + END + tail
    if args.check:
        return 0 if new == text else 1
    readme.write_text(new, encoding="utf-8")
    print("\n".join(rows()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
