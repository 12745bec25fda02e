"""What each synthesizer writes from graded evidence: the selector's units, each part covered, duplicates
dropped; the near-miss refusal with where to look; context only; the setting that picks one."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from pydantic import ValidationError

from lakehouse.settings import Settings
from serving.answers import synthesis
from serving.answers.grading import AMBIGUOUS, CORRECT, INCORRECT, Grade, Question, Strip
from serving.answers.modes import Retrieved
from serving.answers.refine import Request
from serving.answers.relevance import terms
from serving.answers.sentences import split_units
from serving.answers.types import EvidenceItem
from serving.answers.wording import not_found


def _graded(question: str, items: dict[int, tuple[str, str, str, float]], language: str = "pt",
            idf: dict[str, float] | None = None):
    """Graded evidence over items {n: (title, text, grade, score)}: each unit of a text a strip; each question
    term weighs its ``idf`` (1 when not given)."""
    weights = {t: (idf or {}).get(t, 1.0) for t in terms(question, language)}
    q = Question.of(question, language, weights)
    retrieved = Retrieved("basic")
    grades = {}
    for n, (title, text, label, score) in items.items():
        retrieved.evidence.append(EvidenceItem(kind="chunk", id=f"c{n}", score=score, text=text, n=n,
                                               document_id=f"d{n}", title=title))
        retrieved.ids[f"c{n}"] = n
        strips, held_all = [], set()
        for i, sentence in enumerate(split_units(text)):
            held = terms(f"{sentence} {title}", language) & weights.keys()
            held_all |= held
            if held:
                strips.append(Strip(sentence, i, len(held) / len(weights), frozenset(held)))
        missing = [q.surface.get(t, t) for t in weights if t not in held_all]
        grades[n] = Grade(label, score, "", strips if label != INCORRECT else [], missing)
    # no sentence flagged; the corpus is these items (how many hold a term, for the words no document writes)
    corpus = [terms(f"{title} {text}", language) for title, text, _, _ in items.values()]
    relevance = SimpleNamespace(df=lambda term: sum(term in held for held in corpus))
    # no document outside these items (an empty index: a document a strip names is read only if it is one of them)
    engine = SimpleNamespace(coded={}, families={}, rows={}, injection=None, relevance=relevance,
                             index=SimpleNamespace(titles=[], document_ids=[]), documents={})
    request = Request(engine, q, retrieved, grades, frozenset(), 0.58, 0.5)  # type: ignore[arg-type]
    return synthesis.Graded(question, language, "basic", retrieved, weights, None, request)


def test_the_selector_quotes_the_best_unit_cited_and_drops_a_duplicate_from_another_source():
    evidence = _graded("Qual é o prazo de reembolso das despesas de viagem?", {
        1: ("Política de Reembolso", "O prazo de reembolso das despesas de viagem é de 10 dias úteis. "
            "A política vale para todos.", CORRECT, 0.8),
        2: ("FAQ", "O prazo de reembolso das despesas de viagem é de 10 dias úteis!", CORRECT, 0.7)})
    draft = synthesis.Selector().draft(evidence)
    assert draft.status == "answered" and draft.cited == [1]
    assert draft.text == "O prazo de reembolso das despesas de viagem é de 10 dias úteis. [1]"


def test_each_part_of_a_question_is_covered_by_its_own_best_unit():
    evidence = _graded("Qual empresa faz a limpeza hospitalar e qual o valor mensal do contrato?", {
        1: ("Contrato de limpeza", "A limpeza hospitalar é feita pela Higiplus Ltda. Ela atende todas as alas.",
            CORRECT, 0.8),
        2: ("Contrato de limpeza, valores", "O valor mensal do contrato é R$ 86.400,00.", CORRECT, 0.7)})
    draft = synthesis.Selector(share=0.99, limit=3).draft(evidence)
    assert "Higiplus" in draft.text and "R$ 86.400,00" in draft.text and draft.cited == [1, 2]


def test_evidence_on_the_topic_without_the_asked_fact_is_the_refusal_naming_where_to_look():
    evidence = _graded("Qual a dose pediátrica de alteplase para crianças no protocolo de AVC?", {
        1: ("Protocolo de AVC", "A alteplase é indicada no AVC isquêmico até 4,5 horas.", AMBIGUOUS, 0.52)},
        idf={"pediatr": 3.0, "crianc": 3.0, "dos": 2.0, "alteplas": 2.0, "no": 0.1})
    for synthesizer in (synthesis.build("selector"), synthesis.build("rules")):
        draft = synthesizer.draft(evidence)
        assert draft.status == "not_found" and draft.text.startswith(not_found("pt"))
        assert "Protocolo de AVC [1]" in draft.text and draft.cited == [1]
        assert "não cobrem" not in draft.text


def test_covered_evidence_is_answered_not_refused():
    evidence = _graded("Qual a dose de alteplase no protocolo de AVC?", {
        1: ("Protocolo de AVC", "A dose de alteplase no AVC é 0,9 mg/kg.", CORRECT, 0.8)})
    assert synthesis.build("selector").draft(evidence).status == "answered"


def test_context_only_writes_no_text_and_cites_the_usable_evidence_best_first():
    evidence = _graded("Qual o prazo de reembolso?", {
        1: ("A", "O prazo de reembolso é 10 dias.", AMBIGUOUS, 0.55),
        2: ("B", "O prazo de reembolso é de 10 dias úteis.", CORRECT, 0.9),
        3: ("C", "Outra coisa.", INCORRECT, 0.1)})
    draft = synthesis.build("context").draft(evidence)
    assert draft.text == "" and draft.cited == [2, 1] and draft.status == "answered"


def test_the_setting_names_the_synthesizer_and_rejects_an_unknown_one():
    assert Settings(answers_synthesizer="selector").answers.synthesizer == "selector"
    assert Settings().answers.synthesizer == synthesis.DEFAULT
    with pytest.raises(ValidationError, match="synthesizer"):
        Settings(answers_synthesizer="poetry")
    with pytest.raises(ValueError, match="poetry"):
        synthesis.build("poetry")


def test_a_question_of_two_parts_answered_by_two_items_is_not_a_near_miss():
    evidence = _graded("Em quantos dias a política de privacidade responde aos titulares, e qual é o valor anual do "
                       "contrato de refeições?", {
                           1: ("Política de Privacidade", "A política de privacidade responde aos titulares em 15 "
                               "dias.", CORRECT, 0.8),
                           2: ("Contrato de refeições", "O valor anual do contrato de refeições é R$ 2.100.000,00.",
                               AMBIGUOUS, 0.55)})
    assert evidence.request is not None and evidence.request.q.parts
    assert synthesis.build("rules").draft(evidence).status != "not_found"


def test_a_month_stated_only_beside_what_would_be_quoted_does_not_answer_the_pinned_question():
    """The minutes state 3 cases for August; September appears in the same passage only as the next meeting's
    date. The question pinned to September 2025 gets the refusal, not August's count."""
    minutes = ("Foram identificados 3 casos de colonização por KPC na UTI adulto entre 12 e 26 de agosto. "
               "A próxima reunião da comissão ocorre em 15 de setembro de 2025.")
    question = "Quantos casos de colonização por KPC foram identificados na UTI adulto em setembro de 2025?"
    evidence = _graded(question, {1: ("Ata da CCIH", minutes, CORRECT, 0.8)})
    assert synthesis.refusal.quoted(evidence.request, [1]) == [split_units(minutes)[0]]
    draft = synthesis.build("rules").draft(evidence)
    assert draft.status == "not_found" and "3 casos" not in draft.text
    # asked for August, the same passage answers, without the next meeting's date (a year shared is no sign the
    # next sentence continues the answer)
    august = synthesis.build("rules").draft(_graded(question.replace("setembro", "agosto"),
                                                    {1: ("Ata da CCIH", minutes, CORRECT, 0.8)}))
    assert august.status == "answered" and "3 casos" in august.text and "setembro" not in august.text


