"""How often the deterministic answer judge agrees with labels given by hand.

``benchmarks/judge_hand_labels.jsonl`` holds answers of ``lakerag eval --answers --variants --split test`` (auto
mode, no LLM), each read and labelled by a person: ``id``, ``original`` (the question it rewords, or itself),
``style``, ``question``, the answer as asked (``answer``, ``status``, ``cited``) with its ``answer_sha256``, and the
hand ``label`` with ``why``. This script judges the same answer text against the original's current gold in
``questions.jsonl`` and reports the share of equal labels, the confusion (hand label -> judge label), the same for
originals and variants apart, and every disagreement with both reasons.

    .venv/bin/python benchmarks/judge_agreement.py [--json benchmarks/results/judge_agreement.json]
"""

from __future__ import annotations

import argparse
import collections
import hashlib
import json
from pathlib import Path

from serving.evaluation.judge import LABELS, gold_of, judge

REPO = Path(__file__).resolve().parent.parent
HAND = REPO / "benchmarks" / "judge_hand_labels.jsonl"
QUESTIONS = REPO / "sample_corpus" / "questions.jsonl"


def _rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _agreement(pairs: list[tuple[str, str]]) -> dict:
    confusion = {h: {j: sum(p == (h, j) for p in pairs) for j in LABELS} for h in LABELS}
    return {"answers": len(pairs), "agreement": round(sum(h == j for h, j in pairs) / len(pairs), 4) if pairs else 0,
            "confusion_hand_to_judge": confusion}


def measure(hand_path: Path = HAND, questions_path: Path = QUESTIONS) -> dict:
    questions = {q["id"]: q for q in _rows(questions_path)}
    rows, pairs, disagreements = _rows(hand_path), [], []
    splits = collections.Counter()
    for row in rows:
        if hashlib.sha256(row["answer"].encode()).hexdigest() != row["answer_sha256"]:
            raise SystemExit(f"{hand_path}: {row['id']}: the answer text does not match its answer_sha256")
        gold_row = questions[row["original"]]
        splits[gold_row.get("split", "-")] += 1
        verdict = judge(gold_of(gold_row), row["answer"], row["status"], row["cited"])
        pairs.append((row["label"], verdict.label, row["style"]))
        if verdict.label != row["label"]:
            disagreements.append({"id": row["id"], "hand": row["label"], "judge": verdict.label, "why": row["why"],
                                  "judge_reason": verdict.reason})
    return {"hand_labels": str(hand_path.relative_to(REPO)), "splits": dict(splits),
            **_agreement([(h, j) for h, j, _ in pairs]),
            "originals": _agreement([(h, j) for h, j, s in pairs if s == "original"]),
            "variants": _agreement([(h, j) for h, j, s in pairs if s != "original"]),
            "disagreements": disagreements}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", type=Path, help="also write the result here")
    parser.add_argument("--questions", type=Path, default=QUESTIONS)
    args = parser.parse_args()
    result = measure(questions_path=args.questions)
    print(f"{result['answers']} hand-labelled answers ({result['splits']}): judge agrees on "
          f"{result['agreement']:.2f} (originals {result['originals']['agreement']:.2f} of "
          f"{result['originals']['answers']}, variants {result['variants']['agreement']:.2f} of "
          f"{result['variants']['answers']})")
    print(f"{'hand/judge':<14}" + "".join(f"{j:>10}" for j in LABELS))
    for h in LABELS:
        print(f"{h:<14}" + "".join(f"{result['confusion_hand_to_judge'][h][j]:>10}" for j in LABELS))
    for d in result["disagreements"]:
        print(f"  {d['id']}: hand {d['hand']}, judge {d['judge']} ({d['judge_reason']}); hand: {d['why']}")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
