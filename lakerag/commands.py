"""What each ``lakerag`` subcommand does, except ``eval`` (in ``lakerag.cli`` beside its options). Each imports
what it runs inside its function, on purpose: the index side, torch, litestar and dbt take seconds to import, and
``lakerag --help``, ``lakerag status`` or ``query --server`` should not pay for them."""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from typing import TYPE_CHECKING

from lakerag import arguments as a

if TYPE_CHECKING:
    from lakehouse.settings import Settings

def settings_of(args: argparse.Namespace) -> Settings:
    from lakehouse.settings import read_settings  # deferred: pydantic; `query --server` never builds settings

    overrides = {k: v for k, v in (("home", args.home), ("source", getattr(args, "source", None))) if v}
    return read_settings(**overrides)


def indexed(args: argparse.Namespace) -> Settings:
    """The settings of a command that reads the lakehouse: its home must exist (with LAKERAG_STORE, the bucket
    holds the lakehouse and the home is its local copy, made on first use)."""
    settings = settings_of(args)
    if settings.store:
        settings.home.mkdir(parents=True, exist_ok=True)
    a.existing_home(settings.home)
    return settings


def cmd_index(args: argparse.Namespace) -> int:
    from lakehouse.paths import LakePaths
    from lakehouse.runs import unfinished_run
    from lakerag.report import print_run_summary
    from transforms.pipeline import run_index

    settings = settings_of(args)
    if not args.quiet and (resumed := unfinished_run(LakePaths(settings.home))):
        print(f"resuming the interrupted run {resumed}", file=sys.stderr, flush=True)
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


def cmd_status(args: argparse.Namespace) -> int:
    from lakerag.report import print_status, status

    data = status(indexed(args))
    if args.json:
        print(json.dumps(data, ensure_ascii=False, default=str))
    else:
        print_status(data)
    return 0


def server_of(args: argparse.Namespace) -> str | None:
    """The API to ask: ``--server``, else the ``LAKERAG_API_URL`` setting; ``--local`` (or none): in-process."""
    if args.local:
        return None
    from lakerag import remote

    return args.server or remote.configured_url()


def cmd_search(args: argparse.Namespace) -> int:
    if url := server_of(args):
        from lakerag import remote

        body = remote.search(url, args.question, args.method, args.top_k, args.api_key)
        print(remote.dumps(body)) if args.json else remote.print_hits(body)
        return 0
    settings = indexed(args)
    from lakerag.report import print_hits
    from serving.search.service import search_home

    groups = {g.strip() for g in (args.groups or "").split(",") if g.strip()}
    hits, timings, trace = search_home(settings, args.question, groups, args.top_k, args.method)
    if args.json:
        print(json.dumps({"query": args.question, "groups": sorted(groups), "timings_ms": timings,
                          "analysis_languages": list(trace.analysis_languages),
                          "hits": [h.__dict__ for h in hits]}, ensure_ascii=False, default=str))
    else:
        print_hits(hits, timings)
    return 0


def cmd_snapshots(args: argparse.Namespace) -> int:
    from lakehouse.mirror import pull
    from lakehouse.objectstore import store_of
    from lakehouse.paths import LakePaths
    from lakehouse.snapshots import list_snapshots, rollback

    settings = indexed(args)
    paths, store = LakePaths(settings.home), store_of(settings)
    if store is not None:  # the bucket's snapshots and pointer, before listing or moving it
        pull(store, paths)
    if args.action == "rollback":
        if not args.id:
            print("lakerag: error: snapshots rollback needs a snapshot ID", file=sys.stderr)
            return 2
        rollback(paths, args.id, store)
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


def cmd_query(args: argparse.Namespace) -> int:
    questions = [*args.follow_up, args.question]  # earlier questions first: each later one follows them up
    if url := server_of(args):
        from lakerag import remote

        body = remote.conversation(url, questions, args.mode, args.top_k, args.api_key, args.conversation_id)
        print(remote.dumps(body)) if args.json else remote.print_answer(body)
        return 0
    if args.conversation_id:
        raise a.UsageError("argument --conversation-id: needs --server (an in-process conversation ends with "
                           "the command); use --follow-up EARLIER_QUESTION instead")
    settings = indexed(args)
    from lakerag.conversation import ask_conversation
    from lakerag.report import print_follow_up
    from serving.answers.console import print_answer, to_json

    groups = {g.strip() for g in (args.groups or "").split(",") if g.strip()}
    answer = ask_conversation(settings, questions, args.mode, groups, args.top_k)[-1]
    if args.json:
        print(to_json(answer))
    else:
        if sys.stdout.isatty():
            print_answer(answer)  # rich: the status in colour, lines folded to the terminal
        else:  # a pipe or a file: whole lines, as --server prints them
            import msgspec

            from lakerag import remote

            remote.print_answer(msgspec.to_builtins(answer), server=False)
        print_follow_up(args.follow_up, answer.rewritten_question)
    return 0


def cmd_serve(args: argparse.Namespace) -> int:
    from serving.api.server import examples, serve

    settings = settings_of(args)
    if args.workers:
        os.environ["LAKERAG_API_WORKERS"] = str(args.workers)
        settings = settings.replace(api_workers=args.workers)
    a.check_port_free(args.host or settings.api.host, args.port or settings.api.port)
    print(examples(settings, args.host, args.port), flush=True)
    serve(settings, args.host, args.port)
    return 0


def cmd_llm_serve(args: argparse.Namespace) -> int:
    """Replace this process with llama-cpp-python's server for a shipped model (its PID is this command's)."""
    from models import llm_server

    a.check_port_free("127.0.0.1", args.port)
    argv = llm_server.command(args.model, args.port, n_ctx=args.n_ctx, threads=args.threads)
    env = llm_server.settings_env(args.model, args.port, args.n_ctx)
    print("lakerag llm: serving " + argv[argv.index("--model") + 1] + " (sha256 checked); point lakerag at it "
          "with\n  " + " ".join(f"{k}={v}" for k, v in env.items()) + "\nand keep the deterministic default of "
          "every step this model was measured to lose at (benchmarks/README.md) with\n  "
          + " ".join(f"{k}={v}" for k, v in llm_server.DETERMINISTIC_STEPS.items()), flush=True)
    os.execv(argv[0], argv)
    return 0  # not reached


def cmd_gc(args: argparse.Namespace) -> int:
    from transforms.purge import collect_garbage

    settings = indexed(args)
    if args.retention_days is not None:
        settings = settings.replace(retention_days=args.retention_days)
    receipt = collect_garbage(settings, requested_by=args.requested_by)
    print(json.dumps(receipt, ensure_ascii=False, default=str) if args.json else
          f"gc: retention {receipt['retention_days']} days; removed {json.dumps(receipt['removed'])}")
    return 0


def cmd_erase(args: argparse.Namespace) -> int:
    from lakerag.report import print_erasure_plan
    from transforms.purge import erase, plan_document, plan_subject, run_pending

    settings = indexed(args)
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
