"""The graph stage (rules, no LLM) against the vector-only index stages (enrich + embed + sparse with the
default embedding model), on the sample corpus and on hotpotqa-100's corpus; then one hotpotqa passage is
edited and both are rerun: chunks re-extracted, reports rewritten, communities kept (warm against cold start).

    .venv/bin/python benchmarks/graph.py [--skip-sample]
"""

from __future__ import annotations

import argparse
import collections
import logging
import shutil
import sys
import tempfile
import time
from importlib import metadata
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import peak_rss_mb, print_table, save  # noqa: E402

from graph_index.communities import build_graph, cluster  # noqa: E402
from lakehouse.graph_schemas import load_graph_tables  # noqa: E402
from lakehouse.paths import LakePaths  # noqa: E402
from lakehouse.settings import SAMPLE_SOURCE, Settings  # noqa: E402
from serving.evaluation.beir import load_beir, write_beir_tables  # noqa: E402
from transforms import registry  # noqa: E402
from transforms.pipeline import run_index  # noqa: E402
from transforms.stages.context import RunContext  # noqa: E402

HOTPOTQA = Path(__file__).resolve().parents[1] / ".." / "shared" / "datasets" / "hotpotqa-100"
VECTOR_STAGES = ("enrich", "embed", "sparse")


def _graph_run(settings: Settings, run_id: str) -> tuple[float, dict, dict]:
    started = time.perf_counter()
    record = registry.stage("graph").run(RunContext(settings, run_id), None)
    seconds = time.perf_counter() - started
    data = load_graph_tables(settings.home / "tables")
    return seconds, record.__dict__, {name: t.to_pylist() for name, t in data.items()}


def _counts(data: dict) -> dict:
    levels = collections.Counter(c["level"] for c in data["communities"])
    return {"entities": len(data["entities"]), "relationships": len(data["relationships"]),
            "communities_per_level": dict(sorted(levels.items())), "reports": len(data["community_reports"])}


def sample(home: Path) -> dict:
    settings = Settings(home=home, source=SAMPLE_SOURCE)
    record = run_index(settings)
    vector = sum(record.stage_seconds.get(s, 0.0) for s in VECTOR_STAGES)
    seconds, _, data = _graph_run(settings, record.run_id)
    again, stage, _ = _graph_run(settings, record.run_id + "b")
    return {"corpus": "sample", "chunks": record.chunks, "vector_s": round(vector, 2),
            "graph_s": round(seconds, 2), "ratio": round(seconds / vector, 3),
            "graph_rerun_s": round(again, 2), "rerun_extracted": stage["processed"], **_counts(data)}


def _vector(settings: Settings, run_id: str) -> float:
    ctx = RunContext(settings, run_id)
    started = time.perf_counter()
    for name in VECTOR_STAGES:
        registry.stage(name).run(ctx, None)
    return time.perf_counter() - started


def hotpotqa(home: Path) -> tuple[dict, dict]:
    data = load_beir(HOTPOTQA)
    settings = Settings(home=home)
    write_beir_tables(data, LakePaths(home))
    vector = _vector(settings, "run_hq1")
    seconds, _, first = _graph_run(settings, "run_hq1")
    row = {"corpus": "hotpotqa-100", "chunks": len(data.corpus), "vector_s": round(vector, 2),
           "graph_s": round(seconds, 2), "ratio": round(seconds / vector, 3), **_counts(first)}
    # Edit one passage (the middle one): a sentence that names a new organisation.
    doc = data.corpus[len(data.corpus) // 2]
    doc["text"] = doc["text"].replace(".", ", according to the Hotpot Review Board.", 1)
    write_beir_tables(data, LakePaths(home))
    vector_edit = _vector(settings, "run_hq2")
    seconds_edit, stage, second = _graph_run(settings, "run_hq2")
    before = {c["community_id"] for c in first["communities"]}
    after = {c["community_id"] for c in second["communities"]}
    first_top = {c["community_id"] for c in first["communities"] if c["level"] == 0}
    warm_top = {c["community_id"] for c in second["communities"] if c["level"] == 0}
    cold = cluster(build_graph(second["relationships"]), [], set())
    cold_top = {c.community_id for c in cold if c.level == 0}
    edit = {"edited_passage": doc["_id"], "vector_s": round(vector_edit, 2),
            "graph_s": round(seconds_edit, 2), "chunks_reextracted": stage["processed"],
            "reports_regenerated": stage["usage"]["reports_regenerated"],
            "reports_total": len(second["community_reports"]), "communities_kept": len(before & after),
            "communities_before": len(before), "level0_kept_warm": len(first_top & warm_top),
            "level0_kept_cold": len(first_top & cold_top), "level0_before": len(first_top)}
    return row, edit


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--skip-sample", action="store_true")
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    model = Settings().index.embedding_model
    rows = []
    with tempfile.TemporaryDirectory(prefix="lakerag-graph-bench-") as tmp:
        if not args.skip_sample:
            rows.append(sample(Path(tmp) / "sample"))
            shutil.rmtree(Path(tmp) / "sample", ignore_errors=True)
        row, edit = hotpotqa(Path(tmp) / "hotpotqa")
        rows.append(row)
    print(f"embedding model: {model}")
    print_table(rows, ["corpus", "chunks", "vector_s", "graph_s", "ratio", "entities", "relationships",
                       "communities_per_level", "reports"])
    print()
    print_table([edit], ["edited_passage", "vector_s", "graph_s", "chunks_reextracted", "reports_regenerated",
                         "reports_total", "communities_kept", "communities_before", "level0_kept_warm",
                         "level0_kept_cold", "level0_before"])
    path = save("graph", {"embedding_model": model, "corpora": rows, "one_passage_edit": edit,
                          "graspologic_native": metadata.version("graspologic-native"),
                          "networkx": metadata.version("networkx"), "peak_rss_mb": round(peak_rss_mb())})
    print(f"\nwrote {path}")


if __name__ == "__main__":
    main()
