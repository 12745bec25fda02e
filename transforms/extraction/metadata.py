"""Governance metadata (version, dates, responsible, approver, department) found by rules on the first and last
pages, where policies and procedures keep them: "Label: value" lines, or a footer table whose header row names
the roles (ELABORADO POR | VERIFICADO POR | APROVADO POR) with the names in the row below."""

from __future__ import annotations

import re
import unicodedata
from typing import Any

from transforms.extraction.dates import DATE, first_date, parse_date
from transforms.extraction.types import Extracted, GovernanceMetadata

EDGE_CHARS = 3000  # for formats without pages: this much text from the start and from the end

# Label patterns run on accent-folded, lower-case text.
_DATE_LABELS = {
    "issue_date": r"data de emissao|emitid[oa] em|emissao|data de publicacao|publicad[oa] em|data de vigencia|"
    r"vigencia|em vigor desde|effective date|issue date|date of issue|issued on|issued",
    "last_review_date": r"data da ultima revisao|ultima revisao|revisad[oa] em|data d[ae] revisao|last reviewed|"
    r"last review|reviewed on|revised on|(?<!proxima )revisao",
    "next_review_date": r"proxima revisao|revisar ate|revisao prevista(?: para)?|validade|valido ate|"
    r"next review(?: date)?|review by|valid until",
}
_TEXT_LABELS = {
    "responsible": r"elaborad[oa] por|elaboracao|responsavel(?: tecnico| pelo documento)?|redigido por|"
    r"preparado por|prepared by|document owner|owner|autor(?:ia|a)?|author",
    "approver": r"aprovad[oa] por|aprovacao|aprovador|approved by|approver",
    "department": r"departamento|area responsavel|area|setor|diretoria|gerencia|department",
}
_VERSION_LABEL = r"versao|version|revisao|rev|ver|v"
_LABEL = {name: re.compile(rf"\b(?:{pattern})\b") for name, pattern in {**_DATE_LABELS, **_TEXT_LABELS}.items()}
_ANY_LABEL = re.compile(rf"\b(?:{'|'.join([*_DATE_LABELS.values(), *_TEXT_LABELS.values(), 'verificad[oa] por'])})\b")
_VERSION = re.compile(rf"\b(?:{_VERSION_LABEL})\.?\s*(?:n[o.º°]*\.?\s*)?[:\-–]?\s*(\d{{1,3}}(?:\.\d{{1,3}}){{0,2}})\b"
                      r"(?![/.\-]\d)")
_DATE_LEAD = re.compile(r"[\s:\-–=]*(?:(?:em|de|ate|a partir de|desde|on)\s+)?")
_TEXT_LEAD = re.compile(r"\s*[:\-–=]\s*")
_CELL_SPLIT = re.compile(r"(?<!\\)\|")
_SEPARATOR_CELL = re.compile(r"^:?-{3,}:?$")


def fold(text: str) -> str:
    """Lower case without accents, one character per character (so match offsets apply to the original)."""
    return "".join((unicodedata.normalize("NFD", c)[0].lower() or c)[0] for c in text)


def extract_metadata(extracted: Extracted, fallback_title: str) -> GovernanceMetadata:
    """Fields found on the first and last pages (or characters); ``metadata_source`` says whether any was."""
    found: dict[str, Any] = {}
    regions = _regions(extracted)
    for region in regions:
        for name, value in _from_tables(region):
            found.setdefault(name, value)
    for region in regions:
        for name, value in _from_lines(region):
            found.setdefault(name, value)
    title = _title(extracted.markdown) or fallback_title
    return GovernanceMetadata(title=title, metadata_source="rules" if found else "none", **found)


def _regions(extracted: Extracted) -> list[str]:
    text, spans = extracted.markdown, extracted.page_spans
    if spans:
        first, last = spans[0], spans[-1]
        return [text[first[0]:first[1]]] + ([text[last[0]:last[1]]] if len(spans) > 1 else [])
    if len(text) <= 2 * EDGE_CHARS:
        return [text]
    return [text[:EDGE_CHARS], text[-EDGE_CHARS:]]


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


def _from_tables(region: str) -> list[tuple[str, Any]]:
    """Values under (or beside) label cells of the Markdown tables in ``region``."""
    found: list[tuple[str, Any]] = []
    for table in re.findall(r"(?:^\|.*\|[ \t]*(?:\n|$))+", region, re.M):
        rows = [_cells(ln) for ln in table.strip().split("\n")]
        rows = [r for r in rows if not all(_SEPARATOR_CELL.match(c) for c in r if c)]
        for i, row in enumerate(rows):
            for j, cell in enumerate(row):
                name = _field_of_label(cell)
                if name is None:
                    continue
                below = [r[j] for r in rows[i + 1:i + 3] if j < len(r) and r[j] and not _field_of_label(r[j])]
                beside = row[j + 1:j + 2] if j + 1 < len(row) and not _field_of_label(row[j + 1]) else []
                for candidate in below + beside:
                    value = _convert(name, candidate)
                    if value is not None:
                        found.append((name, value))
                        break
    return found


def _from_lines(region: str) -> list[tuple[str, Any]]:
    """``Label: value`` anywhere in the region's lines (each table cell counts as a line)."""
    lines: list[str] = []
    for line in region.split("\n"):
        lines += _cells(line) if line.lstrip().startswith("|") else [line.lstrip("#>-* ")]
    found: list[tuple[str, Any]] = []
    for line in lines:
        folded = fold(line)
        version = _VERSION.search(folded)
        if version:
            found.append(("version", line[version.start(1):version.end(1)]))
        for name, label in _LABEL.items():
            for m in label.finditer(folded):
                value = _value_after(name, line, folded, m)
                if value is not None:
                    found.append((name, value))
                    break
    return found


def _value_after(name: str, line: str, folded: str, label: re.Match[str]) -> Any:
    if name in _DATE_LABELS:
        lead = _DATE_LEAD.match(folded, label.end())
        start = lead.end() if lead else label.end()
        match = DATE.match(folded, start)
        return parse_date(match) if match else None
    lead = _TEXT_LEAD.match(folded, label.end())
    if lead is None and re.search(r"\b(?:por|by)$", label.group()):
        lead = re.compile(r"\s+").match(folded, label.end())
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
    value = raw[:cut].strip(" \t:;,.-–|")
    if not value or len(value) > 100 or not re.search(r"[^\W\d_]", value) or _is_date_only(value):
        return None
    return value


def _is_date_only(value: str) -> bool:
    return not re.search(r"[^\W\d_]", DATE.sub("", fold(value)))
