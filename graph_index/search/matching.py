"""Entities a text is about: names and aliases found in it (folded surface n-grams, then analysed n-grams), and
entities whose visible evidence is most similar to the question."""

from __future__ import annotations

import numpy as np

from graph_index.search.names import analysed_ngrams, surface_ngrams
from graph_index.search.visibility import View
from transforms.analysis import detect_language

NESTED = 0.5  # a name found inside a longer matched name ("Nolan" in "Christopher Nolan")
ANALYSED = 0.9  # a match only after stemming and stopword removal


def mentioned(view: View, text: str, language: str | None = None) -> dict[int, float]:
    """Visible entities named in ``text``: 1.0 for a folded-surface match, less when stemmed or nested."""
    store = view.store
    found: dict[int, float] = {}
    language = language or detect_language(text)
    for grams, table, weight in ((surface_ngrams(text), store.surface, 1.0),
                                 (analysed_ngrams(text, language), store.analysed.get(language, {}), ANALYSED)):
        claimed: list[tuple[int, int]] = []
        for key, start, end in grams:  # longest first
            entities = table.get(key)
            if not entities:
                continue
            nested = any(a <= start and end <= b and (a, b) != (start, end) for a, b in claimed)
            claimed.append((start, end))
            score = weight * (NESTED if nested else 1.0)
            for i in entities:
                if view.entity_visible(i) and score > found.get(i, 0.0):
                    found[i] = score
    return found


def match_entities(view: View, question: str, limit: int = 10, by_similarity: int = 5) -> dict[int, float]:
    """Seed entities with scores: name matches score 1 + similarity, the ``by_similarity`` most similar visible
    entities score their similarity; best ``limit`` kept."""
    similarity = view.entity_similarity()
    seeds = {i: s + float(similarity[i]) for i, s in mentioned(view, question).items()}
    if by_similarity and similarity.size:
        visible = np.flatnonzero(view.entity_counts > 0)
        top = visible[np.argsort(-similarity[visible], kind="stable")[:by_similarity]]
        for i in top.tolist():
            seeds.setdefault(i, float(similarity[i]))
    return dict(sorted(seeds.items(), key=lambda item: (-item[1], item[0]))[:limit])
