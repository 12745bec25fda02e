"""The `lakerag` command-line contract: index, status --json, exit codes and one-line reasons."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from lakerag.cli import main


def _lakerag(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "lakerag.cli", *args], capture_output=True, text=True,
                          env={**os.environ, **(env or {})}, timeout=300)


@pytest.fixture
def small_source(tmp_path: Path) -> Path:
    root = tmp_path / "src"
    (root / "Políticas").mkdir(parents=True)
    (root / "Políticas" / "a.md").write_text("# A\n\n## 1. Objetivo\n\nTexto A.\n", encoding="utf-8")
    (root / "b.txt").write_text("Texto B.\n", encoding="utf-8")
    (root / "vazio.txt").write_bytes(b"")
    return root


def test_index_then_status_json(small_source, tmp_path, capsys):
    home = tmp_path / "home"
    assert main(["index", "--quiet", "--source", str(small_source), "--home", str(home)]) == 0
    out = capsys.readouterr().out
    assert "quarantined" in out
    assert main(["status", "--home", str(home), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["documents"] == {"active": 2, "deleted": 0, "quarantined": 1}
    assert data["chunks"] >= 2
    run = data["last_run"]
    assert {k: run[k] for k in ("new", "changed", "moved", "deleted", "unchanged", "extracted", "quarantined")} \
        == {"new": 2, "changed": 0, "moved": 0, "deleted": 0, "unchanged": 0, "extracted": 2, "quarantined": 1}
    assert run["run_id"].startswith("run_") and run["seconds"] >= 0
    assert data["quarantine"] == [{"path": "vazio.txt", "stage": "discover", "reason": "zero-byte file"}]
    assert data["published_snapshot"].startswith("snap_")
    assert main(["status", "--home", str(home)]) == 0
    assert f"published snapshot: {data['published_snapshot']}" in capsys.readouterr().out


def test_status_of_an_empty_home(tmp_path, capsys):
    (tmp_path / "empty").mkdir()
    assert main(["status", "--home", str(tmp_path / "empty"), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["documents"] == {"active": 0, "deleted": 0, "quarantined": 0} and data["last_run"] is None
    assert data["published_snapshot"] is None


def test_status_of_a_missing_home_says_it_does_not_exist(tmp_path, capsys):
    missing = tmp_path / "nothing"
    assert main(["status", "--home", str(missing)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"home {missing} does not exist" in err
    assert not missing.exists()


def test_unreadable_source_fails_with_a_one_line_reason(tmp_path):
    result = _lakerag("index", "--quiet", "--source", str(tmp_path / "missing"), "--home", str(tmp_path / "h"))
    assert result.returncode == 2
    assert result.stderr.strip().count("\n") == 0
    assert "source folder not found" in result.stderr and str(tmp_path / "missing") in result.stderr


def test_bad_setting_names_the_variable(tmp_path, small_source):
    result = _lakerag("index", "--quiet", "--source", str(small_source), "--home", str(tmp_path / "h"),
                      env={"LAKERAG_CHUNK_SIZE": "lots"})
    assert result.returncode == 2 and "LAKERAG_CHUNK_SIZE" in result.stderr


def test_bad_folder_config_names_the_file(tmp_path, small_source):
    (small_source / ".lakerag.yaml").write_text("taxonomy:\n  - prefix: X\n", encoding="utf-8")
    result = _lakerag("index", "--quiet", "--source", str(small_source), "--home", str(tmp_path / "h"))
    assert result.returncode == 2
    assert ".lakerag.yaml" in result.stderr and "taxonomy[0]" in result.stderr
    assert not (tmp_path / "h" / "tables" / "documents.parquet").exists()


def test_index_without_a_terminal_logs_progress_and_a_summary_that_adds_up(small_source, tmp_path, capsys):
    assert main(["index", "--source", str(small_source), "--home", str(tmp_path / "home")]) == 0
    captured = capsys.readouterr()
    for stage, unit in [("extract", "documents"), ("chunk", "documents"), ("embed", "chunks")]:
        assert re.search(rf"{stage}: \d+/\d+ {unit} \(100%\), [\d.]+/s", captured.err), stage
    table = [ln.split("│")[1].strip() for ln in captured.out.splitlines() if ln.count("│") == 3]
    stages = [name for name in table if name and name != "stage"]
    assert stages.index("discover") < stages.index("extract") < stages.index("embed") < stages.index("graph")
    files = re.search(r"files: (\d+) in the source = (\d+) new \+ (\d+) changed \+ (\d+) moved \+ (\d+) unchanged "
                      r"\+ (\d+) refused at discovery", captured.out)
    documents = re.search(r"documents: (\d+) = (\d+) active \+ (\d+) quarantined", captured.out)
    assert files and documents
    assert int(files[1]) == sum(map(int, files.groups()[1:])) == int(documents[1]) == 3
    assert int(documents[1]) == int(documents[2]) + int(documents[3])
    chunks = re.search(r"chunks: (\d+) = (\d+) distinct texts \+ (\d+) sharing a text", captured.out)
    assert chunks and int(chunks[1]) == int(chunks[2]) + int(chunks[3])