def test_a_level_stated_only_by_rows_of_other_jobs_does_not_answer_the_pinned_question():
    """The table has the asked job at levels I and II and level III only for another job: "nível III" of the
    asked job is a near miss, not the other job's band; the asked job's level II is answered."""
    table = ("| Cargo | Nível | Mínimo (R$) | Máximo (R$) |\n| --- | --- | --- | --- |\n"
             "| Técnico de Enfermagem | I | 2.900,00 | 3.500,00 |\n"
             "| Técnico de Enfermagem | II | 3.300,00 | 3.950,00 |\n"
             "| Enfermeiro(a) Especialista | III | 7.200,00 | 8.900,00 |")
    items = {1: ("Tabela de faixas salariais", table, CORRECT, 0.8)}
    question = "Qual a faixa salarial de Técnico de Enfermagem nível III?"
    evidence = _graded(question, items)
    assert synthesis.refusal.pinned_elsewhere(evidence.request, [1])
    draft = synthesis.build("rules").draft(evidence)
    assert draft.status == "not_found" and "7.200,00" not in draft.text
    asked = synthesis.build("rules").draft(_graded(question.replace("III", "II"), items))
    assert asked.status == "answered" and "3.300,00" in asked.text and "7.200,00" not in asked.text
    other = synthesis.build("rules").draft(_graded("Qual a faixa salarial de Enfermeiro Especialista nível III?",
                                                   items))
    assert other.status == "answered" and "7.200,00" in other.text


def test_a_question_comparing_two_named_documents_is_answered_from_both_not_refused():
    # each document holds its own name and fact: neither alone covers the question, both together do
    question = "Which was founded first, Harbor Light Brewing or Tidewater Brewery?"
    items = {1: ("Harbor Light Brewing", "Harbor Light Brewing is an American brewing company founded in 1988. Its "
                 "first beer was an amber ale.", CORRECT, 0.8),
             2: ("Tidewater Brewery", "Tidewater Brewery is a brewery founded in 1991 in Salem.", AMBIGUOUS, 0.55)}
    idf = {"harbor": 3.0, "light": 3.0, "brew": 1.0, "tidewat": 6.0, "breweri": 2.0, "found": 1.0, "first": 1.0}
    draft = synthesis.build("rules").draft(_graded(question, items, "en", idf))
    assert draft.status != "not_found" and "1988" in draft.text and "1991" in draft.text
    # one of the two documents named: the other's fact is nowhere, the refusal names where to look
    alone = {1: items[1], 2: ("Brewing in Salem", "Salem has several breweries founded since 1991.", AMBIGUOUS, 0.55)}
    assert synthesis.build("rules").draft(_graded(question, alone, "en", idf)).status == "not_found"
