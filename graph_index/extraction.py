"""Rule-based entity extraction from one chunk, Portuguese- and English-aware, with no model.

In order, each later pass skipping spans an earlier one took:

1. norms: laws with a number ("Lei 13.709/2018"), standards ("ISO 27001"), articles ("Art. 7º da LGPD") and
   contract clauses ("cláusula 7.2"); articles without a law and clauses are local to their document, so their
   name carries the document's code or title: "Cláusula 7.2 (CT-2024-0187)";
2. codes: "CT-2024-0187", "POP-QUA-001", a CNPJ;
3. capitalised names and acronyms (``graph_index.names``), and acronym definitions (``graph_index.acronyms``);
4. lower-case noun phrases (``graph_index.phrases``), not on the leading context line.

The chunk's leading "[Title — Section]" line is scanned for names, codes and norms with ``context=True``: its
entities count as present in the chunk, but relations need a mention in the body."""

from __future__ import annotations

import re

from graph_index.acronyms import definitions
from graph_index.names import name_mentions, shouting
from graph_index.patterns import ARTICLE, CLAUSE, CODE, LAW, STANDARD
from graph_index.phrases import phrase_mentions
from graph_index.records import ChunkGraph, Definition, Mention
from graph_index.tokens import lines, split_context, tokenize
from models.analysis import detect_language

__all__ = ["EXTRACTOR_VERSION", "extract_rules"]

EXTRACTOR_VERSION = "rules-v1"
_TITLE_CHARS = 60


def extract_rules(text: str, title: str = "") -> ChunkGraph:
    """Mentions and acronym definitions of one chunk; its document's ``title`` qualifies local references."""
    context_start, context_end = split_context(text)
    body_start = context_end + 2 if context_end else 0
    language = detect_language(text[body_start:] or text)
    reference = document_reference(title)
    mentions: list[Mention] = []
    found: list[Definition] = []
    for start, end, in_context in [(context_start, context_end, True), (body_start, len(text), False)]:
        if end <= start:
            continue
        for line_start, line_end in lines(text, start, end):
            taken = _norms_and_codes(text, line_start, line_end, reference, in_context)
            spans = sorted((m.start, m.end) for m in taken)
            tokens = tokenize(text, line_start, line_end, spans)
            names = [] if shouting(text, tokens) else name_mentions(text, tokens, in_context)
            for acronym, a, b in definitions(text, tokens):
                found.append(Definition(acronym, " ".join(text[a:b].split())))
                if not any(m.start <= a and b <= m.end for m in names):
                    names.append(Mention(text[a:b], "CONCEPT", a, b, in_context))
            mentions += taken + names
            if not in_context:
                spans = sorted(spans + [(m.start, m.end) for m in names if not m.initial])
                mentions += phrase_mentions(text, tokenize(text, line_start, line_end, spans), language)
    return ChunkGraph(language=language, mentions=_unique(mentions), definitions=sorted(set(found),
                      key=lambda d: (d.short, d.long)), source="rules")


def document_reference(title: str) -> str:
    """What qualifies a clause or a bare article: the title's first code, else the title (shortened)."""
    code = CODE.search(title)
    if code:
        return code.group()
    title = " ".join(title.split())
    if len(title) <= _TITLE_CHARS:
        return title
    return title[:_TITLE_CHARS].rsplit(" ", 1)[0] + "…"


def _norms_and_codes(text: str, start: int, end: int, reference: str, context: bool) -> list[Mention]:
    out: list[Mention] = []

    def add(match: re.Match, name: str, kind: str) -> None:
        a, b = match.span()
        if not any(m.start < b and a < m.end for m in out):
            out.append(Mention(name, kind, a, b, context))

    for m in ARTICLE.finditer(text, start, end):
        law = " ".join(m.group("law").split()) if m.group("law") else ""
        qualifier = f" da {law}" if law else f" ({reference})" if reference else ""
        add(m, f"Art. {m.group('num')}º{qualifier}", "NORM")
    for m in CLAUSE.finditer(text, start, end):
        add(m, f"Cláusula {m.group('num')}" + (f" ({reference})" if reference else ""), "NORM")
    for m in LAW.finditer(text, start, end):
        head = " ".join(m.group("head").split()).capitalize() if m.group("head")[0].islower() else " ".join(
            m.group("head").split())
        year = m.group("year") or m.group("year2")
        issuer = f" {m.group('issuer')}" if m.group("issuer") else ""
        add(m, f"{head}{issuer} {m.group('num')}" + (f"/{year}" if year else ""), "NORM")
    for m in STANDARD.finditer(text, start, end):
        add(m, f"{' '.join(m.group('body').split())} {m.group('num')}", "NORM")
    for m in CODE.finditer(text, start, end):
        add(m, m.group(), "CODE")
    return [Mention(m.text.strip(), m.type, m.start, m.end, m.context) for m in out]


def _unique(mentions: list[Mention]) -> list[Mention]:
    seen: set[tuple[str, str, int]] = set()
    out = []
    for m in sorted(mentions, key=lambda m: (m.start, -m.end, m.type, m.text)):
        text = " ".join(m.text.split())  # a name wrapped over two lines
        if text and (text, m.type, m.start) not in seen:
            seen.add((text, m.type, m.start))
            out.append(m if text == m.text else Mention(text, m.type, m.start, m.end, m.context, m.initial))
    return out
