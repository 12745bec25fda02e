"""Erasure and gc on a copy of the indexed sample corpus: seconds for `erase --subject` (dry run and real, with
the maintenance run and the final scan), `erase --document` and `gc --retention-days 0`, each from its receipt
and as wall time. The original index is never touched.

    .venv/bin/python benchmarks/erasure.py [--work var/bench] [--model wordllama] [--subject NAME]

Writes benchmarks/results/erasure.json.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(0, str(ROOT))
from _common import save  # noqa: E402
from load import _sample_home  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--work", type=Path, default=ROOT / "var" / "bench")
    parser.add_argument("--model", default="wordllama")
    parser.add_argument("--subject", default="Thiago Martins Araújo")
    args = parser.parse_args()
    from lakehouse import schemas as s
    from lakehouse.paths import LakePaths
    from lakehouse.settings import Settings
    from lakehouse.storage import read_table
    from transforms.purge import collect_garbage, erase, plan_document, plan_subject

    home = args.work / "erasure-home"
    shutil.rmtree(home, ignore_errors=True)
    shutil.copytree(_sample_home(args.work, args.model), home)
    settings = Settings(home=home, embedding_model=args.model, retention_days=0)
    rows: list[tuple[str, float, float | None]] = []

    def timed(name: str, call) -> object:
        started = time.perf_counter()
        result = call()
        receipt = result.get("seconds") if isinstance(result, dict) else None
        rows.append((name, round(time.perf_counter() - started, 2), receipt))
        return result

    plan = timed("erase --subject (dry run)", lambda: plan_subject(settings, args.subject))
    timed("erase --subject --yes", lambda: erase(settings, plan, "benchmark"))
    doc = read_table(LakePaths(home).table("documents"), s.DOCUMENTS).to_pylist()[0][s.DOCUMENT_ID]
    timed("erase --document --yes", lambda: erase(settings, plan_document(settings, doc), "benchmark"))
    timed("gc --retention-days 0", lambda: collect_garbage(settings, requested_by="benchmark"))
    load = os.getloadavg()
    print(f"{'step':<28} {'wall s':>8} {'receipt s':>10}")
    for name, wall, receipt in rows:
        print(f"{name:<28} {wall:>8} {receipt if receipt is not None else '':>10}")
    print(f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; {plan.summary()}")
    path = save("erasure", {"model": args.model, "summary": plan.summary(), "load_average": load,
                            "steps": [{"step": n, "wall_s": w, "receipt_s": r} for n, w, r in rows]})
    print(f"saved {path}")


if __name__ == "__main__":
    main()
