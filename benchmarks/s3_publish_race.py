"""Raced publishes on an S3-protocol bucket (issue 25, item 1): two processes, each with its own local home,
pull the same pointer, freeze a snapshot and publish it at the same moment, round after round, against moto's
server on 127.0.0.1 (tests/fixtures/s3_server.py). Counts the rounds with two winners (double publishes) and with
none, checks that every loser's CURRENT stayed put, and reports the wall time of a publish (snapshot objects,
then the conditional PUT of the pointer) for the winner and the loser.

    .venv/bin/python benchmarks/s3_publish_race.py [--rounds 100] [--threaded]

--threaded runs moto's default threaded server, whose conditional PUT is checked without a lock (see the
fixture); the default serves one request at a time, as S3 evaluates a condition atomically per key.
Writes benchmarks/results/s3-publish-race[-threaded].json.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(0, str(ROOT))
from _common import print_table, save  # noqa: E402


def _ms(values: list[float]) -> dict:
    ordered = sorted(values)
    return {"mean": round(1000 * statistics.mean(ordered), 1), "p50": round(1000 * ordered[len(ordered) // 2], 1),
            "p95": round(1000 * ordered[int(0.95 * (len(ordered) - 1))], 1)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=100)
    parser.add_argument("--threaded", action="store_true", help="moto's threaded server (conditional PUT unlocked)")
    args = parser.parse_args(argv)
    from lakehouse.objectstore import ObjectStore
    from tests.fixtures import s3_server
    from tests.fixtures.publish_race import race

    with tempfile.TemporaryDirectory(prefix="lakerag-s3-race-") as tmp:
        root = Path(tmp)
        endpoint, proc = s3_server.start(root / "moto.log", threaded=args.threaded)
        try:
            s3_server.make_bucket(endpoint, "lakerag-race")
            env = {**s3_server.environment(endpoint), "LAKERAG_STORE": "s3://lakerag-race/lake"}
            started = time.perf_counter()
            rows = race(root, env, args.rounds)
            wall = time.perf_counter() - started
            served = ObjectStore(env["LAKERAG_STORE"]).read_pointer().data["id"]
        finally:
            s3_server.stop(proc)
    winners = Counter(r["round"] for r in rows if r["won"])
    double = sum(1 for n in winners.values() if n > 1)
    none = args.rounds - len(winners)
    claims = sum(1 for r in rows if not r["won"] and r["local_current"] == r["snapshot_id"])
    last = [r for r in rows if r["round"] == args.rounds - 1 and r["won"]]
    result = {
        "rounds": args.rounds, "server": "moto threaded" if args.threaded else "moto, one request at a time",
        "double_publishes": double, "rounds_without_winner": none, "losers_claiming_publish": claims,
        "bucket_serves_last_winner": bool(last) and last[0]["snapshot_id"] == served,
        "wins": dict(Counter(r["publisher"] for r in rows if r["won"])),
        "publish_ms_winner": _ms([r["seconds"] for r in rows if r["won"]]),
        "publish_ms_loser": _ms([r["seconds"] for r in rows if not r["won"]]),
        "wall_s": round(wall, 1), "wall_s_per_round": round(wall / args.rounds, 3),
    }
    print_table([{"measure": k, "value": v} for k, v in result.items()], ["measure", "value"])
    path = save("s3-publish-race" + ("-threaded" if args.threaded else ""), result)
    print(f"wrote {path}")
    return 0 if double == 0 and none == 0 and claims == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
