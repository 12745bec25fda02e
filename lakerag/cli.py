"""The ``lakerag`` command. Exit code 0 on success (quarantined files included), 2 on a failure of the run
itself (bad settings, unreadable source), with a one-line reason on stderr.

Each subcommand imports what it runs inside its function, on purpose: the index side, torch, litestar and dbt
take seconds to import, and ``lakerag --help`` or ``lakerag status`` should not pay for them. This is the top
floor, so these imports only ever point down."""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from lakehouse.errors import LakeragError

if TYPE_CHECKING:
    from lakehouse.settings import Settings


def _settings(args: argparse.Namespace) -> Settings:
    from lakehouse.settings import read_settings  # deferred: pydantic; `query --server` never builds settings

    overrides = {k: v for k, v in (("home", args.home), ("source", getattr(args, "source", None))) if v}
    return read_settings(**overrides)


def _cmd_index(args: argparse.Namespace) -> int:
    from lakerag.report import print_run_summary
    from transforms.pipeline import run_index

    settings = _settings(args)
    if args.quiet:
        record = run_index(settings, progress=lambda *_: None)
    elif sys.stdout.isatty():
        from lakerag.progress_bar import stage_bars

        with stage_bars() as hook:
            record = run_index(settings, progress=hook)
    else:  # output to a file or a pipe: one log line per stage every N items or 10 s
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter("%(asctime)s %(message)s"))
        progress_log = logging.getLogger("transforms.progress")
        progress_log.addHandler(handler)
        saved = progress_log.level, progress_log.propagate
        progress_log.setLevel(logging.INFO)
        progress_log.propagate = False  # printed once, by this handler
        try:
            record = run_index(settings)
        finally:
            progress_log.removeHandler(handler)
            progress_log.setLevel(saved[0])
            progress_log.propagate = saved[1]
    print_run_summary(record, settings)
    return 0


def _cmd_status(args: argparse.Namespace) -> int:
    from lakerag.report import print_status, status

    data = status(_settings(args))
    if args.json:
        print(json.dumps(data, ensure_ascii=False, default=str))
    else:
        print_status(data)
    return 0


def _server(args: argparse.Namespace) -> str | None:
    """The API to ask: ``--server``, else the ``LAKERAG_API_URL`` setting; ``--local`` (or none): in-process."""
    if args.local:
        return None
    from lakerag import remote

    return args.server or remote.configured_url()


def _cmd_search(args: argparse.Namespace) -> int:
    if url := _server(args):
        from lakerag import remote

        body = remote.search(url, args.question, args.method, args.top_k, args.api_key)
        print(remote.dumps(body)) if args.json else remote.print_hits(body)
        return 0
    settings = _settings(args)
    from lakerag.report import print_hits
    from serving.search.service import search_home

    groups = {g.strip() for g in (args.groups or "").split(",") if g.strip()}
    hits, timings = search_home(settings, args.question, groups, args.top_k, args.method)
    if args.json:
        print(json.dumps({"query": args.question, "groups": sorted(groups), "timings_ms": timings,
                          "hits": [h.__dict__ for h in hits]}, ensure_ascii=False, default=str))
    else:
        print_hits(hits, timings)
    return 0


def _cmd_eval(args: argparse.Namespace) -> int:
    from lakerag.indexer import PipelineIndexer
    from lakerag.report import print_eval
    from serving.evaluation.report import run_eval

    modes = [m.strip() for m in (args.modes or "").split(",") if m.strip()]
    if args.dialogues:
        return _eval_dialogues(args, modes)
    if args.answers:
        from lakerag.report import print_answer_eval
        from serving.evaluation.report import run_answer_eval

        print_answer_eval(run_answer_eval(_settings(args), args.dataset, args.work, PipelineIndexer(), modes,
                                          args.limit, args.json, args.llm_judge, args.split, args.variants))
        return 0
    result = run_eval(_settings(args), args.dataset, args.work, PipelineIndexer(), args.enrichment, args.limit,
                      args.json, modes, args.pages)
    print_eval(result)
    return 0


