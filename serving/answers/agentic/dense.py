"""Which sentence of the read evidence answers a part of a question when it is written in another language.

Shared words do not cross languages ("within how many days must requests be answered" has no word in common
with "respondidas em até 15 dias"); the dense model does. ``parts.pick`` asks for it only for a part whose kind
of value (a duration, an amount, a date) no sentence in the question's language states, and only for the
sentences that state one: those of the part's ``TOP_ACROSS`` closest read chunks (ranked by their stored
vectors, no encoding) are encoded, each once per question. Their similarity is scaled between the worst and
the best of them (0 to 1), the scale of the lexical coverage it stands in for."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from serving.answers.agentic.parts import Part
from serving.answers.engine import Engine

TOP_ACROSS = 3  # a part's closest read chunks in another language than the question's, whose sentences count

Similarity = dict[tuple[int, str], float]  # (source number, sentence) -> scaled similarity, 0 to 1


class Measure:
    """The dense similarity of a question's parts to sentences of the read chunks, measured only when asked
    (a part whose value no sentence in the question's language states), each sentence encoded once."""

    def __init__(self, engine: Engine, parts: Sequence[Part], rows: Sequence[int | None],
                 sources: Sequence[tuple[str, str]]) -> None:
        """``rows``: the chunk row of each source (None for a source that is no chunk); ``sources``: (title,
        text) of each, numbered from 1."""
        self.engine, self.parts, self.sources = engine, list(parts), list(sources)
        self.rows = {n: row for n, row in enumerate(rows, start=1) if row is not None}
        self._queries: np.ndarray | None = None
        self._encoded: dict[tuple[int, str], np.ndarray] = {}

    def __call__(self, part: int, candidates: Sequence[tuple[int, str]]) -> Similarity:
        """The candidates (sentences of sources in another language) that lie in the part's ``TOP_ACROSS``
        closest chunks by stored vectors, with their similarity scaled between the worst and the best of them."""
        engine, ix = self.engine, self.engine.index
        if engine.embedder is None or not ix.vectors.size or not candidates:
            return {}
        if self._queries is None:
            self._queries = np.asarray(engine.embedder.embed_queries([p.query for p in self.parts]),
                                       dtype=np.float32)
        query = self._queries[part]
        numbers = [n for n in dict.fromkeys(n for n, _ in candidates) if n in self.rows]
        if not numbers:
            return {}
        near = ix.vectors[[self.rows[n] for n in numbers]] @ query
        closest = {numbers[i] for i in np.argsort(-near, kind="stable")[:TOP_ACROSS]}
        kept = [c for c in dict.fromkeys(candidates) if c[0] in closest]
        missing = [c for c in kept if c not in self._encoded]
        if missing:
            vectors = engine.embedder.embed_passages([u for _, u in missing])  # a title prefix blurs them
            self._encoded.update(zip(missing, np.asarray(vectors, dtype=np.float32), strict=True))
        values = np.array([float(self._encoded[c] @ query) for c in kept])
        low, span = float(values.min()), float(values.max() - values.min())
        return {c: (v - low) / span if span > 0 else 1.0 for c, v in zip(kept, values.tolist(), strict=True)}
