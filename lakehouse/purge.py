"""File-level purge operations: what gc and erasure do to one file or folder, with no knowledge of stages.

Nothing published is edited in place: a rewritten file is written under a temporary name and renamed over the
old one (``lakehouse.storage.write_table``/``write_json``), so a reader sees the old file or the new one. A
snapshot's files are hard links, so rewriting ``tables/x.parquet`` never changes a snapshot; snapshots are
dropped whole (``lakehouse.snapshots``). Scanning and sweeping whole folders: ``lakehouse.sweep``.

Matching is done on the one text fold (case and accents ignored, Unicode format characters such as a soft hyphen
or a zero-width space removed, runs of whitespace as one space), at word boundaries, so "thiago martins araujo"
finds "Thiago  Martins Araújo" but "ana costa" does not find "Mariana Costa"."""

from __future__ import annotations

import json
import re
import shutil
import unicodedata
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from lakehouse.paths import CHUNKS, LakePaths
from lakehouse.storage import write_json, write_table
from lakehouse.text import fold

ERASED = "[erased]"
_SPACE = re.compile(r"\s+")
# Unicode format characters (category Cf: soft hyphen, zero-width spaces and joiners, direction marks, BOM):
# invisible, so "Patr\u00adícia" looks like "Patrícia" and must match it
_FORMAT = re.compile("[" + "".join(re.escape(chr(c)) for c in (*range(0x10000), *range(0x110BD, 0x1343F),
                                                                 *range(0x1BCA0, 0x1D17B), *range(0xE0000, 0xE0080))
                                   if unicodedata.category(chr(c)) == "Cf") + "]")


def normal(text: str) -> str:
    """The fold every comparison here uses: ``fold`` plus whitespace runs as one space."""
    return _SPACE.sub(" ", fold(_FORMAT.sub("", text))).strip()


class Matcher:
    """Finds any of some strings (names, CPFs, e-mails, ids) in text, folded, at word boundaries."""

    def __init__(self, needles: Iterable[str]) -> None:
        self.needles = sorted({n for n in (normal(x) for x in needles) if n}, key=len, reverse=True)
        body = "|".join(re.escape(n) for n in self.needles)
        self._regex = re.compile(rf"(?<!\w)(?:{body})(?!\w)") if body else None

    def __bool__(self) -> bool:
        return self._regex is not None

    def search(self, text: str | None) -> bool:
        return bool(text) and self._regex is not None and self._regex.search(normal(text)) is not None

    def finditer(self, folded: str) -> Iterator[re.Match[str]]:
        """Matches in a text already folded with ``normal``."""
        return self._regex.finditer(folded) if self._regex is not None else iter(())

    def strip_paragraphs(self, text: str) -> str:
        """``text`` without the paragraphs (blocks between blank lines) that mention a needle."""
        return "\n\n".join(p for p in re.split(r"\n\s*\n", text) if not self.search(p))


def _scrub(value: Any, matcher: Matcher) -> tuple[Any, int]:
    """A JSON value with every string mentioning a needle replaced by ``ERASED``; and how many were."""
    if isinstance(value, str):
        return (ERASED, 1) if matcher.search(value) else (value, 0)
    if isinstance(value, list):
        out = [_scrub(v, matcher) for v in value]
        return [v for v, _ in out], sum(n for _, n in out)
    if isinstance(value, dict):
        items = {k: _scrub(v, matcher) for k, v in value.items()}
        keys = {k: (ERASED if matcher.search(k) else k) for k in value}
        return {keys[k]: v for k, (v, _) in items.items()}, sum(n for _, n in items.values())
    return value, 0


def json_text(text: str, suffix: str) -> str:
    """JSON as its values read (``\u00e3`` escapes decoded), or the text itself when it is not JSON."""
    try:
        values = [json.loads(line) for line in text.splitlines() if line.strip()] if suffix == ".jsonl" \
            else json.loads(text)
    except ValueError:
        return text
    return json.dumps(values, ensure_ascii=False)


def redact_json(path: Path, matcher: Matcher) -> int:
    """Rewrite a JSON (or JSON Lines) file with matching strings replaced; returns how many were."""
    text = path.read_text(encoding="utf-8", errors="replace")
    if not matcher.search(json_text(text, path.suffix)):
        return 0
    if path.suffix == ".jsonl":
        rows = [_scrub(json.loads(line), matcher) for line in text.splitlines() if line.strip()]
        tmp = path.with_name(f".{path.name}.tmp")
        tmp.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r, _ in rows), encoding="utf-8")
        tmp.replace(path)
        return sum(n for _, n in rows)
    data, count = _scrub(json.loads(text), matcher)
    write_json(data, path)
    return count


