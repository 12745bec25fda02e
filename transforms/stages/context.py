"""The run context every stage receives: the settings, the run id, and what the run's plan says."""

from __future__ import annotations

import logging
import shutil
from dataclasses import dataclass
from functools import cached_property

import pyarrow as pa
import pyarrow.compute as pc

from lakehouse import schemas as s
from lakehouse.erasures import Blocklist
from lakehouse.paths import LakePaths
from lakehouse.settings import Settings
from lakehouse.storage import read_json, read_table

log = logging.getLogger(__name__)

CHUNKER_VERSION = 1


@dataclass(frozen=True)
class RunContext:
    settings: Settings
    run_id: str

    @property
    def paths(self) -> LakePaths:
        return LakePaths(self.settings.home)

    @property
    def chunk_params(self) -> str:
        ing = self.settings.ingest
        return (f"v{CHUNKER_VERSION}-s{ing.chunk_size}-o{ing.chunk_overlap}-m{ing.max_chunk_chars}"
                f"-d{ing.max_document_chars}-n{ing.max_document_chunks}")

    @property
    def extraction_capabilities(self) -> str:
        """Failures are cached under this key: they are retried when OCR or Marker becomes available."""
        ocr = self.settings.extraction.ocr and shutil.which("tesseract") is not None
        return f"ocr={ocr};marker={self.settings.extraction.marker}"

    def plan(self) -> pa.Table:
        return read_table(self.paths.plan(self.run_id), s.PLAN)

    def batches(self) -> list[int]:
        """The planned batches of documents with work to do, in order (written by ``discover``)."""
        return sorted({b for b in self.plan()["batch"].to_pylist() if b >= 0})

    def batch_rows(self, batch: int) -> list[dict]:
        plan = self.plan()
        rows = plan.filter(pc.equal(plan["batch"], batch)).to_pylist()
        unique: dict[str, dict] = {}
        for row in rows:
            unique.setdefault(row[s.CONTENT_HASH], row)
        return list(unique.values())

    def failure(self, content_hash: str) -> dict | None:
        """The cached extraction failure of a hash, if it still applies."""
        path = self.paths.failure(content_hash)
        if not path.exists():
            return None
        data = read_json(path)
        return data if data.get("capabilities") == self.extraction_capabilities else None

    @cached_property
    def blocklist(self) -> Blocklist:
        """Content hashes erasure removed (never ingested again) or redacted (never landed again)."""
        return Blocklist(self.paths)

    def needs_work(self, content_hash: str) -> bool:
        paths = self.paths
        if self.blocklist.kind(content_hash) == "redacted":  # its redacted extraction and chunks stay as they are
            return False
        if not paths.blob(content_hash).exists():
            return True
        if self.failure(content_hash) is not None:
            return False
        return not (paths.extracted_part(content_hash).exists()
                    and paths.chunk_part(content_hash, self.chunk_params).exists())
