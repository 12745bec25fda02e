"""``lakerag eval --answers --dialogues``: two-turn dialogues of the sample set (``dialogues.jsonl``).

Each dialogue's first question is asked, then its second turn three ways, and each second answer is labelled by
the deterministic judge against the dialogue's gold (``expected_answer``, ``facts``, ``relevant_document_ids``,
the format of ``questions.jsonl``):

- ``rewritten``: the follow-up as asked, with the first turn as history, rewritten before retrieval;
- ``as_asked``: the same, with rewriting off (``rewrite: false``): what every question got before follow-ups;
- ``self_contained``: the ``self_contained`` form of the same question, asked alone (the target).

The result has the shape of ``lakerag eval --answers`` (one "mode" per condition), plus the gap in correct
answers between ``self_contained`` and ``rewritten``, in points.
"""

from __future__ import annotations

import json
import logging
from datetime import date
from pathlib import Path

import msgspec

from lakehouse.settings import Settings
from serving.answers import AnswerError, AnswerService, Caller, QueryRequest
from serving.answers.types import Answer, Turn
from serving.evaluation.answers import label_one, open_service, read_questions, sample_as_of
from serving.evaluation.indexer import Indexer
from serving.evaluation.labels import mode_summary

log = logging.getLogger(__name__)

CONDITIONS = ("rewritten", "as_asked", "self_contained")


def read_dialogues(path: Path) -> list[dict]:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    for n, row in enumerate(rows, start=1):
        missing = [k for k in ("first", "question", "self_contained") if not row.get(k)]
        if missing:
            raise ValueError(f"{path}:{n}: a dialogue needs {', '.join(missing)}")
    return rows


def _ask(service: AnswerService, caller: Caller, body: dict, rid: str) -> Answer | str:
    try:
        return service.query(msgspec.convert(body, QueryRequest), caller, rid)
    except AnswerError as exc:
        return f"{type(exc).__name__}: {exc}"


def second_turns(service: AnswerService, row: dict, mode: str, as_of: date | None) -> dict[str, Answer | str]:
    """The second turn's answer under each condition."""
    caller = Caller("eval", frozenset(row.get("groups") or ()))
    base = {"mode": mode, **({"as_of": as_of.isoformat()} if as_of else {})}
    first = _ask(service, caller, {**base, "question": row["first"]}, f"dlg-{row['id']}-1")
    history = [] if isinstance(first, str) else [msgspec.to_builtins(Turn(
        question=row["first"], answer=first.answer[:4000],
        cited_document_ids=list(dict.fromkeys(c.document_id for c in first.citations if c.document_id))))]
    follow = {**base, "question": row["question"], "history": history}
    return {"rewritten": _ask(service, caller, follow, f"dlg-{row['id']}-2"),
            "as_asked": _ask(service, caller, {**follow, "rewrite": False}, f"dlg-{row['id']}-2a"),
            "self_contained": _ask(service, caller, {**base, "question": row["self_contained"]},
                                   f"dlg-{row['id']}-2s")}


def evaluate_dialogues(service: AnswerService, dialogues: list[dict], mode: str = "auto",
                       as_of: date | None = None) -> dict:
    judged: dict[str, list] = {c: [] for c in CONDITIONS}
    rewrites = []
    for row in dialogues:
        answers = second_turns(service, row, mode, as_of)
        for condition, answer in answers.items():
            judged[condition].append(label_one(row, answer))
        got = answers["rewritten"]
        rewrites.append({"id": row["id"], "kind": row.get("kind", "-"), "question": row["question"],
                         "rewritten": None if isinstance(got, str) else got.rewritten_question})
        log.info("%s: %s", row["id"], {c: judged[c][-1].label for c in CONDITIONS})
    result: dict = {"default_mode": "rewritten", "mode": mode,
                    "modes": {c: mode_summary(judged[c]) for c in CONDITIONS}, "rewrites": rewrites}
    share = {c: result["modes"][c]["labels"] for c in CONDITIONS}
    result["gap_points"] = {
        "correct": round(100 * (share["self_contained"]["correct"] - share["rewritten"]["correct"]), 1),
        "correct_or_partly": round(100 * (share["self_contained"]["correct"] + share["self_contained"]["partly"]
                                          - share["rewritten"]["correct"] - share["rewritten"]["partly"]), 1)}
    return result


def evaluate_sample_dialogues(dataset: Path, settings: Settings, work: Path, indexer: Indexer, mode: str = "auto",
                              limit: int | None = None) -> dict:
    """Index ``dataset/documents`` into ``work/sample`` (shared with ``--answers``), then run the dialogues."""
    dialogues = read_dialogues(dataset / "dialogues.jsonl")[:limit] if limit else \
        read_dialogues(dataset / "dialogues.jsonl")
    vsettings = settings.replace(home=work / "sample", source=dataset / "documents")
    indexer.index_source(vsettings)
    service = open_service(vsettings)
    as_of = sample_as_of(read_questions(dataset / "questions.jsonl")) if (dataset / "questions.jsonl").exists() \
        else None
    result = evaluate_dialogues(service, dialogues, mode, as_of)
    result.update(dataset=dataset.name, dialogues=len(dialogues), questions=len(dialogues),
                  snapshot_id=service.holder.require().snapshot_id, kind="dialogues")
    return result