def _string_columns(schema: pa.Schema) -> list[str]:
    def textual(t: pa.DataType) -> bool:
        return pa.types.is_string(t) or pa.types.is_large_string(t)
    return [f.name for f in schema if textual(f.type) or (pa.types.is_list(f.type) and textual(f.type.value_type))]


def matching_rows(table: pa.Table, matcher: Matcher) -> list[int]:
    """Row numbers of ``table`` with a string (or a list element) mentioning a needle."""
    hits: set[int] = set()
    for name in _string_columns(table.schema):
        column = table[name]
        flat = pc.list_flatten(column) if pa.types.is_list(column.type) else column
        if not matcher.search("\n".join(v for v in flat.to_pylist() if v)):  # one pass over the column first
            continue
        for i, value in enumerate(column.to_pylist()):
            values = value if isinstance(value, list) else [value]
            if any(isinstance(v, str) and matcher.search(v) for v in values):
                hits.add(i)
    return sorted(hits)


def drop_matching_rows(path: Path, matcher: Matcher) -> int:
    """Rewrite a Parquet file without the rows that mention a needle; returns how many went."""
    table = pq.read_table(path)
    doomed = matching_rows(table, matcher)
    if doomed:
        keep = sorted(set(range(table.num_rows)) - set(doomed))
        write_table(table.take(pa.array(keep, pa.int64())), path)
    return len(doomed)


def drop_rows(path: Path, column: str, values: Iterable[str]) -> int:
    """Rewrite a Parquet file without the rows whose ``column`` is one of ``values``; returns how many went."""
    wanted = pa.array(sorted(set(values)), pa.string())
    if not path.exists() or len(wanted) == 0:
        return 0
    table = pq.read_table(path)
    if column not in table.column_names:
        return 0
    hit = pc.fill_null(pc.is_in(table[column], wanted), False)
    removed = int(pc.sum(hit).as_py() or 0)
    if removed:
        write_table(table.filter(pc.invert(hit)), path)
    return removed


def redact_rows(path: Path, matcher: Matcher, paragraphs: frozenset[str] = frozenset()) -> int:
    """Rewrite a Parquet file with matching strings removed, rows kept: the ``paragraphs`` columns lose the
    paragraphs that match, other strings become null (or ``ERASED`` where null is not allowed) and list
    elements that match are dropped. Returns how many values changed."""
    table = pq.read_table(path)
    changed = 0
    for name in _string_columns(table.schema):
        field = table.schema.field(name)
        values = table[name].to_pylist()
        out = []
        for value in values:
            if isinstance(value, list):
                kept = [v for v in value if not (isinstance(v, str) and matcher.search(v))]
                changed += len(value) - len(kept)
                out.append(kept)
            elif isinstance(value, str) and matcher.search(value):
                changed += 1
                out.append(matcher.strip_paragraphs(value) if name in paragraphs else
                           (None if field.nullable else ERASED))
            else:
                out.append(value)
        if out != values:
            table = table.set_column(table.schema.get_field_index(name), field, pa.array(out, field.type))
    if changed:
        write_table(table, path)
    return changed


def remove(path: Path) -> int:
    """Delete a file or a folder; 1 when something was there."""
    if path.is_dir():
        shutil.rmtree(path, ignore_errors=True)
        return 1
    if path.exists() or path.is_symlink():
        path.unlink(missing_ok=True)
        return 1
    return 0


def content_files(paths: LakePaths, content_hash: str) -> list[Path]:
    """Every file the lakehouse keeps for one content hash: its raw blob, its extraction, its chunk drafts
    (under every chunking parameter set) and its failure and attempt markers."""
    return [paths.blob(content_hash), paths.extracted_part(content_hash), paths.failure(content_hash),
            paths.attempt(content_hash),
            *paths.cache_dir(CHUNKS).glob(f"*/{content_hash[:2]}/{content_hash}.parquet")]


def retain_keys(folder: Path, keep: set[str], key: str = "key") -> int:
    """Rewrite every Parquet part of a content-keyed cache (``lakehouse.part_cache``) keeping only ``keep``;
    returns the rows removed. A part left empty is deleted."""
    removed = 0
    wanted = pa.array(sorted(keep), pa.string())
    for part in sorted(folder.rglob("*.parquet")):
        table = pq.read_table(part)
        hit = pc.is_in(table[key], wanted)
        gone = table.num_rows - int(pc.sum(hit).as_py() or 0)
        if gone == 0:
            continue
        removed += gone
        if gone == table.num_rows:
            part.unlink()
        else:
            write_table(table.filter(hit), part)
    return removed
