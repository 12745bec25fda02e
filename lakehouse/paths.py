"""Every path of the lakehouse, relative to its data root (``LAKERAG_HOME``)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

# Cache folders under cache/: reused work, keyed by content (dropping one makes its owner recompute it).
EXTRACTED, FAILURES, CHUNKS = "extracted", "failures", "chunks"
VECTORS, TOKENS, GRAPH = "vectors", "tokens", "graph"
LLM, LLM_ANSWERS, GRAPH_SEARCH, DBT = "llm", "llm-answers", "graph-search", "dbt"
PAGES = "pages"  # page multi-vectors, per model, keyed by page hash; and the page hashes of each rendered PDF
CACHES = frozenset({EXTRACTED, FAILURES, CHUNKS, VECTORS, TOKENS, GRAPH, LLM, LLM_ANSWERS, GRAPH_SEARCH, DBT,
                    PAGES})
# Versioned folder sets under tables/: <name>-<run>/ behind the pointer <name>.json.
SPARSE_SET, GRAPH_SET, ANN_SET = "sparse", "graph", "ann"


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

    @property
    def snapshots(self) -> Path:
        """Immutable published table sets (``snapshots/<id>/``) behind the ``snapshots/CURRENT`` pointer."""
        return self.home / "snapshots"

    @property
    def lock(self) -> Path:
        return self.home / ".lock"

    @property
    def eval_work(self) -> Path:
        """Indexes ``lakerag eval`` builds for its datasets."""
        return self.home / "eval"

    @property
    def erasures(self) -> Path:
        """The erasure receipts (append-only JSONL), queued erasure requests and the content blocklist."""
        return self.home / "erasures"

    @property
    def dbt(self) -> Path:
        """dbt's target and logs."""
        return self.home / "dbt"

    def cache_dir(self, name: str) -> Path:
        """One cache folder; the names are the constants of ``CACHES`` (each owned by one stage or service)."""
        if name not in CACHES:
            raise ValueError(f"unknown cache {name!r}; one of {', '.join(sorted(CACHES))}")
        return self.cache / name

    def blob(self, content_hash: str) -> Path:
        return self.raw / content_hash[:2] / content_hash

    def table(self, name: str) -> Path:
        return self.tables / f"{name}.parquet"

    def extracted_part(self, content_hash: str) -> Path:
        return self.cache_dir(EXTRACTED) / content_hash[:2] / f"{content_hash}.parquet"

    def chunk_part(self, content_hash: str, params: str) -> Path:
        return self.cache_dir(CHUNKS) / params / content_hash[:2] / f"{content_hash}.parquet"

    def failure(self, content_hash: str) -> Path:
        return self.cache_dir(FAILURES) / content_hash[:2] / f"{content_hash}.json"

    def attempt(self, content_hash: str) -> Path:
        """Written before a file is extracted and removed after: left behind, the run died on that file."""
        return self.cache_dir(FAILURES) / content_hash[:2] / f"{content_hash}.attempt.json"

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
