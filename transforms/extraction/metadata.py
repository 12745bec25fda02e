"""Governance metadata (version, dates, responsible, approver, department) found by rules on the first and
last pages, where policies and procedures keep them: "Label: value" lines, or a footer table whose header row
names the roles (ELABORADO POR | VERIFICADO POR | APROVADO POR) with the names in the row below.

Every candidate gets a rank and the best rank wins (then the earliest): an explicit ``Label: value`` or a role
table first; a label in the header of a small table next; a version written without a colon last. Data tables
(a "Responsável" column with many rows, a version history) and prose ("aprovou a versão 3") are ignored.
"""

from __future__ import annotations

import re
from typing import Any

from lakehouse.text import fold_aligned
from transforms.extraction.dates import DATE, first_date, parse_date
from transforms.extraction.types import Extracted, GovernanceMetadata

EDGE_CHARS = 3000  # at least this much text from the start and from the end is read

# Label patterns run on accent-folded, lower-case text.
_DATE_LABELS = {
    "issue_date": r"data de emissao|emitid[oa] em|emissao|data de publicacao|publicad[oa] em|"
    r"data de vigencia|vigencia|em vigor desde|effective date|issue date|date of issue|issued on|issued",
    "last_review_date": r"data da ultima revisao|ultima revisao|revisad[oa] em|data d[ae] revisao|"
    r"last reviewed|last review|last revision|reviewed on|revised on|(?<!proxima )revisao",
    "next_review_date": r"proxima revisao|revisar ate|revisao prevista(?: para)?|validade|valido ate|"
    r"next review(?: date)?|review by|valid until",
}
_STRONG_PEOPLE = {
    "responsible": r"elaborad[oa] por|elaboracao|redigido por|preparado por|prepared by|written by|"
    r"autor(?:ia|a)?|author",
    "approver": r"aprovad[oa] por|aprovacao|aprovador|approved by|approver",
}
_TEXT_LABELS = {
    **_STRONG_PEOPLE,
    "responsible": _STRONG_PEOPLE["responsible"]
    + r"|responsavel(?: tecnico| pelo documento)?|document owner|owner",
    "department": r"departamento|area responsavel|area|setor|diretoria|gerencia|department",
}
_VERSION_LABEL = r"versao|version|revisao|rev|ver|v"
_LABEL = {name: re.compile(rf"\b(?:{pattern})\b") for name, pattern in (_DATE_LABELS | _TEXT_LABELS).items()}
_STRONG = {name: re.compile(rf"(?:{pattern})") for name, pattern in _STRONG_PEOPLE.items()}
_ANY_LABEL = re.compile(rf"\b(?:{'|'.join([*_DATE_LABELS.values(), *_TEXT_LABELS.values()])}"
                        r"|verificad[oa] por|revisad[oa] por|reviewed by|codigo|code|versao|version)\b")
_VERSION = re.compile(rf"(?P<lead>^|\s[-–|]\s*|\s)(?:{_VERSION_LABEL})\.?\s*(?:n[o.º°]*\.?\s*)?"
                      r"(?P<sep>[:\-–]?)\s*(?P<v>\d{1,3}(?:\.\d{1,3}){0,2})\b(?![/.\-]\d)")
_DATE_LEAD = re.compile(r"[\s:\-–=]*(?:(?:em|de|ate|a partir de|desde|on)\s+)?")
_COMPOUND = re.compile(r"[-–/]\S")
_TEXT_LEAD = re.compile(r"\s*[:\-–=]\s*")
_CELL_SPLIT = re.compile(r"(?<!\\)\|")
_SEPARATOR_CELL = re.compile(r"^:?-{3,}:?$")
_MAX_HEADER_TABLE_ROWS = 2  # a footer table has names (and maybe dates) under its header; more is data

Candidate = tuple[int, int, str, Any]  # rank, order, field, value


fold = fold_aligned  # label matches are found in the folded line and read from the original


def extract_metadata(extracted: Extracted, fallback_title: str) -> GovernanceMetadata:
    """Fields found on the first and last pages (or characters) and in the running headers and footers
    (``Extracted.margins``); ``metadata_source`` says whether any was."""
    candidates: list[Candidate] = []
    margins = [extracted.margins] if extracted.margins else []  # running headers and footers, DOCX sections
    for region in _regions(extracted) + margins:
        candidates += _from_tables(region, len(candidates)) + _from_lines(region, len(candidates) + 10_000)
    found: dict[str, Any] = {}
    for _, _, name, value in sorted(candidates, key=lambda c: (c[0], c[1])):
        found.setdefault(name, value)
    title = _title(extracted.markdown) or fallback_title
    return GovernanceMetadata(title=title, metadata_source="rules" if found else "none", **found)


def _regions(extracted: Extracted) -> list[str]:
    """The first and last pages, each widened to ``EDGE_CHARS`` (a last page may hold only a footer line)."""
    text, spans = extracted.markdown, extracted.page_spans
    if len(text) <= 2 * EDGE_CHARS:
        return [text]
    head_end = max(spans[0][1], EDGE_CHARS) if spans else EDGE_CHARS
    tail_start = min(spans[-1][0], len(text) - EDGE_CHARS) if spans else len(text) - EDGE_CHARS
    return [text[:head_end], text[max(tail_start, head_end):]]


