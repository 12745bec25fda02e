"""Entities a text is about: names and aliases found in it (folded surface n-grams, then analysed n-grams),
and entities whose visible evidence is most similar to the question."""

from __future__ import annotations

import math

import numpy as np

from models.analysis import analyze, detect_language
from serving.graph.names import analysed_ngrams, surface_ngrams
from serving.graph.visibility import View

NESTED = 0.5  # a name found inside a longer matched name ("Nolan" in "Christopher Nolan")
ANALYSED = 0.9  # a match only after stemming and stopword removal


def specificity(view: View, i: int) -> float:
    """idf of the entity over the visible chunks, scaled to (0, 1]: 1 for an entity seen in one chunk."""
    visible = max(float(view.visible), 1.0)
    return math.log(1 + visible / max(float(view.entity_counts[i]), 1.0)) / math.log(1 + visible)


def mentioned(view: View, text: str, language: str | None = None) -> dict[int, float]:
    """Visible entities named in ``text``, scored 1.0 for a folded-surface match (less when stemmed or inside
    a longer match) times their specificity. N-grams made only of stopwords match nothing."""
    store = view.store
    found: dict[int, float] = {}
    language = language or detect_language(text)
    analysed = store.analysed.get(language, {})
    for grams, table, weight in ((surface_ngrams(text), store.surface, 1.0),
                                 (analysed_ngrams(text, language), analysed, ANALYSED)):
        claimed: list[tuple[int, int]] = []
        for key, start, end in grams:  # longest first
            entities = table.get(key)
            if not entities or (weight == 1.0 and not analyze(key, language)):
                continue
            nested = any(a <= start and end <= b and (a, b) != (start, end) for a, b in claimed)
            claimed.append((start, end))
            score = weight * (NESTED if nested else 1.0)
            for i in entities:
                if view.entity_visible(i) and score * specificity(view, i) > found.get(i, 0.0):
                    found[i] = score * specificity(view, i)
    return found


def match_entities(view: View, question: str, limit: int = 10, by_similarity: int = 5,
                   named: dict[int, float] | None = None) -> dict[int, float]:
    """Seed entities with scores: entities ``named`` in the question (found when not given) score their
    name score + similarity, the ``by_similarity`` most similar visible entities their similarity; the best
    ``limit`` are kept."""
    similarity = view.entity_similarity()
    named = mentioned(view, question) if named is None else named
    seeds = {i: s + float(similarity[i]) for i, s in named.items()}
    if by_similarity and similarity.size:
        visible = np.flatnonzero(view.entity_counts > 0)
        top = visible[np.argsort(-similarity[visible], kind="stable")[:by_similarity]]
        for i in top.tolist():
            seeds.setdefault(i, float(similarity[i]))
    return dict(sorted(seeds.items(), key=lambda item: (-item[1], item[0]))[:limit])
