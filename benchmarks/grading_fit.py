"""Fit the weights of the evidence grade (``serving.answers.grading.WEIGHTS``) on a labelled question set.

Only the ``dev`` split is read (the ``test`` split is for reporting): the questions of ``--questions`` and of
every ``--variants`` file (rewordings and English renderings, each in its original's split). Every question is
asked in basic mode as its labelled caller; each retrieved chunk is an example, positive when its document is
one of the question's relevant documents and it has a strip (every chunk of an unanswerable question is
negative). A logistic regression (plain gradient descent, L2) is fitted on the five measurements (with the
sentence similarity of ``serving.answers.semantic``) and the answer-level consequences of the fitted weights
are printed for a grid of thresholds.

    .venv/bin/python benchmarks/grading_fit.py --home var [--questions sample_corpus/questions.jsonl]
        [--variants sample_corpus/variants.jsonl] [--embedding-model e5-small]

Writes benchmarks/results/grading-fit.json.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))
from _common import print_table, save  # noqa: E402

NAMES = ["coverage", "strip", "dense", "kind", "semantic", "contrast"]
SPLIT = "dev"


def dev_cases(paths: list[Path]) -> list[dict]:
    """The dev questions of the files (a question without a split is an error: it might be a test one)."""
    out = []
    for path in paths:
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if not line.strip():
                continue
            case = json.loads(line)
            if case.get("split") not in ("dev", "test"):
                raise SystemExit(f"{path}:{n}: 'split' must be dev or test, not {case.get('split')!r}")
            if case["split"] == SPLIT:
                out.append(case)
    return out


def collect(home: Path, cases: list[dict], embedding_model: str | None,
            costs: list[float] | None = None) -> list[dict]:
    """One row of measurements per retrieved chunk; ``costs`` gets each question's sentence-encoding ms."""
    from lakehouse.settings import Settings
    from serving.answers import grading, modes
    from serving.answers.reloader import SnapshotHolder
    from serving.answers.semantic import median_cosine, unit_similarities
    from serving.answers.wording import language_of

    holder = SnapshotHolder(Settings(home=home, **({"embedding_model": embedding_model} if embedding_model else {})))
    holder.refresh()
    engine = holder.require()
    out = []
    for case in cases:
        if case.get("kind") in ("global", "governance") or not case.get("question"):
            continue
        language = language_of(case["question"])
        vector = engine.embed(case["question"])
        groups = frozenset(case.get("groups") or ()) | {"public"}
        retrieved = modes.retrieve("basic", modes.ModeRequest(engine, case["question"], groups, vector=vector))
        q = grading.Question.of(case["question"], language, engine.relevance.weights(case["question"], language),
                                vector, engine.relevance.spelled)
        q = replace(q, synonyms=engine.relevance.synonyms(case["question"], language))  # as the service reads it
        relevant = set(case.get("relevant_document_ids") or ())
        q.resolve_kind(retrieved.evidence)
        started = time.perf_counter()
        sims = unit_similarities(engine.embedder, vector, retrieved.evidence)
        if costs is not None:
            costs.append((time.perf_counter() - started) * 1000)
        around = median_cosine(sims)
        for item in retrieved.evidence:
            if item.kind != "chunk":
                continue
            row = engine.rows[item.id]
            dense = float(engine.index.vectors[row] @ vector) if vector is not None else None
            measured, strips, _, _ = grading.features(q, item.text, f"{item.title} {item.section}", dense,
                                                      engine.injection[row], sims.get(item.id), around)
            # a chunk the grade's rules make incorrect whatever its score (a code it lacks, no strip, no fact of
            # the one kind asked) never keeps a question from the refusal
            gated = grading.grade(q, item.text, f"{item.title} {item.section}", dense, None, engine.injection[row],
                                  0.0, 0.0, sims.get(item.id), around).grade == grading.INCORRECT
            out.append({"id": case["id"], "answerable": bool(case.get("answerable", True)), "gated": gated,
                        "label": int(item.document_id in relevant and bool(strips)), **measured})
    return out


