"""The whole ingestion over the bundled sample corpus, checked against sample_corpus/EXPECTED.md: every bad file
quarantined with a readable reason, every good document active with the doc_type, groups and governance
metadata its authors gave it."""

from __future__ import annotations

import re
import shutil
from datetime import date
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from lakehouse.paths import LakePaths
from lakehouse.settings import Settings
from transforms.pipeline import run_index

REPO = Path(__file__).resolve().parent.parent
EXPECTED = REPO / "sample_corpus" / "EXPECTED.md"
BAD = "Diversos/arquivos-problematicos/"

REASONS = {  # expected kind -> what the quarantine reason must say
    "corrupt": "corrupt or truncated PDF",
    "truncated": "corrupt or truncated PDF",
    "encrypted": "encrypted PDF",
    "empty": "zero-byte file",
    "unsupported_type": "unsupported type: '.xlsx'",
    "wrong_extension": "wrong extension: '.docx' file contains PDF data",
    "undecodable": "undecodable text",
    "symlink_loop": "symlink loop",
    "too_large": "file over the size limit",
}


def _table(section: str) -> list[dict]:
    text = EXPECTED.read_text(encoding="utf-8").split(f"## {section}", 1)[1].split("\n## ", 1)[0]
    lines = [ln for ln in text.splitlines() if ln.startswith("|")]
    header = [c.strip() for c in lines[0].strip("|").split("|")]
    return [dict(zip(header, [c.strip().strip("`") for c in ln.strip("|").split("|")], strict=True))
            for ln in lines[2:]]


@pytest.fixture(scope="module")
def lake(tmp_path_factory) -> dict:
    root = tmp_path_factory.mktemp("sample")
    source = root / "source"
    shutil.copytree(REPO / "sample_corpus" / "documents", source, symlinks=True)
    big = source / BAD / "enorme.pdf"
    with big.open("wb") as handle:  # sparse: 60 MB on paper, nothing on disk
        handle.write(b"%PDF-1.7\n")
        handle.truncate(60 * 1024 * 1024)
    settings = Settings(home=root / "home", source=source)
    record = run_index(settings)
    paths = LakePaths(settings.home)
    docs = {d["path"]: d for d in pq.read_table(paths.table("documents")).to_pylist() if d["is_current"]}
    extracted = {e["content_hash"]: e for e in pq.read_table(paths.table("extracted")).to_pylist()}
    quarantine = {q["path"]: q for q in pq.read_table(paths.table("quarantine")).to_pylist()}
    return {"record": record, "docs": docs, "extracted": extracted, "quarantine": quarantine}


def test_every_bad_file_is_quarantined_with_a_readable_reason(lake):
    bad = {row["Path"]: row["Expected kind"] for row in _table("Bad files")}
    bad[BAD + "enorme.pdf"] = "too_large"
    scanned = BAD + "digitalizado-sem-texto.pdf"
    for path, kind in bad.items():
        if path == scanned:
            continue
        assert path in lake["quarantine"], f"{path} ({kind}) was not quarantined"
        assert REASONS[kind] in lake["quarantine"][path]["reason"], (path, lake["quarantine"][path]["reason"])
        assert lake["docs"][path]["status"] == "quarantined"
    assert set(lake["quarantine"]) <= set(bad)  # nothing good was quarantined


def test_scanned_pdf_is_ocrd_or_quarantined_for_want_of_ocr(lake):
    path = BAD + "digitalizado-sem-texto.pdf"
    if shutil.which("tesseract"):
        doc = lake["docs"][path]
        assert doc["status"] == "active"
        text = lake["extracted"][doc["content_hash"]]["markdown"].upper()
        assert "ESTACIONAMENTO" in text
    else:
        assert lake["quarantine"][path]["reason"] == "no text layer and no OCR available"


def test_good_documents_are_active_with_their_doc_type_and_groups(lake):
    expected = _table("Documents")
    assert len(expected) >= 40
    for row in expected:
        doc = lake["docs"][row["Path"]]
        assert doc["status"] == "active", row["Path"]
        assert doc["doc_type"] == row["doc_type"], row["Path"]
        groups = {g.strip() for g in row["Groups"].replace("(sidecar)", "").split(",")}
        assert set(doc["access_groups"]) == groups, row["Path"]


def test_governance_metadata_matches_the_documents_footers(lake):
    misses = []
    checked = 0
    for row in _table("Documents"):
        meta = lake["extracted"][lake["docs"][row["Path"]]["content_hash"]]
        if row["Review status"] == "no footer":
            continue
        checked += 1
        want_review = date.fromisoformat(row["Next review"])
        if meta["next_review_date"] != want_review:
            misses.append((row["Path"], "next review", meta["next_review_date"], want_review))
        if meta["version"] != row["Version"]:
            misses.append((row["Path"], "version", meta["version"], row["Version"]))
        if meta["metadata_source"] != "rules":
            misses.append((row["Path"], "metadata_source", meta["metadata_source"], "rules"))
    assert checked >= 25
    assert misses == []


def test_the_run_finishes_and_counts_add_up(lake):
    record = lake["record"]
    docs = lake["docs"]
    assert record.quarantined == len(lake["quarantine"]) == sum(d["status"] == "quarantined" for d in docs.values())
    assert record.documents_active == sum(d["status"] == "active" for d in docs.values()) >= 46
    assert record.chunks > 200
    titles = {e["title"] for e in lake["extracted"].values()}
    assert not any(re.fullmatch(r"[0-9a-f]{64}", t) for t in titles)  # titles never fall back to a hash
