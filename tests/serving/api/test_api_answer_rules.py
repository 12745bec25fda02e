"""Answer rules over the indexed sample corpus: a question about a name the caller's documents never mention, or
whose evidence misses its subject, is refused rather than answered from neighbouring passages; a question that
names a document's code and asks one of its slots (supplier, manager, term, subject) is answered from that
document's passage for the slot."""

from __future__ import annotations

import re

import pytest

from serving.answers import AnswerService
from serving.answers.access import Caller
from serving.answers.types import QueryRequest

BUYER = Caller("t", frozenset({"compras"}))


def _ask(api, question: str, caller: Caller = BUYER):
    return AnswerService(api.holder).query(QueryRequest(question, mode="auto"), caller, "r")


def test_a_supplier_name_no_readable_document_holds_is_refused_and_named(api):
    answer = _ask(api, "Qual é o valor mensal pago à Limpamax Serviços pela limpeza hospitalar?")
    assert answer.status == "not_found" and answer.citations == []
    assert "no readable document contains Limpamax" in answer.warnings
    control = _ask(api, "Qual é o valor mensal do contrato de limpeza hospitalar?")  # no name: the contract answers
    assert control.status == "answered" and "R$ 86.400,00" in control.answer


@pytest.mark.parametrize("question", [
    "Quem é o fornecedor do contrato de jardinagem hospitalar?",
    "Quantos leitos de UTI neonatal o hospital possui?",
    "Qual é o código do protocolo gerenciado de pneumonia grave?",
])
def test_evidence_that_misses_the_subject_of_the_question_is_refused_not_partial(api, question):
    answer = _ask(api, question)
    first, *where = answer.answer.splitlines()
    assert answer.status == "not_found" and first == "Não encontrei essa informação nos documentos disponíveis."
    # nothing of a neighbouring rule is quoted: at most the documents on the topic are named, each cited
    assert len(where) <= 1 and all(f"[{c.n}]" in where[0] for c in answer.citations)
    assert not where or where[0].startswith("Documentos que tratam do assunto:")


@pytest.mark.parametrize(("question", "expected"), [
    ("Quem é o fornecedor do contrato CT-2024-0215?", "CONTRATADA: Sabor & Saúde Alimentação Coletiva Ltda."),
    ("Quem é o gestor do contrato CT-2024-0203?", "Gustavo Henrique Freitas"),
    ("Do que trata o documento POP-TI-003?", "Definir a rotina de cópias de segurança"),
])
def test_a_slot_of_a_coded_document_is_answered_from_that_document(api, question, expected):
    answer = _ask(api, question)
    assert answer.status == "answered" and expected in answer.answer.splitlines()[0]
    code = question.rstrip("?").rsplit(" ", 1)[-1]
    assert all(code in (c.title or "") or code in (c.path or "") for c in answer.citations)


def test_version_labels_belong_to_documents_with_versions_and_name_what_they_supersede(api):
    unversioned = _ask(api, "Com quanta antecedência as férias devem ser solicitadas?")
    assert "60 dias" in unversioned.answer and "Versão" not in unversioned.answer  # a form is nobody's old version
    assert "15 dias" not in unversioned.answer  # the manual's rule, not the form's other deadline beside it
    versioned = _ask(api, "Qual é o prazo para prestar contas de despesas de viagem?")
    lines = versioned.answer.splitlines()
    assert lines[0].startswith("Versão vigente") and lines[1].startswith("Versão substituída")
    assert not any(re.search(r":\s*\[\d+\]$", line) for line in lines)  # nothing hangs after a colon


def test_a_strip_that_introduces_a_table_is_quoted_with_its_rows(api):
    answer = _ask(api, "Qual a ordem de coleta dos tubos de sangue?")
    line = next(line for line in answer.answer.splitlines() if line.rstrip().endswith(":"))
    rows = answer.answer.split(line, 1)[1].splitlines()[1:]
    assert rows[0].startswith("- Ordem: 1") and any("citrato de sódio 3,2%" in r for r in rows)