def _title(markdown: str) -> str | None:
    m = re.search(r"^# +(.+?)\s*#*\s*$", markdown, re.M)
    return re.sub(r"\\([\\`*_{}\[\]()#+\-.!|>])", r"\1", m.group(1)).strip() if m else None


def _cells(line: str) -> list[str]:
    return [c.strip().replace("\\|", "|") for c in _CELL_SPLIT.split(line.strip().strip("|"))]


def _field_of_label(cell: str) -> str | None:
    """The field a table cell names when the cell is nothing but a label (``APROVADO POR``, ``Versão``)."""
    folded = fold(cell).strip(" :")
    if re.fullmatch(rf"(?:{_VERSION_LABEL})\.?", folded):
        return "version"
    return next((name for name, label in _LABEL.items() if label.fullmatch(folded)), None)


def _is_label(cell: str) -> bool:
    return _field_of_label(cell) is not None or bool(_ANY_LABEL.fullmatch(fold(cell).strip(" :")))


def _from_tables(region: str, order: int) -> list[Candidate]:
    """Values under label cells of a small table's header row, or beside label cells of key-value rows."""
    found: list[Candidate] = []
    for table in re.findall(r"(?:^\|.*\|[ \t]*(?:\n|$))+", region, re.M):
        rows = [_cells(ln) for ln in table.strip().split("\n")]
        rows = [r for r in rows if not all(_SEPARATOR_CELL.match(c) for c in r if c)]
        for i, row in enumerate(rows):
            for j, cell in enumerate(row):
                name = _field_of_label(cell)
                if name is None:
                    continue
                below = [r[j] for r in rows[1:] if j < len(r) and r[j] and not _is_label(r[j])]
                if i > 0 or len(rows) - 1 > _MAX_HEADER_TABLE_ROWS:
                    below = []
                elif name == "version":
                    below.reverse()  # a short version history: the latest is the last row
                key_value = i > 0 or len(row) == 2 or len(rows) == 1  # not the header row of a data table
                beside = row[j + 1:j + 2] if key_value and not _is_label("".join(row[j + 1:j + 2])) else []
                for candidate in below + beside:
                    value = _convert(name, candidate)
                    if value is not None:
                        strong = name not in _STRONG or _STRONG[name].match(fold(cell).strip(" :"))
                        found.append((0 if strong else 1, order + len(found), name, value))
                        break
    return found


def _from_lines(region: str, order: int) -> list[Candidate]:
    """``Label: value`` in the region's lines (each table cell counts as a line)."""
    lines: list[str] = []
    for line in region.split("\n"):
        lines += _cells(line) if line.lstrip().startswith("|") else [line.lstrip("#>-* ")]
    found: list[Candidate] = []
    for line in lines:
        folded = fold(line)
        for version in _VERSION.finditer(folded):
            if version.group("sep") or version.group("lead").strip() or version.start() == 0:  # not prose
                rank = 0 if version.group("sep") else 2
                found.append((rank, order + len(found), "version", line[version.start("v"):version.end("v")]))
                break
        for name, label in _LABEL.items():
            for m in label.finditer(folded):
                value = _value_after(name, line, folded, m)
                if value is not None:
                    rank = 0 if name not in _STRONG or _STRONG[name].match(m.group()) else 1
                    found.append((rank, order + len(found), name, value))
                    break
    return found


def _value_after(name: str, line: str, folded: str, label: re.Match[str]) -> Any:
    if name in _DATE_LABELS:
        lead = _DATE_LEAD.match(folded, label.end())
        match = DATE.match(folded, lead.end() if lead else label.end())
        return parse_date(match) if match else None
    if _COMPOUND.match(folded, label.end()) or folded[max(label.start() - 1, 0):label.start()] in ("-", "/"):
        return None  # a word inside a code pattern ("TIPO-ÁREA-NNN"), not a label
    lead = _TEXT_LEAD.match(folded, label.end())
    at_start = not folded[: label.start()].strip(" -–•*|")
    if lead is None and at_start and re.search(r"\b(?:por|by)$", label.group()):
        lead = re.compile(r"\s+").match(folded, label.end())  # "Aprovado por Maria Silva" on its own line
    if lead is None:
        return None
    return _convert(name, line[lead.end():])


def _convert(name: str, raw: str) -> Any:
    """A cell or the rest of a line as the field's value: a date, a version, or a short name."""
    folded = fold(raw)
    if name in _DATE_LABELS:
        return first_date(folded)
    if name == "version":
        m = re.search(r"\d{1,3}(?:\.\d{1,3}){0,2}", raw)
        return m.group() if m else None
    cut = len(raw)
    for stop in (_ANY_LABEL.search(folded), re.search(r"\s{2,}|\s+\|\s+|\s+em\s+\d|\s+\d{1,2}[/.]\d", raw)):
        if stop is not None and stop.start() > 0:
            cut = min(cut, stop.start())
    value = raw[:cut].strip(" \t:;,.-–—|_")
    if not value or len(value) > 100 or not re.search(r"[^\W\d_]", value) or _is_date_only(value):
        return None
    return value


def _is_date_only(value: str) -> bool:
    return not re.search(r"[^\W\d_]", DATE.sub("", fold(value)))
