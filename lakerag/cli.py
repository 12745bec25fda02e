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

from pydantic import ValidationError

from lakehouse.errors import LakeragError
from lakehouse.paths import LakePaths
from lakehouse.settings import Settings, read_settings
from lakehouse.snapshots import list_snapshots, rollback


def _settings(args: argparse.Namespace) -> Settings:
    overrides = {k: v for k, v in (("home", args.home), ("source", getattr(args, "source", None))) if v}
    return read_settings(**overrides)


def _cmd_index(args: argparse.Namespace) -> int:
    from lakerag.report import print_run_summary
    from transforms.pipeline import run_index

    settings = _settings(args)
    if args.quiet:
        record = run_index(settings)
    else:
        from rich.progress import Progress

        with Progress(transient=True) as bar:
            task = bar.add_task("discover", total=None)

            def hook(stage: str, done: int, total: int) -> None:
                bar.update(task, description=stage, completed=done, total=total)

            record = run_index(settings, progress=hook)
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


def _cmd_search(args: argparse.Namespace) -> int:
    from lakerag.report import print_hits
    from serving.search.service import search_home

    settings = _settings(args)
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
    if args.answers:
        from lakerag.report import print_answer_eval
        from serving.evaluation.report import run_answer_eval

        print_answer_eval(run_answer_eval(_settings(args), args.dataset, args.work, PipelineIndexer(), modes,
                                          args.limit, args.json, args.llm_judge))
        return 0
    result = run_eval(_settings(args), args.dataset, args.work, PipelineIndexer(), args.enrichment, args.limit,
                      args.json, modes)
    print_eval(result)
    return 0


def _cmd_snapshots(args: argparse.Namespace) -> int:
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
    from serving.answers.console import ask, print_answer, to_json

    groups = {g.strip() for g in (args.groups or "").split(",") if g.strip()}
    answer = ask(_settings(args), args.question, args.mode, groups, args.top_k)
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
    print(examples(settings, args.host, args.port), flush=True)
    serve(settings, args.host, args.port)
    return 0


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
    evaluate.add_argument("--llm-judge", action="store_true",
                          help="with --answers: also label with the configured LLM and report agreement")
    evaluate.add_argument("--home", type=Path, help="data root (default: $LAKERAG_HOME or ./var)")
    evaluate.set_defaults(func=_cmd_eval)
    snaps = sub.add_parser("snapshots", help="list published snapshots or roll back to one")
    snaps.add_argument("action", choices=["list", "rollback"])
    snaps.add_argument("id", nargs="?", help="snapshot id (for rollback)")
    snaps.add_argument("--home", type=Path, help="data root (default: $LAKERAG_HOME or ./var)")
    snaps.add_argument("--json", action="store_true")
    snaps.set_defaults(func=_cmd_snapshots)
    query = sub.add_parser("query", help="answer a question with cited sources (in-process, no server)")
    query.add_argument("question")
    query.add_argument("--mode", choices=["auto", "basic", "local", "global", "hybrid", "catalog"], default="auto")
    query.add_argument("--groups", help="comma-separated access groups of the caller (public is implied)")
    query.add_argument("--top-k", type=int, default=8)
    query.add_argument("--home", type=Path, help="data root (default: $LAKERAG_HOME or ./var)")
    query.add_argument("--json", action="store_true", help="print the answer as one JSON object")
    query.set_defaults(func=_cmd_query)
    serve = sub.add_parser("serve", help="serve the query API and the analysts' page (uvicorn)")
    serve.add_argument("--host", help="interface to bind (default: 127.0.0.1, or LAKERAG_API_HOST)")
    serve.add_argument("--port", type=int, help="port (default: 8000, or LAKERAG_API_PORT)")
    serve.add_argument("--workers", type=int, help="worker processes (default: 1, or LAKERAG_API_WORKERS)")
    serve.add_argument("--home", type=Path, help="data root (default: $LAKERAG_HOME or ./var)")
    serve.set_defaults(func=_cmd_serve)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    try:
        return int(args.func(args))
    except ValidationError as exc:
        first = exc.errors()[0]
        field = ".".join(str(p) for p in first["loc"])
        print(f"lakerag: error: invalid setting LAKERAG_{field.upper()}: {first['msg']}", file=sys.stderr)
    except LakeragError as exc:
        print(f"lakerag: error: {exc}", file=sys.stderr)
    except KeyboardInterrupt:
        print("lakerag: interrupted; rerun to resume", file=sys.stderr)
        return 130
    return 2


if __name__ == "__main__":
    sys.exit(main())
