"""Label the sample's multi-hop and must_read questions' answers per mode (basic, hybrid, agentic; no LLM) with
the deterministic judge of ``lakerag eval --answers``, over an already indexed home (no second indexing).

    PYTHONPATH=. python benchmarks/agentic_labels.py HOME     # e.g. the --home benchmarks/agentic.py built
"""

from __future__ import annotations

import collections
import json
import sys
from pathlib import Path

from serving.answers import AnswerService, QueryRequest, SnapshotHolder
from serving.answers.access import Caller
from serving.evaluation.judge import gold_of, judge
from tests.fixtures.api import settings_for

REPO = Path(__file__).resolve().parent.parent


def main(home: Path) -> None:
    holder = SnapshotHolder(settings_for(home))
    holder.refresh()
    service = AnswerService(holder)
    questions = [json.loads(line) for line in (REPO / "sample_corpus" / "questions.jsonl").read_text().splitlines()]
    labels: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    for q in questions:
        if q["kind"] != "multi_hop" and not q.get("must_read"):
            continue
        caller = Caller("bench", frozenset(q.get("groups") or []) | {"public"})
        line = [q["id"]]
        for mode in ("basic", "hybrid", "agentic"):
            answer = service.query(QueryRequest(question=q["question"], mode=mode), caller, "bench")
            verdict = judge(gold_of(q), answer.answer, answer.status,
                            {c.document_id for c in answer.citations if c.document_id})
            labels[mode][verdict.label] += 1
            line.append(f"{mode}={verdict.label}")
        print(*line)
    print({mode: dict(counts) for mode, counts in labels.items()})


if __name__ == "__main__":
    main(Path(sys.argv[1]))
