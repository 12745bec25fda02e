"""Evaluate a candidate snapshot on the labelled question set and publish it only through the gate.

The fusion weight and the refusal threshold are fitted on the set's ``dev`` split; the gate measures the frozen
``test`` split (a set without splits is used whole for both, and the manifest says ``all``).

The published snapshot keeps serving whatever happens here: a refused candidate stays on disk (its manifest
says why), and ``lakerag snapshots rollback ID`` can still publish it by hand."""

from __future__ import annotations

import hashlib
import json
import logging
from collections import defaultdict
from pathlib import Path

from lakehouse.mirror import synced
from lakehouse.objectstore import store_of
from lakehouse.paths import LakePaths
from lakehouse.settings import REPO_ROOT, Settings
from lakehouse.snapshots import (
    SnapshotError,
    annotate,
    current_id,
    latest_id,
    publish,
    read_manifest,
    snapshot_dir,
    snapshot_tables,
)
from serving.evaluation.gate import GATED_METRICS, GateRefused, compare
from serving.evaluation.splits import FIT, MEASURE, split_or_all

log = logging.getLogger(__name__)

DEFAULT_QUESTIONS = REPO_ROOT / "sample_corpus" / "questions.jsonl"


def questions_path(settings: Settings) -> Path:
    return Path(settings.orchestration.eval_questions or DEFAULT_QUESTIONS)


def _ranked_documents(hits) -> list[str]:
    seen: dict[str, None] = {}
    for hit in hits:
        seen.setdefault(hit.document_id)
    return list(seen)


def evaluate_snapshot(settings: Settings, snapshot_id: str, questions: Path | None = None) -> dict:
    """Document-level hit@5, hit@10 and MRR@10 of the snapshot's retriever on the answerable questions, each
    asked with its own groups (permissions apply), of the set's test split. Queries use the snapshot's own
    embedding model."""
    from serving.answers.engine import calibrated
    from serving.evaluation.metrics import mrr_at
    from serving.search.index import SearchIndex
    from serving.search.service import build_retriever, config_from

    questions = questions or questions_path(settings)
    raw = questions.read_bytes()
    rows, split = split_or_all([json.loads(line) for line in raw.decode("utf-8").splitlines() if line.strip()],
                               MEASURE, questions)
    manifest = read_manifest(LakePaths(settings.home), snapshot_id)
    model = manifest.get("models", {}).get("embedding")
    st = settings.replace(embedding_model=model or settings.index.embedding_model)
    retriever = build_retriever(st, SearchIndex.load(snapshot_tables(LakePaths(st.home), snapshot_id)))
    config, _ = calibrated(config_from(st), manifest)  # the fusion weight the API will serve it with
    scores: dict[str, list[float]] = defaultdict(list)
    by_kind: dict[str, list[float]] = defaultdict(list)
    per_question: dict[str, dict[str, float]] = {}
    for n, row in enumerate(r for r in rows if r.get("answerable", True)):
        hits = retriever.search(row["question"], set(row.get("groups") or []), top_k=30, config=config)
        ranked = _ranked_documents(hits)
        relevant = {doc: 1 for doc in row["relevant_document_ids"]}
        hit5 = float(bool(set(ranked[:5]) & relevant.keys()))
        scores["hit@5"].append(hit5)
        scores["hit@10"].append(float(bool(set(ranked[:10]) & relevant.keys())))
        scores["mrr@10"].append(mrr_at(ranked, relevant, 10))
        by_kind[row.get("kind", "-")].append(hit5)
        per_question[str(row.get("id", n))] = {"hit@5": hit5, "mrr@10": round(scores["mrr@10"][-1], 4)}
    answerable = len(scores["hit@5"])
    if not answerable:
        raise SnapshotError(f"{questions}: no answerable questions in its {split} split to evaluate with")
    return {
        "questions": str(questions), "questions_sha256": hashlib.sha256(raw).hexdigest(), "split": split,
        "answerable": answerable,
        "embedding_model": st.index.embedding_model, "config": f"{config.method}/{config.fusion}",
        "dense_weight": config.dense_weight,
        "metrics": {k: round(sum(v) / len(v), 4) for k, v in sorted(scores.items())},
        "hit@5_by_kind": {k: round(sum(v) / len(v), 4) for k, v in sorted(by_kind.items())},
        "per_question": per_question,
    }


def paired_changes(candidate: dict, published: dict) -> dict[str, tuple[int, int]]:
    """Per gated metric, the questions (asked of both snapshots) the candidate scores lower and higher on."""
    both = candidate.keys() & published.keys()
    return {m: (sum(candidate[q][m] < published[q][m] - 1e-9 for q in both),
                sum(candidate[q][m] > published[q][m] + 1e-9 for q in both)) for m in GATED_METRICS}


