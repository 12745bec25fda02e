"""Follow-up questions over HTTP: history or a kept conversation, rewritten into a self-contained question
(rules, or the LLM through the cached client), validated, and never readable with another key."""

from __future__ import annotations

from tests.fixtures.api import TRAVEL
from tests.fixtures.openai_server import FakeOpenAI

TRAVEL_TITLE = "Reembolso de Despesas de Viagem"
FOLLOW = "E qual o limite diário de alimentação nas capitais?"


def _ask(api, body: dict, key: str | None = None) -> dict:
    response = api.client.post("/v1/query", json={"mode": "basic", **body}, headers=api.key(key))
    assert response.status_code == 200, response.text
    return response.json()


def _turn(answer: dict) -> dict:
    return {"question": answer["question"], "answer": answer["answer"],
            "cited_document_ids": [c["document_id"] for c in answer["citations"]]}


def test_dependent_follow_up_is_rewritten_from_history(api):
    first = _ask(api, {"question": TRAVEL})
    second = _ask(api, {"question": FOLLOW, "history": [_turn(first)]})
    assert second["question"] == FOLLOW
    assert second["rewritten_question"] == f"{FOLLOW} (despesas de viagem)"
    assert "120" in second["answer"] and TRAVEL_TITLE in second["citations"][0]["title"]
    plain = _ask(api, {"question": FOLLOW, "history": [_turn(first)], "rewrite": False})
    assert plain["rewritten_question"] is None


def test_self_contained_follow_up_is_untouched(api):
    first = _ask(api, {"question": TRAVEL})
    own = "Qual a frequência da limpeza terminal de leitos no POP-HIG-002?"
    second = _ask(api, {"question": own, "history": [_turn(first)]})
    assert second["rewritten_question"] is None
    assert all(TRAVEL_TITLE not in c["title"] for c in second["citations"])


def test_doc_type_filter_is_carried(api):
    first = _ask(api, {"question": "Qual o objetivo do procedimento de higienização das mãos?",
                       "filters": {"doc_types": ["pop"]}})
    history = [{**_turn(first), "filters": {"doc_types": ["pop"]}}]
    second = _ask(api, {"question": "E quem aprovou?", "history": history})
    assert second["filters"] == {"doc_types": ["pop"]}
    assert second["rewritten_question"] and second["rewritten_question"] != "E quem aprovou?"


def test_history_is_validated(api):
    turn = {"question": TRAVEL, "answer": "10 dias úteis"}
    cases = [{"history": [turn] * 11}, {"history": [{**turn, "answer": "x" * 15_000}] * 2},
             {"history": [{"answer": "sem pergunta"}]}, {"history": [turn], "conversation_id": "abcdefgh1234"},
             {"conversation_id": "bad id!"}]
    for extra in cases:
        response = api.client.post("/v1/query", json={"question": FOLLOW, **extra})
        assert response.status_code == 400, (extra.keys(), response.text)
        said = response.text  # the field named in ``field``, ``detail`` or the validation errors
        assert ("history" if "history" in extra else "conversation_id") in said, said


def test_conversation_is_kept_per_key(api):
    first = _ask(api, {"question": TRAVEL}, key="k-rh")
    cid = first["conversation_id"]
    assert cid
    second = _ask(api, {"question": FOLLOW, "conversation_id": cid}, key="k-rh")
    assert second["rewritten_question"].endswith("(despesas de viagem)") and second["conversation_id"] == cid
    for other in ("k-juridico", None):
        response = api.client.post("/v1/query", json={"question": FOLLOW, "conversation_id": cid},
                                   headers=api.key(other))
        assert response.status_code == 404 and "conversation_id" in response.json()["detail"]
    stream = api.client.post("/v1/query/stream", json={"question": "E no exterior?", "conversation_id": cid},
                             headers=api.key("k-rh"))
    assert stream.status_code == 200 and '"rewritten_question":"E no exterior? (despesas de viagem)"' in stream.text


def test_llm_rewrite_is_cached(api, tmp_path):
    from models.llm import LLMClient
    from serving.answers.rewrite import rewrite
    from serving.answers.types import Turn

    catalog = api.holder.require().catalog
    doc = next(d for d, r in catalog.rows.items() if TRAVEL_TITLE in r["title"] and "v3" in r["path"])
    previous = Turn(question=TRAVEL, answer="10 dias úteis [1]", cited_document_ids=[doc])
    with FakeOpenAI(responder=lambda body: "Qual o limite de alimentação nas capitais na política de reembolso?") \
            as fake:
        client = LLMClient(fake.base_url, "fake-model", "x", tmp_path / "llm")
        chat = lambda m: client.chat(m, max_tokens=120).text  # noqa: E731
        for _ in range(2):
            out = rewrite(FOLLOW, [previous], None, catalog, frozenset({"public"}), "pt", chat)
            assert out.source == "llm" and out.question.endswith("política de reembolso?")
        assert len(fake.requests) == 1
        user = fake.requests[0]["messages"][1]["content"]
        assert TRAVEL in user and TRAVEL_TITLE in user and user.rstrip().endswith("Self-contained question:")
        fake.fail_next(10, 500)
        failed = rewrite("E no exterior?", [previous], None, catalog, frozenset({"public"}), "pt",
                         lambda m: LLMClient(fake.base_url, "fake-model", "x", tmp_path / "other",
                                             max_retries=0).chat(m).text)
        assert failed.source == "rules" and failed.question == "E no exterior? (despesas de viagem)" and failed.warnings


