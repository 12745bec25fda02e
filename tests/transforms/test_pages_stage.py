"""The pages stage with a tiny random ColPali: PDF pages rendered, encoded, stored as float16 multi-vectors with
their document, page, groups and model; cached by page hash; deletions and group changes reach the table."""

from __future__ import annotations

import json

import numpy as np
import pyarrow.parquet as pq

from tests.fixtures.colpali import CONFIG, write_visual_source


def _stage(home, run):
    return json.loads((home / "runs" / run / "stages" / "pages-all.json").read_text())


def test_pages_are_encoded_once_and_follow_deletions_and_group_changes(tmp_path, tiny_colpali):
    from lakehouse.settings import Settings
    from transforms.pipeline import run_index

    source = write_visual_source(tmp_path / "source")
    settings = Settings(home=tmp_path / "home", source=source, embedding_model="wordllama", ocr=False,
                        extract_timeout=0, pages_model=tiny_colpali)
    first = run_index(settings)
    table = pq.read_table(settings.home / "tables" / "pages.parquet")
    rows = table.to_pylist()
    assert sorted((r["path"], r["page"]) for r in rows) == [
        ("RH/Absenteísmo.pdf", 1), ("RH/Absenteísmo.pdf", 2),
        ("Relatórios/Ocupação 2025.pdf", 1), ("Relatórios/Ocupação 2025.pdf", 2)]
    meta = table.schema.metadata
    dim = int(meta[b"dim"])
    assert table.schema.field("vectors").type.value_type == "halffloat" and dim == 128
    assert all(len(r["vectors"]) == r["n_tokens"] * dim and r["model_id"].startswith("colpali:") for r in rows)
    assert {r["path"]: r["access_groups"] for r in rows}["RH/Absenteísmo.pdf"] == ["rh"]
    assert _stage(settings.home, first.run_id)["processed"] == 4
    snapshot = settings.home / "snapshots" / first.snapshot_id / "tables" / "pages.parquet"
    assert pq.read_metadata(snapshot).num_rows == 4

    second = run_index(settings)  # nothing changed: nothing encoded, nothing rendered
    assert _stage(settings.home, second.run_id)["processed"] == 0
    assert _stage(settings.home, second.run_id)["skipped"] == 4

    (source / ".lakerag.yaml").write_text(CONFIG.replace("[rh]", "[rh, diretoria]"), encoding="utf-8")
    (source / "Relatórios" / "Ocupação 2025.pdf").unlink()
    third = run_index(settings)
    rows = pq.read_table(settings.home / "tables" / "pages.parquet").to_pylist()
    assert {r["path"] for r in rows} == {"RH/Absenteísmo.pdf"}
    assert all(sorted(r["access_groups"]) == ["diretoria", "rh"] for r in rows)
    assert _stage(settings.home, third.run_id)["processed"] == 0


def test_without_a_model_the_stage_is_skipped_and_says_so(tmp_path, capsys):
    from lakehouse.settings import Settings
    from lakerag.report import print_run_summary
    from transforms.pipeline import run_index

    settings = Settings(home=tmp_path / "home", source=write_visual_source(tmp_path / "source"),
                        embedding_model="wordllama", ocr=False, extract_timeout=0)
    record = run_index(settings)
    assert not (settings.home / "tables" / "pages.parquet").exists()
    print_run_summary(record, settings)
    lines = [line for line in capsys.readouterr().out.splitlines() if "pages" in line and "skipped" in line]
    assert len(lines) == 1 and "LAKERAG_PAGES_MODEL" in lines[0]


def test_token_pooling_cuts_vectors_and_keeps_them_unit_length():
    from models.late_interaction import maxsim, pool_tokens

    rng = np.random.default_rng(0)
    vectors = rng.normal(size=(40, 16)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    pooled = pool_tokens(vectors, 4)
    assert len(pooled) == 10 and np.allclose(np.linalg.norm(pooled, axis=1), 1, atol=1e-5)
    query = vectors[:3]
    tokens, offsets = np.concatenate([vectors[:20], vectors[20:]]), np.array([0, 20, 40])
    expected = [(query @ vectors[:20].T).max(axis=1).sum(), (query @ vectors[20:].T).max(axis=1).sum()]
    assert np.allclose(maxsim(query, tokens, offsets), expected, atol=1e-5)
    assert np.allclose(maxsim(query, tokens, offsets, rows=np.array([1]), batch_tokens=7), expected[1:], atol=1e-5)


def test_a_missing_model_folder_is_a_configuration_error_naming_the_setting(tmp_path):
    import pytest

    from lakehouse.errors import ConfigError
    from models.vision import load_page_model, model_id_of

    for call in (load_page_model, model_id_of):
        with pytest.raises(ConfigError, match="LAKERAG_PAGES_MODEL"):
            call(tmp_path / "nope")
