"""Where each answer of a split is decided: the stage that wrote it or refused, beside the judge's label, per
style (original, colloquial, ..., English), so that a change to the answer layer can be aimed at the stage that
loses the most answers, and a session does not have to rebuild this probe.

Every question of the split and its variants is prepared once (``AnswerService.prepare``, as ``lakerag eval
--answers`` asks it: auto mode, the question's groups, the sample's as-of date) and its answer written the way
the service writes it. The stage is one of:

- ``catalog``: a catalog question, answered from the document table;
- ``refused:no sources``: nothing retrieved the caller may read;
- ``refused:missing code``: the question names a code no readable document holds;
- ``refused:below``: every retrieved item graded below the refusal threshold;
- ``mode answer``: a mode wrote its own answer (the agentic comparison or bridge, global themes);
- ``refused:near miss``: the evidence covers the topic but not the asked fact (``synthesis.refusal``);
- ``composed``: the corrective composer wrote it from the graded evidence.

    .venv/bin/python benchmarks/answer_stages.py --home WORK/sample --split dev [--limit N]

``--home`` is a published sample snapshot (``lakerag eval --answers --work WORK`` builds WORK/sample). Prints a
table of stage x label per group (originals, rewordings in Portuguese, English renderings) and writes
benchmarks/results/answer-stages-<split>.json with every question's stage, label, the judge's reason and the
first 400 characters of its answer.
"""

from __future__ import annotations

import argparse
import collections
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))
from _common import save  # noqa: E402

LABELS = ("correct", "partly", "wrong", "declined")


def stage_of(service, state) -> tuple[str, object]:
    """(the stage that decides the answer, the draft it writes)."""
    from serving.answers import synthesis
    from serving.answers.synthesis import refusal
    if state.draft is not None:
        if state.catalog:
            return "catalog", state.draft
        if not state.retrieved.sources:
            return "refused:no sources", state.draft
        if any("no readable document contains" in w for w in state.retrieved.warnings):
            return "refused:missing code", state.draft
        return "refused:below", state.draft
    graded = synthesis.Graded.of(state, *service.thresholds(state.engine))
    stage = "composed"
    if graded.retrieved.mode_answer:
        stage = "mode answer"
    elif graded.request is not None and refusal.NearMiss().applies(graded.request,
                                                                   refusal.pool_of(graded.request)):
        stage = "refused:near miss"
    return stage, service.fallback(state)


def group_of(row: dict) -> str:
    if row.get("style", "original") == "original":
        return "originals"
    return "english" if row.get("language") == "en" or row.get("style") == "english" else "rewordings pt"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--home", type=Path, required=True)
    parser.add_argument("--dataset", type=Path, default=ROOT / "sample_corpus")
    parser.add_argument("--split", choices=("dev", "test"), default="dev")
    parser.add_argument("--limit", type=int, default=0)
    args = parser.parse_args()

    import msgspec

    from lakehouse.settings import Settings
    from serving.answers import Caller, QueryRequest
    from serving.evaluation.answers import label_one, open_service, read_questions, sample_as_of
    from serving.evaluation.splits import select_split
    from serving.evaluation.variants import read_variants

    every = read_questions(args.dataset / "questions.jsonl")
    rows = select_split(every, args.split, args.dataset / "questions.jsonl")
    rows += [v for v in read_variants(args.dataset / "variants.jsonl") if v.get("split") == args.split]
    rows = rows[:args.limit] if args.limit else rows
    service = open_service(Settings().replace(home=args.home, source=args.dataset / "documents"))
    as_of = sample_as_of(every)
    out = []
    for row in rows:
        request = msgspec.convert({"question": row["question"], "mode": "auto", "generate": True,
                                   **({"as_of": as_of.isoformat()} if as_of else {})}, QueryRequest)
        try:
            state = service.prepare(request, Caller("eval", frozenset(row.get("groups") or ())))
            stage, draft = stage_of(service, state)
            answer = service.finish(state, draft, "stages")
        except Exception as exc:  # noqa: BLE001 - a question the service cannot take is declined, as in eval
            stage, answer = "error", f"{type(exc).__name__}: {exc}"
        judged = label_one(row, answer)
        out.append({"id": row["id"], "group": group_of(row), "style": row.get("style", "original"),
                    "answerable": bool(row.get("answerable", True)), "stage": stage, "label": judged.label,
                    "reason": judged.reason, "question": row["question"],
                    "answer": getattr(answer, "answer", answer)[:400]})
    table: dict[str, dict[str, dict[str, int]]] = {}
    for group in ("originals", "rewordings pt", "english"):
        for answerable in (True, False):
            name = f"{group}, {'answerable' if answerable else 'unanswerable'}"
            counts: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
            for r in out:
                if r["group"] == group and r["answerable"] == answerable:
                    counts[r["stage"]][r["label"]] += 1
            if counts:
                table[name] = {stage: dict(c) for stage, c in sorted(counts.items())}
    for name, stages in table.items():
        print(f"\n{name} ({sum(sum(c.values()) for c in stages.values())} questions)")
        print(f"  {'stage':22s}" + "".join(f"{label:>10s}" for label in LABELS))
        for stage, c in stages.items():
            print(f"  {stage:22s}" + "".join(f"{c.get(label, 0):10d}" for label in LABELS))
    print(save(f"answer-stages-{args.split}", {"split": args.split, "questions": len(out), "table": table,
                                               "answers": out}))


if __name__ == "__main__":
    main()
