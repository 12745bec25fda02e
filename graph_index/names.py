"""Capitalised names and acronyms on one line of tokens, typed by heads, suffixes, honorifics and given names.

"Secretaria de Estado da Saúde" (connectors inside), "NuvemSul Tecnologia e Dados S.A." ("e" only inside an
organisation), "Dra. Helena Prado Vasconcelos" (honorific, kept out of the name), "Anexo III" (a Roman numeral
after a name). A lone capitalised word at a sentence start is flagged ``initial`` and kept only if the corpus
also has it mid-sentence; a lone given name ("Eduardo apresentou") becomes a short PERSON mention that
resolution attaches to the one full name of its document, or drops."""

from __future__ import annotations

import re

from graph_index.patterns import (
    CONNECTORS,
    GENERIC,
    GIVEN_NAMES,
    HONORIFICS,
    NORM_HEADS,
    ORG_HEADS,
    ORG_ONLY_CONNECTORS,
    ORG_SUFFIX,
    ORG_WORDS,
    ROLE_WORDS,
    ROMAN,
)
from graph_index.records import Mention
from graph_index.tokens import Token, adjacent
from models.stopwords import ENGLISH, NEGATIONS, PORTUGUESE

_STOP = PORTUGUESE | ENGLISH | NEGATIONS
_MAX_TOKENS = 10
_PREPOSITIONS = frozenset({"de", "da", "do", "das", "dos"})
_SHOUT = re.compile(r"[A-ZÀ-Þ]{2,}")


def shouting(text: str, tokens: list[Token]) -> bool:
    """A line mostly in capitals ("CONTRATO DE FORNECIMENTO", "| ELABORADO POR |"): no names taken from it."""
    words = [t for t in tokens if t.kind == "word" and len(t.text) > 1]
    caps = [t for t in words if _SHOUT.fullmatch(t.text)]
    return len(caps) >= 2 and len(caps) * 2 >= len(words) and any(len(t.text) > 4 for t in caps)


def name_mentions(text: str, tokens: list[Token], context: bool) -> list[Mention]:
    """Names and acronyms of one line (tokens already claimed by codes and norms are skipped)."""
    out: list[Mention] = []
    i = 0
    while i < len(tokens):
        token = tokens[i]
        if token.masked or not token.capitalised:
            i += 1
            continue
        if token.acronym and not ROMAN.match(token.text):
            if token.folded not in _STOP:
                out.append(Mention(token.text, "OTHER", token.start, token.end, context))
            i += 1
            continue
        run, i = _run(text, tokens, i)
        found = _typed(text, tokens, run, context)
        out.extend(found)
        end = max((m.end for m in found), default=0)
        while i < len(tokens) and tokens[i].start < end:  # past a company suffix taken with the name
            i += 1
    return out


def _run(text: str, tokens: list[Token], i: int) -> tuple[list[Token], int]:
    run = [tokens[i]]
    k = i + 1
    while k < len(tokens) and len(run) < _MAX_TOKENS:
        t = tokens[k]
        if t.masked or not adjacent(text, run[-1], t) or ORG_SUFFIX.match(text, run[-1].end):
            break
        if t.capitalised and t.folded in _STOP:
            break  # "Australian National University The Australian ...": "The" starts something else
        if t.capitalised and (not t.acronym or ROMAN.match(t.text)):
            run.append(t)
            k += 1
        elif (t.folded in CONNECTORS and not t.text[0].isupper() and k + 1 < len(tokens)
              and tokens[k + 1].capitalised
              and not tokens[k + 1].acronym and not tokens[k + 1].masked
              and adjacent(text, t, tokens[k + 1])):
            run += [t, tokens[k + 1]]
            k += 2
        else:
            break
    return run, k


def _typed(text: str, tokens: list[Token], run: list[Token], context: bool) -> list[Mention]:
    honorific = False
    while run and (run[0].folded in _STOP or run[0].folded in CONNECTORS):
        run = run[1:]
    if (len(run) > 2 and run[0].initial and run[1].folded in _PREPOSITIONS
            and not ORG_SUFFIX.match(text, run[-1].end)
            and run[0].folded not in ORG_HEADS | NORM_HEADS | GIVEN_NAMES):
        run = run[2:]  # "Casos de Klebsiella": a sentence-initial common noun before a name
    if run and run[0].folded in HONORIFICS:
        honorific, run = True, run[1:]
    elif run and run[0].folded in ROLE_WORDS and len(run) > 2 and run[1].folded in GIVEN_NAMES:
        run = run[1:]
    if not run:
        return []
    end = run[-1].end
    suffix = ORG_SUFFIX.match(text, end)
    org = bool(suffix) or _head(run, ORG_HEADS) or (run[0].folded not in NORM_HEADS
                                                     and any(t.folded in ORG_WORDS for t in run[1:]))
    if not org and any(t.folded in ORG_ONLY_CONNECTORS for t in run):
        parts, current = [], []
        for t in run:
            if t.folded in ORG_ONLY_CONNECTORS:
                parts.append(current)
                current = []
            else:
                current.append(t)
        return [m for part in [*parts, current] if part for m in _typed(text, tokens, part, context)]
    if suffix:
        end = suffix.end()
    elif run[-1].text.endswith(("'s", "’s")):
        end -= 2  # "China's" names China
    kind = _kind(run, honorific, org)
    if kind is None:
        return []
    single_initial = len(run) == 1 and (run[0].initial or context) and not honorific
    return [Mention(text[run[0].start:end].rstrip(), kind, run[0].start, end, context, single_initial)]


def _head(run: list[Token], heads: frozenset[str]) -> bool:
    return run[0].folded in heads or (len(run) > 1 and run[-1].folded in heads)


def _kind(run: list[Token], honorific: bool, org: bool) -> str | None:
    first = run[0].folded
    if honorific:
        return "PERSON"
    if len(run) == 1:
        if first in GIVEN_NAMES:
            return "PERSON"  # a short form, attached to a full name by resolution or dropped
        if len(first) < 3 or any(first in w for w in (GENERIC, ORG_HEADS, NORM_HEADS, ROLE_WORDS, _STOP)):
            return None
        return "ORGANIZATION" if org else "OTHER"
    if org:
        return "ORGANIZATION"
    if _head(run, NORM_HEADS):
        return "NORM"
    connectors = [t for t in run if t.folded in CONNECTORS]
    if first in GIVEN_NAMES and len(run) <= 6 and all(t.folded in {"de", "da", "do", "dos", "das"}
                                                      for t in connectors):
        return "PERSON"
    return "OTHER"