def test_second_turns_are_asked_three_ways(api):
    from serving.answers import AnswerService
    from serving.evaluation.dialogues import CONDITIONS, evaluate_dialogues, read_dialogues
    from tests.fixtures.paths import SAMPLE

    rows = [r for r in read_dialogues(SAMPLE.parent / "dialogues.jsonl") if r["id"] in ("d01", "d22")]
    result = evaluate_dialogues(AnswerService(api.holder), rows, "basic")
    assert set(result["modes"]) == set(CONDITIONS) and all(m["questions"] == 2 for m in result["modes"].values())
    rewrites = {r["id"]: r["rewritten"] for r in result["rewrites"]}
    assert rewrites["d01"].endswith("(despesas de viagem)") and rewrites["d22"] is None
    labels = {a["label"] for m in result["modes"].values() for a in m["answers"]}
    assert labels <= {"correct", "partly", "wrong", "declined"}
    assert "correct" in result["gap_points"]


def test_rules_carry_the_subject_only_when_the_follow_up_has_none(api):
    from serving.answers.rewrite import rewrite_rules
    from serving.answers.types import Turn

    catalog, public = api.holder.require().catalog, frozenset({"public"})
    previous = Turn(question="Qual o preço da refeição de colaborador no contrato CT-2024-0215?")
    cases = {"E quem é a gestora desse contrato?": "E quem é a gestora desse contrato? (CT-2024-0215)",
             "E a validade?": "E a validade? (CT-2024-0215)",
             # a new subject alone keeps the earlier question's asked slot
             "E o contrato CT-2024-0187?": "E o contrato CT-2024-0187? (preço refeição colaborador)",
             "Quais contratos vencem em 30 dias?": "Quais contratos vencem em 30 dias?",
             "Qual a meta de adesão à higienização das mãos no hospital?":
                 "Qual a meta de adesão à higienização das mãos no hospital?"}
    for asked, expected in cases.items():
        assert rewrite_rules(asked, previous, None, catalog, public, "pt").question == expected, asked


def test_a_follow_up_naming_a_new_subject_keeps_the_asked_slot(api):
    """'E para o contrato de hospedagem em nuvem?' after a monthly-value question asks that contract's monthly
    value (it answered the contract's object clause before, and the next turn drifted from there)."""
    first = _ask(api, {"question": "Qual o valor mensal do contrato CT-2024-0178?"}, "k-all")
    follow = "E para o contrato de hospedagem em nuvem?"
    second = _ask(api, {"question": follow, "history": [_turn(first)]}, "k-all")
    assert second["rewritten_question"] == f"{follow} (valor mensal)"
    assert "104.000,00" in second["answer"]
    own = _ask(api, {"question": "E quem assina o contrato de hospedagem em nuvem pela contratante?",
                     "history": [_turn(first)]}, "k-all")
    assert own["rewritten_question"] is None  # it asks something of its own


def test_an_unfaithful_llm_rewrite_falls_back_to_the_rules_and_is_counted(api, tmp_path):
    """A small model echoing the prompt or asking something else (measured with SmolLM2: "A document, a code, a
    topic, e o que é o limite ...? Question: What is the maximum allowable amount of food in a population?") is
    not the follow-up made self-contained: the rules' rewrite is searched, a warning says so, and the reply is
    counted as rejected; a faithful rewrite that fills in the subject from the previous turn is kept."""
    from models.llm import LLMClient
    from serving.answers.rewrite import rewrite
    from serving.answers.types import Turn

    catalog = api.holder.require().catalog
    doc = next(d for d, r in catalog.rows.items() if TRAVEL_TITLE in r["title"] and "v3" in r["path"])
    previous = Turn(question=TRAVEL, answer="10 dias úteis [1]", cited_document_ids=[doc])
    replies = {
        FOLLOW: "A document, a code, a topic, e o que é o limite diário de alimentação nas capitais? Question: What "
                "is the maximum allowable amount of food in a population?",
        "E quanto é pago por quilômetro?": "Quanto temos de várias mensagens?",
        "E no exterior?": "Qual é o prazo para prestar contas de despesas de viagem ao exterior segundo a política de "
                          "reembolso?",
    }
    with FakeOpenAI(responder=lambda body: next(v for k, v in replies.items()
                                                if k in body["messages"][1]["content"])) as fake:
        client = LLMClient(fake.base_url, "fake-model", "x", tmp_path / "llm")
        chat = lambda m: client.chat(m, max_tokens=120).text  # noqa: E731
        for question in (FOLLOW, "E quanto é pago por quilômetro?"):
            out = rewrite(question, [previous], None, catalog, frozenset({"public"}), "pt", chat, client.reject)
            assert out.source == "rules" and out.question == f"{question} (despesas de viagem)"
            assert out.warnings and "could not rewrite" in out.warnings[0]
        assert client.usage["rejected"] == 2
        kept = rewrite("E no exterior?", [previous], None, catalog, frozenset({"public"}), "pt", chat, client.reject)
        assert kept.source == "llm" and kept.question.startswith("Qual é o prazo para prestar contas")
        assert client.usage["rejected"] == 2
