"""Run an evaluation and save it with the date, configuration and commit."""

from __future__ import annotations

import json
import os
import platform
import subprocess
from datetime import UTC, datetime
from pathlib import Path

from lakehouse.errors import ConfigError
from lakehouse.paths import LakePaths
from lakehouse.settings import REPO_ROOT, Settings
from serving.evaluation.indexer import Indexer
from serving.evaluation.modes import evaluate_modes
from serving.evaluation.runner import evaluate_beir, evaluate_questions
from serving.evaluation.visual import QUESTIONS, evaluate_visual


def _commit() -> str:
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                              cwd=REPO_ROOT, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def run_eval(settings: Settings, dataset: Path, work: Path | None, indexer: Indexer, enrichment: str = "both",
             limit: int | None = None, json_path: Path | None = None, modes: list[str] | None = None,
             pages: bool = False) -> dict:
    """Score ``dataset`` (a BEIR folder, or a corpus with questions.jsonl) and save the result with its context;
    ``indexer`` builds the indexes it needs (the query side never runs index stages itself)."""
    work = work or LakePaths(settings.home).eval_work
    if (dataset / "corpus.jsonl").exists():
        result = evaluate_beir(dataset, settings, work, indexer, enrichment, limit)
        if modes:
            result["modes"] = evaluate_modes(dataset, settings, work, indexer, tuple(modes), limit)
    elif (dataset / "questions.jsonl").exists() and (dataset / "documents").is_dir():
        result = evaluate_questions(dataset / "questions.jsonl", dataset / "documents", settings, work, indexer)
        if pages:  # the same index evaluate_questions built (work/sample)
            result["visual"] = evaluate_visual(dataset / QUESTIONS, settings.replace(
                home=work / "sample", source=dataset / "documents"))
    else:
        raise ConfigError(f"--dataset {dataset}: neither a BEIR folder (corpus.jsonl) nor a corpus with "
                          "questions.jsonl and documents/")
    return _save(result, settings, json_path)


def run_context(settings: Settings) -> dict:
    """When, where and with what an evaluation ran: date, commit, machine and the settings that matter."""
    return {"date": datetime.now(UTC).isoformat(timespec="seconds"), "commit": _commit(),
            "machine": {"platform": platform.platform(), "cpus": os.cpu_count()},
            "settings": {"embedding_model": settings.index.embedding_model, "fusion": settings.index.fusion,
                         "fusion_dense_weight": settings.index.fusion_dense_weight, "rrf_k": settings.index.rrf_k,
                         "bm25_k1": settings.index.bm25_k1, "bm25_b": settings.index.bm25_b,
                         "reranker_model": settings.index.reranker_model, "min_relevance": settings.api.min_relevance,
                         "llm_model": settings.llm.model, "enrich": settings.index.enrich}}


def _save(result: dict, settings: Settings, json_path: Path | None) -> dict:
    result.update(run_context(settings))
    if json_path:
        json_path.parent.mkdir(parents=True, exist_ok=True)
        json_path.write_text(json.dumps(result, indent=2, ensure_ascii=False, default=str), encoding="utf-8")
    return result


def run_answer_eval(settings: Settings, dataset: Path, work: Path | None, indexer: Indexer,
                    modes: list[str] | None = None, limit: int | None = None, json_path: Path | None = None,
                    llm_judge: bool = False, split: str = "all", variants: bool = False, skip: int = 0) -> dict:
    """``lakerag eval --answers``: label every answer of the sample-style set (questions.jsonl + documents/;
    only ``split``'s questions: dev, test or all; with ``variants`` their rewordings too), or measure gold
    answers contained on a BEIR set with answers.jsonl; saved with its context."""
    from serving.evaluation.answer_sets import evaluate_answer_set
    from serving.evaluation.answers import DEFAULT_MODE, evaluate_sample
    from serving.evaluation.llm_judge import LLMJudge

    work = work or LakePaths(settings.home).eval_work
    if (dataset / "questions.jsonl").exists() and (dataset / "documents").is_dir():
        judge = LLMJudge.from_settings(settings, work / "llm-judge") if llm_judge else None
        if llm_judge and judge is None:
            raise ConfigError("--llm-judge needs LAKERAG_LLM_BASE_URL and LAKERAG_LLM_MODEL")
        if skip:
            raise ConfigError(f"--skip: {dataset} is a sample-style set; use --split to leave questions out")
        result = evaluate_sample(dataset, settings, work, indexer, modes or [DEFAULT_MODE], limit, llm=judge,
                                 split=split, variants=variants)
    elif (dataset / "corpus.jsonl").exists() and (dataset / "answers.jsonl").exists():
        if split != "all" or variants:
            raise ConfigError(f"--split/--variants: {dataset} is a BEIR set, without a dev/test split or variants")
        result = evaluate_answer_set(dataset, settings, work, indexer, modes or ["basic", "hybrid"], limit, skip)
    else:
        raise ConfigError(f"--dataset {dataset}: --answers needs questions.jsonl and documents/, or a BEIR folder "
                          "with answers.jsonl")
    result["kind"] = "answers"
    return _save(result, settings, json_path)
