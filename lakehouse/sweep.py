"""Finding what mentions an erased target under a folder, and sweeping it away: the scan every erasure ends with,
and the sweep of caches (matching rows or files dropped) and records (matching values redacted)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pyarrow.parquet as pq

from lakehouse.purge import Matcher, drop_matching_rows, json_text, matching_rows, redact_json, redact_rows, remove


def file_mentions(path: Path, matcher: Matcher) -> bool:
    """Whether a file's content mentions a needle: Parquet by its values, DuckDB by its tables' values (deferred
    import: duckdb is only needed here for snapshot databases), anything else by its bytes as text."""
    if path.suffix == ".parquet":
        return bool(matching_rows(pq.read_table(path), matcher))
    if path.suffix == ".duckdb":
        import duckdb

        with duckdb.connect(str(path), read_only=True) as con:
            names = [r[0] for r in con.execute("select table_schema || '.' || table_name from "
                                               "information_schema.tables").fetchall()]
            return any(matcher.search(str(row)) for name in names
                       for row in con.execute(f"select * from {name}").fetchall())
    data = path.read_bytes()
    text = data.decode("utf-8", errors="replace")
    if path.suffix in (".json", ".jsonl"):
        text = json_text(text, path.suffix)
    return matcher.search(text) or matcher.search(data.decode("latin-1"))


def sweep(folder: Path, matcher: Matcher, record: bool = False) -> Counter[str]:
    """Remove what mentions a needle under ``folder``. Caches (``record`` false): matching Parquet rows are
    dropped and any other matching file deleted. Records (``record`` true): matching values are redacted in
    Parquet and JSON files, other matching files deleted. Returns counts by kind."""
    counts: Counter[str] = Counter()
    files = [folder] if folder.is_file() else sorted(p for p in folder.rglob("*") if p.is_file()) \
        if folder.exists() else []
    for path in files:
        if not file_mentions(path, matcher):
            continue
        if path.suffix == ".parquet":
            counts["values" if record else "rows"] += (redact_rows(path, matcher) if record
                                                       else drop_matching_rows(path, matcher))
        elif record and path.suffix in (".json", ".jsonl"):
            counts["values"] += redact_json(path, matcher)
        else:
            counts["files"] += remove(path)
    return counts


def mentioning_files(root: Path, matcher: Matcher) -> list[Path]:
    """Every file under ``root`` whose content mentions a needle (the check an erasure ends with)."""
    if not root.exists():
        return []
    return [p for p in sorted(root.rglob("*")) if p.is_file() and file_mentions(p, matcher)]


def mentions_any(root: Path, matcher: Matcher) -> bool:
    return root.exists() and any(p.is_file() and file_mentions(p, matcher) for p in root.rglob("*"))
