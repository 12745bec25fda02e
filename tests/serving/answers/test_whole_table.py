"""A question about what a table lists ("qual a ordem dos tubos na coleta?") is answered with the table's rows,
in order, not with its first row; a question that names a row's cell ("qual tubo leva heparina?") gets that row
alone. A real engine over a small corpus."""

from __future__ import annotations

import pytest

from tests.fixtures.corpora import markdown, write_corpus

CONFIG = "default_groups: [public]\n"
TABLE = ("| Ordem | Tubo | Aditivo |\n| --- | --- | --- |\n| 1 | Frasco de hemocultura | meio de cultura |\n"
         "| 2 | Azul-claro | citrato de sódio |\n| 3 | Vermelho | ativador de coágulo |\n| 4 | Verde | heparina |\n"
         "| 5 | Roxo | EDTA |")
DOCS = {
    "POPs/POP-LAB-031 Coleta de Sangue.md": markdown(
        "# POP-LAB-031 Coleta de Sangue Venoso",
        "## 1. Objetivo\n\nPadronizar a coleta de sangue venoso a vácuo nas unidades de internação.",
        f"## 4. Sequência dos tubos\n\n{TABLE}",
        "## 5. Identificação\n\nCada tubo é identificado à beira do leito, na presença do paciente."),
    "POPs/POP-ENF-002 Curativos.md": markdown(
        "# POP-ENF-002 Curativos",
        "## 1. Objetivo\n\nPadronizar a troca de curativos de cateter venoso central a cada 7 dias."),
}


@pytest.fixture(scope="module")
def service(tmp_path_factory):
    from lakehouse.settings import Settings
    from serving.answers import AnswerService
    from serving.answers.reloader import SnapshotHolder
    from transforms.pipeline import run_index

    root = tmp_path_factory.mktemp("whole-table")
    settings = Settings(home=root / "home", source=write_corpus(root / "source", DOCS, CONFIG),
                        embedding_model="wordllama")
    run_index(settings)
    holder = SnapshotHolder(settings)
    holder.refresh()
    return AnswerService(holder)


def _ask(service, question: str):
    from serving.answers import Caller, QueryRequest

    return service.query(QueryRequest(question, mode="basic"), Caller("analyst", frozenset({"public"})), "r")


def test_a_question_about_what_a_table_lists_gets_its_rows_in_order(service):
    answer = _ask(service, "qual a ordem dos tubos na coleta de sangue?").answer
    found = [answer.find(colour) for colour in ("Frasco de hemocultura", "Azul-claro", "Vermelho", "Verde", "Roxo")]
    assert all(at >= 0 for at in found) and found == sorted(found)


def test_a_question_naming_a_cell_gets_that_row_alone(service):
    answer = _ask(service, "qual tubo leva heparina na coleta de sangue?").answer
    assert "Verde" in answer and "heparina" in answer
    assert "Azul-claro" not in answer and "Roxo" not in answer