def calibrate_snapshot(settings: Settings, snapshot_id: str, questions: Path) -> dict | None:
    """Fit the fusion weight and the refusal threshold of ``snapshot_id`` on the dev split of ``questions`` and
    record them in its manifest (``calibration``), unless already fitted on the same questions or
    ``LAKERAG_CALIBRATE`` is off."""
    from serving.answers.engine import load_engine
    from serving.evaluation.calibrate import calibrate

    paths = LakePaths(settings.home)
    if not settings.orchestration.calibrate:
        return None
    digest = hashlib.sha256(questions.read_bytes()).hexdigest()
    stored = read_manifest(paths, snapshot_id).get("calibration")
    if stored and stored.get("questions_sha256") == digest and "split" in stored:
        return stored
    rows, split = split_or_all([json.loads(line) for line in questions.read_text(encoding="utf-8").splitlines()
                                if line.strip()], FIT, questions)
    fitted = {**calibrate(settings, load_engine(settings, snapshot_id), rows), "questions": str(questions),
              "questions_sha256": digest, "split": split}
    annotate(paths, snapshot_id, {"calibration": fitted})
    return fitted


def _evaluation(settings: Settings, snapshot_id: str, questions: Path) -> dict:
    """The snapshot's stored evaluation if made on the same question set (and split), else a fresh one (then
    stored)."""
    paths = LakePaths(settings.home)
    stored = read_manifest(paths, snapshot_id).get("evaluation")
    digest = hashlib.sha256(questions.read_bytes()).hexdigest()
    if stored and stored.get("questions_sha256") == digest and "per_question" in stored:
        return stored
    evaluation = evaluate_snapshot(settings, snapshot_id, questions)
    annotate(paths, snapshot_id, {"evaluation": evaluation})
    return evaluation


@synced
def evaluate_candidate(settings: Settings, snapshot_id: str) -> dict:
    """Evaluate the candidate and the published snapshot (stored scores are reused); returns both."""
    paths = LakePaths(settings.home)
    questions = questions_path(settings)
    current = current_id(paths)
    calibrate_snapshot(settings, snapshot_id, questions)
    candidate = _evaluation(settings, snapshot_id, questions)
    return {"split": candidate["split"], "candidate": {"id": snapshot_id, **candidate["metrics"]},
            "published": None if current is None else
            {"id": current, **_evaluation(settings, current, questions)["metrics"]}}


def pending_candidate(paths: LakePaths) -> str | None:
    """The newest snapshot, when dbt has built it (``serving.duckdb``) and it is not the published one."""
    newest = latest_id(paths)
    if newest is None or newest == current_id(paths):
        return None
    return newest if (snapshot_dir(paths, newest) / "serving.duckdb").exists() else None


@synced
def candidate_of(settings: Settings) -> str | None:
    """``pending_candidate`` of the settings' home, after a pull (the publish DAG's first task)."""
    return pending_candidate(LakePaths(settings.home))


@synced
def publish_candidate(settings: Settings, snapshot_id: str, tolerance: float | None = None) -> dict:
    """Evaluate the candidate (and the published snapshot when its stored scores are stale), compare them, and
    switch CURRENT only if no gated metric got worse by more than the tolerance, in a drop the test split can tell
    from chance (``gate``'s sign test over the questions each snapshot won and lost). Raises GateRefused otherwise.
    Idempotent: publishing the published snapshot again does nothing."""
    paths = LakePaths(settings.home)
    if tolerance is None:
        tolerance = settings.orchestration.publish_tolerance
    current = current_id(paths)
    if current == snapshot_id:
        gate = read_manifest(paths, snapshot_id).get("gate")
        return {"snapshot_id": snapshot_id, "published": True, "gate": gate}
    if not (snapshot_dir(paths, snapshot_id) / "serving.duckdb").exists():
        raise SnapshotError(f"snapshot {snapshot_id} has no serving.duckdb yet; run the dbt build first")
    questions = questions_path(settings)
    calibrate_snapshot(settings, snapshot_id, questions)  # before the evaluation, which serves with its values
    candidate = _evaluation(settings, snapshot_id, questions)
    published = _evaluation(settings, current, questions) if current else None
    result = compare(candidate["metrics"], published["metrics"] if published else None, tolerance, snapshot_id,
                     current, split=candidate["split"],
                     paired=paired_changes(candidate["per_question"], published["per_question"]) if published else None)
    annotate(paths, snapshot_id, {"gate": result.as_dict()})
    log.info("%s", result.report())
    if not result.passed:
        raise GateRefused(result)
    publish(paths, snapshot_id, keep=settings.orchestration.snapshot_keep, store=store_of(settings))
    return {"snapshot_id": snapshot_id, "published": True, "gate": result.as_dict()}
