"""``enrich``: the ``contexts`` table, one short context per current chunk (LLM when configured, rules or none
otherwise), reused while the chunk, the model and the prompt version stay the same. With an LLM, the calls (the
expensive part) can fan out first: shards (``run_shard``) fill the LLM request cache side by side, and ``run``
then writes every context from it without a call."""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc

from lakehouse import paths as lp
from lakehouse import schemas as s
from lakehouse.part_cache import shard_of
from lakehouse.paths import LakePaths
from lakehouse.runs import StageRecord
from lakehouse.storage import read_table, write_table
from models.llm import LLMClient, client_from_settings
from transforms.enrichment import PROMPT_VERSION
from transforms.enrichment import enrich as enrich_rows
from transforms.stages.base import Sharding, Stage, shard_part
from transforms.stages.context import RunContext

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class _Work:
    """What a run's contexts need: the chunks, their documents, the client, and which chunks have a context."""

    chunks: pa.Table
    documents: dict[str, dict]
    client: LLMClient | None
    mode: str
    reused: dict[str, dict]
    todo: list[dict]


def _work(ctx: RunContext) -> _Work:
    paths, st = ctx.paths, ctx.settings
    chunks = read_table(paths.table("chunks"), s.CHUNKS)
    extracted = read_table(paths.table("extracted"), s.EXTRACTED).select([s.CONTENT_HASH, "markdown", "title"])
    documents = {r[s.CONTENT_HASH]: r for r in extracted.to_pylist()}
    client = client_from_settings(st, paths.cache_dir(lp.LLM)) if st.index.enrich in ("auto", "llm") else None
    if st.index.enrich == "llm" and client is None:
        log.warning("LAKERAG_ENRICH=llm but no LLM is configured (LAKERAG_LLM_BASE_URL, LAKERAG_LLM_MODEL); "
                    "using rules contexts")
    mode = "llm" if client else ("rules" if st.index.enrich in ("rules", "llm") else "off")
    model = client.model if client else ("rules" if mode == "rules" else "none")
    previous = read_table(paths.table("contexts"), s.CONTEXTS)
    reuse = previous.filter(pc.and_(pc.equal(previous["model"], model),
                                    pc.equal(previous["prompt_version"], PROMPT_VERSION)))
    reused = {r["chunk_id"]: r for r in reuse.to_pylist()}
    todo = [c for c in chunks.select(["chunk_id", s.DOCUMENT_ID, s.CONTENT_HASH, "text", "heading_path",
                                      "title"]).to_pylist() if c["chunk_id"] not in reused]
    return _Work(chunks, documents, client, mode, reused, todo)


def missing(ctx: RunContext) -> list[str]:
    """Chunk ids whose context the LLM has yet to write; none without an LLM (rules contexts are cheap)."""
    work = _work(ctx)
    return [c["chunk_id"] for c in work.todo] if work.mode == "llm" else []


def run_shard(ctx: RunContext, shard: int, shards: int) -> StageRecord:
    """Ask the LLM for one shard's contexts; its answers land in the LLM request cache, where the stage (the
    merge) finds them without a call. Writes no table; counts no context (the merge writes and counts them),
    only the LLM calls in its usage."""
    record, started, work = StageRecord("enrich", part=shard_part(shard, shards)), time.perf_counter(), _work(ctx)
    mine = [c for c in work.todo if shard_of(c["chunk_id"], shards) == shard]
    if work.mode == "llm" and mine:
        enrich_rows(mine, work.documents, work.client)
    return record.finish(ctx.paths, ctx.run_id, started, work.client.usage if work.client is not None else None)


def run(ctx: RunContext, batch: int | None = None) -> StageRecord:
    record, started, paths, work = StageRecord("enrich"), time.perf_counter(), ctx.paths, _work(ctx)
    if work.mode == "off":
        fresh = [{"chunk_id": c["chunk_id"], "context": "", "context_source": "none", "model": "none",
                  "prompt_version": PROMPT_VERSION} for c in work.todo]
    else:
        fresh = enrich_rows(work.todo, work.documents, work.client) if work.todo else []
    reused = work.reused
    rows = [reused[c] for c in work.chunks["chunk_id"].to_pylist() if c in reused] + fresh
    write_table(pa.Table.from_pylist(rows, schema=s.CONTEXTS).sort_by("chunk_id"), paths.table("contexts"))
    record.processed, record.skipped = len(fresh), len(reused)
    return record.finish(paths, ctx.run_id, started, work.client.usage if work.client is not None else None)


def caches(paths: LakePaths) -> list[Path]:
    return [paths.table("contexts")]


STAGE = Stage("enrich", "index", run, caches=caches, sharding=Sharding(missing, run_shard, counts=False))
