"""SIGKILL `lakerag erase --subject ... --yes` and `lakerag gc --retention-days 0` at every kill point of
tests/fixtures/kill_points.py (a table rewritten, the blocklist written, the maintenance run started or half
indexed, a snapshot published or being dropped, run folders removed), rerun the command, and compare the data root
with an uninterrupted erase and gc: files, committed tables, the published snapshot, blocklist, receipts, and an
independent scan for the erased spellings, e-mails and CPF. Prints a table; seconds are wall time of the kill
and of the rerun; a command that finished before its point was seen is listed as such (nothing to rerun).

    .venv/bin/python benchmarks/erase_kill_points.py [--work var/bench/erase-kill] [--repeat 1]

Writes benchmarks/results/erase_kill_points.json.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(0, str(ROOT))
from _common import print_table, save  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--work", type=Path, default=ROOT / "var" / "bench" / "erase-kill")
    parser.add_argument("--repeat", type=int, default=1, help="runs of every kill point")
    args = parser.parse_args()
    from tests.fixtures import kill_points as k
    from tests.fixtures.trace import traces

    shutil.rmtree(args.work, ignore_errors=True)
    base, source = k.indexed_home(args.work / "base")
    clean_home = k.copy_home(base, args.work / "clean")
    k.erase_and_gc(clean_home, source)
    clean = k.state(clean_home)
    rows = []
    for attempt in range(args.repeat):
        for command, points in k.KILL_POINTS.items():
            for name, point in points.items():
                home = k.copy_home(base, args.work / f"{command}-{name}-{attempt}")
                if command == "gc":
                    k.erase_in_process(home, source)
                command_args = k.ERASE if command == "erase" else k.GC
                started = time.perf_counter()
                killed = k.kill_when(k.lakerag(home, source, command_args), home, k.start_state(home), point)
                kill_s = time.perf_counter() - started
                if not killed:  # it finished before the point was seen: nothing to rerun
                    rows.append({"command": command, "kill_point": name, "attempt": attempt, "killed": False,
                                 "kill_s": round(kill_s, 2), "converged": "finished first"})
                    shutil.rmtree(home, ignore_errors=True)
                    continue
                started = time.perf_counter()
                rerun = k.lakerag(home, source, command_args)
                _, err = rerun.communicate(timeout=600)
                rerun_s = time.perf_counter() - started
                if rerun.returncode == 0 and command == "erase":
                    k.gc_in_process(home, source)
                diffs = k.differences(clean, k.state(home)) if rerun.returncode == 0 else \
                    [f"rerun exited {rerun.returncode}: {err.strip().splitlines()[-1] if err.strip() else ''}"]
                left = traces(home, k.ERASED)
                rows.append({"command": command, "kill_point": name, "attempt": attempt, "killed": killed,
                             "kill_s": round(kill_s, 2), "rerun_s": round(rerun_s, 2),
                             "converged": not diffs, "traces": sum(len(v) for v in left.values()),
                             "differences": diffs, "found": left})
                shutil.rmtree(home, ignore_errors=True)
    print_table(rows, ["command", "kill_point", "attempt", "killed", "kill_s", "rerun_s", "converged", "traces"])
    for row in rows:
        for line in row.get("differences", []):
            print(f"  {row['command']}:{row['kill_point']}: {line[:400]}")
    save("erase_kill_points", {"points": len(rows), "killed": sum(r["killed"] for r in rows),
                               "converged": sum(r["converged"] is True for r in rows),
                               "with_traces": sum(bool(r["traces"]) for r in rows), "rows": rows})


if __name__ == "__main__":
    main()
