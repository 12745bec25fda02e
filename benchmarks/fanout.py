"""The embed stage on the sample corpus: one process against two shard processes side by side (issue 25, fan-out).

The sample corpus is ingested once into a scratch home (contexts included: embed's keys are the indexed texts).
Then, for each configuration, the vector cache is emptied and the stage runs as ``lakerag_index`` would run it,
each task a fresh process (interpreter start and model load included, as in a task):

- ``1 process``: the whole stage in one process (``run_index_stage``: embeds everything, writes the table);
- ``2 shards``: ``run_index_shard`` 0/2 and 1/2 in two processes at once, then the merge (``run_index_stage``,
  which finds everything cached) in a third; ``omp=1`` gives each shard one OpenMP thread instead of the engine's
  default of one per core, so that two shards do not put four busy threads on two cores.

``shards_s`` is the wall time of the parallel phase, ``merge_s`` the merge's, ``total_s`` both (the fastest of
``--rounds`` runs, configurations taking turns; ``totals_s`` lists them all); ``cpu`` is the CPU seconds of all
its processes over ``total_s`` (2.0 = both cores busy). The vectors table of each sharded
configuration is compared with the one-process table (largest absolute difference).

    .venv/bin/python benchmarks/fanout.py [--model e5-small] [--configs one,two,two-omp1] [--rounds 1]
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
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

SAMPLE = ROOT / "sample_corpus" / "documents"
CONFIGS = {"one": ("1 process", 1, {}), "two": ("2 shards", 2, {}),
           "two-omp1": ("2 shards, omp=1", 2, {"OMP_NUM_THREADS": "1"})}


def _env(home: Path, model: str, extra: dict[str, str] | None = None) -> dict[str, str]:
    return {**os.environ, "LAKERAG_HOME": str(home), "LAKERAG_SOURCE": str(SAMPLE), "LAKERAG_EMBEDDING_MODEL": model,
            "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "PYTHONPATH": str(ROOT), **(extra or {})}


def _prepare(home: Path) -> tuple[str, int]:
    """Ingest the sample corpus and write its contexts; returns the run id and the count of texts to embed."""
    from lakehouse.settings import get_settings
    from transforms import lifecycle, registry
    from transforms.pipeline import start_run

    settings = get_settings()
    plan = lifecycle.begin_ingest(settings)
    for batch in plan["batches"]:
        for stage in ("land", "extract", "chunk"):
            lifecycle.run_batch_stage(settings, plan["run_id"], stage, batch)
    lifecycle.finish_ingest(settings, plan["run_id"])
    lifecycle.run_index_stage(settings, plan["run_id"], "enrich")
    missing = registry.stage("embed").sharding.missing(start_run(settings, plan["run_id"]))
    return plan["run_id"], len(missing)


def _worker(run_id: str, shard: str) -> None:
    """One task: ``merge`` (the whole stage) or ``i/n`` (one shard)."""
    from lakehouse.settings import get_settings
    from transforms import lifecycle

    if shard == "merge":
        lifecycle.run_index_stage(get_settings(), run_id, "embed")
    else:
        index, count = (int(x) for x in shard.split("/"))
        lifecycle.run_index_shard(get_settings(), run_id, "embed", index, count)


def _spawn(env: dict[str, str], run_id: str, shard: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, __file__, "--worker", run_id, shard], env=env, cwd=ROOT)


def _wait(procs: list[subprocess.Popen]) -> None:
    for proc in procs:
        if proc.wait() != 0:
            raise SystemExit(f"worker {proc.args} failed with {proc.returncode}")


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _measure(home: Path, model: str, run_id: str, shards: int, extra: dict[str, str]) -> dict:
    shutil.rmtree(home / "cache" / "vectors", ignore_errors=True)
    cpu, started = _children_cpu(), time.perf_counter()
    if shards == 1:
        _wait([_spawn(_env(home, model, extra), run_id, "merge")])
        parallel = time.perf_counter() - started
    else:
        _wait([_spawn(_env(home, model, extra), run_id, f"{i}/{shards}") for i in range(shards)])
        parallel = time.perf_counter() - started
        _wait([_spawn(_env(home, model), run_id, "merge")])
    total = time.perf_counter() - started
    import pyarrow.parquet as pq

    vectors = pq.read_table(home / "tables" / "vectors.parquet")
    matrix = np.asarray(vectors["vector"].to_pylist(), dtype=np.float32)
    return {"shards_s": round(parallel, 1), "merge_s": round(total - parallel, 1), "total_s": round(total, 1),
            "cpu": round((_children_cpu() - cpu) / total, 2), "_matrix": matrix}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default="e5-small")
    parser.add_argument("--configs", default="one,two,two-omp1")
    parser.add_argument("--rounds", type=int, default=1, help="runs per configuration (the fastest is shown)")
    parser.add_argument("--worker", nargs=2, metavar=("RUN_ID", "SHARD"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        _worker(*args.worker)
        return
    load = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="lakerag-fanout-") as scratch:
        home = Path(scratch) / "home"
        os.environ.update(_env(home, args.model))
        run_id, texts = _prepare(home)
        keys = args.configs.split(",")
        runs: dict[str, list[dict]] = {key: [] for key in keys}
        for _ in range(args.rounds):  # the configurations take turns, so a change of load hits them alike
            for key in keys:
                runs[key].append(_measure(home, args.model, run_id, CONFIGS[key][1], CONFIGS[key][2]))
        rows, baseline = [], runs[keys[0]][0]["_matrix"]
        for key in keys:
            fastest = min(runs[key], key=lambda r: r["total_s"])  # the least disturbed by the machine's other load
            matrix = fastest.pop("_matrix")
            row = {"config": CONFIGS[key][0], "texts": texts, **fastest,
                   "totals_s": [r["total_s"] for r in runs[key]]}
            row["max_abs_diff"] = float(np.abs(matrix - baseline).max()) if matrix.shape == baseline.shape else "shape"
            row["texts_per_s"] = round(texts / row["total_s"], 1)
            rows.append(row)
    first = rows[0]["total_s"]
    for row in rows:
        row["speedup"] = round(first / row["total_s"], 2)
    print(f"embed stage, model {args.model}, {texts} texts; load before: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    print_table(rows, ["config", "texts", "shards_s", "merge_s", "total_s", "totals_s", "texts_per_s", "cpu",
                       "speedup", "max_abs_diff"])
    path = save("fanout", {"model": args.model, "rounds": args.rounds, "load_before": load,
                           "load_after": os.getloadavg(), "rows": rows})
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