def _eval_dialogues(args: argparse.Namespace, modes: list[str]) -> int:
    from lakehouse.paths import LakePaths
    from lakerag.indexer import PipelineIndexer
    from serving.evaluation.dialogues import evaluate_sample_dialogues
    from serving.evaluation.labels import table

    settings = _settings(args)
    result = evaluate_sample_dialogues(args.dataset, settings, args.work or LakePaths(settings.home).eval_work,
                                       PipelineIndexer(), (modes or ["auto"])[0], args.limit)
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(result, ensure_ascii=False, indent=1, default=str), encoding="utf-8")
    print(f"{result['dataset']}: {result['dialogues']} two-turn dialogues, second turns in mode {result['mode']}")
    print(table(result))
    gap = result["gap_points"]
    print(f"self-contained minus rewritten: {gap['correct']:+.1f} points correct, "
          f"{gap['correct_or_partly']:+.1f} points correct or partly")
    return 0


def _cmd_snapshots(args: argparse.Namespace) -> int:
    from lakehouse.paths import LakePaths
    from lakehouse.snapshots import list_snapshots, rollback

    paths = LakePaths(_settings(args).home)
    if args.action == "rollback":
        if not args.id:
            print("lakerag: error: snapshots rollback needs a snapshot ID", file=sys.stderr)
            return 2
        rollback(paths, args.id)
        print(f"published {args.id}")
        return 0
    snapshots = list_snapshots(paths)
    if args.json:
        print(json.dumps(snapshots, ensure_ascii=False, default=str))
    for snap in [] if args.json else snapshots:
        marker = "*" if snap["current"] else " "
        print(f"{marker} {snap['id']}  {snap['created_at']}  runs={','.join(snap.get('source_run_ids', []))}  "
              f"{json.dumps(snap.get('counts', {}))}")
    return 0


def _cmd_query(args: argparse.Namespace) -> int:
    if url := _server(args):
        from lakerag import remote

        body = remote.query(url, args.question, args.mode, args.top_k, args.api_key)
        print(remote.dumps(body)) if args.json else remote.print_answer(body)
        return 0
    settings = _settings(args)
    from serving.answers.console import ask, print_answer, to_json

    groups = {g.strip() for g in (args.groups or "").split(",") if g.strip()}
    answer = ask(settings, args.question, args.mode, groups, args.top_k)
    if args.json:
        print(to_json(answer))
    else:
        print_answer(answer)
    return 0


def _cmd_serve(args: argparse.Namespace) -> int:
    from serving.api.server import examples, serve

    settings = _settings(args)
    if args.workers:
        os.environ["LAKERAG_API_WORKERS"] = str(args.workers)
        settings = settings.replace(api_workers=args.workers)
    print(examples(settings, args.host, args.port), flush=True)
    serve(settings, args.host, args.port)
    return 0


def _cmd_gc(args: argparse.Namespace) -> int:
    from transforms.purge import collect_garbage

    settings = _settings(args)
    if args.retention_days is not None:
        settings = settings.replace(retention_days=args.retention_days)
    receipt = collect_garbage(settings, requested_by=args.requested_by)
    print(json.dumps(receipt, ensure_ascii=False, default=str) if args.json else
          f"gc: retention {receipt['retention_days']} days; removed {json.dumps(receipt['removed'])}")
    return 0


def _cmd_erase(args: argparse.Namespace) -> int:
    from lakerag.report import print_erasure_plan
    from transforms.purge import erase, plan_document, plan_subject, run_pending

    settings = _settings(args)
    if args.pending:
        for receipt in run_pending(settings):
            print(json.dumps(receipt, ensure_ascii=False, default=str))
        return 0
    if bool(args.document) == bool(args.subject):
        print("lakerag: error: erase needs exactly one of --document ID, --subject NAME, --pending", file=sys.stderr)
        return 2
    plan = plan_document(settings, args.document) if args.document else plan_subject(settings, args.subject)
    if not args.yes:
        print_erasure_plan(plan)
        return 0
    receipt = erase(settings, plan, args.requested_by)
    print(json.dumps(receipt, ensure_ascii=False, default=str))
    return 0 if receipt["files_still_mentioning"] == 0 else 1
