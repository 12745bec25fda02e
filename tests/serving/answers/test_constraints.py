"""A question pinned to a month or a level ("em junho de 2025", "nível III") whose evidence states the fact only
for other months or levels is a near miss: the evidence answers a neighbouring question."""

from __future__ import annotations

from serving.answers.constraints import mismatched, pinned

SALARIES = ("| Cargo | Grupo | Nível | Mínimo (R$) | Máximo (R$) |\n| --- | --- | --- | --- | --- |\n"
            "| Técnico de Enfermagem | Assistencial | I | 3.100,00 | 3.700,00 |\n"
            "| Técnico de Enfermagem | Assistencial | II | 3.600,00 | 4.300,00 |")
BOARD = "Eduardo apresentou o resultado financeiro de abril e maio: receita líquida acumulada de R$ 41,2 milhões."


def test_a_level_or_month_the_evidence_states_only_otherwise_is_a_mismatch():
    assert mismatched("Qual a faixa salarial de Técnico de Enfermagem nível III?", [SALARIES]) == ["level"]
    assert mismatched("Qual foi a receita líquida do hospital em junho de 2025?", [BOARD]) == ["month"]


def test_a_level_code_of_another_career_track_is_another_level():
    lead = ["Cargo: Coordenador(a) de Enfermagem; Grupo: Liderança; Nível: L1; Mínimo (R$): 9.800,00"]
    assert mismatched("qto ganha enfermeiro nivel 1? qual a faixa?", lead) == ["level"]
    assert mismatched("Qual a faixa salarial do coordenador de enfermagem nível L1?", lead) == []
    table = "| Cargo | Nível |\n| --- | --- |\n| Coordenador(a) de Enfermagem | L2 |"
    assert mismatched("faixa salarial nível 2", [table]) == ["level"]


def test_the_same_value_in_the_other_language_or_another_notation_is_no_mismatch():
    assert mismatched("qto ganha tecnico de enfermagem nivel 2?", [SALARIES]) == []
    assert mismatched("What was the net revenue in May 2025?", [BOARD]) == []
    assert mismatched("What is the salary range for a level I nursing technician?", [SALARIES]) == []
    phishing = ["No teste de fevereiro de 2025, 12% clicaram."]
    assert mismatched("Qual a taxa de cliques do teste de 02/2025?", phishing) == []


def test_evidence_that_states_no_value_of_the_kind_and_verbs_that_look_like_months_are_no_mismatch():
    assert mismatched("Qual a meta de adesão em setembro de 2025?", ["A meta de adesão é de 85%."]) == []
    assert pinned("What's the maximum value of a gift an employee may accept?") == {}


def test_a_quantity_bounded_on_the_other_side_of_the_same_number_is_a_mismatch():
    laundry = ("Despesas pessoais (lavanderia em viagens de até 5 dias, frigobar, entretenimento) não são "
               "reembolsáveis.")
    question = "Qual o limite de reembolso de lavanderia em viagens com mais de 5 dias?"
    assert mismatched(question, [laundry]) == ["bound"]
    assert mismatched("laundry on trips of more than 5 days, how much is reimbursed?", [laundry]) == ["bound"]
    # the same side, in either language, or a bound of another number or unit is no mismatch
    assert mismatched("lavanderia em viagens de até 5 dias é reembolsável?", [laundry]) == []
    weight = ["Situação: Peso acima de 120 kg; Medicamento e dose: Enoxaparina 40 mg de 12/12 horas"]
    assert mismatched("profilaxia de TEV pra paciente com mais de 120 kg?", weight) == []
    assert mismatched("VTE prophylaxis for a patient weighing over 120 kg?", weight) == []
    assert mismatched("lavanderia em viagens de mais de 5 dias", ["A prestação de contas é em até 10 dias."]) == []
    # "até" before a date bounds no quantity
    assert "bound" not in pinned("Qual o prazo até 30 de junho?")
