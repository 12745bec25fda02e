"""Append-only caches of per-text work products (vectors, token lists) keyed by a content key.

Each flush writes a new Parquet part atomically, so a crash loses at most the unflushed batch, and several
processes may append side by side (index shards); many parts are compacted into one, by one process only
(compaction unlinks the parts it merged). Reads take only the key column unless values are asked for."""

from __future__ import annotations

import hashlib
import secrets
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from lakehouse.storage import write_table

KEY = "key"
_COMPACT_AFTER = 16


def shard_of(key: str, shards: int) -> int:
    """The shard (0 .. shards-1) a cache key belongs to: stable across processes, machines and Python versions
    (a hash of the key, never Python's salted ``hash``), so every worker agrees on who computes what."""
    if shards < 1:
        raise ValueError(f"shards must be at least 1, not {shards}")
    return int.from_bytes(hashlib.blake2b(key.encode("utf-8"), digest_size=8).digest(), "big") % shards


class PartCache:
    def __init__(self, folder: Path, schema: pa.Schema) -> None:
        self.folder = folder
        self.schema = schema
        folder.mkdir(parents=True, exist_ok=True)

    def parts(self) -> list[Path]:
        return sorted(self.folder.glob("part-*.parquet"))

    def keys(self) -> set[str]:
        found: set[str] = set()
        for part in self.parts():
            found.update(pq.read_table(part, columns=[KEY]).column(0).to_pylist())
        return found

    def append(self, rows: pa.Table) -> None:
        if rows.num_rows:
            write_table(rows.cast(self.schema), self.folder / f"part-{secrets.token_hex(8)}.parquet")

    def read(self, keys: list[str]) -> pa.Table:
        """Rows for ``keys`` (each once), in no particular order."""
        wanted = pa.array(sorted(set(keys)), pa.string())
        tables = []
        for part in self.parts():
            table = pq.read_table(part)
            tables.append(table.filter(pc.is_in(table[KEY], wanted)))
        if not tables:
            return self.schema.empty_table()
        merged = pa.concat_tables([t.cast(self.schema) for t in tables])
        _, first = _unique_first(merged[KEY].to_pylist())
        return merged.take(pa.array(first, pa.int64()))

    def compact(self) -> None:
        parts = self.parts()
        if len(parts) <= _COMPACT_AFTER:
            return
        merged = pa.concat_tables([pq.read_table(p).cast(self.schema) for p in parts])
        _, first = _unique_first(merged[KEY].to_pylist())
        write_table(merged.take(pa.array(first, pa.int64())), self.folder / f"part-{secrets.token_hex(8)}.parquet")
        for part in parts:
            part.unlink(missing_ok=True)


def _unique_first(keys: list[str]) -> tuple[set[str], list[int]]:
    seen: set[str] = set()
    first = []
    for index, key in enumerate(keys):
        if key not in seen:
            seen.add(key)
            first.append(index)
    return seen, first
