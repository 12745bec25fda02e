"""The constructed failure documents of issue 13 (built by ``scripts/build_extraction_cases.py``) extract
correctly: each test names what a reader of the Markdown would have seen go wrong."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from types import ModuleType

import pytest

from lakehouse.settings import Settings
from transforms.extraction import Extracted, extract_document, extract_metadata

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "build_extraction_cases.py"
KINDS = {".pdf": "pdf", ".docx": "docx", ".html": "html", ".txt": "text"}


def _builder() -> ModuleType:
    spec = importlib.util.spec_from_file_location("build_extraction_cases", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def cases(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return _builder().build(tmp_path_factory.mktemp("extraction_cases"))


def _extract(cases: dict[str, Path], name: str) -> Extracted:
    path = cases[name]
    return extract_document(path, KINDS[path.suffix], Settings())


def test_characters_outside_the_basic_plane_are_kept_and_encode(cases: dict[str, Path]) -> None:
    extracted = _extract(cases, "non_bmp.pdf")
    assert "Simbolo \U000f0854 marca" in extracted.markdown
    assert "\U0001d400 e a constante" in extracted.markdown
    extracted.markdown.encode("utf-8")  # was: UnicodeEncodeError, surrogates not allowed


def test_a_lone_surrogate_reaches_the_boundary_to_be_replaced_and_counted() -> None:
    from transforms.extraction.unicode import join_surrogates, valid_unicode

    text = "".join(join_surrogates([0x41, 0xD83D, 0xDE00, 0xD800, 0x42]))  # A, a pair, a lone high unit, B
    assert valid_unicode(text) == ("A\U0001f600\ufffdB", 1)  # was replaced before the boundary: counted 0


def test_text_mixing_utf8_and_latin1_reads_both_parts(cases: dict[str, Path]) -> None:
    markdown = _extract(cases, "mixed_encoding.txt").markdown
    assert "Relatório de ações — versão em UTF-8" in markdown
    assert "Seção 2: informações de segurança gravadas em Latin-1" in markdown
    assert "Conclusão: não há pendências." in markdown


def test_fake_bold_table_cells_are_read_once(cases: dict[str, Path]) -> None:
    markdown = _extract(cases, "fake_bold.pdf").markdown
    assert "| Specifies | 03/25/2016 |" in markdown  # was "| SSppeecciiffiieess | 0033//2255//22001166 |"
    assert "Specifies that the system" in markdown


def test_dates_in_ruled_cells_are_not_letter_spaced(cases: dict[str, Path]) -> None:
    markdown = _extract(cases, "ruled_dates.pdf").markdown
    assert "| Contrato 001 | 03/25/2016 | 12/31/2017 |" in markdown  # was "0 3 / 2 5 / 2 0 1 6"
    assert "| Contrato 004 | 02/14/2017 | 02/13/2019 |" in markdown


def test_running_header_and_footer_leave_the_body_and_feed_the_metadata(cases: dict[str, Path]) -> None:
    extracted = _extract(cases, "running_header.pdf")
    assert extracted.markdown.startswith("# Registro de Atividades\n")
    assert "REGISTRO DE OPERAÇÕES" not in extracted.markdown and "Aprovado por" not in extracted.markdown
    assert "REGISTRO DE OPERAÇÕES DE TRATAMENTO" in extracted.margins
    for line in ("Atividade 1.2:", "Atividade 2.1:", "Atividade 3.12:"):  # body lines near the top stay
        assert line in extracted.markdown
    meta = extract_metadata(extracted, "registro")
    assert (meta.approver, meta.version) == ("Carla Mendes", "2.1")


def test_bold_run_in_heading_is_split_from_its_paragraph(cases: dict[str, Path]) -> None:
    markdown = _extract(cases, "run_in_heading.pdf").markdown
    assert re.search(r"^#{2,4} 5\.1 Hyper Parameter Optimization\n\nWe have chosen the learning rate", markdown, re.M)
    assert re.search(r"^#{2,4} 5\.2 Results\n\nThe model reaches", markdown, re.M)
    assert "grid search over five values" in markdown


def test_headings_come_from_size_weight_numbering_and_capitals_and_nothing_else(cases: dict[str, Path]) -> None:
    markdown = _extract(cases, "headings.pdf").markdown
    found = [" ".join(h.split()) for h in re.findall(r"^#{1,6} (.+)$", markdown, re.M)]
    assert found == _builder().HEADINGS  # was: "1.2 Prazos de guarda." and "3 DEFINIÇÕES" read as body text,
    # and the colophon's three lines (address, phone) as three headings
    assert "Manual Interno" not in markdown and "Página 2 de 2" not in markdown
    assert "\n\nAtenção: o gestor responde" in markdown and "\n\nTel: (11) 5555-0100" in markdown


def test_page_without_rules_skips_the_table_probe(cases: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    import pdfplumber

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("pdfplumber opened for a page without a table")

    monkeypatch.setattr(pdfplumber, "open", refuse)
    extracted = _extract(cases, "no_table.pdf")
    assert extracted.markdown.startswith("# Relatório anual\n") and not extracted.warnings


def test_a_charts_labels_are_neither_a_table_nor_body_text_and_its_caption_stays(cases: dict[str, Path]) -> None:
    markdown = _extract(cases, "figure_labels.pdf").markdown
    assert "| --- |" not in markdown  # was a 9-column table of empty cells: "| nova polític | a |"
    for label in ("pico: 42", "nova política\n", "mínimo", "jan fev mar"):  # issue 26: not body text either
        assert label not in markdown
    assert "\n\nFigura 1: incidentes registrados em cada mês de 2024.\n\nDepois da figura 1" in markdown
    assert markdown.startswith("# Incidentes por mês\n") and "Depois da figura 3" in markdown


def test_docx_text_boxes_and_their_tables_are_kept(cases: dict[str, Path]) -> None:
    markdown = _extract(cases, "text_boxes.docx").markdown
    assert "indisponível por mais de quatro horas" in markdown and "sala de crise" in markdown
    assert "| Coordenador | Paulo Reis | 4410 |" in markdown
    assert markdown.count("sala de crise") == 1  # the VML fallback copy of each box is not read again


def test_docx_footnotes_are_kept_with_their_reference(cases: dict[str, Path]) -> None:
    markdown = _extract(cases, "footnotes.docx").markdown
    assert "cinco anos[^1] a contar" in markdown
    assert "[^1]: Conforme o art. 173 do Código Tributário Nacional." in markdown


def test_docx_headers_and_footers_are_metadata_not_body(cases: dict[str, Path]) -> None:
    extracted = _extract(cases, "header_footer.docx")
    assert extracted.markdown.startswith("# Gestão de Senhas\n")
    assert "POP-TI-009" not in extracted.markdown and "ELABORADO POR" not in extracted.markdown
    assert "POP-TI-009" in extracted.margins
    meta = extract_metadata(extracted, "senhas")
    assert (meta.responsible, meta.approver) == ("Rita Souza", "Helena Prado")


def test_nested_html_table_stays_in_its_row(cases: dict[str, Path]) -> None:
    markdown = _extract(cases, "nested_table.html").markdown
    assert "| ERP | Titular Ana Lima Suplente Paulo Reis | Alta |" in markdown
    assert "| Intranet | Carla Mendes | Baixa |" in markdown
