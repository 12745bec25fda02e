"""`lakerag eval` on a BEIR folder: ``--modes agentic`` scores the agentic mode beside the others, and
``--answers`` asks every question of answers.jsonl (an unanswerable one without qrels included), labels each
answer with the judge and reports the unanswerable questions' declined share with every answer in the JSON."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lakehouse.errors import ConfigError
from lakerag.indexer import PipelineIndexer
from tests.serving.evaluation.test_eval_modes import CORPUS, QUERIES

UNANSWERABLE = ("q3", "What is the boiling point of liquid helium on Mars?")


def _folder(root: Path, answers: str | None = None) -> Path:
    folder = root / "tiny-hotpot"
    (folder / "qrels").mkdir(parents=True)
    (folder / "corpus.jsonl").write_text("\n".join(json.dumps({"_id": t, "title": t, "text": x})
                                                   for t, x in CORPUS), encoding="utf-8")
    queries = [*((q, t) for q, (t, _) in QUERIES.items()), UNANSWERABLE]
    (folder / "queries.jsonl").write_text("\n".join(json.dumps({"_id": q, "text": t}) for q, t in queries),
                                          encoding="utf-8")
    (folder / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\n" + "".join(
        f"{q}\t{d}\t1\n" for q, (_, docs) in QUERIES.items() for d in docs), encoding="utf-8")  # none for q3
    (folder / "answers.jsonl").write_text(answers if answers is not None else (
        '{"_id": "q1", "answers": ["Stephen King"], "type": "bridge"}\n'
        '{"_id": "q2", "answers": ["Portland"], "type": "bridge"}\n'
        '{"_id": "q3", "answers": [], "answerable": false}\n'), encoding="utf-8")
    return folder


def _settings():
    from lakehouse.settings import Settings

    return Settings(embedding_model="wordllama", enrich="off")


def test_agentic_is_scored_in_retrieval_evaluation(tmp_path):
    from serving.evaluation.modes import evaluate_modes

    result = evaluate_modes(_folder(tmp_path), _settings(), tmp_path / "work", PipelineIndexer(),
                            ("hybrid", "agentic"))
    assert list(result["modes"]) == ["hybrid", "agentic"]
    agentic = result["modes"]["agentic"]
    assert 0 < agentic["recall@10"] <= 1 and 0 <= agentic["all_evidence@10"] <= agentic["recall@10"]
    with pytest.raises(ConfigError, match="--modes: unknown mode.*global_search"):
        evaluate_modes(_folder(tmp_path / "again"), _settings(), tmp_path / "work", PipelineIndexer(),
                       ("global_search",))


def test_answer_evaluation_asks_every_question_and_labels_each_answer(tmp_path):
    from serving.evaluation.answer_sets import answer_set_table, evaluate_answer_set

    result = evaluate_answer_set(_folder(tmp_path), _settings(), tmp_path / "work", PipelineIndexer(),
                                 ["basic", "agentic"])
    assert result["questions"] == 3 and result["unanswerable"] == 1  # q3 has no qrels and is asked anyway
    assert list(result["modes"]) == ["basic", "agentic"]
    for mode in result["modes"].values():
        assert {a["id"] for a in mode["answers"]} == {"q1", "q2", "q3"}
        assert all(a["label"] in ("correct", "partly", "wrong", "declined") and a["reason"]
                   for a in mode["answers"])
        q3 = next(a for a in mode["answers"] if a["id"] == "q3")
        assert q3["answerable"] is False and q3["label"] == "declined"  # nothing in the corpus answers it
        assert mode["unanswerable_declined"] == 1.0 and mode["answerable_declined"] == 0.0
        assert sum(mode["labels"].values()) == pytest.approx(1.0)
        assert 0 <= mode["contains_gold"] <= 1 and mode["by_kind"].keys() == {"-", "bridge"}
    table = answer_set_table(result)
    assert "unans.declined" in table and "agentic" in table and "1 unanswerable" in table


@pytest.mark.parametrize(("line", "field"), [('{"_id": "q1", "answers": ["x"], "answerable": "no"}', "answerable"),
                                             ('{"_id": "q1", "answers": "Stephen King"}', "answers"),
                                             ('{"_id": "q1", "answers": []}', "answers"),
                                             ('{"_id": "q1", "answers": [', "JSON")])
def test_a_bad_answers_line_is_named(tmp_path, line, field):
    from serving.evaluation.answer_sets import read_gold

    folder = _folder(tmp_path, f'{{"_id": "q2", "answers": ["Portland"]}}\n{line}\n')
    with pytest.raises(ConfigError, match=rf"answers.jsonl:2: .*{field}"):
        read_gold(folder)


def test_skip_leaves_out_the_first_questions_and_a_bad_skip_is_named(tmp_path, capsys):
    """``--skip 1`` asks the questions after the first (sorted by id), so a change is tried on questions the
    reported run does not ask; a negative skip, or a skip outside ``--answers`` on a BEIR set, is an error
    naming the option."""
    from lakerag.cli import main
    from serving.evaluation.answer_sets import evaluate_answer_set

    folder = _folder(tmp_path)
    result = evaluate_answer_set(folder, _settings(), tmp_path / "work", PipelineIndexer(), ["basic"], skip=1)
    assert result["questions"] == 2 and result["skipped"] == 1
    assert {a["id"] for a in result["modes"]["basic"]["answers"]} == {"q2", "q3"}
    with pytest.raises(ConfigError, match="--skip -1"):
        evaluate_answer_set(folder, _settings(), tmp_path / "work", PipelineIndexer(), ["basic"], skip=-1)
    assert main(["eval", "--dataset", str(folder), "--skip", "1", "--work", str(tmp_path / "work")]) == 2
    assert "--skip: only with --answers" in capsys.readouterr().err
