"""``enrich``: the ``contexts`` table, one short context per current chunk (LLM when configured, rules or none
otherwise), reused while the chunk, the model and the prompt version stay the same."""

from __future__ import annotations

import logging
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc

from lakehouse import paths as lp
from lakehouse import schemas as s
from lakehouse.paths import LakePaths
from lakehouse.runs import StageRecord
from lakehouse.storage import read_table, write_table
from models.llm import client_from_settings
from transforms.enrichment import PROMPT_VERSION
from transforms.enrichment import enrich as enrich_rows
from transforms.stages.base import Stage
from transforms.stages.context import RunContext

log = logging.getLogger(__name__)


def run(ctx: RunContext, batch: int | None = None) -> StageRecord:
    record, started, paths = StageRecord("enrich"), time.perf_counter(), ctx.paths
    chunks = read_table(paths.table("chunks"), s.CHUNKS)
    extracted = read_table(paths.table("extracted"), s.EXTRACTED).select([s.CONTENT_HASH, "markdown", "title"])
    documents = {r[s.CONTENT_HASH]: r for r in extracted.to_pylist()}
    st = ctx.settings
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
    if mode == "off":
        fresh = [{"chunk_id": c["chunk_id"], "context": "", "context_source": "none", "model": "none",
                  "prompt_version": PROMPT_VERSION} for c in todo]
    else:
        fresh = enrich_rows(todo, documents, client) if todo else []
    rows = [reused[c] for c in chunks["chunk_id"].to_pylist() if c in reused] + fresh
    write_table(pa.Table.from_pylist(rows, schema=s.CONTEXTS).sort_by("chunk_id"), paths.table("contexts"))
    record.processed, record.skipped = len(fresh), len(reused)
    return record.finish(paths, ctx.run_id, started, client.usage if client is not None else None)


def caches(paths: LakePaths) -> list[Path]:
    return [paths.table("contexts")]


STAGE = Stage("enrich", "index", run, caches=caches)
