"""What a user sees when a command is misused or stopped: one line naming the argument, exit code 2; help that
says what a command does; Ctrl-C during indexing tells how to resume (exit code 130)."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import time

import pytest

from lakerag.arguments import INDEX_STAGES
from lakerag.cli import main
from lakerag.progress_bar import rate_text


def _lakerag(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "lakerag.cli", *args], capture_output=True, text=True,
                          timeout=120, env={**os.environ, "COLUMNS": "80"})


def _usage_error(capsys, argv: list[str]) -> str:
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err  # one line
    return err


def test_a_blank_question_is_one_line_naming_the_argument():
    result = _lakerag("query", "")
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
    assert "argument question: must not be blank" in result.stderr and "lakerag query --help" in result.stderr


def test_a_blank_question_to_a_server_fails_before_asking(capsys):
    err = _usage_error(capsys, ["query", "   ", "--server", "http://127.0.0.1:9"])
    assert "argument question" in err and "cannot reach" not in err


def test_a_too_long_question_names_the_limit(capsys):
    err = _usage_error(capsys, ["search", "x" * 2001])
    assert "argument question: 2001 characters; at most 2000" in err


def test_a_negative_retention_names_the_flag_not_the_variable(capsys):
    err = _usage_error(capsys, ["gc", "--retention-days", "-5"])
    assert "argument --retention-days: must be 0 or more, not -5" in err
    assert "LAKERAG_RETENTION_DAYS" not in err


def test_top_k_out_of_range_names_the_flag(capsys):
    err = _usage_error(capsys, ["query", "Qual o prazo?", "--top-k", "0"])
    assert "argument --top-k: must be from 1 to 50, not 0" in err


def test_a_conversation_id_without_a_server_says_what_to_use(tmp_path, capsys):
    (tmp_path / "home").mkdir()
    assert main(["query", "E o valor?", "--conversation-id", "abcdefgh12", "--home", str(tmp_path / "home"),
                 "--local"]) == 2
    err = capsys.readouterr().err
    assert "--conversation-id: needs --server" in err and "--follow-up" in err


@pytest.mark.parametrize("command", [["snapshots", "list"], ["gc"], ["query", "Qual o prazo?", "--local"]])
def test_commands_that_read_the_lakehouse_refuse_a_missing_home(tmp_path, capsys, command):
    missing = tmp_path / "nowhere"
    assert main([*command, "--home", str(missing)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"home {missing} does not exist" in err
    assert not missing.exists()  # nothing created by asking


def test_serve_on_a_busy_port_says_so_in_one_line(tmp_path, capsys):
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        assert main(["serve", "--port", str(port), "--home", str(tmp_path)]) == 2
    captured = capsys.readouterr()
    assert captured.err.count("\n") == 1
    assert f"port {port} on 127.0.0.1 is already in use" in captured.err and "--port" in captured.err
    assert "curl" not in captured.out  # no start-up examples printed for a server that never started


def test_index_help_names_every_stage_in_order_and_publishing():
    from transforms import registry

    assert tuple(stage.name for stage in registry.STAGES) == INDEX_STAGES
    text = " ".join(_lakerag("index", "--help").stdout.split())
    assert ", ".join(INDEX_STAGES) in text and "publish the snapshot" in text
    assert "resumes" in text


def test_query_help_describes_every_mode_and_the_follow_up_options():
    text = _lakerag("query", "--help").stdout
    for mode in ("auto", "basic", "local", "global", "hybrid", "catalog", "agentic"):
        assert any(line.strip().startswith(mode + " ") for line in text.splitlines()), mode
    assert "--follow-up EARLIER" in text and "--conversation-id ID" in text
    assert max(len(line) for line in text.splitlines()) <= 80


def test_a_stage_with_nothing_done_yet_reads_starting():
    assert rate_text(0, False, None) == "starting…"
    assert rate_text(12, False, 3.25) == "3.2/s"
    assert rate_text(1, True, None) == ""


def test_ctrl_c_during_indexing_says_how_to_resume(tmp_path):
    source = tmp_path / "src"
    source.mkdir()
    for n in range(4):
        (source / f"doc{n}.md").write_text(f"# Documento {n}\n\nTexto do documento {n}.\n", encoding="utf-8")
    home = tmp_path / "home"
    command = [sys.executable, "-m", "lakerag.cli", "index", "--source", str(source), "--home", str(home)]
    env = {**os.environ, "LAKERAG_EMBEDDING_MODEL": "wordllama"}
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                               preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    lines = []
    deadline = time.monotonic() + 120
    for line in process.stderr:  # wait until the run is under way: extraction has started
        lines.append(line)
        if "extract:" in line or time.monotonic() > deadline:
            break
    process.send_signal(signal.SIGINT)
    _, rest = process.communicate(timeout=60)
    assert process.returncode == 130
    last = rest.strip().splitlines()[-1]
    assert last == ("lakerag: interrupted; run the same command again to resume this run: work already done is "
                    "kept, and the published snapshot is unchanged")
    again = subprocess.run(command, capture_output=True, text=True, env=env, timeout=300)
    assert again.returncode == 0
    assert "resuming the interrupted run run_" in again.stderr
    assert "documents: 4 = 4 active + 0 quarantined" in again.stdout


def test_the_run_summary_says_each_count_once_on_whole_lines(tmp_path, capsys):
    source = tmp_path / "a-rather-long-folder-name-for-the-source-documents"
    source.mkdir()
    (source / "a.md").write_text("# A\n\nTexto A.\n", encoding="utf-8")
    home = tmp_path / "a-rather-long-folder-name-for-the-lakehouse-home"
    assert main(["index", "--quiet", "--source", str(source), "--home", str(home)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert f"details: lakerag status --home {home}" in lines  # not wrapped, though longer than 80 columns
    assert sum(line.startswith("documents:") for line in lines) == 1
    assert sum(line.startswith("files:") for line in lines) == 1
    assert sum("lakerag status" in line for line in lines) == 1
    assert any(line.startswith("run run_") and "published snapshot snap_" in line for line in lines)



def test_the_embed_bar_shows_activity_before_its_first_batch(monkeypatch):
    import io

    import rich
    from rich.console import Console

    from lakerag.progress_bar import stage_bars

    screen = io.StringIO()
    monkeypatch.setattr(rich, "_console", Console(file=screen, force_terminal=True, width=120))
    with stage_bars() as hook:
        hook("embed", 0, 244, "chunks")  # the model loads: no batch done yet
        time.sleep(0.3)
    frame = re.sub(r"\x1b\[[0-9;?]*[a-zA-Z]", "", screen.getvalue())  # the text, without colours
    assert re.search(r"[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] embed .* 0/244 chunks +starting…", frame), frame  # a spinner turns
    assert "ETA -:--:--" in frame  # time left unknown, but the row says the stage is at work
