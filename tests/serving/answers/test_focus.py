"""A question written with its situation around the ask ("Sou nova no almoxarifado ... qual é a faixa?"): the
situation's words are not facts a passage must hold, so a passage that answers the ask is graded as it would be
for the bare question, and the near-miss measure reads only the ask."""

from __future__ import annotations

from models.analysis import analyze
from serving.answers import focus
from serving.answers.grading import Question, grade

POLICY = "Política de Reembolso de Despesas de Viagem — 6. Prestação de contas"
RULE = ("6.1 A prestação de contas deve ser apresentada no sistema de viagens em até 10 (dez) dias úteis após o "
        "retorno da viagem.\n\n6.3 O reembolso é creditado em até 7 dias úteis após a aprovação.")
RAMBLING = ("Voltei ontem de um congresso em Recife com a equipe da farmácia e o meu gestor pediu para eu organizar "
            "os recibos do hotel e do táxi. Qual é o prazo para prestar contas da viagem? Não quero perder nada.")


def _q(text: str) -> Question:
    return Question.of(text, "pt", {t: 1.0 for t in analyze(text, "pt")})


def test_the_situation_and_the_ask_are_told_apart_in_both_languages():
    segments = focus.asking_segments(RAMBLING, "pt")
    assert [asks for _, asks in segments] == [False, True, False]
    assert segments[1][0] == "Qual é o prazo para prestar contas da viagem?"
    # a comma before an asking word opens the ask; "Dr." ends no sentence
    assert focus.asking_segments("Antes de assinar o recebimento, qual é a faixa aceita?", "pt") == [
        ("Antes de assinar o recebimento", False), ("qual é a faixa aceita?", True)]
    assert [a for _, a in focus.asking_segments("Quais documentos a Dr. Helena aprovou?", "pt")] == [True]
    en = focus.asking_segments("I missed the deadline to submit my report. What should I do?", "en")
    assert [a for _, a in en] == [False, True]
    # a keyword query or a one-sentence request asks with every word: nothing weighs less
    assert focus.factors("prazo prestação de contas viagem", "pt") == {}
    assert focus.factors("Me manda o prazo de prestação de contas da viagem.", "pt") == {}


def test_a_request_told_as_a_statement_asks_from_the_phrase_that_makes_it_one():
    """No question mark and no question word: "Preciso saber ...", "I need to know ..." make a statement ask; the
    situation before the phrase weighs as situation, and the kind of fact asked is read from the request."""
    told = ("Esqueci meu notebook no táxi ontem e estou preocupado. Preciso saber em quantas horas a perda de um "
            "dispositivo tem de ser comunicada ao service desk.")
    segments = focus.asking_segments(told, "pt")
    assert [asks for _, asks in segments] == [False, True] and segments[1][0].startswith("Preciso saber")
    inside = focus.asking_segments("Estou fechando o orçamento de TI e preciso do valor mensal do contrato.", "pt")
    assert inside == [("Estou fechando o orçamento de TI e", False), ("preciso do valor mensal do contrato.", True)]
    share = focus.factors(told, "pt")
    assert {t for t in analyze("notebook táxi", "pt")} <= share.keys() and not share.keys() & set(analyze(
        "dispositivo comunicada", "pt"))
    en = focus.asking_segments("I left my laptop in a taxi. I need to know how fast I must report it.", "en")
    assert [a for _, a in en] == [False, True]
    # a question mark or a question word still decides, and a request with no situation asks with every word
    assert [a for _, a in focus.asking_segments("Preciso saber uma coisa. Qual é o prazo?", "pt")] == [False, True]
    assert focus.factors("Preciso saber o prazo de prestação de contas da viagem.", "pt") == {}


def test_a_parenthesis_after_the_ask_is_part_of_it():
    # a follow-up keeps the earlier question's slot in parentheses ("(valor mensal)"): it is what is asked
    assert focus.asking_segments("E para o contrato de hospedagem em nuvem? (valor mensal)", "pt") == [
        ("E para o contrato de hospedagem em nuvem?", True), ("(valor mensal)", True)]
    assert focus.factors("E para o contrato de hospedagem em nuvem? (valor mensal)", "pt") == {}


def test_a_rambling_question_is_graded_by_its_ask(monkeypatch):
    rambling = grade(_q(RAMBLING), RULE, POLICY, dense=0.6)
    assert rambling.strips[0].text.startswith("6.1")
    # the situation's words are still reported as not held, but weigh a quarter of the ask's
    assert "congresso" in rambling.missing and "prazo" not in rambling.missing
    monkeypatch.setattr(focus, "CONTEXT_SHARE", 1.0)  # every word weighing the same: the passage scores far less
    assert grade(_q(RAMBLING), RULE, POLICY, dense=0.6).score < rambling.score - 0.1


def test_a_short_question_nothing_decides_is_read_in_the_language_most_of_the_index_holds():
    from serving.answers.wording import language_of
    english, portuguese = {"en": 0.97, "pt": 0.03}, {"pt": 0.87, "en": 0.13}
    assert language_of("DHA", english) == "en" and language_of("fava beans", english) == "en"
    assert language_of("DHA", portuguese) == "pt"
    # the question's own words decide when they can, whatever the index holds
    assert language_of("Qual o prazo de prestação de contas?", english) == "pt"
    assert language_of("What is the notice period?", portuguese) == "en"
    assert language_of("qto custa?", english) == "pt"


def test_a_situation_word_respelled_to_reach_the_index_still_weighs_as_the_situation():
    # "sanitária" is held by no chunk, so the index reads it one edit away ("sanit" -> "sant"): the term it
    # became is still a word of the situation, and the grade names it by the question's word
    text = ("Estou preparando a visita da vigilância sanitária ao setor. "
            "Com que periodicidade é feita a manutenção preventiva da osmose?")
    respelled = {"sanit": "sant"}

    def spell(term: str) -> str:
        return respelled.get(term, term)
    weights = {spell(t): 1.0 for t in analyze(text, "pt")}
    q = Question.of(text, "pt", weights, spell=spell)
    assert q.weights["sant"] == focus.CONTEXT_SHARE and "sant" in q.context
    assert q.weights[analyze("periodicidade", "pt")[0]] == 1.0
    assert q.surface["sant"] == "sanitária"


def test_a_code_named_in_the_situation_weighs_as_the_ask():
    """ "... o contrato de alimentação, o CT-2024-0215. Quem é a gestora desse contrato?": the ask refers back to
    the code, so its terms keep their full weight while the situation's other words weigh a share."""
    text = ("Os pacientes reclamaram da temperatura das refeições e quero levar a reclamação ao contrato de "
            "alimentação, o CT-2024-0215. Quem é a gestora desse contrato?")
    shares = focus.factors(text, "pt")
    assert shares[analyze("temperatura", "pt")[0]] == focus.CONTEXT_SHARE
    for term in analyze("CT-2024-0215", "pt"):
        assert term not in shares, term
    q = _q(text)
    assert q.weights["ct-2024-0215"] == 1.0 and "ct-2024-0215" not in q.context
