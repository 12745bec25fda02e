"""Every path of the lakehouse, relative to its data root (``LAKERAG_HOME``)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class LakePaths:
    """Layout of one lakehouse. Nothing outside this class builds a path under the data root."""

    home: Path

    @property
    def raw(self) -> Path:
        """Content-addressed raw bytes: raw/ab/abcdef...."""
        return self.home / "raw"

    @property
    def tables(self) -> Path:
        return self.home / "tables"

    @property
    def cache(self) -> Path:
        """Per-content-hash work products (extracted Markdown, chunk drafts, quarantine reasons)."""
        return self.home / "cache"

    @property
    def runs(self) -> Path:
        return self.home / "runs"

    def blob(self, content_hash: str) -> Path:
        return self.raw / content_hash[:2] / content_hash

    def table(self, name: str) -> Path:
        return self.tables / f"{name}.parquet"

    def extracted_part(self, content_hash: str) -> Path:
        return self.cache / "extracted" / content_hash[:2] / f"{content_hash}.parquet"

    def chunk_part(self, content_hash: str, params: str) -> Path:
        return self.cache / "chunks" / params / content_hash[:2] / f"{content_hash}.parquet"

    def failure(self, content_hash: str) -> Path:
        return self.cache / "failures" / content_hash[:2] / f"{content_hash}.json"

    def run_dir(self, run_id: str) -> Path:
        return self.runs / run_id

    def plan(self, run_id: str) -> Path:
        return self.run_dir(run_id) / "plan.parquet"

    def run_record(self, run_id: str) -> Path:
        return self.run_dir(run_id) / "run.json"

    def stage_record(self, run_id: str, stage: str, part: str = "all") -> Path:
        return self.run_dir(run_id) / "stages" / f"{stage}-{part}.json"

    def ensure(self) -> LakePaths:
        for folder in (self.raw, self.tables, self.cache, self.runs):
            folder.mkdir(parents=True, exist_ok=True)
        return self
