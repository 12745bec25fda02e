"""Governance metadata found by rules on small documents with known answers."""

from __future__ import annotations

from datetime import date

import pytest

from transforms.extraction import Extracted, extract_metadata

FOOTER_TABLE = """# Procedimento de Controle de Acesso

Este procedimento define como os acessos são concedidos e revogados.

## 1. Objetivo

Garantir que somente pessoas autorizadas acessem os sistemas.

| ELABORADO POR | VERIFICADO POR | APROVADO POR |
| --- | --- | --- |
| Maria Silva | Ana Lima | Carlos Pereira |
| 10/01/2025 | 12/01/2025 | 15/01/2025 |

| Código | Versão | Data de emissão | Departamento |
| --- | --- | --- | --- |
| PR-TI-004 | 03 | 15/01/2025 | Tecnologia da Informação |
"""

LABEL_LINES = """# Política de Privacidade

Versão: 4
Emitido em 1º de fevereiro de 2024
Última revisão: 2025-02-10
Próxima revisão: 12/03/2026
Responsável: Jurídico Corporativo
Aprovado por: Diretoria Executiva
Área: Compliance

Esta política explica como tratamos dados pessoais.
"""

FORM = """# Formulário de Solicitação de Férias

Nome do colaborador: ____________________

Data de início: ___/___/______

Assinatura do gestor: ____________________
"""


def _pdf_like(pages: list[str]) -> Extracted:
    markdown, spans, pos = "", [], 0
    for text in pages:
        spans.append((pos, pos + len(text)))
        markdown += text + "\n\n"
        pos = len(markdown)
    return Extracted(markdown, "pdf-text", len(pages), spans)


def test_footer_table_gives_responsible_approver_version_and_dates() -> None:
    metadata = extract_metadata(Extracted(FOOTER_TABLE, "docx"), "pr-ti-004.docx")
    assert metadata.title == "Procedimento de Controle de Acesso"
    assert metadata.responsible == "Maria Silva"
    assert metadata.approver == "Carlos Pereira"
    assert metadata.version == "03"
    assert metadata.issue_date == date(2025, 1, 15)
    assert metadata.department == "Tecnologia da Informação"
    assert metadata.metadata_source == "rules"


def test_label_lines_give_every_field() -> None:
    metadata = extract_metadata(Extracted(LABEL_LINES, "text"), "privacidade.txt")
    assert metadata.version == "4"
    assert metadata.issue_date == date(2024, 2, 1)
    assert metadata.last_review_date == date(2025, 2, 10)
    assert metadata.next_review_date == date(2026, 3, 12)
    assert metadata.responsible == "Jurídico Corporativo"
    assert metadata.approver == "Diretoria Executiva"
    assert metadata.department == "Compliance"


def test_form_without_footer_has_no_metadata() -> None:
    metadata = extract_metadata(Extracted(FORM, "docx"), "ferias.docx")
    assert metadata.title == "Formulário de Solicitação de Férias"
    assert metadata.metadata_source == "none"
    assert (metadata.version, metadata.issue_date, metadata.responsible, metadata.approver) == (None,) * 4


def test_only_first_and_last_pages_are_read() -> None:
    filler = "Texto corrido do manual, sem nenhum campo de controle. " * 80
    middle = f"{filler}\n\nPróxima revisão: 01/01/2030\n\nAprovado por: Ninguém\n\n{filler}"
    pages = ["Manual de TI sem título", middle, "Revisar até 31.12.2026\n\nPrepared by: John Smith, IT"]
    metadata = extract_metadata(_pdf_like(pages), "manual.pdf")
    assert metadata.title == "manual.pdf"  # no "#" heading: the fallback
    assert metadata.next_review_date == date(2026, 12, 31)
    assert metadata.responsible == "John Smith, IT"
    assert metadata.approver is None


@pytest.mark.parametrize(("line", "version"), [
    ("Versão: 4", "4"), ("Versão 04", "04"), ("Rev. 3", "3"), ("POL-TI-001 - v4", "4"),
    ("Aprovou a versão 3 da política.", None),
    ("VERSÃO Nº 2.1", "2.1"), ("Última revisão: 12/03/2025", None),
])
def test_version_formats(line: str, version: str | None) -> None:
    assert extract_metadata(Extracted(f"# Doc\n\n{line}\n", "text"), "doc").version == version


@pytest.mark.parametrize(("text", "expected"), [
    ("Data de emissão: 05/06/2023", date(2023, 6, 5)),
    ("Data de emissão: 05.06.2023", date(2023, 6, 5)),
    ("Emitido em 2023-06-05", date(2023, 6, 5)),
    ("Vigência: 5 de junho de 2023", date(2023, 6, 5)),
    ("Issue date: June 5, 2023", date(2023, 6, 5)),
    ("Data de emissão: 31/02/2023", None),  # not a calendar date
])
def test_issue_date_formats(text: str, expected: date | None) -> None:
    assert extract_metadata(Extracted(f"# Doc\n\n{text}\n", "text"), "doc").issue_date == expected


def test_a_label_word_inside_a_code_pattern_is_not_a_label() -> None:
    text = ("# POP-QUA-001 - Controle de Documentos\n\nTodo documento recebe um código no formato TIPO-ÁREA-NNN, em "
            "que TIPO identifica a natureza do documento (POP, IT, POL), ÁREA é a sigla do setor.\n\n"
            "Departamento: Qualidade\n")
    assert extract_metadata(Extracted(text, "pdf"), "pop").department == "Qualidade"  # was "NNN, em que TIPO ..."


def test_sample_pop_qua_001_department_is_qualidade() -> None:
    from pathlib import Path

    from lakehouse.settings import Settings
    from transforms.extraction import extract_document

    path = Path(__file__).resolve().parents[2] / "sample_corpus/documents/POPs/POP-QUA-001 Controle de Documentos.pdf"
    assert extract_metadata(extract_document(path, "pdf", Settings()), path.stem).department == "Qualidade"
