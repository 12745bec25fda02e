"""Answers on BEIR sets with gold answer strings (``answers.jsonl``: FaQuAD-pt, HotpotQA): the share of answers
that contain a gold answer (accents, case and punctuation folded), the share declined and the expected passage in
the first five evidence documents, per mode, side by side. Every question is answerable; no citation check.

The index is the one ``lakerag eval`` builds for the set (same home, cached); it is frozen into a snapshot and
published in that home the first time, so the answer service reads it exactly as the API would.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path

from lakehouse.paths import LakePaths
from lakehouse.settings import Settings
from lakehouse.snapshots import create_snapshot, current_id, publish
from serving.evaluation.answers import ask, first_documents, open_service
from serving.evaluation.beir import load_beir, write_beir_documents, write_beir_tables
from serving.evaluation.facts import fold
from serving.evaluation.indexer import Indexer
from serving.evaluation.runner import _variant_of

log = logging.getLogger(__name__)


def read_answers(folder: Path) -> dict[str, list[str]]:
    path = folder / "answers.jsonl"
    if not path.exists():
        raise FileNotFoundError(f"{path}: missing; answer evaluation on a BEIR set needs gold answers")
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return {str(r["_id"]): [str(a) for a in r.get("answers") or []] for r in rows}


def contains_gold(text: str, answers: list[str]) -> bool:
    folded = f" {fold(text)} "
    return any(g and f" {g} " in folded or (len(g) > 12 and g in folded)
               for g in (fold(a).strip(" .,;:") for a in answers))


def _published_home(folder: Path, settings: Settings, work: Path, indexer: Indexer) -> Settings:
    data = load_beir(folder)
    home = work / f"{data.name}-{data.fingerprint}-{_variant_of(settings)}"
    vsettings = settings.replace(home=home)
    paths = LakePaths(home)
    if not paths.table("chunks").exists():
        write_beir_tables(data, paths)
    if not paths.table("documents").exists():
        write_beir_documents(data, paths)
    indexer.index_chunks(vsettings)
    if current_id(paths) is None:
        model = settings.index.embedding_model
        publish(paths, create_snapshot(paths, "eval-answers", {"models": {"embedding": model}}))
    return vsettings


def evaluate_answer_set(folder: Path, settings: Settings, work: Path, indexer: Indexer, modes: list[str],
                        limit: int | None = None) -> dict:
    """Gold answer contained, declined and expected passage in the top 5, per mode, on the first ``limit``
    questions (sorted by id, so that every run with the same limit asks the same ones)."""
    data = load_beir(folder)
    gold = read_answers(folder)
    queries = [(q, t) for q, t in sorted(data.queries.items()) if q in gold and q in data.qrels]
    queries = queries[:limit] if limit else queries
    service = open_service(_published_home(folder, settings, work, indexer))
    result: dict = {"dataset": data.name, "questions": len(queries), "default_mode": modes[0], "modes": {}}
    for mode in modes:
        contained = declined = top5 = 0
        for qid, text in queries:
            answer = ask(service, {"id": qid, "question": text}, mode)
            if isinstance(answer, str) or answer.status == "not_found":
                declined += 1
                continue
            contained += contains_gold(answer.answer, gold[qid])
            top5 += bool({d for d, r in data.qrels[qid].items() if r > 0} & set(first_documents(answer)))
        n = len(queries) or 1
        result["modes"][mode] = {"contains_gold": round(contained / n, 4), "declined": round(declined / n, 4),
                                 "expected_document_top5": round(top5 / n, 4), "questions": len(queries)}
        log.info("%s %s %s", data.name, mode, result["modes"][mode])
    return result


def answer_set_table(result: dict) -> str:
    lines = [f"{result['dataset']} ({result['questions']} questions)",
             f"{'mode':<10}{'contains gold':>14}{'declined':>10}{'top5':>7}"]
    lines += [f"{mode:<10}{m['contains_gold']:>14.3f}{m['declined']:>10.3f}{m['expected_document_top5']:>7.3f}"
              for mode, m in result["modes"].items()]
    return "\n".join(lines)
