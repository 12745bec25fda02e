"""A code names one document as itself (the contract filed as "CT-2032-0011") and others only mention it (an
annex whose title ends "do CT-2032-0011"). When both state what is asked of the coded document (its parties),
the contract's own clause is quoted and cited; a question that names the annex by its title still gets the
annex. A real engine over a small corpus."""

from __future__ import annotations

import pytest

from tests.fixtures.corpora import markdown, write_corpus

CONFIG = "default_groups: [public]\n"
PARTIES = ("CONTRATANTE: Hospital Serra Alta - CONTRATADA: Nimbo Dados S.A., com sede em Curitiba (PR), "
           "representada por sua diretora comercial.")
DOCS = {
    "Contratos/CT-2032-0011.md": markdown(
        "# Contrato de Hospedagem de Sistemas nº CT-2032-0011",
        f"## Partes\n\n{PARTIES}",
        "## 2. Objeto\n\n2.1 Hospedagem em nuvem do prontuário eletrônico do hospital."),
    "Contratos/Anexos/CT-2032-0011 Anexo II - Segurança.md": markdown(
        "# Anexo II - Segurança da Informação do CT-2032-0011",
        "## Partes\n\nCONTRATANTE: Hospital Serra Alta - CONTRATADA: Nimbo Dados S.A.",
        "## 1. Notificação\n\n1.1 A CONTRATADA notificará incidentes de segurança em até 24 horas."),
    "Contratos/CT-2032-0012.md": markdown(
        "# Contrato de Jardinagem nº CT-2032-0012",
        "## Partes\n\nCONTRATANTE: Hospital Serra Alta - CONTRATADA: Verde Vivo Paisagismo Ltda."),
}


@pytest.fixture(scope="module")
def service(tmp_path_factory):
    from lakehouse.settings import Settings
    from serving.answers import AnswerService
    from serving.answers.reloader import SnapshotHolder
    from transforms.pipeline import run_index

    root = tmp_path_factory.mktemp("principal")
    settings = Settings(home=root / "home", source=write_corpus(root / "source", DOCS, CONFIG),
                        embedding_model="wordllama")
    run_index(settings)
    holder = SnapshotHolder(settings)
    holder.refresh()
    return AnswerService(holder)


def _ask(service, question: str):
    from serving.answers import Caller, QueryRequest

    return service.query(QueryRequest(question, mode="basic", top_k=4), Caller("analyst", frozenset({"public"})),
                         "r")


@pytest.mark.parametrize("question", ["Qual é o fornecedor do contrato CT-2032-0011?",
                                      "quem é a empresa do ct-2032-0011"])
def test_the_parties_of_a_coded_contract_are_quoted_from_the_contract_not_its_annex(service, question):
    answer = _ask(service, question)
    assert "Nimbo Dados S.A." in answer.answer and "Verde Vivo" not in answer.answer
    assert answer.citations[0].title == "Contrato de Hospedagem de Sistemas nº CT-2032-0011"


def test_an_annex_named_by_its_title_answers_for_itself(service):
    answer = _ask(service, "Qual o prazo de notificação de incidentes do Anexo II do CT-2032-0011?")
    assert "24 horas" in answer.answer
    assert answer.citations[0].title == "Anexo II - Segurança da Informação do CT-2032-0011"
