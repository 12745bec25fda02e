"""Answers on BEIR sets with gold answer strings (``answers.jsonl``: FaQuAD-pt, HotpotQA): every question of
``answers.jsonl`` is asked, judged or not, unanswerable ones too (``"answerable": false``), and each answer labelled
correct / partly / wrong / declined by the deterministic judge against its best gold answer, beside the share of
answerable questions whose answer contains a gold answer (accents, case and punctuation folded), the share of the
unanswerable ones declined, and the expected passage in the first five evidence documents (of the questions with
qrels), per mode, side by side, with every answer and its label in the JSON. No citation check.

The index is the one ``lakerag eval`` builds for the set (same home, cached); it is frozen into a snapshot and
published in that home the first time, so the answer service reads it exactly as the API would.
"""

from __future__ import annotations

import json
import logging
import re
from dataclasses import dataclass
from pathlib import Path

from lakehouse.errors import ConfigError
from lakehouse.paths import LakePaths
from lakehouse.settings import Settings
from lakehouse.snapshots import create_snapshot, current_id, publish
from serving.answers.types import Answer
from serving.evaluation.answers import ask, label_one, open_service
from serving.evaluation.beir import load_beir, write_beir_documents, write_beir_tables
from serving.evaluation.facts import fold
from serving.evaluation.indexer import Indexer
from serving.evaluation.labels import Judged, mode_summary, table
from serving.evaluation.runner import _variant_of, calibrated_weight
from serving.search.service import build_retriever

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class GoldAnswers:
    answers: tuple[str, ...]
    answerable: bool = True
    kind: str = "-"  # HotpotQA's "type" (bridge, comparison), when given


def read_gold(folder: Path) -> dict[str, GoldAnswers]:
    """``answers.jsonl``: ``{"_id", "answers": [...], "answerable": true|false, "type": ...}`` a line; an
    answerable question needs an answer, and a bad field is an error naming the file, line and field."""
    path = folder / "answers.jsonl"
    if not path.exists():
        raise FileNotFoundError(f"{path}: missing; answer evaluation on a BEIR set needs gold answers")
    out: dict[str, GoldAnswers] = {}
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ConfigError(f"{path}:{number}: not valid JSON ({exc.msg})") from exc
        answerable = row.get("answerable", True)
        if not isinstance(answerable, bool):
            raise ConfigError(f"{path}:{number}: 'answerable' must be true or false, not {answerable!r}")
        answers = row.get("answers") or []
        if not isinstance(answers, list):
            raise ConfigError(f"{path}:{number}: 'answers' must be a list of strings, not {answers!r}")
        if "_id" not in row or (answerable and not answers):
            raise ConfigError(f"{path}:{number}: needs '_id' and, when answerable, a non-empty 'answers'")
        out[str(row["_id"])] = GoldAnswers(tuple(str(a) for a in answers), answerable, str(row.get("type") or "-"))
    return out


def read_answers(folder: Path) -> dict[str, list[str]]:
    """The gold answer strings of each question of ``answers.jsonl``."""
    return {qid: list(g.answers) for qid, g in read_gold(folder).items()}


def _words(text: str) -> str:
    return " ".join(re.findall(r"\w+", fold(text)))


def contains_gold(text: str, answers: list[str]) -> bool:
    """Does ``text`` contain one of the gold answers as whole words (accents, case and punctuation folded)?"""
    folded = f" {_words(text)} "
    return any(g and f" {g} " in folded for g in (_words(a) for a in answers))


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
    if vsettings.index.fusion == "weighted":  # the corpus's dense weight, as `lakerag eval --dataset` fits it
        retriever = build_retriever(vsettings)
        queries = sorted(data.queries.items())
        vectors = retriever.embedder.embed_queries([t for _, t in queries])
        calibrated_weight(vsettings, data, queries, retriever, vectors)
    return vsettings


_RANK = {label: n for n, label in enumerate(("correct", "partly", "wrong", "declined"))}


def label_answer(qid: str, question: str, gold: GoldAnswers, relevant: dict[str, int],
                 answer: Answer | str) -> Judged:
    """The judge's label of one answer against its best gold answer (an unanswerable question has none)."""
    base = {"id": qid, "question": question, "answerable": gold.answerable, "kind": gold.kind,
            "relevant_document_ids": sorted(d for d, r in relevant.items() if r > 0)}
    judged = [label_one({**base, "expected_answer": g}, answer) for g in (gold.answers or ("",))]
    best = min(judged, key=lambda j: _RANK.get(j.label, len(_RANK)))
    if gold.answerable and not base["relevant_document_ids"]:
        best.top5 = None  # no qrels: no expected passage to look for
    return best


def evaluate_answer_set(folder: Path, settings: Settings, work: Path, indexer: Indexer, modes: list[str],
                        limit: int | None = None, skip: int = 0) -> dict:
    """Every question of ``answers.jsonl`` (sorted by id; after the first ``skip``, the next ``limit``, so that
    every run with the same numbers asks the same ones) in each mode: the judge's label shares
    (``serving.evaluation.labels``), gold answers contained, unanswerable questions declined, expected passage in
    the top 5, and every answer. ``skip`` keeps a set's first questions out of a run: FaQuAD-pt's first 30 are
    the reported yardstick, the ones after them a place to try a change first."""
    if skip < 0:
        raise ConfigError(f"--skip {skip}: the number of questions to leave out must be 0 or more")
    data = load_beir(folder, every_query=True)
    gold = read_gold(folder)
    queries = [(q, t) for q, t in sorted(data.queries.items()) if q in gold][skip:]
    queries = queries[:limit] if limit else queries
    service = open_service(_published_home(folder, settings, work, indexer))
    unanswerable = sum(not gold[q].answerable for q, _ in queries)
    result: dict = {"dataset": data.name, "questions": len(queries), "unanswerable": unanswerable,
                    "gold": "answers.jsonl", "default_mode": modes[0], "modes": {},
                    **({"skipped": skip} if skip else {})}
    for mode in modes:
        judged, contained = [], 0
        for qid, text in queries:
            answer = ask(service, {"id": qid, "question": text}, mode)
            judged.append(label_answer(qid, text, gold[qid], data.qrels.get(qid, {}), answer))
            if gold[qid].answerable and not isinstance(answer, str) and answer.status != "not_found":
                contained += contains_gold(answer.answer, list(gold[qid].answers))
        summary = mode_summary(judged)
        answerable = len(queries) - unanswerable
        summary.update(contains_gold=round(contained / answerable, 4) if answerable else 0.0,
                       declined=summary["labels"]["declined"])
        result["modes"][mode] = summary
        log.info("%s %s %s", data.name, mode, {k: v for k, v in summary.items() if k != "answers"})
    return result


def answer_set_table(result: dict) -> str:
    """The label table (``serving.evaluation.labels.table``), then gold answers contained per mode."""
    lines = [f"{result['dataset']} ({result['questions']} questions, {result.get('unanswerable', 0)} unanswerable)",
             table(result), f"{'mode':<10}{'contains gold':>14}{'unans.declined':>16}"]
    lines += [f"{mode:<10}{m['contains_gold']:>14.3f}{m['unanswerable_declined']:>16.3f}"
              for mode, m in result["modes"].items()]
    return "\n".join(lines)
