"""Key facts in a text, normalised so that the same fact written two ways compares equal.

A fact is ``(kind, value)``: ``money`` (an amount, currency folded in: "R$ 104.000,00", "104 mil reais" ->
``("money", "brl:104000")``), ``percent``, ``qty:<unit>`` (a number with a unit: "24 horas", "24h" ->
``("qty:h", "24")``), ``date`` (ISO: "03/03/2025", "3 de março de 2025", "2025-03-03"), ``code``
("CT-2024-0187", "POP-ENF-014"). Numbers read both Portuguese and English formats ("1.234,50", "1,234.50").
Names and phrases are matched as words (``tokens``), by ``serving.evaluation.keyfacts``.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

__all__ = ["VALUE_WORDS", "Fact", "extract", "fold", "tokens"]


@dataclass(frozen=True)
class Fact:
    kind: str
    value: str

    def __str__(self) -> str:
        return f"{self.kind}={self.value}"


def fold(text: str) -> str:
    """Lower case, no accents, punctuation as spaces, one space between words."""
    text = unicodedata.normalize("NFKD", text)
    text = "".join(c for c in text if not unicodedata.combining(c)).lower()
    return " ".join(re.sub(r"[^\w%$.,/:-]+", " ", text).split())


UNITS = {  # folded unit word -> canonical unit
    "h": "h", "hs": "h", "hr": "h", "hrs": "h", "hora": "h", "horas": "h", "hour": "h", "hours": "h",
    "min": "min", "mins": "min", "minuto": "min", "minutos": "min", "minute": "min", "minutes": "min",
    "s": "s", "seg": "s", "segundo": "s", "segundos": "s", "second": "s", "seconds": "s",
    "dia": "d", "dias": "d", "day": "d", "days": "d",
    "semana": "wk", "semanas": "wk", "week": "wk", "weeks": "wk",
    "mes": "mo", "meses": "mo", "month": "mo", "months": "mo",
    "ano": "y", "anos": "y", "year": "y", "years": "y",
    "km": "km", "kg": "kg", "g": "g", "mg": "mg", "mcg": "mcg", "ml": "ml", "l": "l", "litros": "l",
    "c": "c", "graus": "c", "gb": "gb", "tb": "tb", "mb": "mb",
}
SCALES = {"mil": 1e3, "thousand": 1e3, "k": 1e3, "milhao": 1e6, "milhoes": 1e6, "mi": 1e6, "million": 1e6,
          "bilhao": 1e9, "bilhoes": 1e9, "bi": 1e9, "billion": 1e9}
CURRENCIES = {"r$": "brl", "us$": "usd", "brl": "brl", "usd": "usd",
              "$": "usd", "eur": "eur", "€": "eur", "reais": "brl", "real": "brl",
              "dolares": "usd", "dollars": "usd", "euros": "eur"}
MONTHS = {m: i for i, ms in enumerate((
    ("janeiro", "january", "jan"), ("fevereiro", "february", "fev", "feb"), ("marco", "march", "mar"),
    ("abril", "april", "abr", "apr"), ("maio", "may", "mai"), ("junho", "june", "jun"), ("julho", "july", "jul"),
    ("agosto", "august", "ago", "aug"), ("setembro", "september", "set", "sep"),
    ("outubro", "october", "out", "oct"), ("novembro", "november", "nov"),
    ("dezembro", "december", "dez", "dec")), start=1) for m in ms}

NUMBER = r"\d{1,3}(?:[.,]\d{3})+(?:[.,]\d+)?|\d+(?:[.,]\d+)?"
_CODE = re.compile(r"\b[A-Z]{2,}(?:-[A-Z0-9]{1,10})*-\d[\dA-Z]*\b|\b(?:RDC|NR|ISO|ABNT|NBR|LGPD|RN)\s?\d{2,5}\b",
                   re.IGNORECASE)
_DATE_NUM = re.compile(r"\b(\d{1,2})/(\d{1,2})/(\d{4}|\d{2})\b|\b(\d{4})-(\d{2})-(\d{2})\b")
_DATE_TEXT = re.compile(r"\b(\d{1,2})(?:º|o)? de ([a-z]+) de (\d{4})\b|\b([a-z]+) (\d{1,2}),? (\d{4})\b")
_MONEY = re.compile(rf"(r\$|us\$|€|eur|brl|usd|\$)[\s:]*({NUMBER})(?:\s(mil|milhao|milhoes|mi|bilhao|bilhoes|bi)\b)?"
                    rf"|\b({NUMBER})(?:\s(mil|milhao|milhoes|mi|bilhao|bilhoes|bi))?\s(reais|real|dolares|dollars|euros)\b")
_SPELLED = re.compile(r"(\d)\s*\((?:[^\W\d_]|\s|-)+\)")
_DAY_KIND = re.compile(r"(\d)\s+(business|working|calendar)\s+(days?)\b")
_PERCENT = re.compile(rf"\b({NUMBER})\s?(%|por cento|percent)")
_QTY = re.compile(rf"\b({NUMBER})(?:\s(mil|thousand))?\s?([a-z]+)\b")
_RANGE = re.compile(rf"\b({NUMBER})\s?(?:a|e|to|-|ou|or)\s?(?=({NUMBER})\s?([a-z%]+))")


def number(text: str) -> float:
    """``"104.000,00"`` -> 104000.0, ``"1,10"`` -> 1.1, ``"1,234.5"`` -> 1234.5, ``"0.95"`` -> 0.95."""
    if "," in text and "." in text:
        decimal = "," if text.rfind(",") > text.rfind(".") else "."
        thousands = "." if decimal == "," else ","
        return float(text.replace(thousands, "").replace(decimal, "."))
    for sep in ",.":
        if sep in text:
            parts = text.split(sep)
            if len(parts) > 2 or (len(parts[-1]) == 3 and parts[0] != "0"):
                return float(text.replace(sep, ""))
            return float(text.replace(sep, "."))
    return float(text)


def _num(value: float) -> str:
    return f"{value:.4f}".rstrip("0").rstrip(".")


def _dates(folded: str) -> tuple[set[Fact], str]:
    found: set[Fact] = set()

    def numeric(m: re.Match) -> str:
        if m.group(4):
            y, mo, d = int(m.group(4)), int(m.group(5)), int(m.group(6))
        else:
            d, mo, y = int(m.group(1)), int(m.group(2)), int(m.group(3))
            y += 2000 if y < 100 else 0
        if 1 <= mo <= 12 and 1 <= d <= 31:
            found.add(Fact("date", f"{y:04d}-{mo:02d}-{d:02d}"))
        return " "

    def textual(m: re.Match) -> str:
        d, month, y = (m.group(1), m.group(2), m.group(3)) if m.group(1) else (m.group(5), m.group(4), m.group(6))
        if month not in MONTHS:
            return m.group(0)
        found.add(Fact("date", f"{int(y):04d}-{MONTHS[month]:02d}-{int(d):02d}"))
        return " "

    rest = _DATE_NUM.sub(numeric, folded)
    return found, _DATE_TEXT.sub(textual, rest)


def extract(text: str) -> set[Fact]:
    """Every typed fact in ``text`` (codes, dates, amounts, percentages, quantities with a unit)."""
    facts = {Fact("code", c.replace(" ", "").lower()) for c in _CODE.findall(text)}
    text = _SPELLED.sub(r"\1", _CODE.sub(" ", text))  # "24 (vinte e quatro) horas" -> "24 horas"
    folded = _DAY_KIND.sub(r"\1 \3", re.sub(r"\[\d+\]", " ", fold(text)))  # "3 business days" -> "3 days"
    dates, folded = _dates(folded)
    facts |= dates

    def money(m: re.Match) -> str:
        cur = CURRENCIES[m.group(1) or m.group(6)]
        value = number(m.group(2) or m.group(4)) * SCALES.get(m.group(3) or m.group(5) or "", 1)
        facts.add(Fact("money", f"{cur}:{_num(value)}"))
        return " "

    folded = _MONEY.sub(money, folded)
    for m in _PERCENT.finditer(folded):
        facts.add(Fact("percent", _num(number(m.group(1)))))
    folded = _PERCENT.sub(" ", folded)
    folded = re.sub(r"(?<![\d:])(\d{1,2})h00\b", r"\1h", folded)  # a clock hour "7h00" is "7h"
    folded = re.sub(r"(\d)(h|min|s|km|kg|mg|ml)\b", r"\1 \2", folded)
    for m in _RANGE.finditer(folded):  # "20 a 30 segundos": the first number has the second's unit
        unit = UNITS.get(m.group(3))
        if unit:
            facts.add(Fact(f"qty:{unit}", _num(number(m.group(1)))))
    for m in _QTY.finditer(folded):
        unit = UNITS.get(m.group(3))
        if unit:
            facts.add(Fact(f"qty:{unit}", _num(number(m.group(1)) * SCALES.get(m.group(2) or "", 1))))
    return facts


def tokens(text: str) -> list[str]:
    """The folded words and numbers of ``text``, in order, citation markers ("[1]") left out."""
    return re.findall(r"[^\W_]+", fold(re.sub(r"\[\d+\]", " ", text)))


VALUE_WORDS = frozenset(UNITS) | frozenset(SCALES) | frozenset(c for c in CURRENCIES if c.isalpha()) | \
    frozenset(MONTHS) | {"por", "cento", "percent", "de", "a", "e", "us"}

