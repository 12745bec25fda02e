"""A question's vector is asked for on the event loop, before its request takes a worker thread.

Synchronous handlers run in the event loop's default executor (``min(32, cores + 4)`` threads: 6 on two cores).
A handler that blocks on the query encoder holds one of those threads without using the interpreter, so at most
6 questions could wait in one encoder batch, and while they waited no answer was being composed. Awaiting the
encoder first (the shared future of ``EncoderService``, shielded: a client that goes away never cancels a batch
other requests wait on) lets every concurrent question join the same batch, and a request enters the executor
with its vector in the cache, so the threads only run Python (retrieval, grading, composition) while the engine
encodes the next batch on its own threads.

The vector is asked for the question as the engine will embed it (whitespace-normalised; the cache key is the
same normalisation); follow-ups (``history`` or ``conversation_id``) are rewritten inside the handler first,
so they are not asked here, and nothing is asked when the cache is off (``LAKERAG_API_QUERY_CACHE_SIZE=0``:
the vector would have nowhere to wait for the handler). A failure here is ignored: the handler encodes again
and reports it properly."""

from __future__ import annotations

import asyncio
import logging
from concurrent.futures import Future

from serving.answers import AnswerService
from serving.search.encoder_service import SharedEmbedder

log = logging.getLogger(__name__)

DENSE_MODES = frozenset({"auto", "basic", "local", "global", "hybrid", "agentic"})  # auto may route to the catalog


async def encode_first(service: AnswerService, question: str) -> None:
    """Wait until ``question``'s vector is in the process's encoder cache (no-op without a shared encoder)."""
    engine = service.holder.engine
    embedder = engine.embedder if engine is not None else None
    text = " ".join(question.split())
    if not isinstance(embedder, SharedEmbedder) or not text or not engine.index.vectors.size \
            or not embedder.service.cache_size:  # without a cache the handler would encode it again
        return
    try:
        pending = [asyncio.shield(asyncio.wrap_future(f)) for f in embedder.submit([text]) if isinstance(f, Future)]
        if pending:
            await asyncio.gather(*pending)
    except Exception:  # the handler's own call raises it with the request's context
        log.debug("encoding ahead of the handler failed", exc_info=True)
