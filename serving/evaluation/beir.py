"""Load a BEIR-format folder and turn its corpus into lakehouse tables (one chunk per passage)."""

from __future__ import annotations

import csv
import json
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa

from lakehouse import schemas as s
from lakehouse.errors import ConfigError
from lakehouse.ids import sha256_text
from lakehouse.paths import LakePaths
from lakehouse.storage import write_table


@dataclass
class BeirSet:
    name: str
    corpus: list[dict]
    queries: dict[str, str]
    qrels: dict[str, dict[str, int]]

    @property
    def fingerprint(self) -> str:
        return sha256_text(*(f"{d['_id']}\x1e{d.get('title', '')}\x1e{d.get('text', '')}" for d in self.corpus))[:12]


def _jsonl(path: Path) -> list[dict]:
    if not path.exists():
        raise ConfigError(f"{path}: missing (a BEIR folder has corpus.jsonl, queries.jsonl, qrels/test.tsv)")
    rows = []
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if line.strip():
                try:
                    rows.append(json.loads(line))
                except json.JSONDecodeError as exc:
                    raise ConfigError(f"{path}:{number}: not valid JSON ({exc.msg})") from exc
    return rows


def load_beir(folder: Path, every_query: bool = False) -> BeirSet:
    """The corpus, the queries with qrels (``every_query``: every query, judged or not) and the qrels."""
    qrels_path = folder / "qrels" / "test.tsv"
    if not qrels_path.exists():
        raise ConfigError(f"{qrels_path}: missing")
    qrels: dict[str, dict[str, int]] = {}
    with qrels_path.open(encoding="utf-8") as handle:
        reader = csv.reader(handle, delimiter="\t")
        next(reader, None)
        for row in reader:
            if len(row) >= 3:
                qrels.setdefault(row[0], {})[row[1]] = int(row[2])
    queries = {str(q["_id"]): q["text"] for q in _jsonl(folder / "queries.jsonl") if every_query or q["_id"] in qrels}
    return BeirSet(folder.name, _jsonl(folder / "corpus.jsonl"), queries, qrels)


def write_beir_tables(data: BeirSet, paths: LakePaths) -> None:
    """chunks and extracted tables for the corpus, so the index stages can run over it unchanged."""
    paths.ensure()
    chunks, extracted = [], []
    for doc in data.corpus:
        title, text = doc.get("title") or "", doc.get("text") or ""
        body = f"{title}\n{text}" if title else text
        digest = sha256_text(doc["_id"], body)
        chunks.append({"chunk_id": doc["_id"], s.DOCUMENT_ID: doc["_id"], s.CONTENT_HASH: digest, "ordinal": 0,
                       "heading_path": [], "text": body, "char_start": 0, "char_end": len(body), "pages": [],
                       s.PATH: doc["_id"], "title": title or doc["_id"], s.DOC_TYPE: "beir",
                       s.ACCESS_GROUPS: [s.PUBLIC]})
        extracted.append({s.CONTENT_HASH: digest, "markdown": f"# {title}\n\n{text}" if title else text,
                          "method": "beir", "page_count": 0, "page_spans": [], "warnings": [],
                          "title": title or doc["_id"], "metadata_source": "none"})
    write_table(pa.Table.from_pylist(chunks, schema=s.CHUNKS), paths.table("chunks"))
    write_table(pa.Table.from_pylist(extracted, schema=s.EXTRACTED), paths.table("extracted"))


def write_beir_documents(data: BeirSet, paths: LakePaths) -> None:
    """A documents table (one public, current row per passage), so that an answer service can open the
    snapshot's catalog; retrieval evaluation does not need it."""
    rows = []
    for doc in data.corpus:
        body = f"{doc.get('title') or ''}\n{doc.get('text') or ''}" if doc.get("title") else doc.get("text") or ""
        rows.append({s.DOCUMENT_ID: doc["_id"], s.CONTENT_HASH: sha256_text(doc["_id"], body), s.PATH: doc["_id"],
                     "size_bytes": len(body), "modified_at": None, "detected_type": "beir", s.DOC_TYPE: "beir",
                     s.ACCESS_GROUPS: [s.PUBLIC], s.STATUS: "active", "status_reason": None,
                     "first_seen_run": "beir", "last_seen_run": "beir", "is_current": True})
    write_table(pa.Table.from_pylist(rows, schema=s.DOCUMENTS), paths.table("documents"))
