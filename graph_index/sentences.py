"""Sentences of a chunk body with the entities each one mentions, for extractive community reports."""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass

from graph_index.relations import entity_id
from graph_index.tokens import split_context

_SPLIT = re.compile(r"(?<=[.!?…])\s+(?=[\"“(]?[A-ZÀ-Þ0-9])|\n\s*\n|\n(?=\s*(?:[-*+•]\s|\d+[.)]\s|#|\|))")
_MARKUP = [(re.compile(r"^\s*(?:#{1,6}\s+|[-*+•>]\s+|\\?\d{1,3}(?:\.\d{1,3})*[.)]?\s+)"), ""),
           (re.compile(r"\*\*|__|`"), ""), (re.compile(r"\s*\|\s*"), " | "),
           (re.compile(r"!?\[([^\]]*)\]\([^)]*\)"), r"\1")]
_TABLE_RULE = re.compile(r"^[\s|:-]+$")
_HEADING = re.compile(r"(?m)^#{1,6}\s.*$")
_ABBREVIATION = re.compile(r"\b(?:Dr|Dra|Sr|Sra|Srta|Enf|Prof|Profa|Eng|Art|art|Arts|Mr|Mrs|Ms|St|n|nº|p|pp|"
                           r"fls?|Ltda|Inc|Corp|etc|S\.A|e\.g|i\.e|vs|No)\.$")
MAX_CHARS = 300


@dataclass(frozen=True)
class Sentence:
    text: str  # cleaned of Markdown, at most MAX_CHARS characters
    start: int
    end: int


def split_sentences(text: str) -> list[Sentence]:
    """Sentences of the chunk body (its "[Title — Section]" line, headings and table rules skipped)."""
    _, context_end = split_context(text)
    body = context_end + 2 if context_end else 0
    blank = " " * (body - 1) + "\n" if body else ""  # offsets stay those of ``text``
    masked = _HEADING.sub(lambda m: " " * len(m.group()), blank + text[body:])
    pieces, position = [], body
    for separator in _SPLIT.finditer(masked, body):
        if separator.start() > position and not _ABBREVIATION.search(masked, position, separator.start()):
            pieces.append((position, separator.start()))
            position = separator.end()
        elif separator.start() > position:
            continue
        else:
            position = separator.end()
    pieces.append((position, len(masked)))
    out = []
    for start, end in pieces:
        piece = masked[start:end]
        stripped = piece.strip()
        if not stripped or _TABLE_RULE.match(stripped):
            continue
        clean = " ".join(stripped.split())
        for pattern, replacement in _MARKUP:
            clean = pattern.sub(replacement, clean)
        clean = clean.strip(" |")
        if len(clean.split()) < 4:
            continue
        if len(clean) > MAX_CHARS:
            clean = clean[:MAX_CHARS].rsplit(" ", 1)[0] + "…"
        out.append(Sentence(clean, start, end))
    return out


def entity_sentences(chunks: list[dict], graphs: list, keys: list, kept: set[str]) -> dict[str, list]:
    """Per chunk: its sentences with the ids of the kept entities mentioned in each (``keys``: the resolved
    key of each mention, None when it was dropped)."""
    out = {}
    for chunk, graph_, row in zip(chunks, graphs, keys, strict=True):
        sentences = split_sentences(chunk["text"])
        starts = [x.start for x in sentences]
        inside: list[set[str]] = [set() for _ in sentences]
        for mention, key in zip(graph_.mentions, row, strict=True):
            ident = entity_id(key) if key is not None else None
            if ident in kept and mention.start >= 0:
                i = bisect_right(starts, mention.start) - 1
                if i >= 0 and mention.start < sentences[i].end:
                    inside[i].add(ident)
        out[chunk["chunk_id"]] = [(x, frozenset(e)) for x, e in zip(sentences, inside, strict=True) if e]
    return out
