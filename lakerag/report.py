"""Human and machine summaries of the lakehouse: ``lakerag status`` and the end-of-run table."""

from __future__ import annotations

import json
from collections import Counter

import pyarrow.parquet as pq

from lakehouse import schemas as s
from lakehouse.paths import LakePaths
from lakehouse.runs import RunRecord, last_run, load_stage_records
from lakehouse.settings import Settings
from lakehouse.snapshots import current_id
from lakehouse.storage import read_table

_LAST_RUN_KEYS = ("run_id", "new", "changed", "moved", "deleted", "unchanged", "extracted", "chunked",
                  "quarantined", "seconds", "finished_at")


def status(settings: Settings) -> dict:
    """Counts of documents by status, chunks, quarantine reasons, the last run and the published snapshot."""
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
        "published_snapshot": current_id(paths),
    }


def print_status(data: dict) -> None:
    from rich.console import Console

    console = Console(soft_wrap=True)  # whole lines in a pipe or a file
    docs = data["documents"]
    console.print(f"[bold]lakehouse[/] {data['home']}")
    console.print(f"documents: {docs['active']} active, {docs['deleted']} deleted, "
                  f"{docs['quarantined']} quarantined; chunks: {data['chunks']}")
    console.print(f"published snapshot: {data['published_snapshot'] or 'none yet (lakerag index publishes one)'}",
                  highlight=False)
    if run := data["last_run"]:
        console.print("last run " + ", ".join(f"{k}={run[k]}" for k in _LAST_RUN_KEYS if k != "finished_at"))
    for item in data["quarantine"]:
        console.print(f"  [yellow]quarantined[/] {item['path']}: {item['reason']} ({item['stage']})")


def print_run_summary(record: RunRecord, settings: Settings) -> None:
    """The end of ``lakerag index``: stage times, then the counts as sums that add up, each said once. Lines are
    never wrapped (a pipe or a file gets whole lines; a terminal folds them itself)."""
    from rich.console import Console
    from rich.table import Table

    console = Console(soft_wrap=True, highlight=False)
    published = f"; published snapshot {record.snapshot_id}" if record.snapshot_id else ""
    console.print(f"[bold]run {record.run_id}[/] finished in {record.seconds:.1f} s{published}")
    table = Table()
    table.add_column("stage")
    table.add_column("seconds", justify="right")
    for stage, seconds in record.stage_seconds.items():
        table.add_row(stage, f"{seconds:.2f}")
    console.print(table, soft_wrap=False)
    for line in reconciled_lines(record, LakePaths(settings.home)):
        console.print(line, markup=False)
    if settings.index.pages_model is None:
        from transforms.stages.pages import SKIPPED

        console.print(SKIPPED, markup=False)
    for message in record.errors[:10]:
        console.print("  [yellow]warning[/] ", end="")
        console.print(message, markup=False)
    if len(record.errors) > 10:
        console.print(f"  ... and {len(record.errors) - 10} more in runs/{record.run_id}/run.json", markup=False)
    console.print(f"details: lakerag status --home {settings.home}", markup=False)


def print_follow_up(earlier: list[str], rewritten: str | None) -> None:
    """Under an in-process follow-up's answer: what it followed and what retrieval searched for."""
    if earlier:
        print(f"follow-up of: {' / '.join(earlier)}")
    if rewritten:
        print(f"searched as: {rewritten}")


def reconciled_lines(record: RunRecord, paths: LakePaths) -> list[str]:
    """The run's counts as sums that add up (docs/operations.md, "Reading the run summary"):

    - files in the source = new + changed + moved + unchanged + refused at discovery (deleted ones are gone);
    - those same documents = active + quarantined (extraction failures and discovery refusals together);
    - chunks = distinct chunk texts + chunks sharing a text; each distinct text has one vector, embedded in
      this run or reused from the cache.
    """
    plan_path = paths.plan(record.run_id)
    refused = 0
    if plan_path.exists():
        refused = pq.read_table(plan_path, columns=["action"])["action"].to_pylist().count("quarantined")
    seen = record.new + record.changed + record.moved + record.unchanged + refused
    embeds = [r for r in load_stage_records(paths, record.run_id) if r.stage == "embed"]
    embed = next((r for r in embeds if r.part == "all"), None)  # the stage (the merge, after any shards)
    lines = [
        f"files: {seen} in the source = {record.new} new + {record.changed} changed + {record.moved} moved + "
        f"{record.unchanged} unchanged + {refused} refused at discovery; {record.deleted} deleted",
        f"documents: {record.documents_active + record.quarantined} = {record.documents_active} active + "
        f"{record.quarantined} quarantined ({refused} at discovery, {record.quarantined - refused} later); "
        f"extracted {record.extracted}, chunked {record.chunked} in this run",
    ]
    if embed is not None:
        distinct, now = embed.processed + embed.skipped, sum(r.processed for r in embeds)  # shards' included
        lines.append(f"chunks: {record.chunks} = {distinct} distinct texts + {record.chunks - distinct} sharing a "
                     f"text; vectors: {distinct} = {now} embedded now + {distinct - now} from the cache")
    else:
        lines.append(f"chunks: {record.chunks}")
    return lines


def print_hits(hits: list, timings: dict[str, float]) -> None:
    from rich.console import Console

    console = Console(soft_wrap=True)
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
    for variant, fusion in (result.get("calibration") or {}).items():
        if fusion:
            console.print(f"calibrated dense weight ({variant}): {fusion['value']} "
                          f"({'adopted' if fusion.get('fitted') else 'not adopted'}: {fusion.get('reason', '')}); "
                          f"fixed default {result.get('fixed_default', '')}")
    default = result["configs"].get(result["default"], {})
    for kind, values in (default.get("by_kind") or {}).items():
        console.print(f"  {result['default']} {kind}: {values}")
    for mode, metrics in (result.get("modes") or {}).get("modes", {}).items():
        console.print(f"mode {mode}: {metrics}")
    if "refusal" in result:
        console.print(f"refusal: {result['refusal']}")
    if visual := result.get("visual"):
        console.print(f"visual questions ({visual['questions']}, answers only in chart images; pages model: "
                      f"{visual['pages_model'] or 'none'}):")
        for name, metrics in visual["configs"].items():
            console.print(f"  {name}: {metrics}")
        if "note" in visual:
            console.print(f"  {visual['note']}")


def print_erasure_plan(plan) -> None:
    """The dry run of ``lakerag erase``: what would go (shown to the operator, never logged or recorded)."""
    print(f"dry run: {plan.kind} erasure would remove {json.dumps(plan.summary())}")
    for name in sorted(plan.entities.values()):
        print(f"  entity: {name}")
    for path in plan.paths:
        print(f"  document: {path}")
    if plan.kind == "subject":
        print(f"  spellings searched: {', '.join(sorted(plan.needles))}")
    print("rerun with --yes to erase; remove or correct these files in the source folder too")


def print_answer_eval(result: dict) -> None:
    """The label table of ``lakerag eval --answers`` (or, for a BEIR set, gold answers contained per mode)."""
    from serving.evaluation.answer_sets import answer_set_table
    from serving.evaluation.labels import table

    split = f", split {result['split']}" if result.get("split") else ""
    print(f"{result.get('dataset', '')}: answers, {result.get('questions', '')} questions{split}, commit "
          f"{result.get('commit', '')}, model {result['settings']['embedding_model']}")
    print(answer_set_table(result) if result.get("gold") == "answers.jsonl" else table(result))
    if "variants" in result:
        from serving.evaluation.variants import variants_table

        print(variants_table(result["variants"], result.get("split", "all")))
