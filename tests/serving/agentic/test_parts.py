"""Questions with several parts: how they are split, routed, and answered one cited sentence per part."""

from __future__ import annotations

import math

import pytest

from serving.answers.agentic.bridge import implied
from serving.answers.agentic.parts import asks, pick, render, split, trim
from serving.answers.relevance import terms


@pytest.mark.parametrize("question, parts", [
    ("Quem fornece os uniformes e qual é o valor mensal do contrato dele?", 2),
    ("Quem calibra as balanças, com que periodicidade, e em quanto tempo um chamado deve ser atendido?", 3),
    ("O contrato de lavanderia exige seguro? Qual é o seu prazo de vigência?", 2),
    ("Which company cleans the wards, and how many days does the contract give to fix a defect?", 2),
    ("O fornecedor guarda dados de pacientes; em quantos dias deve apagá-los, e quem responde pelo descarte?", 2),
    ("Qual é o prazo para prestar contas de despesas de viagem?", 1),
    ("A política exige criptografia descrita em anexo. Quais controles o fornecedor se obrigou a cumprir?", 1),
    ("Os exames, quando solicitados com urgência, têm prioridade?", 1),
    # abbreviated question words, written out by the lexicon's data before the split
    ("qdo terminou a migração do prontuário pra nuvem e qual rto o contrato garante?", 2),
    ("qual empresa lava os uniformes e qto custa por mes?", 2),
    # a question word after a preposition still opens a part; "em que" without "e" before it does not
    ("Qual a dose de alteplase e até quando ela pode ser aplicada?", 2),
    ("What alteplase dose is used, and up to when after onset can it be given?", 2),
    ("Quem aprovou a política de backup e em que reunião a minuta foi aprovada?", 2),
    ("Qual o documento em que consta a regra de backup?", 1),
])
def test_a_question_is_split_at_its_question_words(question, parts):
    assert len(split(question)) == parts


def test_a_part_that_points_back_carries_the_first_part_as_context():
    first, second = split("Quem fornece os uniformes e qual é o valor mensal do contrato dele?")
    assert first.query == first.text == "Quem fornece os uniformes"
    assert "uniformes" in second.query and second.text == "qual é o valor mensal do contrato dele"
    statement = split("O fornecedor guarda dados; em quantos dias deve apagá-los, e quem responde pelo descarte?")
    assert statement[0].text.startswith("O fornecedor guarda dados")  # the statement is the first part's context


def test_an_abbreviated_part_is_read_written_out():
    first, second = split("qdo terminou a migração do prontuário e qto foi o acréscimo mensal?")
    assert first.text.startswith("quando terminou")
    assert asks(second.text) == ["money"]


def test_what_a_part_asks_for():
    assert asks("qual é o valor mensal do contrato") == ["money"]
    assert "duration" in asks("em quantos dias deve apagá-los")
    assert "who" in asks("Que empresa lava os uniformes")
    assert asks("quando foi concluída a migração") == ["date"]
    # the lexicon's asks data: "quanto tempo", "how fast" ask a duration as "em quantos dias" does
    assert asks("quanto tempo a gente tem para responder o titular") == ["duration"]
    assert asks("how fast must data subject requests be answered") == ["duration"]


def _weigh(df: dict[str, int], language: str = "pt", n: int = 100):
    def weigh(text: str) -> dict[str, float]:
        return {t: math.log(1 + (n - df.get(t, 1) + 0.5) / (df.get(t, 1) + 0.5)) for t in terms(text, language)}
    return weigh


def test_each_part_gets_the_sentence_that_holds_its_answer_and_nothing_else_of_its_kind():
    sources = [
        ("Ata da Diretoria", "A Lavanda Serviços Ltda. passou a lavar os uniformes em março, com parada de 3 horas."),
        ("Contrato de Lavanderia", "2.1 O valor mensal dos serviços é de R$ 12.000,00, totalizando R$ 288.000,00 "
                                   "em 24 meses.\n\n2.2 O reajuste é anual."),
        ("Política de Compras", "Todo contrato tem valor aprovado pela Diretoria."),
    ]
    parts = split("Que empresa lava os uniformes e qual é o valor mensal do contrato dela?")
    picks = pick(parts, sources, "pt", _weigh({}))
    assert [p.source for p in picks] == [1, 2]
    assert "R$ 12.000,00" in picks[1].unit and "288.000" not in picks[1].unit  # the total is another value
    text = render(picks, "pt")
    assert text.splitlines()[1].endswith("[2]") and "Lavanda" in text.splitlines()[0]