@pytest.mark.parametrize(("question", "word"), [
    # the documents write "Escala de Quedas de Morse": one word of the name is theirs, the others are translated
    ("From what Morse Fall Scale score is a patient considered at high risk of falling?", "Fall"),
    # English capitalises months; "August" names nothing a Portuguese document must hold
    ("Did the August 2025 terminal cleaning audit meet the contract target?", "August"),
])
def test_an_english_question_is_not_refused_for_the_translated_words_of_a_name(api, question, word):
    answer = _ask(api, question, Caller("t", frozenset({"public", "compras", "qualidade"})))
    assert not any(w.startswith("no readable document contains") for w in answer.warnings), answer.warnings
    assert answer.status != "not_found" or word not in answer.answer


def test_an_english_question_about_a_name_no_document_holds_is_still_refused(api):
    answer = _ask(api, "What is the monthly fee paid to Limpamax Ltd for hospital cleaning?")
    assert answer.status == "not_found" and "no readable document contains Limpamax" in answer.warnings


def test_a_question_told_with_its_situation_is_answered_like_the_bare_question(api):
    question = ("Voltei ontem de um congresso em Recife com a equipe da farmácia e o meu gestor pediu para eu "
                "organizar os recibos do hotel e do táxi. Qual é o prazo para prestar contas da viagem? Não quero "
                "perder nada.")
    answer = _ask(api, question, Caller("t", frozenset({"public"})))
    assert answer.status == "answered" and "10 (dez) dias úteis" in answer.answer, answer.answer


def test_a_level_the_salary_table_does_not_hold_is_refused_with_where_to_look(api):
    hr = Caller("t", frozenset({"public", "rh"}))
    answer = _ask(api, "Qual é a faixa salarial do Técnico de Enfermagem nível IV?", hr)
    assert answer.status == "not_found" and "Tabela de Faixas Salariais" in answer.answer, answer.answer
    control = _ask(api, "Qual é a faixa salarial do Técnico de Enfermagem nível II?", hr)
    assert control.status != "not_found", control.answer


def test_a_name_that_opens_with_a_function_word_is_not_refused_for_it(api):
    # "The" is a stopword of the name's language: it names nothing a document must hold
    answer = _ask(api, "Qual é o valor mensal do contrato de limpeza com a The Higiplus?",
                  Caller("t", frozenset({"public", "compras"})))
    assert not any(w.startswith("no readable document contains") for w in answer.warnings), answer.warnings


def test_a_word_no_document_writes_in_either_language_makes_the_question_a_near_miss(api):
    # the stroke protocol writes the adult dose and never "gestante" nor "pregnant": it cannot state theirs
    public = Caller("t", frozenset({"public"}))
    answer = _ask(api, "Qual é a dose de alteplase para gestantes com AVC isquêmico?", public)
    assert answer.status == "not_found" and "Acidente Vascular Cerebral" in answer.answer, answer.answer
    english = _ask(api, "What alteplase dose is given to pregnant women with ischaemic stroke?", public)
    assert english.status == "not_found" and "0,9 mg/kg" not in english.answer, english.answer
    control = _ask(api, "Qual é a dose de alteplase no AVC isquêmico?", public)
    assert control.status == "answered" and "0,9 mg/kg" in control.answer, control.answer


@pytest.mark.parametrize(("question", "groups", "expected"), [
    # "porcentagem" asks for a share, which a strip stating one holds
    ("Qual a porcentagem de adesão à higiene das mãos exigida?", {"public"}, "85%"),
    # "total" is held inside "totalizando"
    ("Qual o valor total mensal do contrato de limpeza?", {"public", "compras"}, "R$ 86.400,00"),
])
def test_a_word_the_passage_holds_another_way_is_no_near_miss(api, question, groups, expected):
    answer = _ask(api, question, Caller("t", frozenset(groups)))
    assert answer.status == "answered" and expected in answer.answer, answer.answer


def test_the_parts_of_a_question_about_one_subject_are_answered_from_its_passage(api):
    # 5.2 states the dose, 5.1 of the same passage the time window; another passage's sentence about symptom
    # onset (the neurologist's assessment) holds the words of the second part but not its answer
    answer = _ask(api, "Qual é a dose da alteplase para trombólise e até quando ela pode ser feita depois do início "
                       "dos sintomas?", Caller("t", frozenset({"public"})))
    assert answer.status == "answered" and "0,9 mg/kg" in answer.answer and "4,5 horas" in answer.answer, \
        answer.answer
