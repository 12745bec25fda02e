"""Tuning and measuring the refusal threshold on a labelled question set (``questions.jsonl``: question,
groups, answerable).

Each question is asked as its labelled caller would ask it (auto mode; questions routed to the catalog or to
global search are left out: the first are answered from metadata, the second refused only without evidence).
A question is refused when a code it names is unreadable, or when the relevance of its evidence is below the
threshold. Refusal precision = refused and unanswerable / refused; recall = refused and unanswerable /
unanswerable. The threshold chosen is the middle of the grid's best-F1 run::

    python -m serving.answers.calibration --home var [--questions sample_corpus/questions.jsonl]
"""

from __future__ import annotations

import argparse
import json
from dataclasses import dataclass
from pathlib import Path

import msgspec

from serving.answers.access import Caller
from serving.answers.service import AnswerService
from serving.answers.types import QueryRequest


@dataclass
class Case:
    id: str
    answerable: bool
    relevance: float
    missing_code: bool


def measure(service: AnswerService, questions: list[dict]) -> list[Case]:
    cases = []
    for q in questions:
        caller = Caller("calibration", frozenset(q.get("groups") or ()))
        request = msgspec.convert({"question": q["question"], "mode": "auto"}, QueryRequest)
        state = service.prepare(request, caller)
        if state.mode_used in ("catalog", "global"):  # not decided by the threshold
            continue
        missing = any(w.startswith("no readable document contains") for w in state.retrieved.warnings)
        cases.append(Case(q["id"], bool(q["answerable"]), float(state.relevance or 0.0), missing))
    return cases


def score(cases: list[Case], threshold: float) -> dict:
    refused = [c for c in cases if c.missing_code or c.relevance < threshold]
    unanswerable = [c for c in cases if not c.answerable]
    hits = [c for c in refused if not c.answerable]
    precision = len(hits) / len(refused) if refused else 1.0
    recall = len(hits) / len(unanswerable) if unanswerable else 1.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {"threshold": round(threshold, 3), "refused": len(refused), "precision": round(precision, 3),
            "recall": round(recall, 3), "f1": round(f1, 3),
            "false_refusals": sorted(c.id for c in refused if c.answerable),
            "missed": sorted(c.id for c in unanswerable if c not in refused)}


GRID = [round(0.2 + 0.005 * i, 3) for i in range(81)]


def tune(cases: list[Case], grid: list[float] = GRID) -> tuple[dict, list[dict]]:
    """The threshold in the middle of the best-F1 run of the grid, with its scores; and the whole table."""
    table = [score(cases, t) for t in grid]
    top = max(row["f1"] for row in table)
    tied = [row["threshold"] for row in table if row["f1"] == top]
    middle = tied[len(tied) // 2]
    return score(cases, middle), table


def cross_validate(cases: list[Case]) -> dict:
    """Leave-one-out: each question is judged by the threshold tuned on all the others."""
    refused_ok = refused = unanswerable = 0
    for i, case in enumerate(cases):
        threshold = tune(cases[:i] + cases[i + 1:])[0]["threshold"]
        is_refused = case.missing_code or case.relevance < threshold
        refused += is_refused
        refused_ok += is_refused and not case.answerable
        unanswerable += not case.answerable
    return {"precision": round(refused_ok / refused, 3) if refused else 1.0,
            "recall": round(refused_ok / unanswerable, 3) if unanswerable else 1.0}


def main() -> None:
    from lakehouse.settings import Settings
    from serving.answers.reloader import SnapshotHolder

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--home", type=Path)
    parser.add_argument("--questions", type=Path, default=Path("sample_corpus/questions.jsonl"))
    args = parser.parse_args()
    settings = Settings(**({"home": args.home} if args.home else {}))
    holder = SnapshotHolder(settings)
    holder.refresh()
    holder.require()
    questions = [json.loads(line) for line in args.questions.read_text(encoding="utf-8").splitlines() if line]
    cases = measure(AnswerService(holder), questions)
    best, table = tune(cases)
    print(json.dumps({"snapshot_id": holder.engine.snapshot_id, "cases": len(cases), "best": best,
                      "leave_one_out": cross_validate(cases),
                      "table": [{k: v for k, v in row.items() if k not in ("false_refusals", "missed")}
                                for row in table[::4]]}, ensure_ascii=False, indent=1))


if __name__ == "__main__":
    main()
