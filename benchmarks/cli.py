"""Time to an answer from the shell: ``lakerag query --server URL`` against a running API (what a question costs
when the server already holds the index and the model), and ``lakerag query`` in-process (the cold start:
import, load the snapshot and only what the mode needs, answer), per mode. Wall time of the whole command, run
as ``python -m lakerag.cli`` and as the installed console script ``lakerag`` (what users type; it imports this
tree's code through PYTHONPATH).

    .venv/bin/python benchmarks/cli.py [--home var/bench/sample-e5-small] [--model e5-small] [--repeat 5]
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))
from _common import print_table, save  # noqa: E402
from load import _free_port, _start_server  # noqa: E402

QUESTION = "Qual é o prazo para prestar contas de despesas de viagem?"
CATALOG = "Quais documentos vencem nos próximos 30 dias?"


SCRIPT = Path(sys.executable).parent / "lakerag"


def _timed(args: list[str], env: dict, script: bool = False) -> float:
    command = [str(SCRIPT)] if script else [sys.executable, "-m", "lakerag.cli"]
    started = time.perf_counter()
    subprocess.run([*command, *args], cwd=ROOT, env=env, check=True, capture_output=True)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--home", type=Path, default=ROOT / "var" / "bench" / "sample-e5-small")
    parser.add_argument("--model", default="e5-small")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    env = {**os.environ, "PYTHONPATH": str(ROOT), "LAKERAG_EMBEDDING_MODEL": args.model, "HF_HUB_OFFLINE": "1",
           "TRANSFORMERS_OFFLINE": "1"}
    load_before = os.getloadavg()
    rows = []
    for mode, question in (("catalog", CATALOG), ("basic", QUESTION), ("auto", QUESTION)):
        seconds = _timed(["query", question, "--mode", mode, "--home", str(args.home), "--local", "--json"], env)
        rows.append({"how": "in-process (cold)", "mode": mode, "runs": 1, "p50_s": round(seconds, 2),
                     "max_s": round(seconds, 2)})
    port = _free_port()
    server = _start_server(args.home, port, args.model, ROOT / "var" / "bench" / f"cli-server-{port}.log", 1)
    try:
        url = f"http://127.0.0.1:{port}"
        kinds = [("--server", False)] + ([("--server, lakerag script", True)] if SCRIPT.exists() else [])
        for mode in ("basic", "auto"):
            for how, script in kinds:
                times = [_timed(["query", f"{QUESTION} ({how} {i})", "--mode", mode, "--server", url, "--json"],
                                env, script) for i in range(args.repeat)]
                rows.append({"how": how, "mode": mode, "runs": len(times),
                             "p50_s": round(float(np.median(times)), 2), "max_s": round(max(times), 2)})
    finally:
        server.send_signal(signal.SIGINT)
        server.wait(timeout=30)
    load_after = os.getloadavg()
    print(f"load average {load_before[0]:.1f} before, {load_after[0]:.1f} after")
    print_table(rows, ["how", "mode", "runs", "p50_s", "max_s"])
    path = save("cli", {"model": args.model, "rows": rows, "load_before": load_before, "load_after": load_after})
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
