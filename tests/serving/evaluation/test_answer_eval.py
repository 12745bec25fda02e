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
     "answerable": True, "split": "dev"},
    {"id": "t2", "question": "Em quanto tempo a NuvemSul notifica incidentes de segurança?", "kind": "fact",
     "expected_answer": "Em até 72 horas (CT-2024-0187).", "groups": ["juridico"], "answerable": True,
     "relevant_document_ids": [document_id_for("Contratos/CT-2024-0187.md")], "split": "test"},
    {"id": "t3", "question": "Qual é o valor mensal do contrato de vigilância patrimonial CT-2024-0999?",
     "kind": "refusal", "expected_answer": "Não encontrado.", "relevant_document_ids": [], "groups": ["public"],
     "answerable": False, "split": "test"},
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


def test_a_split_asks_only_its_questions_and_says_which(evaluated, capsys):
    root, everything = evaluated
    assert everything["split"] == "all"
    dataset, out = root / "set", root / "test-split.json"
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("LAKERAG_EMBEDDING_MODEL", "wordllama")
        code = main(["eval", "--answers", "--dataset", str(dataset), "--work", str(root / "work"), "--json",
                     str(out), "--modes", "basic", "--split", "test", "--home", str(root / "home")])
    assert code == 0
    result = json.loads(out.read_text(encoding="utf-8"))
    assert result["split"] == "test" and result["questions"] == 2
    assert {a["id"] for a in result["modes"]["basic"]["answers"]} == {"t2", "t3"}
    assert "2 questions, split test" in capsys.readouterr().out


def test_a_split_over_questions_without_one_is_an_error_naming_them(tmp_path, capsys):
    from serving.evaluation.splits import select_split

    rows = [{"id": "a", "question": "x", "split": "dev"}, {"id": "b", "question": "y"}]
    assert select_split(rows, "all") == rows
    with pytest.raises(Exception, match=r"'split'.*missing on b"):
        select_split(rows, "test", "questions.jsonl")


VARIANTS = [
    {"id": "t1-colloquial", "original": "t1", "style": "colloquial", "language": "pt",
     "question": "qto tempo eu tenho pra prestar conta da viagem?"},
    {"id": "t2-colloquial", "original": "t2", "style": "colloquial", "language": "pt",
     "question": "em qto tempo a nuvemsul avisa q teve incidente?"},
    {"id": "t2-english", "original": "t2", "style": "english", "language": "en",
     "question": "How soon does NuvemSul report security incidents?"},
    {"id": "t3-no_accents", "original": "t3", "style": "no_accents", "language": "pt",
     "question": "Qual e o valor mensal do contrato de vigilancia patrimonial CT-2024-0999?"},
]


def test_variants_are_asked_beside_their_originals_per_style_and_language(evaluated, capsys):
    root, _ = evaluated
    dataset, out = root / "set", root / "variants.json"
    (dataset / "variants.jsonl").write_text("\n".join(json.dumps(v, ensure_ascii=False) for v in VARIANTS),
                                           encoding="utf-8")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("LAKERAG_EMBEDDING_MODEL", "wordllama")
        code = main(["eval", "--answers", "--variants", "--dataset", str(dataset), "--work", str(root / "work"),
                     "--json", str(out), "--modes", "basic", "--split", "test", "--home", str(root / "home")])
    (dataset / "variants.jsonl").unlink()
    assert code == 0
    result = json.loads(out.read_text(encoding="utf-8"))
    variants = result["variants"]
    assert variants["questions"] == 3 and variants["originals"] == 2  # t1 is dev: neither it nor its variant
    basic = variants["modes"]["basic"]
    assert list(basic["by_style"]) == ["colloquial", "no_accents", "english"]
    assert set(basic["by_language"]) == {"pt", "en"} and basic["by_language"]["en"]["questions"] == 1
    originals = {a["id"]: a["label"] for a in result["modes"]["basic"]["answers"]}
    for answer in basic["answers"]:
        assert {"id", "original", "style", "label", "reason"} <= set(answer)
    english = basic["by_language"]["en"]
    assert english["originals_correct"] == (1.0 if originals["t2"] == "correct" else 0.0)
    assert english["gap_correct"] == pytest.approx(english["labels"]["correct"] - english["originals_correct"])
    printed = capsys.readouterr().out
    assert "3 variants of 2 originals" in printed and "reworded correct minus originals' correct" in printed


