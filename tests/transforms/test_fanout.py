"""Index stages fanned out into shards (what lakerag_index maps over): the shards split the missing cache
entries disjointly and cover them all, the merge then computes nothing and writes the same tables as an
unsharded run, and a failed shard costs a rerun only its own keys; enrich's shards make its LLM calls."""

from __future__ import annotations

from pathlib import Path

import pyarrow.parquet as pq
import pytest

from lakehouse.graph_schemas import load_graph_tables
from lakehouse.part_cache import shard_of
from lakehouse.paths import LakePaths
from lakehouse.runs import load_stage_records
from lakehouse.settings import Settings
from lakehouse.storage import read_json
from tests.fixtures.corpora import write_corpus
from transforms import lifecycle, registry
from transforms.pipeline import start_run
from transforms.registry import index_stages

SHARDED = [s.name for s in index_stages() if s.shardable]
PART_CACHED = ["embed", "graph"]  # shards fill the stage's own part cache (enrich's fill the LLM request cache)


def _settings(root: Path, source: Path) -> Settings:
    return Settings(home=root / "home", source=source, embedding_model="wordllama", index_shard_size=3)


def _ingest(settings: Settings) -> str:
    plan = lifecycle.begin_ingest(settings)
    for batch in plan["batches"]:
        for stage in ("land", "extract", "chunk"):
            lifecycle.run_batch_stage(settings, plan["run_id"], stage, batch)
    return lifecycle.finish_ingest(settings, plan["run_id"])["run_id"]


def _index(settings: Settings, run_id: str, sharded: bool) -> dict[str, int]:
    """Every index stage in order, the shardable ones after all their shards; returns each merge's count."""
    merged = {}
    for stage in index_stages():
        if sharded and stage.shardable:
            shards = lifecycle.plan_shards(settings, run_id, stage.name)
            for shard in range(shards):
                lifecycle.run_index_shard(settings, run_id, stage.name, shard, shards)
        merged[stage.name] = lifecycle.run_index_stage(settings, run_id, stage.name)
    return merged


def _tables(settings: Settings) -> dict[str, list[dict]]:
    paths = LakePaths(settings.home)
    tables = {name: pq.read_table(paths.table(name)).to_pylist() for name in ("contexts", "vectors", "chunks")}
    tables.update({f"graph/{name}": t.to_pylist() for name, t in load_graph_tables(paths.tables).items()})
    return tables


@pytest.fixture
def source(tmp_path: Path) -> Path:
    return write_corpus(tmp_path / "source")


def test_the_index_stages_that_shard_are_enrich_embed_and_graph():
    assert SHARDED == ["enrich", "embed", "graph"]
    assert registry.stage("embed").gpu and registry.stage("embed").sharding is not None


