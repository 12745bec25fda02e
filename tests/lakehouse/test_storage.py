"""Tables written by an older lakerag still read after a nullable column was added to their schema."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from lakehouse import schemas as s
from lakehouse.storage import read_table


def test_a_chunks_table_from_before_the_injection_column_reads_with_nulls_there(tmp_path):
    old_fields = [f for f in s.CHUNKS if f.name != s.INJECTION]
    row = {"chunk_id": "c1", "document_id": "d1", "content_hash": "h1", "ordinal": 0, "heading_path": "Prazos",
           "text": "Prazo de 10 dias.", "char_start": 0, "char_end": 17, "pages": [1], "path": "a.pdf",
           "title": "A", "doc_type": "politica", "access_groups": ["public"]}
    path = tmp_path / "chunks.parquet"
    pq.write_table(pa.Table.from_pylist([row], schema=pa.schema(old_fields)), path)
    table = read_table(path, s.CHUNKS)
    assert table.schema.names == s.CHUNKS.names
    assert table.to_pylist()[0]["text"] == "Prazo de 10 dias." and table[s.INJECTION].to_pylist() == [None]


def test_a_missing_required_column_names_the_file_and_the_column(tmp_path):
    schema = pa.schema([pa.field("a", pa.string(), nullable=False), pa.field("b", pa.string())])
    path = tmp_path / "t.parquet"
    pq.write_table(pa.table({"b": ["x"]}), path)
    with pytest.raises(ValueError, match=r"t\.parquet: column 'a' is missing"):
        read_table(path, schema)