def _remote_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--server", metavar="URL", help="ask this running API instead of loading the index "
                        "(default: LAKERAG_API_URL; groups then come from --api-key)")
    parser.add_argument("--api-key", help="X-API-Key sent to --server (its groups apply)")
    parser.add_argument("--local", action="store_true", help="answer in-process even when LAKERAG_API_URL is set")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="lakerag", description="Document RAG over a Parquet lakehouse.")
    parser.add_argument("-v", "--verbose", action="store_true", help="log at INFO level")
    sub = parser.add_subparsers(dest="command", required=True)
    index = sub.add_parser("index", help="ingest, extract and chunk the source folder (incremental)")
    index.add_argument("--source", type=Path, help="folder to ingest (default: the bundled sample corpus)")
    index.add_argument("--home", type=Path, help="data root (default: $LAKERAG_HOME or ./var)")
    index.add_argument("--quiet", action="store_true", help="no progress display")
    index.set_defaults(func=_cmd_index)
    stat = sub.add_parser("status", help="documents, chunks and the last run")
    stat.add_argument("--home", type=Path, help="data root (default: $LAKERAG_HOME or ./var)")
    stat.add_argument("--json", action="store_true", help="print one JSON object")
    stat.set_defaults(func=_cmd_status)
    search = sub.add_parser("search", help="ranked chunks for a question (hybrid retrieval)")
    search.add_argument("question")
    search.add_argument("--groups", help="comma-separated access groups of the caller (public is implied)")
    search.add_argument("--top-k", type=int, default=10)
    search.add_argument("--method", choices=["hybrid", "dense", "bm25"], default="hybrid")
    search.add_argument("--home", type=Path, help="data root (default: $LAKERAG_HOME or ./var)")
    search.add_argument("--json", action="store_true", help="print one JSON object")
    _remote_flags(search)
    search.set_defaults(func=_cmd_search)
    evaluate = sub.add_parser("eval", help="score retriever configurations on a BEIR folder or question set")
    evaluate.add_argument("--dataset", type=Path, required=True,
                          help="a BEIR folder (corpus.jsonl, queries.jsonl, qrels/test.tsv) or sample_corpus/")
    evaluate.add_argument("--json", type=Path, help="also write the results here")
    evaluate.add_argument("--work", type=Path, help="where eval indexes are cached (default: $LAKERAG_HOME/eval)")
    evaluate.add_argument("--enrichment", choices=["both", "on", "off"], default="both")
    evaluate.add_argument("--limit", type=int, help="evaluate only the first N queries")
    evaluate.add_argument("--modes", help="also compare query modes, e.g. basic,local,hybrid "
                          "(recall@10 and all_evidence@10 per mode)")
    evaluate.add_argument("--answers", action="store_true",
                          help="evaluate answers, not retrieval: label each answer correct / partly / wrong / "
                          "declined per mode (default mode: auto; BEIR sets with answers.jsonl: basic,hybrid)")
    evaluate.add_argument("--split", choices=["dev", "test", "all"], default="all",
                          help="with --answers: ask only this split's questions (test: the frozen held-out third; "
                          "default all)")
    evaluate.add_argument("--variants", action="store_true",
                          help="with --answers: also ask the dataset's variants.jsonl (reworded and English "
                          "questions) and compare them with their originals, per style and per language")
    evaluate.add_argument("--dialogues", action="store_true",
                          help="label the second turns of the dataset's dialogues.jsonl: rewritten, as asked, and "
                          "asked self-contained (first mode of --modes, default auto)")
    evaluate.add_argument("--llm-judge", action="store_true",
                          help="with --answers: also label with the configured LLM and report agreement")
    evaluate.add_argument("--pages", action="store_true", help="also score visual_questions.jsonl (answers only "
                          "in chart images) text-only against text + pages (needs LAKERAG_PAGES_MODEL)")
    evaluate.add_argument("--home", type=Path, help="data root (default: $LAKERAG_HOME or ./var)")
    evaluate.set_defaults(func=_cmd_eval)
    snaps = sub.add_parser("snapshots", help="list published snapshots or roll back to one")
    snaps.add_argument("action", choices=["list", "rollback"])
    snaps.add_argument("id", nargs="?", help="snapshot id (for rollback)")
    snaps.add_argument("--home", type=Path, help="data root (default: $LAKERAG_HOME or ./var)")
    snaps.add_argument("--json", action="store_true")
    snaps.set_defaults(func=_cmd_snapshots)
    query = sub.add_parser("query", help="answer a question with cited sources (in-process, or ask a server)")
    query.add_argument("question")
    query.add_argument("--mode", choices=["auto", "basic", "local", "global", "hybrid", "catalog", "agentic"],
                       default="auto")
    query.add_argument("--groups", help="comma-separated access groups of the caller (public is implied)")
    query.add_argument("--top-k", type=int, default=8)
    query.add_argument("--home", type=Path, help="data root (default: $LAKERAG_HOME or ./var)")
    query.add_argument("--json", action="store_true", help="print the answer as one JSON object")
    _remote_flags(query)
    query.set_defaults(func=_cmd_query)
    serve = sub.add_parser("serve", help="serve the query API and the analysts' page (uvicorn)")
    serve.add_argument("--host", help="interface to bind (default: 127.0.0.1, or LAKERAG_API_HOST)")
    serve.add_argument("--port", type=int, help="port (default: 8000, or LAKERAG_API_PORT)")
    serve.add_argument("--workers", type=int, help="worker processes (default: 1, or LAKERAG_API_WORKERS)")
    serve.add_argument("--home", type=Path, help="data root (default: $LAKERAG_HOME or ./var)")
    serve.set_defaults(func=_cmd_serve)
    gc = sub.add_parser("gc", help="purge retired content (deleted documents, old versions and snapshots) "
                        "past the retention")
    gc.add_argument("--retention-days", type=float, help="override LAKERAG_RETENTION_DAYS for this run")
    gc.add_argument("--requested-by", default=os.environ.get("USER", "gc"), help="who asked (for the receipt)")
    gc.add_argument("--home", type=Path, help="data root (default: $LAKERAG_HOME or ./var)")
    gc.add_argument("--json", action="store_true", help="print the receipt as one JSON object")
    gc.set_defaults(func=_cmd_gc)
    erase = sub.add_parser("erase", help="remove a document, or everything mentioning a person, from every "
                           "table, cache and snapshot (dry run unless --yes)")
    erase.add_argument("--document", help="document id (every version)")
    erase.add_argument("--subject", help="a person's name, CPF or e-mail (case and accents ignored)")
    erase.add_argument("--pending", action="store_true", help="carry out the erasures queued through the API")
    erase.add_argument("--yes", action="store_true", help="erase (without it, only list what would go)")
    erase.add_argument("--requested-by", default=os.environ.get("USER", "operator"),
                       help="who asked (for the receipt)")
    erase.add_argument("--home", type=Path, help="data root (default: $LAKERAG_HOME or ./var)")
    erase.set_defaults(func=_cmd_erase)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    try:
        return int(args.func(args))
    except LakeragError as exc:
        print(f"lakerag: error: {exc}", file=sys.stderr)
    except KeyboardInterrupt:
        print("lakerag: interrupted; rerun to resume", file=sys.stderr)
        return 130
    except Exception as exc:
        if not _invalid_setting(exc):
            raise
    return 2


def _invalid_setting(exc: Exception) -> bool:
    """Print a pydantic validation error as the invalid setting it names. pydantic is looked up, not imported:
    the --server path never loads it, and an exception cannot be an instance of a class never imported."""
    pydantic = sys.modules.get("pydantic")
    if pydantic is None or not isinstance(exc, pydantic.ValidationError):
        return False
    first = exc.errors()[0]
    field = ".".join(str(p) for p in first["loc"])
    print(f"lakerag: error: invalid setting LAKERAG_{field.upper()}: {first['msg']}", file=sys.stderr)
    return True


if __name__ == "__main__":
    sys.exit(main())
