"""Plain text and Markdown files: encoding detection, normalisation, and light structure for plain text."""

from __future__ import annotations

import codecs
import logging
import re
from pathlib import Path

from charset_normalizer import from_bytes

from lakehouse.errors import DocumentError
from transforms.extraction.markdown import Block, clean_line, normalise_text, render, to_pipe_table
from transforms.extraction.structure import (
    ends_sentence,
    legal_division,
    list_item,
    looks_like_caps_heading,
    numbered_heading_level,
)
from transforms.extraction.types import Extracted

logger = logging.getLogger(__name__)

_BOMS = [(codecs.BOM_UTF32_LE, "utf-32"), (codecs.BOM_UTF32_BE, "utf-32"), (codecs.BOM_UTF8, "utf-8-sig"),
         (codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16")]
_LATIN = re.compile(r"^(cp125\d|cp8[56]\d|cp437|latin|iso8859|mac_)")
_BINARY_BYTES = frozenset(range(0, 32)) - {9, 10, 12, 13, 26}
_UTF8_SEQUENCE = re.compile(rb"[\xc2-\xdf][\x80-\xbf]|[\xe0-\xef][\x80-\xbf]{2}|[\xf0-\xf4][\x80-\xbf]{3}")
_MIXED = "lakerag-cp1252"


def _cp1252_stretch(exc: UnicodeError) -> tuple[str, int]:
    """Decode error handler: the invalid bytes as cp1252 (latin-1 where cp1252 leaves a byte undefined)."""
    assert isinstance(exc, UnicodeDecodeError)
    bad = exc.object[exc.start:exc.end]
    return "".join(bytes([b]).decode("cp1252", errors="ignore") or chr(b) for b in bad), exc.end


codecs.register_error(_MIXED, _cp1252_stretch)
_RULE = re.compile(r"^:?(?:={3,}|-{3,}|_{3,}|\*{3,}|~{3,}):?$")


def decode_text(raw: bytes) -> str:
    """Decode bytes of unknown encoding: BOMs, then UTF-8, then UTF-8 mixed with cp1252 (a file with valid
    multi-byte UTF-8 sequences and invalid bytes: each stretch decoded as what it is), then charset-normalizer.
    Western single-byte guesses are read as cp1252 (latin-1 where cp1252 leaves a byte undefined):
    charset-normalizer tends to call Portuguese cp1250, which would turn ``ã`` into ``ă``."""
    for bom, encoding in _BOMS:
        if raw.startswith(bom):
            try:
                return raw.decode(encoding)
            except UnicodeDecodeError as exc:
                reason = f"undecodable text: invalid {encoding} after its byte order mark"
                raise DocumentError(reason) from exc
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        pass
    if _UTF8_SEQUENCE.search(raw) and sum(b in _BINARY_BYTES for b in raw) <= 0.01 * len(raw):
        return raw.decode("utf-8", errors=_MIXED)  # UTF-8 where valid, cp1252 for the stretches that are not
    best = from_bytes(raw).best()
    if best is None:
        raise DocumentError("undecodable text: no plausible character encoding (binary content?)")
    if best.encoding.startswith(("utf", "ascii")):
        return str(best)
    if sum(b in _BINARY_BYTES for b in raw) > 0.01 * len(raw):
        raise DocumentError("undecodable text: control bytes found (binary content?)")
    if _LATIN.match(best.encoding):
        try:
            return raw.decode("cp1252")
        except UnicodeDecodeError:
            return raw.decode("latin-1")
    logger.info("decoding text as %s (charset-normalizer's guess)", best.encoding)
    return str(best)


def extract_text(path: Path, detected_type: str) -> Extracted:
    """A ``markdown`` file is normalised and kept as it is; ``text`` gets headings, lists and paragraphs."""
    text = normalise_text(decode_text(path.read_bytes()))
    warnings = [] if text.strip() else ["empty document"]
    if detected_type == "markdown":
        markdown = re.sub(r"\n{3,}", "\n\n", text).strip("\n")
        return Extracted(markdown + "\n" if markdown else "", "markdown", warnings=warnings)
    markdown, _ = render(plain_text_blocks(text))
    return Extracted(markdown, "text", warnings=warnings)


def plain_text_blocks(text: str, page: int = 0, reflow: bool = False, title: bool = True) -> list[Block]:
    """Blocks of plain text: blank lines separate paragraphs; wrapped lines (as long as the text's usual
    line, or all lines with ``reflow``, as OCR output) are joined, short ones keep their line break;
    standalone capitalised, numbered or legal lines become headings (a first capitalised one the ``#`` title
    when ``title``); ``|``-separated rows become tables."""
    lines = [clean_line(ln) for ln in text.split("\n")]
    lengths = sorted(len(ln) for ln in lines if ln)
    wrap = lengths[int(len(lengths) * 0.9)] if lengths else 80
    tables = _pipe_tables(lines)
    blocks: list[Block] = []
    first_heading = title
    skip_to = 0
    for i, line in enumerate(lines):
        if not line or i < skip_to:
            continue
        if i in tables:
            table, skip_to = tables[i]
            blocks.append(Block("table", table, page))
            continue
        previous = lines[i - 1] if i else ""
        rule = _RULE.match(line)
        if rule:  # a setext underline makes the line above a heading; a lone rule is dropped
            if previous and blocks and blocks[-1].text == previous and blocks[-1].kind in ("para", "heading"):
                heading = blocks[-1]
                level = 1 if rule.group()[0] == "=" else (heading.level if heading.kind == "heading" else 2)
                heading.kind, heading.level = "heading", level
            continue
        following = lines[i + 1] if i + 1 < len(lines) else ""
        cur = blocks[-1] if blocks and previous else None
        after_heading = cur is not None and cur.kind == "heading"
        level = _heading_level(line, "" if after_heading else previous, following)
        if level:
            blocks += _heading_blocks(line, level, first_heading, page)
            first_heading = False
        elif (item := list_item(line, after_item=cur is not None and cur.kind == "item")) is not None:
            blocks.append(Block("item", item.text, page, item.depth, item.number))
        elif cur is not None and cur.kind in ("para", "item") and previous:
            cur.append(line, page, None if reflow or len(previous) >= 0.7 * wrap else "\n")
        else:
            blocks.append(Block("para", line, page))
    return blocks


def _pipe_tables(lines: list[str]) -> dict[int, tuple[str, int]]:
    """Runs of two or more lines with the same number (one or more) of ``|`` separators, as Markdown tables
    keyed by their first line, with the index after their last line."""
    tables: dict[int, tuple[str, int]] = {}
    i = 0
    while i < len(lines):
        count = lines[i].strip("|").count("|")
        end = i
        while end < len(lines) and count and lines[end].strip("|").count("|") == count:
            end += 1
        rows = [[c.strip() for c in lines[k].strip("|").split("|")] for k in range(i, end)]
        rows = [r for r in rows if not all(_RULE.match(c) or not c for c in r)]
        if end - i >= 2 and len(rows) >= 2:
            tables[i] = (to_pipe_table(rows[0], rows[1:]), end)
            i = end
        else:
            i += 1
    return tables


def _heading_level(line: str, previous: str, following: str) -> int:
    division = legal_division(line)
    article = division is not None and division.label.startswith("Art")
    if division is not None and (not previous or ends_sentence(previous) or not article):
        return division.level
    if previous:
        return 0
    numbered = numbered_heading_level(line)
    if numbered and list_item(following) is None:
        return numbered
    if looks_like_caps_heading(line) and list_item(line) is None:
        return 2
    return 0


def _heading_blocks(line: str, level: int, first: bool, page: int) -> list[Block]:
    division = legal_division(line)
    if division is not None and division.label.startswith("Art"):
        rest = [Block("para", division.rest, page)] if division.rest else []
        return [Block("heading", division.label, page, level)] + rest
    if division is not None and division.rest:
        return [Block("heading", f"{division.label} — {division.rest}", page, level)]
    return [Block("heading", line, page, 1 if first and looks_like_caps_heading(line) else level)]

