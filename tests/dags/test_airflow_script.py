"""``make airflow`` (scripts/airflow.sh) against a stand-in ``airflow`` command: the DAGs are unpaused only after
the API server answers, every server is started on 127.0.0.1 without the log server, and SIGTERM or SIGINT
stops every process it started."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

# Records each call; `api-server` answers the health URL (after a delay) from a real HTTP server; the other
# servers sleep (each with a child, as the real ones have); `dags unpause` notes the time.
STUB = '''#!/usr/bin/env python3
import http.server, os, subprocess, sys, time
log = os.environ["STUB_LOG"]
with open(log, "a") as fh:
    fh.write(f"{time.time()} {os.getpid()} {' '.join(sys.argv[1:])}\\n")
cmd = sys.argv[1:]
if cmd[0] == "api-server":
    time.sleep(1.5)
    host, port = cmd[cmd.index("--host") + 1], int(cmd[cmd.index("--port") + 1])
    class H(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(200); self.end_headers(); self.wfile.write(b"{}")
        def log_message(self, *a): pass
    http.server.HTTPServer((host, port), H).serve_forever()
elif cmd[0] in ("scheduler", "dag-processor", "triggerer"):
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    with open(log, "a") as fh:
        fh.write(f"{time.time()} {child.pid} child of {cmd[0]}\\n")
    time.sleep(600)
'''


def _free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open(f"/proc/{pid}/stat") as fh:  # a zombie waiting for its parent is gone for our purpose
        return fh.read().split(")")[-1].split()[0] != "Z"


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_dags_unpause_after_the_api_answers_and_a_signal_stops_everything(tmp_path: Path, sig: int) -> None:
    stub = tmp_path / "airflow"
    stub.write_text(STUB.replace("#!/usr/bin/env python3", f"#!{sys.executable}"))
    stub.chmod(0o755)
    log = tmp_path / "calls.log"
    env = {**os.environ, "AIRFLOW": str(stub), "PYTHON": sys.executable, "STUB_LOG": str(log),
           "AIRFLOW_PORT": str(_free_port()), "AIRFLOW__CORE__DAGS_FOLDER": str(REPO / "dags"),
           "AIRFLOW_STOP_TIMEOUT": "5"}
    # SIGINT as a terminal delivers it: a shell started with SIGINT ignored (a background job) cannot trap it
    script = subprocess.Popen(["bash", str(REPO / "scripts" / "airflow.sh")], env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True, start_new_session=True,
                              preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    assert script.stdout is not None
    lines = []
    for line in script.stdout:
        lines.append(line)
        if "airflow: ready" in line:
            break
    else:
        pytest.fail("".join(lines))
    calls = [ln.split(" ", 2) for ln in log.read_text().splitlines()]
    started = {c[2].split()[0]: float(c[0]) for c in calls if not c[2].startswith("dags")}
    unpaused = [(float(c[0]), c[2].split()[2]) for c in calls if c[2].startswith("dags unpause")]
    assert {d for _, d in unpaused} == {p.stem for p in (REPO / "dags").glob("lakerag_*.py")}
    assert min(t for t, _ in unpaused) > started["api-server"] + 1.5  # not before the API server answers
    commands = [c[2] for c in calls]
    assert "scheduler --skip-serve-logs" in commands and "triggerer --skip-serve-logs" in commands
    assert any(c.startswith("api-server --host 127.0.0.1") for c in commands)
    pids = [int(c[1]) for c in calls if not c[2].startswith(("dags", "db", "pools"))]
    assert len(pids) == 7  # four servers and three children
    os.kill(script.pid, sig)
    assert script.wait(timeout=30) in (130, 143)
    deadline = time.monotonic() + 10
    while any(_alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not [p for p in pids if _alive(p)]
