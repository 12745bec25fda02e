"""Per-corpus calibration at publish time: the dense share of the weighted fusion and the refusal threshold,
fitted on the organisation's labelled questions and recorded in the snapshot manifest (``calibration``), which
the API's engine reads (``serving.answers.engine``).

- Fusion weight: k-fold cross-validated over the answerable questions (each asked with its own groups). In each
  fold the weight of the grid with the best document MRR@10 on the other folds is scored on the held-out fold;
  the fitted weight (best on all questions) is adopted only when that held-out score is at least the default
  weight's on the same folds. Too few questions (``calibration_min_questions``): the default stays.
- Refusal threshold: ``serving.answers.calibration``'s best-F1 threshold over every question (answerable and
  not), with leave-one-out precision and recall; adopted only with enough questions and at least
  ``MIN_UNANSWERABLE`` unanswerable ones, and when its leave-one-out F1 is no worse than the default's.
"""

from __future__ import annotations

import logging
from dataclasses import replace

import numpy as np

from lakehouse.settings import Settings
from serving.answers import AnswerService, Engine
from serving.answers.calibration import Case, cross_validate, measure, score, tune
from serving.evaluation.metrics import mrr_at, ndcg_at
from serving.search import RetrievalConfig, Retriever

log = logging.getLogger(__name__)

WEIGHTS = (0.3, 0.4, 0.5, 0.6, 0.7, 0.8)
FOLDS = 5
MIN_UNANSWERABLE = 5
METRICS = {"mrr": (mrr_at, "MRR@10"), "ndcg": (ndcg_at, "nDCG@10")}  # what a fit maximises


