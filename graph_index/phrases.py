"""Stopword-bounded noun phrases ("notificação de incidentes", "controles de criptografia", "incident response
team"): runs of lower-case content words joined by at most one "de/da/do/das/dos/of" at a time, broken by
stopwords, punctuation, numbers and verb-like words. Portuguese heads come first, so phrases are the run's
prefixes of 2-3 content words (also restarting after each connector); English heads come last, so they are
its suffixes. Frequency pruning later keeps the phrases that recur."""

from __future__ import annotations

from graph_index.patterns import AR_ADJECTIVES, COMMON_VERBS, NOUN_EM, PHRASE_STOP, VERB_ENDINGS
from graph_index.records import Mention
from graph_index.tokens import Token, adjacent
from models.stopwords import ENGLISH, NEGATIONS, PORTUGUESE

_PT_CONNECTORS = frozenset({"de", "da", "do", "das", "dos"})
_EN_CONNECTORS = frozenset({"of"})
_STOP = PORTUGUESE | ENGLISH | NEGATIONS | PHRASE_STOP
_MAX_WORDS = 3


def verb_like(word: str, language: str) -> bool:
    """Finite verbs, infinitives, gerunds and adverbs (folded ``word``); nouns and adjectives are kept."""
    if word in COMMON_VERBS or (len(word) > 5 and word.endswith(VERB_ENDINGS)):
        return True
    if language == "en":
        return len(word) > 4 and word.endswith("ed")
    if len(word) > 4 and word[-2:] in ("ar", "er", "ir") and word not in AR_ADJECTIVES:
        return True
    if len(word) > 4 and word.endswith("em") and not word.endswith("gem") and word not in NOUN_EM:
        return True
    return len(word) > 4 and word.endswith("am")


def phrase_mentions(text: str, tokens: list[Token], language: str) -> list[Mention]:
    connectors = _EN_CONNECTORS if language == "en" else _PT_CONNECTORS
    out: list[Mention] = []
    run: list[Token] = []
    for i, token in enumerate(tokens):
        if _content(token, language):
            if run and not adjacent(text, run[-1], token):
                out += _phrases(text, run, connectors, language)
                run = []
            run.append(token)
        elif (token.folded in connectors and run and run[-1].folded not in connectors
              and adjacent(text, run[-1], token) and i + 1 < len(tokens)
              and _content(tokens[i + 1], language)):
            run.append(token)
        else:
            out += _phrases(text, run, connectors, language)
            run = []
    return out + _phrases(text, run, connectors, language)


def _content(token: Token, language: str) -> bool:
    if token.kind != "word" or token.masked or len(token.text) < 3 or not token.text.isalpha():
        return False
    if token.text[0].isupper() and not (token.initial and token.text[1:].islower()):
        return False
    word = token.folded
    return word not in _STOP and not verb_like(word, language)


def _phrases(text: str, run: list[Token], connectors: frozenset[str], language: str) -> list[Mention]:
    words = [i for i, t in enumerate(run) if t.folded not in connectors]
    if len(words) < 2:
        return []
    spans: set[tuple[int, int]] = set()
    if language == "en":
        ends = [words[-1]] + [i - 1 for i, t in enumerate(run) if t.folded in connectors]
        for end in ends:
            before = [w for w in words if w <= end]
            for n in range(2, _MAX_WORDS + 1):
                if len(before) >= n:
                    spans.add((before[-n], end))
    else:
        starts = [words[0]] + [i + 1 for i, t in enumerate(run) if t.folded in connectors]
        for start in starts:
            after = [w for w in words if w >= start]
            for n in range(2, _MAX_WORDS + 1):
                if len(after) >= n:
                    spans.add((start, after[n - 1]))
    return [Mention(text[run[a].start:run[b].end], "CONCEPT", run[a].start, run[b].end)
            for a, b in sorted(spans)]
