"""Which sentence of the read evidence answers a part of a question, by meaning rather than shared words.

Shared words fail across languages ("within how many days must requests be answered" has no word in common with
"respondidas em até 15 dias") and mislead when a sentence in the question's language repeats its words about
something else. The dense model matches across languages, so each part is scored against the sentences of the
read chunks closest to it: the chunks are ranked by their stored vectors (no encoding), and only the sentences
of the best ``TOP_SOURCES`` chunks per part are encoded, in one batch for the whole question.

The chunks of another language than the question's rank low for it (the model prefers its query's language),
so the closest ``TOP_ACROSS`` of them are candidates too. The score of a sentence for a part is its cosine
similarity scaled between the worst and the best candidate of that part in its language (0 to 1), so it adds to
the lexical coverage of ``parts.pick`` on the same scale."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from models.analysis import detect_language
from serving.answers.agentic.parts import Part
from serving.answers.engine import Engine
from serving.answers.sentences import split_units

TOP_SOURCES = 3  # read chunks per part whose sentences are encoded
TOP_ACROSS = 2  # and the closest ones in another language than the question's
MAX_UNITS = 64  # sentences encoded per question at most (one batch)

Similarity = dict[tuple[int, str], float]  # (source number, unit) -> scaled similarity, 0 to 1


def unit_similarity(engine: Engine, parts: Sequence[Part], rows: Sequence[int | None],
                    sources: Sequence[tuple[str, str]]) -> list[Similarity] | None:
    """Per part, the scaled similarity of the sentences of its closest read chunks. ``rows``: the chunk row of
    each source (None for a source that is no chunk); ``sources``: (title, text) of each, numbered from 1.
    None when the engine has no dense model."""
    ix = engine.index
    if engine.embedder is None or not ix.vectors.size or not parts:
        return None
    numbered = [(n, row) for n, row in enumerate(rows, start=1) if row is not None]
    if not numbered:
        return None
    queries = np.asarray(engine.embedder.embed_queries([p.query for p in parts]), dtype=np.float32)
    chunk = ix.vectors[[row for _, row in numbered]] @ queries.T  # (sources, parts)
    language = {n: detect_language(sources[n - 1][1]) for n, _ in numbered}
    asked = detect_language(" ".join(p.text for p in parts))
    closest = []
    for j in range(len(parts)):
        ranked = [numbered[i][0] for i in np.argsort(-chunk[:, j], kind="stable")]
        other = [n for n in ranked if language[n] != asked][:TOP_ACROSS]
        closest.append(list(dict.fromkeys([*ranked[:TOP_SOURCES], *other])))
    units: dict[tuple[int, str], int] = {}
    for n in dict.fromkeys(n for ns in closest for n in ns):
        for unit in split_units(sources[n - 1][1]):
            if len(units) < MAX_UNITS:
                units.setdefault((n, unit), len(units))
    if not units:
        return None
    keys = list(units)
    vectors = np.asarray(engine.embedder.embed_passages([f"{sources[n - 1][0]}: {u}" for n, u in keys]),
                         dtype=np.float32)
    similar = vectors @ queries.T  # (units, parts)
    out: list[Similarity] = []
    for j in range(len(parts)):
        scaled: Similarity = {}
        for lang in set(language.values()):  # the model prefers its query's language: each is scaled apart
            mine = [i for i, (n, _) in enumerate(keys) if n in closest[j] and language[n] == lang]
            if not mine:
                continue
            values = similar[mine, j]
            low, span = float(values.min()), float(values.max() - values.min())
            scaled.update({keys[i]: (float(similar[i, j]) - low) / span if span > 0 else 1.0 for i in mine})
        out.append(scaled)
    return out
