"""A question in the corpus's larger language whose answer only a passage in the other language holds: BM25 of
its own words never meets that passage, so the passages its words find through the glossary join the evidence
when they hold more of the question than any passage in its own language, and every word the glossary does not
translate (a name like "nuvemsul")."""

from __future__ import annotations

import pytest

from tests.fixtures.corpora import markdown, serving_engine

CONFIG = "default_groups: [public]\n"


DOCS = {
    "Políticas/Política de Reembolso.md": markdown(
        "# Política de Reembolso de Despesas de Viagem",
        "## 1. Objetivo",
        "Esta política define as regras de reembolso das despesas de viagem a serviço do hospital.",
        "## 2. Prestação de contas",
        "2.1 A prestação de contas deve ser apresentada em até 10 dias úteis após o retorno da viagem.",
        "## 3. Limites",
        "3.1 O reembolso de hospedagem é limitado a R$ 350,00 por diária.",
    ),
    "Contratos/Contrato de Limpeza.md": markdown(
        "# Contrato de Prestação de Serviços de Limpeza nº CT-2025-0101",
        "## CLÁUSULA 1ª — DO OBJETO",
        "Limpeza e higienização das áreas assistenciais e administrativas do hospital.",
        "## CLÁUSULA 3ª — DO PREÇO",
        "3.1 O valor mensal dos serviços é de R$ 86.400,00.",
    ),
    "POPs/POP de Backup.md": markdown(
        "# POP-TI-003 - Backup e Restauração de Dados",
        "## 1. Objetivo",
        "Garantir a cópia de segurança diária dos sistemas do hospital.",
        "## 5. Monitoramento",
        "O analista de infraestrutura verifica diariamente o resultado das rotinas de backup.",
        "## 7. Solicitação de restauração",
        "O usuário solicita a restauração de arquivos ao service desk, informando o caminho e a data.",
    ),
    "RH/Manual do Colaborador.md": markdown(
        "# Manual do Colaborador",
        "## 1. Jornada",
        "A jornada de trabalho é registrada no ponto eletrônico.",
        "## 2. Férias",
        "As férias devem ser solicitadas ao gestor com 30 dias de antecedência.",
    ),
    "Policies/IT Acceptable Use Policy.md": markdown(
        "# IT Acceptable Use Policy",
        "## 4. Workstations and devices",
        "4.4 Lost or stolen devices that contain or access hospital data must be reported to the service desk "
        "within 2 hours of noticing the loss.",
        "## 5. Remote work",
        "5.2 An allowance of BRL 100 per month towards internet costs is paid to staff with an approved remote "
        "work agreement.",
    ),
}


@pytest.fixture(scope="module")
def engine(tmp_path_factory):
    return serving_engine(tmp_path_factory.mktemp("across"), DOCS, CONFIG)


def _evidence(engine, question: str) -> list[str]:
    from serving.answers import modes

    # three ranked chunks: the corpus is small, and a question's own retrieval must leave the passage out
    out = modes.retrieve("basic", modes.ModeRequest(engine, question, frozenset({"public"}), top_k=3,
                                                    vector=engine.embed(question)))
    return [e.text for e in out.evidence]


def test_a_colloquial_question_reaches_the_passage_only_the_other_language_holds(engine):
    assert engine.index.language_shares.get("pt", 0.0) > engine.index.language_shares.get("en", 0.0)
    texts = _evidence(engine, "roubaram meu celular corporativo, tenho qtas horas pra avisar o service desk?")
    assert any("Lost or stolen devices" in t for t in texts)


def test_a_name_the_other_language_passage_lacks_keeps_it_out(engine):
    # "paga todo mes" finds the English allowance through the glossary, but it says nothing of NuvemSul
    texts = _evidence(engine, "qual o valor que o hospital paga todo mes para a nuvemsul")
    assert not any("allowance" in t for t in texts)


def test_a_question_telling_its_story_first_still_reaches_the_other_language_passage(engine):
    # the story around the ask ("ontem", "ônibus", "preocupado": words no glossary translates) is no name the
    # passage must hold, and weighs less than the ask, as grading weighs it
    texts = _evidence(engine, "Esqueci o celular do trabalho no ônibus ontem e estou bem preocupado com isso. "
                              "Em quantas horas a perda do dispositivo tem de ser comunicada ao service desk?")
    assert any("Lost or stolen devices" in t for t in texts)


def _across(engine, question: str) -> list[str]:
    from serving.answers import modes
    from serving.answers.modes.basic import _across

    request = modes.ModeRequest(engine, question, frozenset({"public"}), top_k=3, vector=engine.embed(question))
    return [engine.index.texts[row] for row, _ in _across(request, engine.retriever())]


def test_a_question_in_the_smaller_language_gets_first_the_passage_holding_most_of_it(engine):
    # the encoder ranks passages in the other language weakly: the one that holds most of the question through
    # its translations comes first, whatever its similarity
    assert "As férias devem ser solicitadas" in _across(
        engine, "How many days in advance must vacation be requested from the manager?")[0]
    assert "2.1 A prestação de contas" in _across(
        engine, "Within how many days must travel expenses be reported after the trip?")[0]