def test_shards_are_disjoint_and_cover_every_missing_key(tmp_path, source):
    settings = _settings(tmp_path, source)
    run_id = _ingest(settings)
    lifecycle.run_index_stage(settings, run_id, "enrich")  # embed's keys are the contexts and the text
    ctx = start_run(settings, run_id)
    for name in PART_CACHED:
        missing = registry.stage(name).sharding.missing(ctx)
        shards = lifecycle.plan_shards(settings, run_id, name)
        assert len(missing) > 3 and shards == -(-len(missing) // 3)
        parts = [{k for k in missing if shard_of(k, shards) == i} for i in range(shards)]
        assert set().union(*parts) == set(missing) and sum(map(len, parts)) == len(missing)
        done = [lifecycle.run_index_shard(settings, run_id, name, i, shards) for i in range(shards)]
        assert done == [len(p) for p in parts]
        assert registry.stage(name).sharding.missing(ctx) == [] and lifecycle.plan_shards(settings, run_id, name) == 0
    assert lifecycle.plan_shards(settings.replace(index_max_shards=2), run_id, "sparse") == 0  # does not shard
    with pytest.raises(ValueError, match="does not shard"):
        lifecycle.run_index_shard(settings, run_id, "sparse", 0, 1)


def test_after_every_shard_the_merge_computes_nothing_and_writes_an_unsharded_runs_tables(tmp_path, source):
    plain, sharded = _settings(tmp_path / "plain", source), _settings(tmp_path / "sharded", source)
    _index(plain, _ingest(plain), sharded=False)
    run_id = _ingest(sharded)
    merged = _index(sharded, run_id, sharded=True)
    assert merged["embed"] == merged["graph"] == 0
    assert _tables(sharded) == _tables(plain)
    record = lifecycle.record(sharded, run_id)
    assert record["chunks"] > 3
    embedded = sum(r.processed for r in load_stage_records(LakePaths(sharded.home), run_id) if r.stage == "embed")
    assert embedded == len({r["embed_key"] for r in _tables(sharded)["vectors"]})  # each text embedded once
    assert pq.read_table(LakePaths(sharded.home).table("runs")).to_pylist()[-1]["embedded"] == embedded


def test_a_failed_shard_keeps_the_others_parts_and_a_rerun_computes_only_its_keys(tmp_path, source, monkeypatch):
    from models import embedding

    settings = _settings(tmp_path, source)
    run_id = _ingest(settings)
    lifecycle.run_index_stage(settings, run_id, "enrich")
    missing = registry.stage("embed").sharding.missing(start_run(settings, run_id))
    shards = lifecycle.plan_shards(settings, run_id, "embed")
    real = embedding.load_embedder

    def broken(*args, **kwargs):
        raise RuntimeError("worker lost")

    for shard in range(shards):
        if shard == 1:
            monkeypatch.setattr("transforms.stages.embed.load_embedder", broken)
            with pytest.raises(RuntimeError, match="worker lost"):
                lifecycle.run_index_shard(settings, run_id, "embed", shard, shards)
            monkeypatch.setattr("transforms.stages.embed.load_embedder", real)
        else:
            lifecycle.run_index_shard(settings, run_id, "embed", shard, shards)
    left = registry.stage("embed").sharding.missing(start_run(settings, run_id))
    assert left and set(left) == {k for k in missing if shard_of(k, shards) == 1}
    assert [lifecycle.run_index_shard(settings, run_id, "embed", s, shards) for s in range(shards)] == [
        len(left) if s == 1 else 0 for s in range(shards)]
    assert lifecycle.run_index_stage(settings, run_id, "embed") == 0


def test_a_retried_shard_adds_to_the_run_record_what_its_failed_attempt_flushed(tmp_path, source, monkeypatch):
    """A shard that dies after flushing part of its vectors, retried, and every shard then cleared and rerun:
    the run record still counts each text embedded once, and says which attempt failed and why."""
    from models import embedding

    settings = _settings(tmp_path, source)
    run_id = _ingest(settings)
    lifecycle.run_index_stage(settings, run_id, "enrich")
    shards = lifecycle.plan_shards(settings, run_id, "embed")
    missing = registry.stage("embed").sharding.missing(start_run(settings, run_id))
    mine = [k for k in missing if shard_of(k, shards) == 0]
    assert len(mine) >= 2
    real, calls = embedding.load_embedder, []

    class DiesOnSecondFlush:
        def __init__(self, inner):
            self.inner = inner

        def embed_passages(self, texts):
            calls.append(len(texts))
            if len(calls) == 2:
                raise RuntimeError("worker lost")
            return self.inner.embed_passages(texts)

    monkeypatch.setattr("transforms.stages.embed.FLUSH_EVERY", 1)
    monkeypatch.setattr("transforms.stages.embed.load_embedder", lambda *a, **k: DiesOnSecondFlush(real(*a, **k)))
    with pytest.raises(RuntimeError, match="worker lost"):
        lifecycle.run_index_shard(settings, run_id, "embed", 0, shards)
    monkeypatch.setattr("transforms.stages.embed.load_embedder", real)
    assert lifecycle.run_index_shard(settings, run_id, "embed", 0, shards) == len(mine) - 1  # the retry
    for _ in range(2):  # the first run of the other shards, then all of them cleared and run again
        for shard in range(shards):
            lifecycle.run_index_shard(settings, run_id, "embed", shard, shards)
    for stage in index_stages()[[s.name for s in index_stages()].index("embed"):]:
        lifecycle.run_index_stage(settings, run_id, stage.name)
    lifecycle.record(settings, run_id)
    record = read_json(LakePaths(settings.home).run_dir(run_id) / "run.json")
    assert record["embedded"] == len({r["embed_key"] for r in _tables(settings)["vectors"]})
    failed = [r for r in load_stage_records(LakePaths(settings.home), run_id) if r.failed]
    assert [(r.stage, r.part, r.processed) for r in failed] == [
        ("embed", f"shard-0000-of-{shards:04d}-attempt-1", 1)]
    assert any("attempt 1 (retried): RuntimeError: worker lost" in e for e in record["errors"])


def test_enrich_shards_ask_the_llm_and_the_merge_writes_every_context_from_its_cache(tmp_path, source):
    from tests.fixtures.openai_server import FakeOpenAI

    with FakeOpenAI() as fake:
        llm = {"llm_base_url": fake.base_url, "llm_model": "fake-model", "graph_with_llm": False,
               "owners_with_llm": False, "describe_with_llm": False}
        plain, sharded = (_settings(tmp_path / name, source).replace(**llm) for name in ("plain", "sharded"))
        lifecycle.run_index_stage(plain, _ingest(plain), "enrich")
        asked = len(fake.requests)  # one call per chunk
        run_id = _ingest(sharded)
        shards = lifecycle.plan_shards(sharded, run_id, "enrich")
        assert asked > 3 and shards == -(-asked // 3)
        assert sum(lifecycle.run_index_shard(sharded, run_id, "enrich", i, shards) for i in range(shards)) == 0
        assert len(fake.requests) == 2 * asked  # the shards asked for every context once
        assert lifecycle.run_index_stage(sharded, run_id, "enrich") == asked  # written by the merge ...
        assert len(fake.requests) == 2 * asked  # ... without a call
        merge = next(r for r in load_stage_records(LakePaths(sharded.home), run_id)
                     if r.stage == "enrich" and r.part == "all")
        assert merge.usage["calls"] == 0 and merge.usage["cached_calls"] == asked
    tables = [pq.read_table(LakePaths(s.home).table("contexts")).to_pylist() for s in (plain, sharded)]
    assert tables[0] == tables[1] and {c["context_source"] for c in tables[0]} == {"llm"}
    assert lifecycle.plan_shards(sharded, run_id, "enrich") == 0
    assert lifecycle.plan_shards(sharded.replace(llm_model=None), run_id, "enrich") == 0  # no LLM: nothing to fan out
