"""A question of several parts asking two kinds of fact of one document: its monthly value and its supplier.
The retrieval finds the value's clause; the supplier is stated once, in the parties' clause, which holds no word
of the question ("CONTRATADA: ..." for "quem é o fornecedor"), so the answer reads it from the quoted document.
And minutes that name a policy and hold the meeting asked about are quoted, not replaced by the policy's own
passage. A real engine over a small corpus, the question's retrieval cut to its best chunks."""

from __future__ import annotations

import pytest

from tests.fixtures.corpora import markdown, write_corpus

CONFIG = "default_groups: [public]\n"
DOCS = {
    "Contratos/CT-2031-0007.md": markdown(
        "# Contrato CT-2031-0007 de Manutenção de Elevadores",
        "## Partes\n\nCONTRATANTE: Hospital Serra Alta, com sede em Itatiba (SP).\n\n"
        "CONTRATADA: Lumiar Engenharia de Elevadores Ltda., com sede em Jundiaí (SP).",
        "## 2. Objeto\n\n2.1 Manutenção preventiva e corretiva dos seis elevadores do bloco principal.",
        "## 3. Preço\n\n3.1 O valor mensal do contrato CT-2031-0007 é de R$ 12.300,00 (doze mil e trezentos reais).",
        "## 4. Vigência\n\n4.1 O contrato vigorará por 24 meses a partir de 01/02/2031."),
    "Contratos/CT-2031-0009.md": markdown(
        "# Contrato CT-2031-0009 de Jardinagem",
        "## Partes\n\nCONTRATADA: Verde Vivo Paisagismo Ltda., com sede em Campinas (SP).",
        "## 3. Preço\n\n3.1 O valor mensal do contrato CT-2031-0009 é de R$ 4.100,00 (quatro mil e cem reais)."),
    "Políticas/Política de Backup.md": markdown(
        "# Política de Backup",
        "## 1. Objetivo\n\nEstabelecer as regras de cópia de segurança dos sistemas do hospital.",
        "## 2. Regras\n\n2.1 As cópias diárias são guardadas por 35 dias e as mensais por 12 meses.",
        "## 3. Aprovação\n\nA Política de Backup foi aprovada pela Diretoria Geral, após a minuta ser revisada."),
    "Atas/Ata do Comitê de TI 2031-05-10.md": markdown(
        "# Ata do Comitê de TI de 10/05/2031",
        "## 1. Pauta\n\nA minuta da Política de Backup foi discutida e aprovada pelo Comitê na reunião ordinária "
        "de 10/05/2031, para envio à Diretoria."),
}


@pytest.fixture(scope="module")
def service(tmp_path_factory):
    from lakehouse.settings import Settings
    from serving.answers import AnswerService
    from serving.answers.reloader import SnapshotHolder
    from transforms.pipeline import run_index

    root = tmp_path_factory.mktemp("part-kinds")
    settings = Settings(home=root / "home", source=write_corpus(root / "source", DOCS, CONFIG),
                        embedding_model="wordllama")
    run_index(settings)
    holder = SnapshotHolder(settings)
    holder.refresh()
    return AnswerService(holder)


def _ask(service, question: str, top_k: int = 1):
    from serving.answers import Caller, QueryRequest

    return service.query(QueryRequest(question, mode="basic", top_k=top_k), Caller("analyst", frozenset({"public"})),
                         "r")


def test_the_supplier_asked_beside_the_value_is_read_from_the_contracts_parties_clause(service):
    answer = _ask(service, "qual é o valor mensal da manutenção dos elevadores no contrato CT-2031-0007 e quem é o "
                           "fornecedor?")
    assert "R$ 12.300,00" in answer.answer and "Lumiar Engenharia de Elevadores Ltda." in answer.answer
    assert "Verde Vivo" not in answer.answer and "4.100" not in answer.answer  # not the other contract's
    assert {c.title for c in answer.citations} == {"Contrato CT-2031-0007 de Manutenção de Elevadores"}


def test_minutes_naming_a_policy_answer_for_the_meeting_they_hold(service):
    answer = _ask(service, "Em que reunião a minuta da Política de Backup foi aprovada?", top_k=3)
    assert "reunião ordinária de 10/05/2031" in answer.answer
    assert "Ata do Comitê de TI de 10/05/2031" in {c.title for c in answer.citations}
