"""``lakerag eval --answers``: ask every labelled question in each mode through the answer service the API uses
(in-process), and label each answer with the deterministic judge (``serving.evaluation.judge``), optionally with
an LLM judge beside it. The sample corpus (``questions.jsonl`` + ``documents/``) is indexed and published once per
work folder; BEIR sets with ``answers.jsonl`` go through ``serving.evaluation.answer_sets``.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from datetime import date
from pathlib import Path

import msgspec

from lakehouse import paths as lp
from lakehouse.paths import LakePaths
from lakehouse.settings import Settings
from serving.answers import AnswerError, AnswerService, Caller, QueryRequest, SnapshotHolder
from serving.answers.generation import Generator
from serving.answers.types import Answer
from serving.evaluation.indexer import Indexer
from serving.evaluation.judge import Verdict, gold_of, judge
from serving.evaluation.labels import Judged, mode_summary
from serving.evaluation.splits import select_split
from serving.evaluation.variants import OWN, VARIANTS, as_asked, compare, evaluate_variants, read_variants

log = logging.getLogger(__name__)

DEFAULT_MODE = "auto"  # what the API answers with when a caller names no mode
LLMJudge = Callable[[dict, Answer], str | None]


def read_questions(path: Path) -> list[dict]:
    """The labelled questions, one JSON object a line (blank lines skipped)."""
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    for n, row in enumerate(rows, start=1):
        if not row.get("question"):
            raise ValueError(f"{path}:{n}: a question needs a non-empty 'question'")
    return rows


def open_service(settings: Settings) -> AnswerService:
    """The service over ``settings.home``'s published snapshot, built as the API builds it (with the configured
    LLM, if any, as the answers' generator)."""
    holder = SnapshotHolder(settings)
    holder.generator = Generator.from_settings(settings, LakePaths(settings.home).cache_dir(lp.LLM_ANSWERS),
                                               settings.api.answer_max_tokens)
    holder.refresh()
    holder.require()
    return AnswerService(holder, settings.api.min_relevance, rewrite_with_llm=settings.api.rewrite_with_llm,
                         correct_at=settings.api.grade_correct_at, grade_with_llm=settings.api.grade_with_llm,
                         generate_with_llm=settings.api.generate_with_llm)


def first_documents(answer: Answer, k: int = 5) -> list[str]:
    """The first ``k`` distinct documents of the answer's evidence, in the order retrieved."""
    seen: dict[str, None] = {}
    for item in answer.evidence:
        if item.document_id:
            seen.setdefault(item.document_id)
    return list(seen)[:k]


def ask(service: AnswerService, row: dict, mode: str, as_of: date | None = None) -> Answer | str:
    """The answer to one labelled question, asked as its labelled caller; a string says why there is none."""
    request = msgspec.convert({"question": row["question"], "mode": mode, "generate": True,
                               **({"as_of": as_of.isoformat()} if as_of else {})}, QueryRequest)
    try:
        return service.query(request, Caller("eval", frozenset(row.get("groups") or ())), f"eval-{row.get('id')}")
    except AnswerError as exc:  # a mode that cannot take this question (catalog, global without a graph)
        return f"{type(exc).__name__}: {exc}"


def label_one(row: dict, answer: Answer | str, llm: LLMJudge | None = None) -> Judged:
    gold = gold_of(row)
    if isinstance(answer, str):
        verdict = Verdict("declined", answer)
        return Judged(str(row.get("id")), row.get("kind", "-"), gold.answerable, verdict.label, verdict.reason,
                      "error", "-", None if not gold.answerable else False)
    cited = [c.document_id for c in answer.citations if c.document_id]
    verdict = judge(gold, answer.answer, answer.status, cited)
    top5 = bool(gold.relevant & set(first_documents(answer))) if gold.answerable else None
    return Judged(str(row.get("id")), row.get("kind", "-"), gold.answerable, verdict.label, verdict.reason,
                  answer.status, answer.mode_used, top5, answer.answer, cited,
                  llm(row, answer) if llm is not None else None)


def rejudge(result: dict, questions: list[dict]) -> dict:
    """Label the answers saved in ``result`` again (after a change to the judge or the gold facts), without asking
    anything: the same shape, new labels."""
    by_id = {str(q.get("id")): q for q in questions}
    out = {**result, "modes": {}}
    for mode, summary in result["modes"].items():
        out["modes"][mode] = mode_summary([_relabel(saved, by_id[saved["id"]]) for saved in summary["answers"]])
    if "variants" in result:
        out["variants"] = {**result["variants"], "modes": {}}
        for mode, m in result["variants"]["modes"].items():
            rows = as_asked(m["answers"], questions)
            judged = [_relabel({k: v for k, v in saved.items() if k not in OWN[1:]}, row)
                      for saved, row in zip(m["answers"], rows, strict=True)]
            out["variants"]["modes"][mode] = compare(judged, rows, out["modes"][mode]["answers"])
    return out


def _relabel(saved: dict, row: dict) -> Judged:
    saved = {"top5": None, **saved}
    old = Judged(**saved)
    if old.status == "error":
        return old
    verdict = judge(gold_of(row), old.answer, old.status, old.cited or [])
    return Judged(**{**saved, "label": verdict.label, "reason": verdict.reason})


def evaluate_answers(service: AnswerService, questions: list[dict], modes: list[str],
                     as_of: date | None = None, llm: LLMJudge | None = None) -> dict:
    """Every question in every mode, labelled; the summary in the shape ``labels`` documents."""
    result: dict = {"default_mode": modes[0] if modes else DEFAULT_MODE, "modes": {}}
    for mode in modes or [DEFAULT_MODE]:
        judged = []
        for row in questions:
            judged.append(label_one(row, ask(service, row, mode, as_of), llm))
            log.info("%s %s: %s (%s)", mode, row.get("id"), judged[-1].label, judged[-1].reason)
        result["modes"][mode] = mode_summary(judged)
    return result


def evaluate_sample(dataset: Path, settings: Settings, work: Path, indexer: Indexer, modes: list[str],
                    limit: int | None = None, as_of: date | None = None, llm: LLMJudge | None = None,
                    split: str = "all", variants: bool = False) -> dict:
    """Index ``dataset/documents`` into ``work/sample`` (incremental: a rerun reuses it), then ask the questions
    of ``split`` (the first ``limit`` of them), and with ``variants`` their rewordings in ``variants.jsonl``."""
    every = read_questions(dataset / "questions.jsonl")
    questions = select_split(every, split, dataset / "questions.jsonl")[:limit or None]
    reworded = read_variants(dataset / VARIANTS) if variants else []  # a missing file fails before indexing
    vsettings = settings.replace(home=work / "sample", source=dataset / "documents")
    indexer.index_source(vsettings)
    service = open_service(vsettings)
    as_of = as_of or sample_as_of(every)
    result = evaluate_answers(service, questions, modes, as_of, llm)
    result.update(dataset=dataset.name, split=split, questions=len(questions),
                  snapshot_id=service.holder.require().snapshot_id)
    if variants:
        result["variants"] = evaluate_variants(
            lambda row, mode: label_one(row, ask(service, row, mode, as_of), llm), reworded, result, questions)
    return result


def sample_as_of(questions: list[dict]) -> date | None:
    """The reference date the questions are labelled against (their ``as_of``), for governance questions."""
    dates = {row["as_of"] for row in questions if row.get("as_of")}
    return date.fromisoformat(min(dates)) if dates else None
