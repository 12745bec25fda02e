"""What ``lakerag``'s arguments accept, checked before any command runs, and the one-line usage error that names
the argument at fault: ``lakerag query: error: argument question: must not be blank (see lakerag query --help)``,
exit code 2. Standard library only: ``lakerag --help`` and ``query --server`` must stay cheap."""

from __future__ import annotations

import argparse
import errno
import socket
import sys
from pathlib import Path
from typing import NoReturn

from lakehouse.errors import LakeragError

QUESTION_CHARS = 2000  # serving.answers.types.Question: the API refuses longer questions the same way

# What `lakerag index` runs, in order (transforms.registry.STAGES; tests/lakerag/test_cli_usage.py holds them equal).
INDEX_STAGES = ("discover", "land", "extract", "chunk", "commit", "enrich", "embed", "ann", "sparse", "graph",
                "describe", "pages", "snapshot")

INDEX_DESCRIPTION = (
    "Run every stage over the source folder, in order: " + ", ".join(INDEX_STAGES) + "; then publish the snapshot "
    "(the API switches to it; no evaluation gate here, the Airflow chain has one). Incremental: unchanged files "
    "cost nothing, and a run stopped part way (Ctrl-C, a crash) resumes when the same command is run again.")

QUERY_DESCRIPTION = """\
Answer a question from the published snapshot, citing its sources.

modes (--mode):
  auto     the default: governance questions go to catalog, corpus-wide ones
           to global, the rest to basic
  basic    hybrid retrieval: BM25 and dense vectors fused, passages graded
  local    the entities the question names, their relations and chunks
  global   graph communities ranked against the question, summarised from
           the chunks you may read
  hybrid   graph context and chunk retrieval together
  catalog  metadata only: expiring documents, owners, document types
  agentic  bounded multi-step retrieval: follow-up searches with the terms
           the evidence revealed

follow-ups:
  lakerag query "E o valor mensal?" --follow-up "Qual o objeto do contrato?"
      answers the earlier question first, then this one rewritten from it
      (in-process; repeat --follow-up for more turns, oldest first)
  lakerag query "E o valor mensal?" --server URL --conversation-id ID
      continues the server's conversation ID (printed under each answer)"""


class UsageError(LakeragError):
    """A command-line argument the command cannot use; the message names it."""


class Parser(argparse.ArgumentParser):
    """An ``ArgumentParser`` whose errors are one line naming the argument, then where help is."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def question(text: str) -> str:
    """A question as the API accepts it: not blank, at most ``QUESTION_CHARS`` characters."""
    if not text.strip():
        raise argparse.ArgumentTypeError("must not be blank")
    if len(text) > QUESTION_CHARS:
        raise argparse.ArgumentTypeError(f"{len(text)} characters; at most {QUESTION_CHARS}")
    return text


def non_negative(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not value >= 0:  # also refuses nan
        raise argparse.ArgumentTypeError(f"must be 0 or more, not {text}")
    return value


def bounded(low: int, high: int):
    """An integer argument between ``low`` and ``high`` (inclusive)."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"must be from {low} to {high}, not {value}")
        return value

    parse.__name__ = "integer"
    return parse


def existing_home(home: Path) -> Path:
    """A data root that commands reading the lakehouse need: it must exist (``index`` creates it)."""
    if not home.is_dir():
        what = "is not a folder" if home.exists() else "does not exist"
        raise UsageError(f"home {home} {what}: index into it first (lakerag index --home {home}) or pass the "
                         "--home of an indexed lakehouse (default: $LAKERAG_HOME or ./var)")
    return home


def check_port_free(host: str, port: int) -> None:
    """Fail in one line before the server starts when ``host:port`` is taken or cannot be bound."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        if sys.platform != "win32":
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn binds: TIME_WAIT is no obstacle
        try:
            probe.bind((host, port))
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                raise UsageError(f"port {port} on {host} is already in use (another lakerag serve?); stop it, or "
                                 "choose another with --port or LAKERAG_API_PORT") from None
            raise UsageError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