def fit(rows: list[dict], l2: float = 0.01, steps: int = 20000, rate: float = 1.0) -> dict[str, float]:
    x = np.array([[r[n] for n in NAMES] + [1.0] for r in rows])
    y = np.array([r["label"] for r in rows], dtype=float)
    w = np.zeros(x.shape[1])
    for _ in range(steps):
        p = 1 / (1 + np.exp(-x @ w))
        grad = x.T @ (p - y) / len(y) + l2 * np.r_[w[:-1], 0.0]
        w -= rate * grad
    return {**{n: round(float(v), 3) for n, v in zip(NAMES, w[:-1], strict=True)}, "bias": round(float(w[-1]), 3)}


def _score(r: dict, weights: dict[str, float]) -> float:
    return float(1 / (1 + np.exp(-(weights["bias"] + sum(weights[n] * r[n] for n in NAMES)))))


def outcomes(rows: list[dict], weights: dict[str, float], threshold: float) -> dict:
    """Per question: declined when no item the rules leave gradable reaches ``threshold``."""
    best: dict[str, tuple[bool, float]] = {}
    for r in rows:
        score = 0.0 if r.get("gated") else _score(r, weights)
        seen = best.get(r["id"], (r["answerable"], 0.0))
        best[r["id"]] = (r["answerable"], max(seen[1], float(score)))
    answerable = [s for a, s in best.values() if a]
    unanswerable = [s for a, s in best.values() if not a]
    return {"threshold": threshold,
            "answerable_declined": round(float(np.mean([s < threshold for s in answerable])), 3),
            "unanswerable_declined": round(float(np.mean([s < threshold for s in unanswerable])), 3)
            if unanswerable else None}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--home", type=Path, required=True)
    parser.add_argument("--questions", type=Path, default=ROOT / "sample_corpus" / "questions.jsonl")
    parser.add_argument("--variants", type=Path, action="append", default=[],
                        help="a file of reworded / English questions (each with its original's split)")
    parser.add_argument("--embedding-model", help="the model the index was built with, when not the default")
    parser.add_argument("--rows", type=Path, help="keep the measurements here and refit from them when present")
    args = parser.parse_args()
    cases = dev_cases([args.questions, *args.variants])
    costs: list[float] = []
    if args.rows and args.rows.exists():  # measurements of an earlier run (refitting only)
        rows = json.loads(args.rows.read_text(encoding="utf-8"))
    else:
        rows = collect(args.home, cases, args.embedding_model, costs)
        if args.rows:
            args.rows.write_text(json.dumps(rows), encoding="utf-8")
    weights = fit(rows)
    cost = {"mean_ms": round(float(np.mean(costs)), 1), "p95_ms": round(float(np.percentile(costs, 95)), 1)} \
        if costs else {}
    print("sentence encoding per question (cache warming over the run):", cost)
    print("weights:", weights, f"({len(rows)} chunks, {sum(r['label'] for r in rows)} positive)")
    grid = [outcomes(rows, weights, t) for t in np.round(np.arange(0.3, 0.75, 0.02), 2)]
    print_table(grid, ["threshold", "answerable_declined", "unanswerable_declined"])
    # the refusal threshold: most unanswerable declined less answerable declined (the lower on a tie)
    refuse = max(grid, key=lambda g: ((g["unanswerable_declined"] or 0) - g["answerable_declined"], -g["threshold"]))
    # the correct threshold: the chunk-level cut that best separates relevant chunks with strips (balanced)
    open_rows = [r for r in rows if not r.get("gated")]

    def balanced(t: float) -> float:
        pos = [(_score(r, weights) >= t) for r in open_rows if r["label"]]
        neg = [(_score(r, weights) < t) for r in open_rows if not r["label"]]
        return (float(np.mean(pos)) if pos else 0.0) + (float(np.mean(neg)) if neg else 0.0)
    correct = max((t for t in np.round(np.arange(refuse["threshold"], 0.9, 0.02), 2)), key=balanced)
    thresholds = {"ambiguous_at": float(refuse["threshold"]), "correct_at": float(correct)}
    print("thresholds:", thresholds)
    print(save("grading-fit", {"weights": weights, "split": SPLIT, "questions": len(cases), "examples": len(rows),
                               "semantic_cost": cost, "thresholds": thresholds, "grid": grid}))


if __name__ == "__main__":
    main()
