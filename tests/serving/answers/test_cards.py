"""Document cards: which questions are answered from one document's catalog row, and which are not."""

from __future__ import annotations

import pytest

from models.analysis import analyze
from serving.answers.cards import card_of
from serving.answers.doctypes import DocTypes


def _row(document_id: str, title: str, groups=("public",), version="1", **fields) -> dict:
    base = {"responsible": "Ana Lima", "approver": "Bruno Reis", "next_review_date": "2027-03-01",
            "last_review_date": "2025-03-01", "version": version, "issue_date": None,
            "summary": f"O que {title} estabelece."}
    return {"document_id": document_id, "title": title, "access_groups": list(groups), **base, **fields}


ROWS = {r["document_id"]: r for r in [
    _row("hands", "POP-ENF-014 - Higienização das Mãos"),
    _row("access", "IT-TI-021 - Concessão, Revisão e Revogação de Acessos a Sistemas"),
    _row("falls", "Protocolo Clínico de Prevenção de Quedas"),
    _row("retention", "Data Retention Standard"),
    _row("thirds", "Política de Segurança da Informação para Terceiros", version="3"),
    _row("annex", "Anexo III - Segurança da Informação do CT-2024-0187", responsible=None, approver=None,
         next_review_date=None, last_review_date=None, version=None),
    _row("travel2", "Política de Reembolso de Despesas de Viagem", version="2"),
    _row("travel3", "Política de Reembolso de Despesas de Viagem", version="3"),
    _row("hours", "Política de Banco de Horas", groups=("rh",)),
    # two sections of one article, no version to tell them apart
    _row("cs-p1", "CIENCIA_DA_COMPUTACAO", version=None),
    _row("cs-p2", "CIENCIA_DA_COMPUTACAO", version=None),
    _row("contract", "Contrato de Prestação de Serviços de Limpeza nº CT-2024-0178", responsible=None,
         approver=None, next_review_date=None, last_review_date=None, version=None),
]}
TYPES = DocTypes.of(["pop", "politica", "protocolo", "contrato", "anexo_contratual"])
PUBLIC = frozenset()


@pytest.mark.parametrize("question, document_id, fields", [
    # abbreviations, a shortened title, no accents, a typo in the title, another language, an acronym
    ("quem fez e quem aprovou o POP de higiene das mãos? e qdo vence a revisao?", "hands",
     ("responsible", "approver", "next_review_date")),
    ("quem elaborou e quem aprovou o pop de higienizacao das maos e quando tem que revisar", "hands",
     ("responsible", "approver", "next_review_date")),
    ("Quando vence a revisão do Data Retention Standart e quem elaborou?", "retention",
     ("next_review_date", "responsible")),
    ("who wrote the data retention standard and when does it need reviewing?", "retention",
     ("responsible", "next_review_date")),
    ("a politica de SI pra terceiros ta em q versão? qdo foi revisada por ultimo?", "thirds",
     ("version", "last_review_date")),
    ("What is the current version of the Third-Party Information Security Policy and when was it last revised?",
     "thirds", ("version", "last_review_date")),
    ("Quem aprovou o POP-ENF-014?", "hands", ("approver",)),
    ("quem é o dono do protocolo de quedas?", "falls", ("responsible",)),
    # what a document is about: its summary; beside another field, only that field
    ("oq é o IT-TI-021?", "access", ("summary",)),
    ("What is document IT-TI-021 about?", "access", ("summary",)),
    ("Qual é a versão do IT-TI-021?", "access", ("version",)),
    ("qual a última versão da política de segurança da informação para terceiros?", "thirds", ("version",)),
    # two versions of one title: the newest answers
    ("quem aprovou a política de reembolso de despesas de viagem?", "travel3", ("approver",)),
])
def test_a_named_documents_fields_are_a_card(question, document_id, fields):
    card = card_of(question, ROWS, PUBLIC, TYPES)
    assert card is not None and (card.document_id, card.fields) == (document_id, fields)


