"""DOCX, HTML, Markdown and plain text: structure kept, encodings detected, garbage refused."""

from __future__ import annotations

import os
from pathlib import Path

import docx
import pytest

from lakehouse.errors import DocumentError
from lakehouse.settings import Settings
from transforms.extraction import extract_document


def _extract(path: Path, detected_type: str) -> str:
    extracted = extract_document(path, detected_type, Settings())
    assert extracted.page_count == 0 and extracted.page_spans == []
    return extracted.markdown


def test_docx_headings_lists_and_tables_in_body_order(tmp_path: Path) -> None:
    document = docx.Document()
    document.add_heading("Política de Backup", level=0)
    document.add_paragraph("Este documento define as cópias de segurança.")
    document.add_heading("Regras", level=1)
    document.add_paragraph("Cópias diárias", style="List Bullet")
    document.add_paragraph("Retenção de 30 dias", style="List Bullet")
    document.add_paragraph("Verificar o agendamento", style="List Number")
    document.add_paragraph("Testar a restauração", style="List Number")
    table = document.add_table(rows=3, cols=3)
    for i, row in enumerate([["Sistema", "Frequência", "Retenção"], ["ERP", "Diária", "30 dias"],
                             ["E-mail", "Semanal", "90 dias"]]):
        for j, value in enumerate(row):
            table.cell(i, j).text = value
    document.add_heading("Responsabilidades", level=1)
    document.add_paragraph("A equipe de infraestrutura executa o procedimento.")
    path = tmp_path / "backup.docx"
    document.save(str(path))

    markdown = _extract(path, "docx")

    assert markdown.startswith(
        "# Política de Backup\n\nEste documento define as cópias de segurança.\n\n## Regras\n")
    assert ("- Cópias diárias\n- Retenção de 30 dias\n\n"
            "1. Verificar o agendamento\n2. Testar a restauração") in markdown
    assert ("| Sistema | Frequência | Retenção |\n| --- | --- | --- |\n| ERP | Diária | 30 dias |\n"
            "| E-mail | Semanal | 90 dias |") in markdown
    assert markdown.index("| ERP |") < markdown.index("## Responsabilidades")


def test_corrupt_docx_is_rejected(tmp_path: Path) -> None:
    path = tmp_path / "broken.docx"
    path.write_bytes(b"PK\x03\x04" + os.urandom(200))
    with pytest.raises(DocumentError, match="^corrupt DOCX: "):
        _extract(path, "docx")


def test_html_keeps_structure_and_drops_scripts_and_navigation(tmp_path: Path) -> None:
    path = tmp_path / "manual.html"
    path.write_text(
        "<!DOCTYPE html><html><head><meta charset='utf-8'><title>Manual</title><style>p {color: red}</style>"
        "</head><body><!-- menu gerado pelo CMS -->"
        "<nav><a href='/'>Início</a> | <a href='/rh'>RH</a></nav><script>track('visita')</script>"
        "<h1>Manual do Colaborador</h1><p>Bem-vindo à <b>empresa</b>.</p>"
        "<h2>Regras</h2><ul><li>Chegar no horário<ul><li>tolerância de 10 minutos</li></ul></li>"
        "<li>Usar o crachá</li></ul><h3>Ramais</h3>"
        "<table><tr><th>Área</th><th>Ramal</th></tr><tr><td>RH</td><td>201</td></tr>"
        "<tr><td>TI</td><td>202</td></tr></table></body></html>",
        encoding="utf-8",
    )
    markdown = _extract(path, "html")
    assert markdown.startswith("# Manual do Colaborador\n\nBem-vindo à empresa.\n\n## Regras\n")
    assert "- Chegar no horário\n  - tolerância de 10 minutos\n- Usar o crachá" in markdown
    assert "### Ramais\n\n| Área | Ramal |\n| --- | --- |\n| RH | 201 |\n| TI | 202 |" in markdown
    assert "track(" not in markdown and "color: red" not in markdown and "Início" not in markdown


def test_cp1252_text_is_decoded_and_structured(tmp_path: Path) -> None:
    path = tmp_path / "norma.txt"
    text = ("NORMA DE ACESSO\r\n\r\nEsta norma é válida para ações de manutenção – “urgentes” ou não.\r\n\r\n"
            "7. Requisitos\r\n\r\n- Crachá visível;\r\n- Registro na portaria.\r\n")
    path.write_bytes(text.encode("cp1252"))
    markdown = _extract(path, "text")
    assert markdown.startswith(
        "# NORMA DE ACESSO\n\nEsta norma é válida para ações de manutenção – “urgentes” ou não.")
    assert "## 7. Requisitos\n\n- Crachá visível;\n- Registro na portaria." in markdown
    assert "\r" not in markdown


@pytest.mark.parametrize("encoding", ["utf-16", "utf-8-sig", "utf-16-le"])
def test_unicode_text_with_and_without_bom(tmp_path: Path, encoding: str) -> None:
    path = tmp_path / "nota.txt"
    path.write_bytes("Informação confidencial: não compartilhar.\nSegunda linha com ç e ã.".encode(encoding))
    markdown = _extract(path, "text")
    assert "Informação confidencial: não compartilhar." in markdown and "ç e ã" in markdown
    assert "\ufeff" not in markdown


def test_markdown_is_passed_through_normalised(tmp_path: Path) -> None:
    path = tmp_path / "guia.md"
    decomposed = "Ac\u0327a\u0303o"  # "Ação" with combining marks (NFD, as macOS writes file names)
    source = f"# Guia\r\n\r\n\r\n\r\n{decomposed} rápida   \r\n\r\n| a | b |\r\n|---|---|\r\n"
    path.write_bytes(source.encode())
    extracted = extract_document(path, "markdown", Settings())
    assert extracted.method == "markdown"
    assert extracted.markdown == "# Guia\n\nAção rápida\n\n| a | b |\n|---|---|\n"


def test_undecodable_bytes_are_rejected(tmp_path: Path) -> None:
    path = tmp_path / "lixo.txt"
    path.write_bytes(bytes(range(256)) * 8 + os.urandom(512))
    with pytest.raises(DocumentError, match="^undecodable text: "):
        _extract(path, "text")


def test_unknown_type_is_rejected(tmp_path: Path) -> None:
    path = tmp_path / "planilha.xlsx"
    path.write_bytes(b"PK\x03\x04")
    with pytest.raises(DocumentError, match="unsupported document type: xlsx"):
        extract_document(path, "xlsx", Settings())
