"""PDF extraction on real documents: legal structure, ruled tables, page spans, broken files."""

from __future__ import annotations

import re
from pathlib import Path

import pdfplumber
import pytest
from reportlab.pdfgen import canvas

from lakehouse.errors import DocumentError
from lakehouse.settings import Settings
from transforms.extraction import Extracted, extract_document

DATASETS = Path(__file__).resolve().parents[2] / ".." / "shared" / "datasets" / "pdfs"
LGPD = DATASETS / "lei_13709_2018_LGPD_planalto_print.pdf"
NICS = DATASETS / "nics-background-checks-2015-11.pdf"
GAZETTE = DATASETS / "diario_oficial_pratania_sp_ed136_2020-10-26.pdf"

needs_datasets = pytest.mark.skipif(not DATASETS.is_dir(), reason=f"shared datasets not found at {DATASETS}")
ROMAN = ["I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX", "X"]


def _extract(path: Path, **settings: object) -> Extracted:
    return extract_document(path, "pdf", Settings(**settings))


@pytest.fixture(scope="module")
def lgpd() -> Extracted:
    return _extract(LGPD)


@needs_datasets
def test_lgpd_chapters_are_h2_headings_in_order(lgpd: Extracted) -> None:
    chapters = re.findall(r"^## CAPÍTULO ([IVX]+)\b", lgpd.markdown, re.M)
    assert list(dict.fromkeys(chapters)) == ROMAN  # chapter IX appears twice (original and amended wording)
    assert "## CAPÍTULO I — DISPOSIÇÕES PRELIMINARES" in lgpd.markdown


@needs_datasets
def test_lgpd_sections_are_h3_headings(lgpd: Extracted) -> None:
    sections = re.findall(r"^### (Seção [IVX]+ — .+)$", lgpd.markdown, re.M)
    assert len(sections) >= 10
    assert "Seção I — Dos Requisitos para o Tratamento de Dados Pessoais" in sections


@needs_datasets
def test_lgpd_articles_are_h4_headings_from_1_to_65_in_order(lgpd: Extracted) -> None:
    numbers = [int(n) for n in re.findall(r"^#### Art\. (\d+)", lgpd.markdown, re.M)]
    assert numbers[0] == 1 and numbers[-1] == 65
    assert numbers == sorted(numbers)  # amended versions repeat an article, never go back
    assert set(range(1, 66)) <= set(numbers)
    assert "\n#### Art. 1º\n\nEsta Lei dispõe sobre o tratamento de dados pessoais" in lgpd.markdown


@needs_datasets
def test_lgpd_title_incisos_and_running_headers(lgpd: Extracted) -> None:
    assert re.search(r"^# LEI Nº 13\.709, DE 14 DE AGOSTO DE 2018$", lgpd.markdown, re.M)
    assert "\n- I - o respeito à privacidade;\n- II - a autodeterminação informativa;\n" in lgpd.markdown
    # the browser's print header and the URL footer are on all 26 pages: out of the body, kept once as margins
    assert "planalto.gov.br/ccivil_03" not in lgpd.markdown and "08/11/2025, 12:14" not in lgpd.markdown
    assert lgpd.margins.count("planalto.gov.br/ccivil_03") == 1 and lgpd.margins.count("08/11/2025, 12:14") == 1


@needs_datasets
def test_lgpd_page_spans_cover_each_page_in_order(lgpd: Extracted) -> None:
    assert lgpd.method == "pdf-text" and lgpd.page_count == 26 and len(lgpd.page_spans) == 26
    starts = [start for start, _ in lgpd.page_spans]
    assert starts == sorted(starts) and all(start < end for start, end in lgpd.page_spans)
    last_start, last_end = lgpd.page_spans[-1]
    assert "Art. 65" in lgpd.markdown[last_start:last_end]
    assert "Art. 65" not in lgpd.markdown[slice(*lgpd.page_spans[0])]