def test_the_words_naming_a_document_do_not_count_as_its_answer():
    sources = [("Incident Response Playbook", "This playbook tells the incident response team what to do.\n\n"
                                              "| Role | Name |\n|---|---|\n| Records Officer | Ana Lima |")]
    first, = pick(split("Who is the records officer in the incident response playbook"), sources, "en",
                  _weigh({}, "en"))
    assert "Ana Lima" in first.unit


def test_a_part_without_a_document_of_its_own_is_answered_from_the_named_one():
    sources = [("Contrato CT-1", "A disponibilidade mínima é de 99,5% ao mês."),
               ("Política de Viagens", "O desconto em folha é aplicado se a prestação de contas não for cumprida."),
               ("Contrato CT-1", "O desconto é de 1% do valor mensal se a disponibilidade não for cumprida.")]
    parts = split("Qual a disponibilidade mínima do CT-1 e qual o desconto se ela não for cumprida?")
    picks = pick(parts, sources, "pt", _weigh({}), [None, {1, 3}])
    assert picks[1].source == 3


def test_a_part_the_named_document_covers_worse_than_another_is_answered_from_the_other():
    # the policy names its version; the minutes of the meeting that approved its draft hold the part's words
    sources = [("Política de Backup", "Versão: 3\n\nAPROVADO POR: Dr. Paulo Reis"),
               ("Ata do Comitê de TI", "Carlos apresentou a minuta da versão 3 da Política de Backup, que foi "
                                       "aprovada pelo Comitê para envio à Diretoria.")]
    parts = split("Quem aprovou a Política de Backup e em que reunião a minuta da versão 3 foi aprovada?")
    picks = pick(parts, sources, "pt", _weigh({}), [None, {1}])
    assert picks[0].source == 1 and "Paulo Reis" in picks[0].unit
    assert picks[1].source == 2 and "minuta da versão 3" in picks[1].unit


def test_a_part_nothing_answers_is_said_plainly():
    picks = pick(split("Quem lava os uniformes e qual é a cor da frota?"),
                 [("Contrato", "A Lavanda Ltda. lava os uniformes.")], "pt", _weigh({}))
    text = render(picks, "pt")
    assert "Lavanda" in text and "Não encontrado nos documentos lidos" in text and "cor da frota" in text


PLAYBOOK = ("Incidents that may harm data subjects are reported to the ANPD within 3 business days, as set in the "
            "Privacy Policy.\n\n| Role | Name |\n|---|---|\n| Data Protection Officer | Ana Lima |")
PRIVACY = ("Art. 8 As solicitações de titulares são respondidas em até 15 (quinze) dias contados do requerimento.\n\n"
           "Art. 9 A cópia do prontuário é fornecida em até 5 dias úteis.")
ACROSS = ("Who is the Data Protection Officer listed in the playbook, and within how many days must data subject "
          "requests be answered under the privacy policy?")


def test_an_english_part_takes_the_portuguese_sentence_closest_in_meaning():
    sources = [("Incident Response Playbook", PLAYBOOK), ("Política de Privacidade", PRIVACY)]
    parts = split(ACROSS)
    by_words = pick(parts, sources, "en", _weigh({}, "en"))
    assert "3 business days" in by_words[1].unit  # the English sentence shares the words, not the answer
    art8, art9 = (2, PRIVACY.split("\n\n")[0]), (2, PRIVACY.split("\n\n")[1])
    asked = []

    def similar(part, candidates):
        asked.append(part)
        return {c: {art8: 1.0, art9: 0.5}[c] for c in candidates}

    first, second = pick(parts, sources, "en", _weigh({}, "en"), similar=similar)
    assert asked == [1]  # the officer's name is stated in English: no other language is looked at
    assert "Ana Lima" in first.unit
    assert second.source == 2 and "15 (quinze) dias" in second.unit


