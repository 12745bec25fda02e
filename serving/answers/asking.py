"""What a question asks for: the kind of fact (an amount, a period, a share, a count, any quantity, a time of
day ("a que horas", "what time does": ``clock``), or a slot
of a document: ``slots``), whether it asks what to do, and how many asks it holds.

How a question asks is data, per language (``models/lexicon/*.yaml``: ``asks``, ``procedure``, ``asking``),
matched as whole words on the question with its abbreviations written out and its accents folded. How a
passage states a fact of each kind is below (``STATES``): the shapes of amounts, periods, shares and counts
in the documents. "valor" asks a ``quantity``, which any of the four states: "quais os valores de RPO e RTO"
is answered by "RPO de 15 minutos". Which quantity is read from the evidence (``resolve``): an amount when a
unit about the question's rarest term states one (or none states any quantity), else the quantity such units
state most: "o valor mensal do contrato" stays an amount, "os valores de RPO" become periods.
"""

from __future__ import annotations

import re
from functools import cache

from lakehouse.text import fold
from models.analysis import analyze, written_out
from models.lexicon import lexicon
from serving.answers.slots import SLOTS

__all__ = ["COVERS", "KINDS", "QUANTITIES", "STATES", "Ask", "ask_of", "phrase_pattern", "resolve"]

_PERIOD = (r"(?:\d+(?:\s*\([^)]{1,20}\))?\s?|\b(?:uma?|dois|duas|tr[eê]s|quatro|cinco|seis|sete|oito|nove|dez|"
           r"doze|quinze|vinte|trinta|one|two|three|four|five|six|seven|eight|nine|ten|twelve|fifteen|twenty|"
           r"thirty)\s)(?:(?:business|working|calendar)\s)?(?:h\b|horas?|dias?|d\b|meses|m[eê]s|anos?|semanas?|"
           r"minutos?|min\b|segundos?|seconds?|hours?|days?|months?|years?|weeks?|minutes?)|\b(?:imediat\w*|"
           # "diárias" is the per diem of a travel policy, not "daily"
           r"immediately|anual\w*|mensal\w*|semanal\w*|di[aá]ri(?:[oa]|os|amente)\b|(?:bi|tri|se)mestra\w*|"
           r"quinzena\w*|annual\w*|"
           r"(?:bi|semi)-?annual\w*|monthly|weekly|daily|hourly|quarterly|fortnightly|bimonthly|biweekly)\b")
# a table column's unit states its cells' ("Mínimo (R$): 2.900,00", a row read as "header: cell")
_AMOUNT = (r"(?:R\$|US\$|\b(?:BRL|USD|EUR|GBP)\b|€|£|\$)(?:\)\s?:)?\s?\d|"
           r"\d[\d.,]*\s?(?:reais|d[oó]lares|mil|dollars|euros|BRL|USD|EUR)\b")
_PERCENT = r"\d\s?%|\(%\)\s?:\s?\d|\bpor cento\b|\bpercent\b"
_MEASURE = (r"\d[\d.,]*\s?(?:mg|g|kg|ml|l|cm|mm|m|km|kb|mb|gb|tb|°c|graus|degrees|caracteres|characters|"
            r"pontos|points|vezes|times|unidades|units)\b")
_COUNT = (r"\d|\b(?:um|uma|dois|duas|tr[eê]s|quatro|cinco|seis|sete|oito|nove|dez|one|two|three|four|five|six|"
          r"seven|eight|nine|ten)\b")
# a time of day: "das 11h às 14h", "7h30", "12:00", "8 a.m.", "meio-dia"
_CLOCK = (r"\b\d{1,2}\s?h(?:\s?\d{2})?(?!\w)|\b\d{1,2}:\d{2}\b|\b\d{1,2}\s?(?:am|pm|a\.m\.|p\.m\.)|"
          r"\b(?:meio-dia|meia-noite|noon|midnight)\b")
STATES: dict[str, re.Pattern] = {
    "clock": re.compile(_CLOCK, re.I),
    "amount": re.compile(_AMOUNT, re.I),
    "quantity": re.compile(f"{_AMOUNT}|{_PERIOD}|{_PERCENT}|{_MEASURE}", re.I),
    "deadline": re.compile(_PERIOD, re.I),
    "percent": re.compile(_PERCENT, re.I),
    "measure": re.compile(_MEASURE, re.I),
    "count": re.compile(_COUNT, re.I),
    **{name: states for name, (_, states) in SLOTS.items()},
}
KINDS = tuple(STATES)
QUANTITIES = ("amount", "deadline", "percent", "measure")  # what a "quantity" resolves to, the first by default

_NUMBER = r"(?:\(?\d|(?:uma?|dois|duas|tr[eê]s|quatro|cinco|seis|sete|oito|nove|dez|doze|quinze|vinte|trinta|one|two|" \
    r"three|four|five|six|seven|eight|nine|ten|twelve|fifteen|twenty|thirty)\b)"