class _Pinned:
    """A holder that always serves one engine (the candidate snapshot's, before it is published)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.failed: dict[str, str] = {}

    def require(self) -> Engine:
        return self.engine


def _ranked(hits) -> list[str]:
    return list(dict.fromkeys(h.document_id for h in hits))


def _mrr_table(retriever: Retriever, base: RetrievalConfig, rows: list[dict], vectors: np.ndarray | None = None,
               metric: str = "mrr") -> dict[float, list[float]]:
    """MRR@10 (or ``metric``'s @10) of every answerable question at every weight of the grid."""
    measure_at = METRICS[metric][0]
    if vectors is None:
        vectors = retriever.embedder.embed_queries([r["question"] for r in rows])
    table: dict[float, list[float]] = {w: [] for w in WEIGHTS}
    for row, vector in zip(rows, vectors, strict=True):
        relevant = {d: 1 for d in row["relevant_document_ids"]}
        for w in WEIGHTS:
            config = replace(base, fusion="weighted", dense_weight=w)
            hits = retriever.search(row["question"], set(row.get("groups") or []), top_k=30, config=config,
                                    query_vector=vector)
            table[w].append(measure_at(_ranked(hits), relevant, 10))
    return table


def _mean(values: list[float]) -> float:
    return sum(values) / len(values) if values else 0.0


def fit_fusion(engine: Engine, rows: list[dict], default: float, min_questions: int) -> dict:
    """The dense share fitted on ``rows`` (labelled questions), with its cross-validated score and the default's."""
    return fit_fusion_with(engine.retriever(), engine.config, rows, default, min_questions)


def fit_fusion_with(retriever: Retriever, base: RetrievalConfig, rows: list[dict], default: float,
                    min_questions: int, vectors: np.ndarray | None = None, metric: str = "mrr") -> dict:
    """:func:`fit_fusion` with a retriever and its config (``vectors``: the rows' query vectors, when the caller
    has them; ``metric``: "mrr", the publish step's, or "ndcg", a BEIR set's headline metric, which also counts
    a question's second and third relevant passages): what ``lakerag eval`` fits on a BEIR set's judged queries,
    the publish step on its questions."""
    if metric not in METRICS:
        raise ValueError(f"metric must be one of {', '.join(METRICS)}, not {metric!r}")
    label = METRICS[metric][1]
    keep = [i for i, r in enumerate(rows) if r.get("answerable", True) and r.get("relevant_document_ids")]
    answerable = [rows[i] for i in keep]
    result: dict = {"default": default, "questions": len(answerable), "value": default, "fitted": False,
                    "metric": label}
    if len(answerable) < min_questions:
        result["reason"] = f"{len(answerable)} answerable questions, fewer than {min_questions}: default kept"
        return result
    table = _mrr_table(retriever, base, answerable, None if vectors is None else np.asarray(vectors)[keep], metric)
    folds = [list(range(i, len(answerable), FOLDS)) for i in range(FOLDS)]
    held_fitted, held_default = [], []
    for fold in folds:
        train = [i for i in range(len(answerable)) if i not in set(fold)]
        best = max(WEIGHTS, key=lambda w: (_mean([table[w][i] for i in train]), -abs(w - default)))
        held_fitted += [table[best][i] for i in fold]
        held_default += [table[default][i] if default in table else 0.0 for i in fold]
    best_all = max(WEIGHTS, key=lambda w: (_mean(table[w]), -abs(w - default)))
    cv_fitted, cv_default = round(_mean(held_fitted), 4), round(_mean(held_default), 4)
    adopted = cv_fitted >= cv_default and default in table
    result.update(value=best_all if adopted else default, fitted=adopted, **{
        f"cv_{metric}_fitted": cv_fitted, f"cv_{metric}_default": cv_default,
        f"{metric}_by_weight": {str(w): round(_mean(v), 4) for w, v in table.items()}},
        reason=f"cross-validated {label} no worse than the default's" if adopted else
        f"cross-validated {label} below the default's: default kept")
    return result


def _f1(cases: list[Case], threshold: float) -> float:
    return float(score(cases, threshold)["f1"])


def fit_refusal(engine: Engine, rows: list[dict], default: float, min_questions: int) -> dict:
    """The refusal threshold fitted on ``rows``, with leave-one-out precision and recall."""
    cases = measure(AnswerService(_Pinned(engine), default), rows)  # type: ignore[arg-type]
    unanswerable = sum(not c.answerable for c in cases)
    result: dict = {"default": default, "questions": len(cases), "unanswerable": unanswerable, "value": default,
                    "fitted": False}
    if len(cases) < min_questions or unanswerable < MIN_UNANSWERABLE:
        result["reason"] = (f"{len(cases)} questions ({unanswerable} unanswerable), fewer than {min_questions} "
                            f"({MIN_UNANSWERABLE}): default kept")
        return result
    best, _ = tune(cases)
    loo = cross_validate(cases)
    loo_f1 = 2 * loo["precision"] * loo["recall"] / (loo["precision"] + loo["recall"]) \
        if loo["precision"] + loo["recall"] else 0.0
    default_f1 = _f1(cases, default)
    adopted = loo_f1 >= default_f1
    result.update(value=best["threshold"] if adopted else default, fitted=adopted, f1=best["f1"],
                  precision=best["precision"], recall=best["recall"], loo_precision=loo["precision"],
                  loo_recall=loo["recall"], loo_f1=round(loo_f1, 3), default_f1=round(default_f1, 3),
                  reason="leave-one-out F1 no worse than the default's" if adopted else
                  "leave-one-out F1 below the default's: default kept")
    return result


def calibrate(settings: Settings, engine: Engine, rows: list[dict]) -> dict:
    """Both fits for one snapshot's engine; what the manifest's ``calibration`` holds."""
    minimum = settings.orchestration.calibration_min_questions
    fusion = fit_fusion(engine, rows, settings.index.fusion_dense_weight, minimum) \
        if settings.index.fusion == "weighted" else {"fitted": False, "reason": "fusion is rrf: no weight to fit"}
    if fusion.get("fitted"):
        engine = replace(engine, config=replace(engine.config, dense_weight=fusion["value"]))
    refusal = fit_refusal(engine, rows, settings.api.min_relevance, minimum)
    log.info("calibration: dense weight %s (%s), refusal threshold %s (%s)", fusion.get("value"),
             fusion.get("reason"), refusal["value"], refusal["reason"])
    return {"fusion_dense_weight": fusion.get("value") if fusion.get("fitted") else None,
            "min_relevance": refusal["value"] if refusal["fitted"] else None,
            "fusion": fusion, "refusal": refusal}
