"""The ``lakerag`` command. Exit code 0 on success (quarantined files included), 2 on a failure of the run
itself (bad settings, unreadable source), with a one-line reason on stderr.

The subcommands live in ``lakerag.commands`` (``eval`` here, beside its options), what their arguments accept in
``lakerag.arguments``. Each subcommand imports what it runs inside its function, on purpose: the index side,
torch, litestar and dbt take seconds to import, and ``lakerag --help`` or ``lakerag status`` should not pay for
them. This is the top floor, so these imports only ever point down."""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from lakehouse.errors import ConfigError, LakeragError
from lakerag import arguments as a
from lakerag import commands as c

_settings = c.settings_of  # the settings of a command: the environment, --home and --source


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
                                          args.limit, args.json, args.llm_judge, args.split, args.variants,
                                          args.skip))
        return 0
    if args.skip:
        raise ConfigError("--skip: only with --answers on a BEIR set with answers.jsonl")
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


def _remote_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--server", metavar="URL", help="ask this running API instead of loading the index "
                        "(default: LAKERAG_API_URL; groups then come from --api-key)")
    parser.add_argument("--api-key", help="X-API-Key sent to --server (its groups apply)")
    parser.add_argument("--local", action="store_true", help="answer in-process even when LAKERAG_API_URL is set")


