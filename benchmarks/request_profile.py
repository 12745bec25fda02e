"""Where a query request's CPU goes besides encoding: the answer service in-process (vectors already cached, so
the encoder costs nothing), timed without a profiler, then profiled; plus the API layer's own per-request work
(response encoding, the request log line). Reported: ms per request and the functions with the most cumulative
time, by module, so that each hot spot can be taken to the code that owns it.

    .venv/bin/python benchmarks/request_profile.py [--home var/bench/sample-e5-small] [--requests 400]
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import pstats
import random
import sys
import time
from pathlib import Path

import msgspec

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))
from _common import print_table, save  # noqa: E402
from load import GROUPS, _questions, _sample_home  # noqa: E402


def _service(home: Path, model: str):
    from lakehouse.settings import Settings
    from serving.answers import AnswerService, SnapshotHolder
    from serving.search.encoder_service import EncoderService

    settings = Settings(home=home, embedding_model=model)
    holder = SnapshotHolder(settings)
    holder.encoder = EncoderService()
    holder.refresh()
    api = settings.api
    return AnswerService(holder, api.min_relevance, None, api.rewrite_with_llm, api.grade_correct_at,
                         api.grade_with_llm)


def _cpu_ms(fn, items: list) -> float:
    started = time.process_time()
    for item in items:
        fn(item)
    return round(1000 * (time.process_time() - started) / len(items), 3)


def main() -> None:
    from serving.answers import Caller
    from serving.answers.types import QueryRequest
    from serving.api.controllers import _grades

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--home", type=Path, help="a home with a published snapshot (default: the bench sample)")
    parser.add_argument("--model", default="e5-small")
    parser.add_argument("--requests", type=int, default=400)
    parser.add_argument("--top", type=int, default=25)
    args = parser.parse_args()
    home = args.home or _sample_home(ROOT / "var" / "bench", args.model)
    service = _service(home, args.model)
    questions, rng = _questions(), random.Random(0)
    requests = [(msgspec.convert({"question": rng.choice(questions), "mode": ("basic", "hybrid")[n % 2]},
                                 QueryRequest), Caller("bench", frozenset(GROUPS if rng.random() < 0.5 else ())))
                for n in range(args.requests)]
    service.holder.require().embedder.embed_queries(questions)  # every vector cached: encoding is not measured
    for req, caller in requests[:50]:
        service.query(req, caller, "warm")
    load = os.getloadavg()
    answers = []
    per_request = _cpu_ms(lambda rc: answers.append(service.query(rc[0], rc[1], "bench")), requests)
    record = lambda a: json.dumps({"request_id": "0123456789abcdef", "route": "/v1/query", "status": 200,  # noqa: E731
                                   "mode": a.mode_used, "grades": _grades(a.evidence)}, ensure_ascii=False)
    layer = {"service.query": per_request, "response encoding": _cpu_ms(msgspec.json.encode, answers),
             "request log line": _cpu_ms(record, answers)}
    profile = cProfile.Profile()
    profile.enable()
    for req, caller in requests:
        service.query(req, caller, "bench")
    profile.disable()
    stats = pstats.Stats(profile).stats  # (file, line, name) -> (calls, primitive, tottime, cumtime, callers)
    total = sum(v[2] for v in stats.values()) or 1
    rows = sorted(({"function": f"{Path(f).parent.name}/{Path(f).name}:{line}({name})", "calls": v[0],
                    "cum_share": round(v[3] / total, 3), "own_share": round(v[2] / total, 3)}
                   for (f, line, name), v in stats.items() if str(ROOT) in f),
                  key=lambda r: -r["cum_share"])[:args.top]
    print(f"{len(requests)} requests (basic and hybrid, vectors cached), load average {load[0]:.2f}")
    print_table([{"part": k, "cpu_ms_per_request": v} for k, v in layer.items()], ["part", "cpu_ms_per_request"])
    print()
    print_table(rows, ["function", "calls", "cum_share", "own_share"])
    path = save("request_profile", {"model": args.model, "requests": len(requests), "load_before": load,
                                     "cpu_ms_per_request": layer, "functions": rows})
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