# a range states both its bounds: "de 20 a 30 segundos", "between 2 and 8 °C", "25-44"
_RANGE = (r"|\b(?:de|entre|from|between)\s+\d[\d.,]*\s*(?:\w{1,8}\s+)?(?:a|e|to|and)\s+\d"
          r"|(?<![\d./-])\d[\d.,]*\s*(?:-|–|a|to)\s*\d[\d.,]*(?![\d./-])\s*(?:%|°|[a-zA-Z])")  # not a date
# a word of the question that a strip covers without writing it: "minimum" by "at least 12", "máximo" by "até 2
# anos", both by a range, "length" by "12 characters" (the question's word for a bound or a measure, the strip's
# number stating it)
COVERS: tuple[tuple[re.Pattern, re.Pattern], ...] = (
    (re.compile(r"\b(?:minimum|m[ií]nim[oa]s?)\b", re.I),
     re.compile(r"\b(?:at least|pelo menos|no m[ií]nimo|(?:minimum|m[ií]nim[oa]) (?:of|de)|not less than|"
                r"n[aã]o menos (?:de|que))\s+" + _NUMBER + _RANGE, re.I)),
    (re.compile(r"\b(?:maximum|m[aá]xim[oa]s?)\b", re.I),
     re.compile(r"\b(?:at most|up to|no m[aá]ximo|(?:maximum|m[aá]xim[oa]) (?:of|de)|no more than|not more than|"
                r"n[aã]o mais (?:de|que)|at[eé])\s+" + _NUMBER + _RANGE, re.I)),
    # how to reach someone: an address, a number or a site written out covers the word asking for it
    (re.compile(r"\b(?:e-?mails?|correio eletr[oô]nico)\b", re.I), re.compile(r"[\w.+-]+@[\w-]+\.[\w.]+")),
    (re.compile(r"\b(?:telefones?|fones?|ramal|ramais|phones?|extensions?)\b", re.I),
     re.compile(r"\b(?:ramal|ext\.?|extension)\s*\d{3,5}\b|\(?\b\d{2}\)?\s?\d{4,5}-\d{4}\b", re.I)),
    (re.compile(r"\b(?:site|sites|website|link|url|p[aá]gina)\b", re.I), re.compile(r"https?://\S+|\bwww\.\S+", re.I)),
    (re.compile(r"\b(?:length|size|comprimento|tamanho)\b", re.I),
     re.compile(r"\d\s*(?:\([^)]{1,20}\)\s*)?(?:characters?|caracteres?|d[ií]gitos?|digits?|letters|letras|words|palavras|"
                r"p[aá]ginas?|pages?|linhas|lines|cm|mm|km|metros?|meters?|kb|mb|gb)\b", re.I)),
)


@cache
def phrase_pattern(words: tuple[str, ...]) -> re.Pattern | None:
    """One pattern of whole-word ``words`` (folded phrases), the longest first; None for none."""
    if not words:
        return None
    return re.compile(r"(?<![\w%])(?:" + "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))
                      + r")(?![\w%])")


class Ask:
    """The asks of one question (``ask_of``)."""

    def __init__(self, kind: str | None, terms: frozenset[str], asks: int) -> None:
        self.kind, self.terms, self.asks = kind, terms, asks


def ask_of(question: str, language: str) -> Ask:
    """The kind of fact ``question`` asks (None: none, or what to do), the analysed terms of the words asking it
    ("prazo" is covered by a passage stating one), and how many asks it opens."""
    text, _ = written_out(question, language, fillers=False)
    folded = " ".join(re.findall(r"[\w%]+", fold(text.lower())))
    lex = lexicon(language)
    procedure = phrase_pattern(lex.procedure)
    asking = phrase_pattern(lex.asking)
    asks = len(asking.findall(folded)) if asking else 0
    if re.match(r"\s*que\b", folded) and "que" not in lex.asking:  # "Que empresa faz ...": an ask
        asks += 1
    if procedure is not None and procedure.search(folded):
        return Ask(None, frozenset(), asks)
    for kind, words in lex.asks.items():
        found = (pattern := phrase_pattern(words)) is not None and pattern.findall(folded)
        if found:
            return Ask(kind, frozenset(t for w in found for t in analyze(w, language)), asks)
    for kind, (asks_slot, _) in SLOTS.items():  # a slot of a document: who supplies it, how long it is in force
        if found := [m.group(0) for m in asks_slot.finditer(text)]:  # abbreviations written out ("até qdo")
            return Ask(kind, frozenset(t for w in found for t in analyze(w, language)), asks)
    return Ask(None, frozenset(), asks)



def resolve(kind: str | None, units: list[str]) -> str | None:
    """The kind a ``quantity`` asks, read from the ``units`` about the question; other kinds as they are."""
    if kind != "quantity":
        return kind
    stated = {k: sum(1 for u in units if STATES[k].search(u)) for k in QUANTITIES}
    if stated[QUANTITIES[0]] or not any(stated.values()):
        return QUANTITIES[0]
    return max(QUANTITIES[1:], key=lambda k: stated[k])