def test_variants_without_their_file_is_an_error_naming_it(tmp_path, capsys):
    dataset = tmp_path / "set"
    (dataset / "documents").mkdir(parents=True)
    (dataset / "questions.jsonl").write_text(json.dumps(QUESTIONS[0], ensure_ascii=False), encoding="utf-8")
    code = main(["eval", "--answers", "--variants", "--dataset", str(dataset), "--work", str(tmp_path / "w"),
                 "--home", str(tmp_path / "home")])
    assert code == 2 and str(dataset / "variants.jsonl") in capsys.readouterr().err


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


def test_a_beir_set_with_gold_answers_reports_basic_and_hybrid_side_by_side(tmp_path):
    from lakehouse.settings import Settings
    from lakerag.indexer import PipelineIndexer
    from serving.evaluation.answer_sets import contains_gold, evaluate_answer_set
    from tests.serving.evaluation.test_eval_modes import CORPUS, QUERIES

    folder = tmp_path / "tiny-hotpot"
    (folder / "qrels").mkdir(parents=True)
    (folder / "corpus.jsonl").write_text("\n".join(json.dumps({"_id": t, "title": t, "text": x})
                                                   for t, x in CORPUS), encoding="utf-8")
    (folder / "queries.jsonl").write_text("\n".join(json.dumps({"_id": q, "text": t})
                                                    for q, (t, _) in QUERIES.items()), encoding="utf-8")
    (folder / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\n" + "".join(
        f"{q}\t{d}\t1\n" for q, (_, docs) in QUERIES.items() for d in docs), encoding="utf-8")
    (folder / "answers.jsonl").write_text('{"_id": "q1", "answers": ["Stephen King"]}\n'
                                          '{"_id": "q2", "answers": ["Portland"]}\n', encoding="utf-8")
    result = evaluate_answer_set(folder, Settings(embedding_model="wordllama", enrich="off"), tmp_path / "work",
                                 PipelineIndexer(), ["basic", "hybrid"])
    assert result["questions"] == 2 and list(result["modes"]) == ["basic", "hybrid"]
    for mode in result["modes"].values():
        assert 0 <= mode["contains_gold"] <= 1 and 0 <= mode["declined"] <= 1
    assert result["modes"]["hybrid"]["expected_document_top5"] > 0
    assert contains_gold("It was directed by Stephen King.", ["stephen king"])
    assert not contains_gold("Directed by Kingsley.", ["King"])


@pytest.mark.parametrize("grade", [True, False])
def test_the_eval_service_follows_the_grading_setting_like_the_api(evaluated, grade):
    """`lakerag eval --answers` measures one LLM step switched on alone: LAKERAG_API_GRADE_WITH_LLM=false means
    the model only writes answers, as the API does, never grades the evidence."""
    from lakehouse.settings import Settings
    from serving.evaluation.answers import evaluate_answers, open_service

    root, _ = evaluated
    reply = '{"grade": "relevante", "reason": "ok"}'
    with FakeOpenAI(responder=lambda body: reply, model=f"fake-grade-{grade}") as fake:  # own cache keys
        settings = Settings(home=root / "work" / "sample", embedding_model="wordllama", llm_base_url=fake.base_url,
                            llm_model=fake.model, api_grade_with_llm=grade)
        evaluate_answers(open_service(settings), QUESTIONS[:1], ["basic"])
        gradings = [r for r in fake.requests if r["messages"][0]["content"].startswith("You judge whether")]
    assert bool(gradings) is grade


@pytest.mark.parametrize("generate", [True, False])
def test_the_llm_writes_answers_only_when_generation_is_on(evaluated, generate):
    """LAKERAG_API_GENERATE_WITH_LLM=false keeps the extractive answer while the model still grades: a small local
    model that grades well but writes badly is used for the one step it helps, and the eval measures it alone."""
    from lakehouse.settings import Settings
    from serving.evaluation.answers import evaluate_answers, open_service

    root, _ = evaluated

    def reply(body: dict) -> str:
        if body["messages"][0]["content"].startswith("You judge whether"):
            return '{"grade": "relevante", "reason": "ok"}'
        return "Resposta escrita pelo modelo [1]."

    with FakeOpenAI(responder=reply, model=f"fake-generate-{generate}") as fake:  # own cache keys
        settings = Settings(home=root / "work" / "sample", embedding_model="wordllama", llm_base_url=fake.base_url,
                            llm_model=fake.model, api_generate_with_llm=generate)
        result = evaluate_answers(open_service(settings), QUESTIONS[:1], ["basic"])
        writes = [r for r in fake.requests if not r["messages"][0]["content"].startswith("You judge whether")]
        gradings = [r for r in fake.requests if r["messages"][0]["content"].startswith("You judge whether")]
    answer = result["modes"]["basic"]["answers"][0]["answer"]
    assert bool(writes) is generate
    assert gradings  # grading runs either way
    assert ("Resposta escrita pelo modelo" in answer) is generate