@needs_datasets
def test_nics_table_has_the_pdf_header_and_one_row_per_state() -> None:
    with pdfplumber.open(NICS) as pdf:  # the header words as printed in the PDF
        printed = pdf.pages[0].extract_text()
    extracted = _extract(NICS)
    tables = re.findall(r"(?:^\|.*\|\n)+", extracted.markdown, re.M)
    assert len(tables) == 1
    rows = [[c.strip() for c in line.strip("|").split("|")] for line in tables[0].strip().split("\n")]
    header, body = rows[0], rows[2:]
    assert header[:7] == [
        "State / Territory", "Permit", "Handgun", "Long Gun", "*Other", "**Multiple", "Admin"]
    assert header[7:10] == ["Pre-Pawn Handgun", "Pre-Pawn Long Gun", "Pre-Pawn *Other"]
    assert header[-1] == "Totals" and len(header) == 25
    assert all(word in printed for cell in header for word in cell.split() if word not in ("/",))
    assert all(len(r) == 25 for r in body)
    assert 54 <= len(body) <= 58  # 50 states, DC and territories, then the totals row
    by_state = {r[0]: r for r in body}
    assert by_state["Alabama"][1] == "18,870" and by_state["Alabama"][-1] == "71,137"
    assert by_state["Wyoming"][-1] == "5,017" and by_state["Totals"][-1] == "2,236,457"
    assert extracted.markdown.count("Alabama") == 1  # in the table, not repeated as a paragraph


@needs_datasets
def test_gazette_acts_become_titles_with_their_articles() -> None:
    extracted = _extract(GAZETTE)
    titles = re.findall(r"^# (.+)$", extracted.markdown, re.M)
    assert titles[0] == "DECRETO Nº 56 DE 26 DE OUTUBRO DE 2020"
    assert sum(t.startswith("PORTARIA") for t in titles) == 3
    edition = "Segunda-feira, 26 de Outubro de 2020 - Edição n° 136"  # the running header: a margin, once
    assert edition not in extracted.markdown and extracted.margins.count(edition) == 1
    assert "Considerando que o dia 28 de outubro é data consagrada às comemorações" in extracted.markdown


def test_encrypted_pdf_is_rejected_with_a_clear_reason(tmp_path: Path) -> None:
    path = tmp_path / "secret.pdf"
    pdf = canvas.Canvas(str(path), encrypt="pw")
    pdf.drawString(72, 720, "Confidencial")
    pdf.save()
    with pytest.raises(DocumentError) as error:
        _extract(path)
    assert error.value.reason == "encrypted PDF (password protected)"
    assert error.value.stage == "extract"


@needs_datasets
def test_truncated_pdf_is_rejected_as_corrupt(tmp_path: Path) -> None:
    data = LGPD.read_bytes()
    path = tmp_path / "truncated.pdf"
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(DocumentError) as error:
        _extract(path)
    assert error.value.reason.startswith("corrupt or truncated PDF: ")


def test_file_without_pdf_header_is_rejected_as_corrupt(tmp_path: Path) -> None:
    path = tmp_path / "fake.pdf"
    path.write_bytes(b"this is not a PDF at all\n")
    with pytest.raises(DocumentError, match="corrupt or truncated PDF: no %PDF header"):
        _extract(path)


def test_generated_pdf_headings_lists_and_hyphenation(tmp_path: Path) -> None:
    path = tmp_path / "policy.pdf"
    pdf = canvas.Canvas(str(path))
    y = 760
    for font, size, text in [
        ("Helvetica-Bold", 18, "Política de Backup"),
        ("Helvetica", 11, "Este procedimento define como as cópias de segurança são feitas e verifi-"),
        ("Helvetica", 11, "cadas pela equipe de infraestrutura em todos os servidores de produção."),
        ("Helvetica-Bold", 14, "1. Regras"),
        ("Helvetica", 11, "• Cópias diárias dos bancos de dados;"),
        ("Helvetica", 11, "• Retenção de 30 dias."),
    ]:
        pdf.setFont(font, size)
        pdf.drawString(72, y, text)
        y -= size * 2
    pdf.save()
    markdown = _extract(path).markdown
    assert markdown.startswith("# Política de Backup\n")
    assert "são feitas e verificadas pela equipe" in markdown
    assert re.search(r"^#{2,3} 1\. Regras$", markdown, re.M)
    assert "- Cópias diárias dos bancos de dados;\n- Retenção de 30 dias." in markdown


def test_a_cover_page_footer_without_its_page_number_is_a_running_footer_too() -> None:
    from transforms.extraction.pdf_lines import Line, split_margins

    def page(i: int, footer: str) -> list[Line]:
        body = Line(f"Texto da página {i} do diário oficial.", i, 72, 400, 300, 312, 10, False)
        return [body, Line(footer, i, 400, 520, 810, 820, 9, False)]

    pages = [page(0, "Edição 136 - Página"), *(page(i, f"Edição 136 - Página {i}") for i in (1, 2, 3))]
    body, running = split_margins(pages, [842.0] * 4)
    assert all(len(lines) == 1 for lines in body)  # was: the cover's "Edição 136 - Página" left in the body
    assert [ln.text for ln in running] == ["Edição 136 - Página"]
