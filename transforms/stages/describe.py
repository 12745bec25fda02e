"""``describe``: the ``descriptions`` table, what each current document is about (summary and tags, see
``transforms.description``), described once per content hash while the model and the prompt version stay the
same, plus the entities the graph found in it (recomputed each run: the graph changes with the corpus)."""

from __future__ import annotations

import logging
import time
from collections import Counter
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc

from lakehouse import paths as lp
from lakehouse import schemas as s
from lakehouse.graph_schemas import load_graph_tables
from lakehouse.paths import LakePaths
from lakehouse.runs import StageRecord
from lakehouse.storage import read_table, write_table
from models.llm import client_from_settings
from transforms.description import PROMPT_VERSION, describe
from transforms.stages.base import Stage
from transforms.stages.chunk import bound_text
from transforms.stages.context import RunContext

log = logging.getLogger(__name__)

MAX_ENTITIES = 10
SKIPPED_TYPES = {"CONCEPT"}  # noun phrases: the tags say that better


def document_entities(tables: Path) -> dict[str, list[str]]:
    """Per document, the names of the graph's (non-concept) entities found in it, most frequent first."""
    entities = load_graph_tables(tables)["entities"]
    found: dict[str, Counter] = {}
    for e in entities.select(["name", "type", "document_ids", "frequency"]).to_pylist():
        if e["type"] in SKIPPED_TYPES:
            continue
        for doc in e["document_ids"] or []:
            found.setdefault(doc, Counter())[e["name"]] += e["frequency"]
    return {d: [n for n, _ in sorted(c.items(), key=lambda x: (-x[1], x[0]))[:MAX_ENTITIES]]
            for d, c in found.items()}


def run(ctx: RunContext, batch: int | None = None) -> StageRecord:
    record, started, paths, st = StageRecord("describe"), time.perf_counter(), ctx.paths, ctx.settings
    chunks = read_table(paths.table("chunks"), s.CHUNKS).select([s.DOCUMENT_ID, s.CONTENT_HASH]).to_pylist()
    current = {c[s.DOCUMENT_ID]: c[s.CONTENT_HASH] for c in chunks}
    extracted = read_table(paths.table("extracted"), s.EXTRACTED).select([s.CONTENT_HASH, "markdown", "title"])
    limit = st.ingest.max_document_chars  # what was chunked of a longer document is what is described
    texts = {r[s.CONTENT_HASH]: {**r, "markdown": bound_text(r["markdown"] or "", limit)}
             for r in extracted.to_pylist() if r[s.CONTENT_HASH] in set(current.values())}
    client = client_from_settings(st, paths.cache_dir(lp.LLM)) if st.index.describe_with_llm else None
    model = client.model if client is not None else "extractive"
    previous = read_table(paths.table("descriptions"), s.DESCRIPTIONS)
    reuse = previous.filter(pc.and_(pc.equal(previous["model"], model),
                                    pc.equal(previous["prompt_version"], PROMPT_VERSION)))
    cached = {r[s.CONTENT_HASH]: r for r in reuse.to_pylist()}
    todo = [texts[h] for h in sorted(set(current.values())) if h not in cached and h in texts]
    fresh = {r[s.CONTENT_HASH]: r for r in describe(todo, [t["markdown"] or "" for t in texts.values()], client)} \
        if todo else {}
    entities = document_entities(paths.tables)
    rows = []
    for doc, digest in sorted(current.items()):
        made = fresh.get(digest) or cached.get(digest)
        if made is None:
            continue
        rows.append({s.DOCUMENT_ID: doc, s.CONTENT_HASH: digest, "summary": made["summary"], "tags": made["tags"],
                     "entities": entities.get(doc, []),
                     "summary_source": made.get("summary_source") or made["source"],
                     "model": model if digest in fresh else made["model"], "prompt_version": PROMPT_VERSION})
    write_table(pa.Table.from_pylist(rows, schema=s.DESCRIPTIONS), paths.table("descriptions"))
    record.processed, record.skipped = len(fresh), len(rows) - len(fresh)
    return record.finish(paths, ctx.run_id, started, client.usage if client is not None else None)


def caches(paths: LakePaths) -> list[Path]:
    return [paths.table("descriptions")]


STAGE = Stage("describe", "index", run, caches=caches)
