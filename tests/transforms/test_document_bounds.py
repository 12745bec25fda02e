"""One pathological document never stalls a run: every stage after extraction does a bounded amount of work per
document (``LAKERAG_MAX_DOCUMENT_CHARS``, ``LAKERAG_MAX_DOCUMENT_CHUNKS``, contexts found once per document), the
run record names the file, its size and the setting that raises the bound, and the other documents publish.

A run is a real ``lakerag index`` subprocess with a generous wall-time guard; on the code before the bounds a
40 MB document of one word became 50,000 chunks, and rules contexts read the whole document once per chunk."""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from lakehouse.paths import LakePaths
from lakehouse.snapshots import current_id, snapshot_tables
from transforms.chunking import split_markdown
from transforms.enrichment import enrich

HANG_GUARD = 240  # seconds: the bounded runs take a few; the unbounded ones far longer than this
GOOD = "# Procedimento\n\nLavar as mãos antes do preparo da medicação, sempre com sabão neutro.\n"


def _index(tmp_path: Path, docs: dict[str, str], **env: str) -> tuple[subprocess.CompletedProcess, Path]:
    source, home = tmp_path / "source", tmp_path / "home"
    source.mkdir()
    for name, text in docs.items():
        (source / name).write_text(text, encoding="utf-8")
    environ = {**os.environ, "LAKERAG_HOME": str(home), "LAKERAG_SOURCE": str(source), "LAKERAG_OCR": "false",
               "LAKERAG_EMBEDDING_MODEL": "wordllama", **env}
    try:
        done = subprocess.run([sys.executable, "-m", "lakerag.cli", "index", "--quiet"], env=environ,
                              capture_output=True, text=True, timeout=HANG_GUARD)
    except subprocess.TimeoutExpired:
        pytest.fail(f"one pathological document stalled the run for over {HANG_GUARD} s")
    assert done.returncode == 0, done.stderr[-3000:]
    return done, home


def _published_chunks(home: Path) -> dict[str, int]:
    paths = LakePaths(home)
    chunks = pq.read_table(snapshot_tables(paths, current_id(paths)) / "chunks.parquet", columns=["path", "text"])
    counts: dict[str, int] = {}
    for path in chunks["path"].to_pylist():
        counts[path] = counts.get(path, 0) + 1
    return counts


def _run_errors(home: Path) -> list[str]:
    return [e for row in pq.read_table(LakePaths(home).table("runs")).to_pylist() for e in row["errors"]]


def test_rules_contexts_of_a_list_of_150000_items_read_the_document_once(tmp_path):
    """Each chunk's rules context starts with the document's lead; finding it once per chunk read all 2 MB of a
    list whose items are no lead 2,400 times (about three minutes here, growing with the square of the size)."""
    items = "# Inventário\n\n" + "".join(f"- item {i}\n\n" for i in range(150_000))
    drafts = split_markdown(items, "Inventário", [], 800, 120, 8000)
    chunks = [{"chunk_id": f"c{d.ordinal}", "content_hash": "h", "text": d.text, "heading_path":
               list(d.heading_path), "title": "Inventário"} for d in drafts]
    with _hang_guard(60):
        rows = enrich(chunks, {"h": {"markdown": items, "title": "Inventário"}}, None)
    assert len(rows) == len(drafts) > 2000
    assert all(r["context_source"] == "rules" and "Inventário" in r["context"] for r in rows)


@contextlib.contextmanager
def _hang_guard(seconds: int):
    def stop(*_):
        raise TimeoutError(f"still running after {seconds} s: the work grows faster than the document")

    previous = signal.signal(signal.SIGALRM, stop)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def test_a_40_mb_document_of_one_word_keeps_its_first_chunks_and_the_run_record_says_so(tmp_path):
    _, home = _index(tmp_path, {"palavra.md": "a" * 40_000_000, "procedimento.md": GOOD},
                     LAKERAG_MAX_DOCUMENT_CHUNKS="300")
    published = _published_chunks(home)
    assert published == {"palavra.md": 300, "procedimento.md": 1}  # the rest of the run published
    errors = [e for e in _run_errors(home) if e.startswith("palavra.md: ")]
    assert any(re.search(r"extracted text of 40,000,\d{3} characters is over LAKERAG_MAX_DOCUMENT_CHARS=5000000", e)
               and "raise LAKERAG_MAX_DOCUMENT_CHARS" in e for e in errors), errors
    assert any("over LAKERAG_MAX_DOCUMENT_CHUNKS=300" in e and "raise LAKERAG_MAX_DOCUMENT_CHUNKS" in e
               for e in errors), errors
    assert not [e for e in _run_errors(home) if e.startswith("procedimento.md")]