def build_parser() -> argparse.ArgumentParser:
    parser = a.Parser(prog="lakerag", description="Document RAG over a Parquet lakehouse.")
    parser.add_argument("-v", "--verbose", action="store_true", help="log at INFO level")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=a.Parser)
    index = sub.add_parser("index", help="run every stage over the source folder (incremental), then publish "
                           "the snapshot", description=a.INDEX_DESCRIPTION)
    index.add_argument("--source", type=Path, help="folder to ingest (default: the bundled sample corpus)")
    index.add_argument("--home", type=Path, help="data root (default: $LAKERAG_HOME or ./var)")
    index.add_argument("--quiet", action="store_true", help="no progress display")
    index.set_defaults(func=c.cmd_index)
    stat = sub.add_parser("status", help="documents, chunks and the last run")
    stat.add_argument("--home", type=Path, help="data root (default: $LAKERAG_HOME or ./var)")
    stat.add_argument("--json", action="store_true", help="print one JSON object")
    stat.set_defaults(func=c.cmd_status)
    search = sub.add_parser("search", help="ranked chunks for a question (hybrid retrieval)")
    search.add_argument("question", type=a.question, help="the question, in Portuguese or English")
    search.add_argument("--groups", help="comma-separated access groups of the caller (public is implied)")
    search.add_argument("--top-k", type=a.bounded(1, 100), default=10)
    search.add_argument("--method", choices=["hybrid", "dense", "bm25"], default="hybrid")
    search.add_argument("--home", type=Path, help="data root (default: $LAKERAG_HOME or ./var)")
    search.add_argument("--json", action="store_true", help="print one JSON object")
    _remote_flags(search)
    search.set_defaults(func=c.cmd_search)
    evaluate = sub.add_parser("eval", help="score retriever configurations on a BEIR folder or question set")
    evaluate.add_argument("--dataset", type=Path, required=True,
                          help="a BEIR folder (corpus.jsonl, queries.jsonl, qrels/test.tsv) or sample_corpus/")
    evaluate.add_argument("--json", type=Path, help="also write the results here")
    evaluate.add_argument("--work", type=Path, help="where eval indexes are cached (default: $LAKERAG_HOME/eval)")
    evaluate.add_argument("--enrichment", choices=["both", "on", "off"], default="both")
    evaluate.add_argument("--limit", type=int, help="evaluate only the first N queries")
    evaluate.add_argument("--skip", type=int, default=0,
                          help="with --answers on a BEIR set: leave out the first N questions (sorted by id), e.g. "
                          "FaQuAD-pt's first 30, the reported ones, while trying a change on the next ones")
    evaluate.add_argument("--modes", help="also compare query modes, e.g. basic,local,hybrid,agentic "
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
    snaps.set_defaults(func=c.cmd_snapshots)
    query = sub.add_parser("query", help="answer a question with cited sources (in-process, or ask a server)",
                           description=a.QUERY_DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter)
    query.add_argument("question", type=a.question, help="the question, in Portuguese or English")
    query.add_argument("--mode", choices=["auto", "basic", "local", "global", "hybrid", "catalog", "agentic"],
                       default="auto", help="how to find the evidence (see above; default: auto)")
    query.add_argument("--follow-up", metavar="EARLIER", type=a.question, action="append", default=[],
                       help="an earlier question this one follows up (repeat for more turns, oldest first)")
    query.add_argument("--conversation-id", metavar="ID",
                       help="with --server: continue the conversation whose id an earlier answer printed")
    query.add_argument("--groups", help="comma-separated access groups of the caller (public is implied)")
    query.add_argument("--top-k", type=a.bounded(1, 50), default=8, help="passages to retrieve (1-50, default 8)")
    query.add_argument("--home", type=Path, help="data root (default: $LAKERAG_HOME or ./var)")
    query.add_argument("--json", action="store_true", help="print the answer as one JSON object")
    _remote_flags(query)
    query.set_defaults(func=c.cmd_query)
    serve = sub.add_parser("serve", help="serve the query API and the analysts' page (uvicorn)")
    serve.add_argument("--host", help="interface to bind (default: 127.0.0.1, or LAKERAG_API_HOST)")
    serve.add_argument("--port", type=a.bounded(1, 65535), help="port (default: 8000, or LAKERAG_API_PORT)")
    serve.add_argument("--workers", type=a.bounded(1, 64), help="worker processes (default: 1, or LAKERAG_API_WORKERS)")
    serve.add_argument("--home", type=Path, help="data root (default: $LAKERAG_HOME or ./var)")
    serve.set_defaults(func=c.cmd_serve)
    llm = sub.add_parser("llm", help="a local OpenAI-compatible model server (after `make llm`)")
    llm_sub = llm.add_subparsers(dest="llm_command", required=True, parser_class=a.Parser)
    llm_serve = llm_sub.add_parser("serve", help="serve a model shipped in a package with llama-cpp-python on "
                                   "127.0.0.1 (nothing downloaded; its file's sha256 checked first)")
    llm_serve.add_argument("--model", choices=["smollm2", "gemma3"], default="smollm2",
                           help="smollm2 (SmolLM2-135M-Instruct, default) or gemma3 (Gemma 3 270M, base model)")
    llm_serve.add_argument("--port", type=a.bounded(1, 65535), default=8080, help="port (default 8080)")
    llm_serve.add_argument("--n-ctx", type=a.bounded(256, 32768), default=2048,
                           help="context window in tokens (default 2048)")
    llm_serve.add_argument("--threads", type=a.bounded(1, 256), default=2, help="CPU threads (default 2)")
    llm_serve.set_defaults(func=c.cmd_llm_serve)
    gc = sub.add_parser("gc", help="purge retired content (deleted documents, old versions and snapshots) "
                        "past the retention")
    gc.add_argument("--retention-days", type=a.non_negative, help="days to keep retired content, 0 or more "
                    "(default: LAKERAG_RETENTION_DAYS, 30)")
    gc.add_argument("--requested-by", default=os.environ.get("USER", "gc"), help="who asked (for the receipt)")
    gc.add_argument("--home", type=Path, help="data root (default: $LAKERAG_HOME or ./var)")
    gc.add_argument("--json", action="store_true", help="print the receipt as one JSON object")
    gc.set_defaults(func=c.cmd_gc)
    erase = sub.add_parser("erase", help="remove a document, or everything mentioning a person, from every "
                           "table, cache and snapshot (dry run unless --yes)")
    erase.add_argument("--document", help="document id (every version)")
    erase.add_argument("--subject", help="a person's name, CPF or e-mail (case and accents ignored)")
    erase.add_argument("--pending", action="store_true", help="carry out the erasures queued through the API")
    erase.add_argument("--yes", action="store_true", help="erase (without it, only list what would go)")
    erase.add_argument("--requested-by", default=os.environ.get("USER", "operator"),
                       help="who asked (for the receipt)")
    erase.add_argument("--home", type=Path, help="data root (default: $LAKERAG_HOME or ./var)")
    erase.set_defaults(func=c.cmd_erase)
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
        hint = _RESUME.get(args.command)
        print(f"\nlakerag: interrupted{'; ' + hint if hint else ''}", file=sys.stderr)
        return 130
    except Exception as exc:
        if not _invalid_setting(exc):
            raise
    return 2


_RESUME = {"index": "run the same command again to resume this run: work already done is kept, and the "
                    "published snapshot is unchanged"}


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
