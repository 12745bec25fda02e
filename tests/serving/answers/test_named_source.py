"""The document a question names as its source by type and title ("segundo o playbook de resposta a
incidentes") answers it, as a document named by its code does; a title alone, a version named or a document the
caller may not read names none."""

from __future__ import annotations

from types import SimpleNamespace

from models.analysis import analyze
from serving.answers.evidence import coded_documents
from serving.answers.grading import Question

ROWS = {
    "playbook": {"title": "Incident Response Playbook", "doc_type": "manual", "access_groups": ["public"]},
    "privacy": {"title": "Política de Privacidade e Proteção de Dados (LGPD)", "doc_type": "politica",
                "access_groups": ["public"]},
    "travel2": {"title": "Política de Reembolso de Despesas de Viagem", "doc_type": "politica",
                "access_groups": ["public"], "version": "2"},
    "travel3": {"title": "Política de Reembolso de Despesas de Viagem", "doc_type": "politica",
                "access_groups": ["public"], "version": "3"},
    "hours": {"title": "Política de Banco de Horas", "doc_type": "politica", "access_groups": ["rh"]},
    "band": {"title": "The Dandy Warhols", "doc_type": "unclassified", "access_groups": ["public"]},
    "contract": {"title": "CT-2024-0187 Hospedagem em Nuvem", "doc_type": "contrato", "access_groups": ["public"]},
}
ENGINE = SimpleNamespace(
    coded={"ct-2024-0187": ["contract"]},
    families={"politica de reembolso de despesas de viagem": ["travel2", "travel3"]},
    catalog=SimpleNamespace(rows=ROWS, values=lambda column: sorted({str(r[column]) for r in ROWS.values()})),
)


def _named(question: str, groups=frozenset()) -> set[str]:
    language = "en" if question.startswith(("Which", "According")) else "pt"
    q = Question.of(question, language, {t: 1.0 for t in analyze(question, language)})
    return coded_documents(ENGINE, q, groups)


def test_a_document_named_as_the_source_by_its_type_and_title_answers():
    assert _named("segundo o playbook de resposta a incidentes, em quanto tempo a ANPD é comunicada?") == {"playbook"}
    # every version of a named policy: which one answers is the versions' choice
    assert _named("pela política de reembolso de despesas de viagem, qual o prazo?") == {"travel2", "travel3"}


def test_a_title_alone_a_named_version_or_an_unreadable_document_names_none():
    assert _named("Which came first, The Dandy Warhols or the birth of Robert Young?") == set()
    assert _named("na versão 2 da política de reembolso de despesas de viagem, qual era o prazo?") == set()
    assert _named("pela política de banco de horas, qual o saldo máximo?") == set()
    assert _named("pela política de banco de horas, qual o saldo máximo?", frozenset({"rh"})) == {"hours"}
    # a code the question names is the source, whatever else it names
    assert _named("o contrato CT-2024-0187 atende à política de privacidade?") == {"contract"}
