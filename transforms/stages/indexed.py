"""What the dense and sparse stages index for each current chunk: its context, then its own text."""

from __future__ import annotations

from lakehouse import schemas as s
from lakehouse.ids import sha256_text
from lakehouse.storage import read_table
from transforms.stages.context import RunContext

FLUSH_EVERY = 512  # cache rows appended per part


def indexed_text(context: str, text: str) -> str:
    """The chunk's context, then its own text (which is what is cited)."""
    return f"{context}\n\n{text}" if context else text


def indexed_chunks(ctx: RunContext) -> tuple[list[str], list[str], list[str]]:
    """(chunk ids, keys, indexed texts) of the current chunks, in table order; a key is the indexed text's hash,
    so only new or changed chunks (or contexts) cost anything."""
    paths = ctx.paths
    chunks = read_table(paths.table("chunks"), s.CHUNKS).select(["chunk_id", "text"])
    contexts = read_table(paths.table("contexts"), s.CONTEXTS)
    by_chunk = dict(zip(contexts["chunk_id"].to_pylist(), contexts["context"].to_pylist(), strict=True))
    ids = chunks["chunk_id"].to_pylist()
    texts = [indexed_text(by_chunk.get(cid, ""), text) for cid, text in zip(ids, chunks["text"].to_pylist(),
                                                                             strict=True)]
    return ids, [sha256_text(t) for t in texts], texts
