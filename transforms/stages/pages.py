"""``pages``: every page of the current active PDFs rendered (``LAKERAG_PAGES_DPI``), hashed by its pixels and
encoded by the late-interaction vision model (``LAKERAG_PAGES_MODEL``) into token vectors, then the ``pages``
table: one row per page with its vectors as float16, page number, document, content hash, groups and model id.

Two caches: the page hashes of each (content hash, DPI), so an unchanged PDF is not even rendered again; and the
vectors of each (page hash, model id, pooling), so an unchanged page is never encoded twice. The table is rebuilt
from the current ``documents`` rows on every run, so deleted documents leave it and changed groups reach it.
Without the setting the stage does nothing and the table is removed (text-only retrieval)."""

from __future__ import annotations

import logging
import re
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from lakehouse import paths as lp
from lakehouse import schemas as s
from lakehouse.part_cache import KEY, PartCache
from lakehouse.paths import LakePaths
from lakehouse.runs import StageRecord
from lakehouse.storage import read_table, write_table
from models.late_interaction import pool_tokens
from models.page_images import PageRenderError, page_hash, render_pages
from models.vision import SETTING, load_page_model, model_id_of
from transforms.stages.base import Stage
from transforms.stages.context import RunContext

log = logging.getLogger(__name__)

SKIPPED = f"pages: skipped, no vision model configured ({SETTING} unset); retrieval is text-only"
_RENDERS = pa.schema([pa.field(KEY, pa.string()), pa.field("page_hashes", pa.list_(pa.string()))])
_VECTORS = pa.schema([pa.field(KEY, pa.string()), pa.field("n_tokens", pa.int32()),
                      pa.field("dim", pa.int32()), pa.field("vectors", s.PAGE_VECTORS)])


def _slug(value: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", value)[:120]


def pdf_documents(ctx: RunContext) -> list[dict]:
    """Current active PDF documents, by document id, with their titles."""
    docs = read_table(ctx.paths.table("documents"), s.DOCUMENTS)
    docs = docs.filter(pc.and_(docs["is_current"], pc.equal(docs[s.STATUS], s.STATUS_ACTIVE)))
    docs = docs.filter(pc.equal(docs["detected_type"], "pdf")).sort_by(s.DOCUMENT_ID)
    extracted = read_table(ctx.paths.table("extracted"), s.EXTRACTED).select([s.CONTENT_HASH, "title"])
    titles = dict(zip(extracted[s.CONTENT_HASH].to_pylist(), extracted["title"].to_pylist(), strict=True))
    return [{**row, "title": titles.get(row[s.CONTENT_HASH]) or Path(row[s.PATH]).stem} for row in docs.to_pylist()]


def _encode(ctx: RunContext, images: list, pool: int, model_holder: list) -> list[np.ndarray]:
    st = ctx.settings.index
    if not model_holder:
        model_holder.append(load_page_model(st.pages_model, st.pages_device, st.pages_batch_size))
    return [pool_tokens(v, pool) for v in model_holder[0].encode_pages(images)]


def run(ctx: RunContext, batch: int | None = None) -> StageRecord:
    record, started, paths, st = StageRecord("pages"), time.perf_counter(), ctx.paths, ctx.settings.index
    if st.pages_model is None:
        paths.table("pages").unlink(missing_ok=True)
        log.info(SKIPPED)
        record.save(paths, ctx.run_id)
        return record
    model_id, pool = model_id_of(Path(st.pages_model)), st.pages_pool_factor
    renders = PartCache(paths.cache_dir(lp.PAGES) / "renders" / f"dpi{st.pages_dpi}", _RENDERS)
    vectors = PartCache(paths.cache_dir(lp.PAGES) / "vectors" / _slug(f"{model_id}-pool{pool}"), _VECTORS)
    documents = pdf_documents(ctx)
    known = renders.read([d[s.CONTENT_HASH] for d in documents])
    rendered = dict(zip(known[KEY].to_pylist(), known["page_hashes"].to_pylist(), strict=True))
    have, model_holder, rows = vectors.keys(), [], []
    for doc in documents:
        content_hash = doc[s.CONTENT_HASH]
        try:
            images, hashes = None, rendered.get(content_hash)
            if hashes is None:
                images = render_pages(paths.blob(content_hash), st.pages_dpi)
                hashes = [page_hash(image) for image in images]
                renders.append(pa.table({KEY: [content_hash], "page_hashes": [hashes]}))
            todo = {h: i for i, h in reversed(list(enumerate(hashes))) if h not in have}
            if todo:
                images = images or render_pages(paths.blob(content_hash), st.pages_dpi)
                encoded = _encode(ctx, [images[i] for i in todo.values()], pool, model_holder)
                vectors.append(pa.table({KEY: list(todo), "n_tokens": [len(v) for v in encoded],
                                         "dim": [v.shape[1] for v in encoded],
                                         "vectors": [v.astype(np.float16).reshape(-1) for v in encoded]}))
                have.update(todo)
            record.processed += len(todo)
            record.skipped += len(hashes) - len(todo)
        except (PageRenderError, OSError, ValueError, RuntimeError) as exc:
            record.failed += 1
            record.errors.append(f"pages: {doc[s.PATH]}: {exc}")
            log.warning("pages: %s not encoded: %s", doc[s.PATH], exc)
            continue
        rows += [{**doc, "page": n, "page_hash": h} for n, h in enumerate(hashes, start=1)]
    vectors.compact()
    renders.compact()
    write_table(_table(rows, vectors, model_id, st.pages_dpi, pool), paths.table("pages"))
    record.seconds = time.perf_counter() - started
    record.save(paths, ctx.run_id)
    return record


def _table(rows: list[dict], cache: PartCache, model_id: str, dpi: int, pool: int) -> pa.Table:
    found = cache.read([r["page_hash"] for r in rows])
    position = {key: i for i, key in enumerate(found[KEY].to_pylist())}
    picked = found.take(pa.array([position[r["page_hash"]] for r in rows], pa.int64()))
    dims = set(picked["dim"].to_pylist())
    table = pa.table({
        s.DOCUMENT_ID: [r[s.DOCUMENT_ID] for r in rows], s.CONTENT_HASH: [r[s.CONTENT_HASH] for r in rows],
        "page": pa.array([r["page"] for r in rows], pa.int32()), "page_hash": [r["page_hash"] for r in rows],
        s.PATH: [r[s.PATH] for r in rows], "title": [r["title"] for r in rows],
        s.ACCESS_GROUPS: [r[s.ACCESS_GROUPS] for r in rows], "model_id": [model_id] * len(rows),
        "n_tokens": picked["n_tokens"], "vectors": picked["vectors"]}, schema=s.PAGES)
    meta = {"model_id": model_id, "dim": str(dims.pop() if len(dims) == 1 else 0), "dpi": str(dpi),
            "pool_factor": str(pool)}
    return table.replace_schema_metadata({**(s.PAGES.metadata or {}), **meta})


def caches(paths: LakePaths) -> list[Path]:
    return [paths.cache_dir(lp.PAGES)]


STAGE = Stage("pages", "index", run, gpu=True, caches=caches)