@pytest.mark.parametrize("question", [
    # asks something besides the fields: what the document says, a meeting, a rule
    "Qual era o prazo de prestação de contas de viagem na versão 2 da política de reembolso?",
    "Quem aprovou a Política de Segurança da Informação para Terceiros e em que reunião a minuta foi aprovada?",
    "Quem aprova as férias segundo a política de banco de horas?",
    # the words of a type alone name no one document of it
    "quem aprovou o protocolo clínico?",
    # a version named selects what to read, whatever the words about its version field
    "Which was the deadline in version 1 of the travel reimbursement policy?",
    # names no single document: none, or two alike ("a política" of what?)
    "Quem aprovou a política?",
    "Quais documentos vencem nos próximos 30 dias e quem aprova cada um?",
    "quem é o responsável pelos dados pessoais?",
    "Who is responsible for data retention?",  # a topic, not the Data Retention Standard's owner
    # one title held by several documents that are no versions of one another
    "O que é ciência da computação?",
    # asks no governance field
    "Quantas vezes por turno devo higienizar as mãos segundo o POP?",
    # the row holds none of the fields asked: the contract's text answers, not the catalog
    "Quem é o responsável pelo contrato CT-2024-0178?",
])
def test_other_questions_are_not_cards(question):
    assert card_of(question, ROWS, PUBLIC, TYPES) is None


def test_a_card_names_only_documents_the_caller_may_read():
    question = "quem aprovou a política de banco de horas?"
    assert card_of(question, ROWS, PUBLIC, TYPES) is None
    card = card_of(question, ROWS, frozenset({"rh"}), TYPES)
    assert card is not None and card.document_id == "hours"


def test_a_field_word_typed_one_letter_off_is_read_when_the_index_does_not_hold_it():
    known = {"quem", "aprovou", "higienizacao", "maos", "quando", "trata"}.__contains__
    question = "Quem aprovou o POP de higienização das mãos, e quando ele deve ser revisdo?"
    assert card_of(question, ROWS, PUBLIC, TYPES) is None  # "dev", "revisdo": something more is asked
    card = card_of(question, ROWS, PUBLIC, TYPES, known)
    assert card is not None and card.fields == ("approver", "next_review_date")
    card = card_of("Do que trata o documetno IT-TI-021?", ROWS, PUBLIC, TYPES, known)
    assert card is not None and (card.document_id, card.fields) == ("access", ("summary",))
    # a word the index holds is the word typed, not a field's
    assert card_of("Do que trata o documetno IT-TI-021?", ROWS, PUBLIC, TYPES,
                   lambda w: known(w) or w == "documetno") is None


def test_words_describing_the_named_document_that_its_text_holds_name_it_too():
    # "quedas de pacientes internados": the title says "Quedas"; the protocol's text says who falls
    text = {"falls": "prevencao de quedas de pacientes internados e idosos"}

    def holds(document_id: str, term: str) -> bool:
        return term in analyze(text.get(document_id, ""), "pt")
    question = "quem aprovou o protocolo de quedas de pacientes internados?"
    assert card_of(question, ROWS, PUBLIC, TYPES) is None  # "pacientes", "internados": something more?
    card = card_of(question, ROWS, PUBLIC, TYPES, holds=holds)
    assert card is not None and card.document_id == "falls" and card.fields == ("approver",)
    # a word the document's text does not hold, or one before the type's name, still asks something more
    assert card_of("quem aprovou o protocolo de quedas de criancas?", ROWS, PUBLIC, TYPES, holds=holds) is None
    assert card_of("quem aprova a internacao de pacientes no protocolo de quedas?", ROWS, PUBLIC, TYPES,
                   holds=holds) is None


def test_an_english_question_names_a_portuguese_title_through_the_glossary():
    card = card_of("who is responsible for the hand hygiene SOP?", ROWS, PUBLIC, TYPES)
    assert card is not None and card.document_id == "hands" and card.fields == ("responsible",)
    card = card_of("who approved the fall prevention protocol?", ROWS, PUBLIC, TYPES)
    assert card is not None and card.document_id == "falls" and card.fields == ("approver",)


def test_the_named_type_of_the_document_counts_as_a_term_naming_it():
    rows = {**ROWS, "hands": {**ROWS["hands"], "doc_type": "pop"}}
    card = card_of("who wrote the hygiene SOP?", rows, PUBLIC, TYPES)
    assert card is not None and card.document_id == "hands"
    assert card_of("who wrote the hygiene policy?", rows, PUBLIC, TYPES) is None  # no policy is about hygiene