def test_a_sentence_in_the_question_language_is_chosen_by_its_words():
    sources = [("Contrato", "O valor mensal é de R$ 12.000,00."), ("Ata", "O valor mensal foi discutido.")]
    part = split("Qual é o valor mensal do contrato?")
    assert pick(part, sources, "pt", _weigh({}), similar=lambda i, c: dict.fromkeys(c, 1.0))[0].source == 1


def test_a_value_stated_in_the_question_language_is_not_looked_for_in_another():
    sources = [("Data Retention Standard", "Issue date: 2025-03-01\n\nNext review: 2027-03-01"),
               ("Política de Privacidade", "Próxima revisão: 20/12/2026")]
    first, = pick(split("When is the standard due for review"), sources, "en", _weigh({}, "en"),
                  similar=lambda i, c: dict.fromkeys(c, 1.0))
    assert first.unit == "Next review: 2027-03-01"


@pytest.mark.parametrize("question, hidden", [
    ("A política exige criptografia em anexo contratual. Quais controles o fornecedor que hospeda o prontuário "
     "eletrônico se obrigou a cumprir?", "Qual fornecedor hospeda o prontuário eletrônico"),
    ("What deadline does the company that cleans the wards have to fix a defect?", "Which company cleans the wards"),
    ("Qual o valor mensal pago à empresa que executa a limpeza?", "Qual empresa executa a limpeza"),
    ("Que controles o fornecedor que hospeda o prontuário assumiu?", "Qual fornecedor hospeda o prontuário"),
    ("Would a supplier that notifies incidents within 72 hours be compliant?", None),  # a hypothesis
    ("Quem é o fornecedor que hospeda o prontuário eletrônico?", None),  # that is the whole question
    ("Quais documentos mencionam o contrato CT-2024-0187?", None),
])
def test_something_named_by_what_it_does_is_a_question_of_its_own(question, hidden):
    assert implied(question) == hidden
    parts = split(question)
    assert (parts[0].text == hidden and len(parts) == 2) if hidden else len(parts) == 1


def test_the_kind_of_document_a_part_names_is_looked_for_in_another_language():
    sources = [("Incident Response Playbook", "The policy sets a maximum of 24 hours for a security incident "
                                              "notification deadline."),
               ("Anexo III - Segurança", "5.1 A CONTRATADA notificará incidentes em até 72 (setenta e duas) horas.")]
    parts = split("Which supplier hosts the records, and what incident notification deadline does its security "
                  "annex set?")
    similar = lambda i, c: dict.fromkeys(c, 1.0)  # noqa: E731
    assert "24 hours" in pick(parts, sources, "en", _weigh({}, "en"), similar=similar)[1].unit
    second = pick(parts, sources, "en", _weigh({}, "en"), similar=similar, kinds_of=[None, {2}])[1]
    assert second.source == 2 and "72" in second.unit  # the annex's own deadline, not the policy's


def test_a_part_asking_for_a_company_takes_the_sentence_that_names_one():
    sources = [
        ("Contrato de Lavanderia", "4.1 Executar os serviços conforme o POP-LAV-001 (Lavagem de Uniformes) e as "
                                   "orientações da Comissão de Controle de Infecção Hospitalar.\n\n"
                                   "3.1 O valor mensal dos serviços é de R$ 12.000,00."),
        ("POP-LAV-001 Lavagem", "A lavagem é executada pela empresa contratada Lavanda Serviços Ltda. (contrato "
                                "CT-2024-0100), sob supervisão da Hotelaria."),
    ]
    parts = split("Qual empresa executa a lavagem dos uniformes e qual é o valor mensal do contrato dela?")
    first, second = pick(parts, sources, "pt", _weigh({}))
    assert "Lavanda Serviços Ltda." in first.unit and "CT-2024-0100" in first.unit  # not the committee's name
    assert "R$ 12.000,00" in second.unit


