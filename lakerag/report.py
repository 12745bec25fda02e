"""Human and machine summaries of the lakehouse: ``lakerag status`` and the end-of-run table."""

from __future__ import annotations

from collections import Counter

import pyarrow.parquet as pq

from lakehouse import schemas as s
from lakehouse.paths import LakePaths
from lakehouse.runs import RunRecord, last_run
from lakehouse.settings import Settings
from lakehouse.storage import read_table

_LAST_RUN_KEYS = ("run_id", "new", "changed", "moved", "deleted", "unchanged", "extracted", "chunked",
                  "quarantined", "seconds", "finished_at")


def status(settings: Settings) -> dict:
    """Counts of documents by status, chunks, quarantine reasons and the last run."""
    paths = LakePaths(settings.home)
    documents = read_table(paths.table("documents"), s.DOCUMENTS)
    current = documents.filter(documents["is_current"])
    by_status = Counter(current[s.STATUS].to_pylist())
    chunks_path = paths.table("chunks")
    chunks = pq.ParquetFile(chunks_path).metadata.num_rows if chunks_path.exists() else 0
    quarantine = read_table(paths.table("quarantine"), s.QUARANTINE)
    run = last_run(paths)
    return {
        "home": str(paths.home),
        "documents": {k: by_status[k] for k in (s.STATUS_ACTIVE, s.STATUS_DELETED, s.STATUS_QUARANTINED)},
        "document_versions": documents.num_rows,
        "chunks": chunks,
        "quarantine": [{k: q[k] for k in (s.PATH, "stage", "reason")} for q in quarantine.to_pylist()],
        "last_run": {k: run[k] for k in _LAST_RUN_KEYS} if run else None,
    }


def print_status(data: dict) -> None:
    from rich.console import Console

    console = Console()
    docs = data["documents"]
    console.print(f"[bold]lakehouse[/] {data['home']}")
    console.print(f"documents: {docs['active']} active, {docs['deleted']} deleted, "
                  f"{docs['quarantined']} quarantined; chunks: {data['chunks']}")
    if run := data["last_run"]:
        console.print("last run " + ", ".join(f"{k}={run[k]}" for k in _LAST_RUN_KEYS if k != "finished_at"))
    for item in data["quarantine"]:
        console.print(f"  [yellow]quarantined[/] {item['path']}: {item['reason']} ({item['stage']})")


def print_run_summary(record: RunRecord, settings: Settings) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console()
    console.print(f"[bold]run {record.run_id}[/] finished in {record.seconds:.1f} s")
    table = Table()
    table.add_column("stage")
    table.add_column("seconds", justify="right")
    for stage, seconds in record.stage_seconds.items():
        table.add_row(stage, f"{seconds:.2f}")
    console.print(table)
    console.print(
        f"changes: {record.new} new, {record.changed} changed, {record.moved} moved, "
        f"{record.deleted} deleted, {record.unchanged} unchanged; "
        f"extracted {record.extracted}, chunked {record.chunked}"
    )
    console.print(f"documents: {record.documents_active} active, {record.quarantined} quarantined; "
                  f"chunks: {record.chunks}  (details: lakerag status --home {settings.home})")
    for message in record.errors[:10]:
        console.print(f"  [yellow]warning[/] {message}", markup=True, highlight=False)
    if len(record.errors) > 10:
        console.print(f"  ... and {len(record.errors) - 10} more in runs/{record.run_id}/run.json")


def print_hits(hits: list, timings: dict[str, float]) -> None:
    from rich.console import Console

    console = Console()
    if not hits:
        console.print("no results (nothing readable by these groups matched)")
    for rank, hit in enumerate(hits, start=1):
        scores = " ".join(f"{k}={v:.3f}" for k, v in hit.scores.items())
        section = " > ".join(hit.heading_path)
        console.print(f"[bold]{rank}. {hit.title}[/] — {section}  [dim]{hit.path} p.{hit.pages} {hit.chunk_id}[/]")
        console.print(f"   [dim]{scores}[/]")
        console.print("   " + hit.text.split("\n", 1)[-1][:240].replace("\n", " "))
    console.print(f"[dim]timings (ms): {timings}[/]")


def print_eval(result: dict) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console(width=160)
    table = Table(title=f"{result['dataset']}: {result.get('queries', '')} queries, default {result['default']}")
    columns = sorted({k for m in result["configs"].values() for k in m if k != "by_kind"})
    table.add_column("configuration")
    for column in columns:
        table.add_column(column, justify="right")
    for name, metrics in result["configs"].items():
        marker = " *" if name == result["default"] else ""
        table.add_row(name + marker, *(str(metrics.get(c, "")) for c in columns))
    console.print(table)
    default = result["configs"].get(result["default"], {})
    for kind, values in (default.get("by_kind") or {}).items():
        console.print(f"  {result['default']} {kind}: {values}")
    for mode, metrics in (result.get("modes") or {}).get("modes", {}).items():
        console.print(f"mode {mode}: {metrics}")
    if "refusal" in result:
        console.print(f"refusal: {result['refusal']}")


def print_answer_eval(result: dict) -> None:
    """The label table of ``lakerag eval --answers`` (or, for a BEIR set, gold answers contained per mode)."""
    from serving.evaluation.answer_sets import answer_set_table
    from serving.evaluation.labels import table

    print(f"{result.get('dataset', '')}: answers, {result.get('questions', '')} questions, commit "
          f"{result.get('commit', '')}, model {result['settings']['embedding_model']}")
    print(answer_set_table(result) if "labels" not in next(iter(result["modes"].values()), {}) else table(result))
