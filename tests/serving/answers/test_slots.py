"""Slots a question asks of a document (supplier, manager, term, subject): the passage that fills the slot is the
strip, and a passage that cannot fill it is not evidence for it."""

from __future__ import annotations

from models.analysis import analyze
from serving.answers.grading import CORRECT, INCORRECT, Question, grade

CONTRACT = "Contrato de Prestação de Serviços de Manutenção nº CT-2031-0042"
PARTIES = ("CONTRATANTE: Associação Hospitalar Exemplo, CNPJ nº 11.111.111/0001-11.\n\n"
           "CONTRATADA: Frio Bom Refrigeração Ltda., CNPJ nº 22.222.222/0001-22, com sede em Campinas (SP).")
TERM = ("2.1 O contrato vigorará por 30 (trinta) meses, a partir de 01/02/2031.\n\n"
        "2.2 A rescisão antes de 6 meses de vigência implica multa de 10%.")
MANAGEMENT = "A gestão do contrato caberá ao Coordenador de Manutenção, Paulo Souza Lima."


def _q(text: str) -> Question:
    return Question.of(text, "pt", {t: 1.0 for t in analyze(text, "pt")})


def test_the_supplier_is_the_contracted_party_line_and_other_clauses_cannot_answer_it():
    q = _q("Quem é o fornecedor do contrato CT-2031-0042?")
    parties = grade(q, PARTIES, f"{CONTRACT} Partes", dense=0.5)
    assert parties.grade == CORRECT and parties.strips[0].text.startswith("CONTRATADA: Frio Bom")
    assert grade(q, TERM, f"{CONTRACT} Do prazo", dense=0.5).grade == INCORRECT


def test_the_company_asked_for_is_the_supplier_as_a_colleague_asks_it():
    # "quem é a empresa", "com qual empresa", "que empresa", "which company": the contracted party, not a clause
    # that happens to hold the word "empresa"
    clause = "4.2 A CONTRATADA contratará empresa independente para o teste de intrusão anual."
    for asked in ("quem é a empresa do CT-2031-0042?", "qual a empresa desse contrato?",
                  "Que empresa presta o serviço do CT-2031-0042?", "o CT-2031-0042 é com qual empresa?"):
        q = _q(asked)
        assert q.kind == "supplier", asked
        assert grade(q, PARTIES, f"{CONTRACT} Partes", dense=0.5).strips[0].text.startswith("CONTRATADA: Frio Bom")
        assert grade(q, clause, f"{CONTRACT} Da segurança", dense=0.5).grade == INCORRECT
    en = Question.of("Which company holds contract CT-2031-0042?", "en",
                     {t: 1.0 for t in analyze("Which company holds contract CT-2031-0042?", "en")})
    assert en.kind == "supplier"
    # a document a supplier may present is asked of a document, not of the supplier
    assert _q("que documento um fornecedor pode apresentar no lugar do certificado?").kind != "supplier"
    # a company asked about outside any contract is not a contracted party ("developed by what company?")
    game = "The racing game was developed by what company?"
    assert Question.of(game, "en", {t: 1.0 for t in analyze(game, "en")}).kind != "supplier"
    assert _q("Qual empresa desenvolveu o sistema de prontuário?").kind != "supplier"


def test_the_manager_is_the_management_clause():
    q = _q("Quem é o gestor do contrato CT-2031-0042?")
    assert grade(q, MANAGEMENT, f"{CONTRACT} Da gestão", dense=0.5).grade == CORRECT
    assert grade(q, PARTIES, f"{CONTRACT} Partes", dense=0.5).grade == INCORRECT


def test_the_term_is_the_clause_that_puts_the_contract_in_force_not_another_mention_of_it():
    g = grade(_q("Qual a vigência do contrato CT-2031-0042?"), TERM, f"{CONTRACT} Do prazo", dense=0.5)
    assert g.grade == CORRECT and [s.text[:3] for s in g.strips] == ["2.1"]


def test_a_slot_is_asked_through_abbreviations_and_a_typo():
    """ "o CT vale ate qdo?" asks the term as "até quando vale" does; "Qual o forncedor" asks the supplier when
    the index reads "forncedor" as "fornecedor" (``Relevance.spelled``); a word read as typed asks nothing new."""
    assert _q("o CT-2031-0042 vale ate qdo?").kind == "term"
    assert _q("até quando vale o CT-2031-0042?").kind == "term"
    typo = "Qual o forncedor do contrato CT-2031-0042?"
    weights = {t: 1.0 for t in analyze(typo, "pt")}
    fixed = Question.of(typo, "pt", weights, spell=lambda t: "fornecedor" if t == "forncedor" else t)
    assert fixed.kind == "supplier"
    assert grade(fixed, PARTIES, f"{CONTRACT} Partes", dense=0.5).strips[0].text.startswith("CONTRATADA: Frio Bom")
    assert Question.of(typo, "pt", weights).kind != "supplier"


def test_what_a_document_is_about_is_its_objective_section():
    q = _q("Do que trata o documento POP-XY-009?")
    title = "POP-XY-009 - Controle de Pragas"
    objective = grade(q, "Definir a rotina de controle de pragas nas áreas do hospital.", f"{title} 1. Objetivo",
                      dense=0.85)  # e5's cosine of a passage about the question (unrelated ones: ~0.73)
    assert objective.grade == CORRECT
    assert grade(q, "As iscas são trocadas a cada 15 dias.", f"{title} 3. Rotina", dense=0.5).grade == INCORRECT


def test_a_question_about_what_to_do_asks_for_the_rule_not_for_the_deadline_it_names():
    q = _q("O que devo fazer se perder o prazo de prestação de contas da viagem?")
    assert q.kind is None
    late = ("6.2 Prestações de contas apresentadas após o prazo só são aceitas com justificativa aprovada pelo "
            "gestor e pela Controladoria.")
    g = grade(q, late, "Política de Reembolso de Despesas de Viagem — 6. Prestação de contas", dense=0.85)
    assert g.grade == CORRECT and g.strips[0].text.startswith("6.2")


def test_a_question_of_two_parts_keeps_the_review_date_and_the_other_part():
    control = ("| PREPARED BY | REVIEWED BY | APPROVED BY |\n| --- | --- | --- |\n"
               "| Ana Lima | Rui Dias | Eva Gomes |\n\nVersion: 2\n\nNext review: 2028-05-01\n\nDepartment: Quality")
    q = Question.of("When is the Cleaning Standard due for review, and who prepared it?", "en",
                    {t: 1.0 for t in analyze("When is the Cleaning Standard due for review, and who prepared it?",
                                             "en")})
    g = grade(q, control, "Cleaning Standard Document control", dense=0.85)  # an e5 cosine of a relevant passage
    texts = " ".join(s.text for s in g.strips)
    assert g.grade != INCORRECT and "2028-05-01" in texts and "Ana Lima" in texts


def test_a_deadline_in_business_days_is_a_deadline():
    text = "Incidents with relevant risk to data subjects are reported to the ANPD within **3 business days**."
    q = Question.of("Within what deadline are incidents reported to the ANPD?", "en",
                    {t: 1.0 for t in analyze("Within what deadline are incidents reported to the ANPD?", "en")})
    assert grade(q, text, "Incident Response Playbook 3.4 Notification", dense=0.6).grade == CORRECT