def test_an_english_part_asking_for_a_supplier_takes_its_legal_name_in_another_language():
    sources = [("Supplier Onboarding Manual", "Suppliers that host hospital data must notify the hospital of "
                                              "incidents within the deadline set in their contract."),
               ("Anexo III do CT-2024-0100", "CONTRATADA: Nuvem Azul Tecnologia S.A.\n\n5.1 A CONTRATADA "
                                            "notificará incidentes em até 72 (setenta e duas) horas.")]
    parts = split("Which supplier hosts the health record, and what incident deadline does its annex set?")

    def similar(part, candidates):
        return dict.fromkeys(candidates, 0.9)

    first, _ = pick(parts, sources, "en", _weigh({}, "en"), similar=similar)
    assert first.source == 2 and "Nuvem Azul Tecnologia S.A." in first.unit








def test_a_qualifier_of_the_value_asked_for_stays_and_another_value_goes():
    part = "em quanto tempo o fornecedor deve atender um chamado corretivo"
    unit = "O chamado corretivo deve ser atendido em até 4 horas, 24x7, e o relatório final em 15 dias."
    own = frozenset(terms(part, "pt"))
    assert trim(unit, own, asks(part), part, "pt") == "O chamado corretivo deve ser atendido em até 4 horas, 24x7."


def test_an_english_plural_asks_for_amounts_and_the_totals_after_the_monthly_value_go():
    part = "What monthly amounts do the 2024 service contracts set?"
    assert asks(part) == ["money"] and asks("Which fees and values apply?") == ["money"]
    unit = ("3.1 Pelos serviços, a CONTRATANTE pagará à CONTRATADA o valor mensal de R$ 104.000,00 (cento e quatro "
            "mil reais), totalizando R$ 1.248.000,00 por ano e R$ 3.744.000,00 pelo prazo de 36 meses.")
    trimmed = trim(unit, frozenset(terms(part, "en")), asks(part), part, "en")
    assert "R$ 104.000,00" in trimmed and "1.248.000,00" not in trimmed


def test_a_part_takes_a_sentence_of_its_own_over_the_one_another_part_chose_for_its_words():
    # the minute covers the first part's words and, through them, outranks the policy's row for the second part
    # too; the row covers the second part's own words as well, so the second part is answered by it
    sources = [
        ("Ata da Diretoria", "Após a versão 3 da política de reembolso, o prazo médio de prestação de contas "
                             "caiu de 24 para 8 dias."),
        ("Política de Reembolso", "Versão: 3; Alteração: Prazo de prestação de contas reduzido de 30 dias corridos "
                                  "para 10 dias úteis"),
    ]
    parts = split("Quanto caiu o prazo médio de prestação de contas após a versão 3 da política de reembolso? "
                  "E qual prazo a versão 3 fixa?")
    picks = pick(parts, sources, "pt", _weigh({}))
    assert [p.source for p in picks] == [1, 2]
    assert "10 dias úteis" in render(picks, "pt")



def test_a_sentence_two_parts_want_goes_to_the_one_it_answers_by_its_own_words():
    # the policy's article holds more of the first part's words than the clause does, and the second part's
    # words as context: it wins the first part; the second part holds it by its own words, and takes it
    question = ("O fornecedor recebe dados de pacientes; em quantos dias deve apagar os dados? E em quanto tempo "
                "respondemos o pedido do titular?")
    sources = [
        ("Política de Privacidade", "Art. 8º Os pedidos de titulares recebidos de pacientes são respondidos em até "
                                    "15 dias."),
        ("Contrato de Refeições", "Os dados devem ser apagados após 30 dias."),
    ]
    picks = pick(split(question), sources, "pt", _weigh({}))
    assert [p.source for p in picks] == [2, 1]
    assert "30 dias" in picks[0].unit and "15 dias" in picks[1].unit


def test_a_sentence_holds_a_part_word_by_the_word_documents_write_for_it():
    from models.analysis import analyze_query, synonyms

    question = "Em quantos dias o fornecedor deve apagar os dados?"
    sources = [("Manual", "O fornecedor guarda os dados por 5 anos."),
               ("Contrato", "Os dados são eliminados após 30 dias.")]  # "eliminar" is written for "apagar"
    parts = split(question)
    assert pick(parts, sources, "pt", _weigh({}))[0].source == 1
    assert pick(parts, sources, "pt", _weigh({}), synonyms=synonyms(analyze_query(question, "pt"), "pt"))[0].source == 2
