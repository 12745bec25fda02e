"""``lakerag query --follow-up EARLIER``: a conversation answered in one process. The earlier questions are
answered first, oldest first, by the same service the API runs, and each later question continues their
conversation (``conversation_id``), so it is rewritten from the earlier turns exactly as the server would rewrite
it. The conversation ends with the command."""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from lakehouse.paths import LakePaths
from lakehouse.settings import Settings
from serving.answers.access import Caller
from serving.answers.engine import load_engine
from serving.answers.generation import Generator
from serving.answers.reloader import SnapshotHolder
from serving.answers.service import DEFAULT_MIN_RELEVANCE, AnswerService
from serving.answers.types import Answer, QueryRequest


def ask_conversation(settings: Settings, questions: Sequence[str], mode: str = "auto",
                     groups: set[str] | None = None, top_k: int = 8) -> list[Answer]:
    """The answer to each question in turn, each later one a follow-up of those before it."""
    # the engine as serving.answers.console.ask loads it: only what the mode needs
    holder = SnapshotHolder(settings, lambda snapshot_id: load_engine(settings, snapshot_id, holder.generator,
                                                                     mode=mode))
    holder.generator = Generator.from_settings(settings, LakePaths(settings.home).cache / "llm-answers")
    holder.refresh()
    service = AnswerService(holder, DEFAULT_MIN_RELEVANCE)
    caller = Caller("cli", frozenset(groups or ()))
    answers: list[Answer] = []
    for question in questions:
        body = {"question": question, "mode": mode, "top_k": top_k}
        if answers and answers[-1].conversation_id:
            body["conversation_id"] = answers[-1].conversation_id
        answers.append(service.query(msgspec.convert(body, QueryRequest), caller, "cli"))
    return answers
