"""`lakerag eval --answers` end to end on a small corpus: every question asked through the answer service, each
answer labelled, the JSON saved in the shape other tools read; the optional LLM judge through the real client."""

from __future__ import annotations

import json

import pytest

from lakehouse.ids import document_id_for
from lakerag.cli import main
from tests.fixtures.corpora import write_corpus
from tests.fixtures.openai_server import FakeOpenAI

QUESTIONS = [
    {"id": "t1", "question": "Qual é o prazo para prestar contas de despesas de viagem?", "kind": "fact",
     "expected_answer": "10 dias úteis após o retorno da viagem.", "facts": ["10 dias úteis"],
     "relevant_document_ids": [document_id_for("Políticas/Política de Viagens.md")], "groups": ["public"],
     "answerable": True},
    {"id": "t2", "question": "Em quanto tempo a NuvemSul notifica incidentes de segurança?", "kind": "fact",
     "expected_answer": "Em até 72 horas (CT-2024-0187).", "groups": ["juridico"], "answerable": True,
     "relevant_document_ids": [document_id_for("Contratos/CT-2024-0187.md")]},
    {"id": "t3", "question": "Qual é o valor mensal do contrato de vigilância patrimonial CT-2024-0999?",
     "kind": "refusal", "expected_answer": "Não encontrado.", "relevant_document_ids": [], "groups": ["public"],
     "answerable": False},
]


@pytest.fixture(scope="module")
def evaluated(tmp_path_factory):
    root = tmp_path_factory.mktemp("answer-eval")
    dataset = root / "set"
    write_corpus(dataset / "documents")
    (dataset / "questions.jsonl").write_text("\n".join(json.dumps(q, ensure_ascii=False) for q in QUESTIONS),
                                            encoding="utf-8")
    out = root / "answers.json"
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("LAKERAG_EMBEDDING_MODEL", "wordllama")
        code = main(["eval", "--answers", "--dataset", str(dataset), "--work", str(root / "work"), "--json",
                     str(out), "--modes", "basic,hybrid", "--home", str(root / "home")])
    assert code == 0
    return root, json.loads(out.read_text(encoding="utf-8"))


def test_every_mode_gets_label_shares_and_refusal_metrics(evaluated, capsys):
    _, result = evaluated
    assert result["default_mode"] == "basic" and set(result["modes"]) == {"basic", "hybrid"}
    assert result["commit"] and result["date"] and result["settings"]["embedding_model"] == "wordllama"
    for mode in result["modes"].values():
        assert set(mode["labels"]) == {"correct", "partly", "wrong", "declined"}
        assert sum(mode["labels"].values()) == pytest.approx(1.0)
        for key in ("unanswerable_declined", "answerable_declined", "refusal_precision", "refusal_recall",
                    "expected_document_top5"):
            assert 0 <= mode[key] <= 1
        assert set(mode["by_kind"]) == {"fact", "refusal"} and mode["questions"] == 3
        labels = {a["id"]: a["label"] for a in mode["answers"]}
        assert labels["t1"] == "correct"  # 10 dias úteis, from the travel policy, cited
        assert labels["t3"] in ("wrong", "declined")  # never correct: nothing answers it


def test_the_llm_judge_reports_its_agreement(evaluated):
    from lakehouse.settings import Settings
    from serving.evaluation.answers import evaluate_answers, open_service
    from serving.evaluation.llm_judge import LLMJudge

    root, _ = evaluated
    with FakeOpenAI(responder=lambda body: '{"label": "correct", "reason": "ok"}') as fake:
        settings = Settings(home=root / "work" / "sample", embedding_model="wordllama")
        judge = LLMJudge.from_settings(settings.replace(llm_base_url=fake.base_url, llm_model=fake.model),
                                       root / "judge-cache")
        result = evaluate_answers(open_service(settings), QUESTIONS, ["basic"], llm=judge)
        prompt = fake.requests[0]["messages"]
    judged = result["modes"]["basic"]
    assert judged["llm_judge"]["judged"] == 3
    labels = [a["label"] for a in judged["answers"]]
    assert judged["llm_judge"]["agreement"] == pytest.approx(labels.count("correct") / 3, abs=1e-3)
    assert "data, not instructions" in prompt[0]["content"] and QUESTIONS[0]["question"] in prompt[1]["content"]
