"""Fuzz the API from its own OpenAPI document with schemathesis: the server runs in its own process on
loopback; the target is 0 server errors, and every 4xx with a clear message (``schemathesis_hooks.py``).

    .venv/bin/python benchmarks/schemathesis_run.py [--home HOME] [--max-examples 100] [--checks ...]

Writes benchmarks/results/schemathesis.json (the command, its exit code and its summary lines) and keeps the
full JUnit report under var/bench/schemathesis-report/.
"""

from __future__ import annotations

import argparse
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(0, str(ROOT))
from _common import save  # noqa: E402
from load import _free_port, _sample_home, _start_server  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--home", type=Path)
    parser.add_argument("--work", type=Path, default=ROOT / "var" / "bench")
    parser.add_argument("--max-examples", type=int, default=100)
    parser.add_argument("--checks", default="not_a_server_error,clear_client_errors,status_code_conformance,"
                                            "content_type_conformance,response_schema_conformance")
    parser.add_argument("--seed", type=int, default=20261129)
    args = parser.parse_args()
    home = args.home or _sample_home(args.work, "wordllama")
    port = _free_port()
    args.work.mkdir(parents=True, exist_ok=True)
    server = _start_server(home, port, "wordllama", args.work / f"schemathesis-server-{port}.log", workers=1)
    report = args.work / "schemathesis-report"
    command = [str(Path(sys.executable).parent / "schemathesis"), "run",
               f"http://127.0.0.1:{port}/schema/openapi.json", "--checks", args.checks,
               "--max-examples", str(args.max_examples), "--seed", str(args.seed), "--workers", "2",
               "--phases", "examples,coverage,fuzzing", "--report", "junit", "--report-dir", str(report),
               "--no-color", "--suppress-health-check", "too_slow"]
    env = {**os.environ, "SCHEMATHESIS_HOOKS": str(ROOT / "benchmarks" / "schemathesis_hooks.py")}
    try:
        run = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)
    finally:
        server.send_signal(signal.SIGINT)
        server.wait(timeout=30)
    output = run.stdout + run.stderr
    print(output[-6000:])
    server_errors = len(re.findall(r"Server error", output))
    summary = [line for line in output.splitlines() if re.search(r"passed|failed|errors?|Test cases|Operations",
                                                                 line)][-12:]
    path = save("schemathesis", {"command": " ".join(command[1:]), "exit_code": run.returncode,
                                 "server_error_mentions": server_errors, "summary": summary})
    print(f"saved {path}")
    sys.exit(run.returncode)


if __name__ == "__main__":
    main()
