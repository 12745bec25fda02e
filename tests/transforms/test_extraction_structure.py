"""Document structure read from the page (issue 26): Word's automatic numbering, nested HTML tables, run-in and
capital headings, running headers that change by chapter, footnotes drawn before their column, labels drawn
over a page after its text, and headings set a little larger than the body."""

from __future__ import annotations

import re
from pathlib import Path

import docx
from docx.oxml import parse_xml
from reportlab.pdfgen import canvas

from lakehouse.settings import Settings
from transforms.extraction import extract_document

_W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'
_TEXT = ("The operator inspects the fittings at every scheduled check and records the result in the log",
         "kept with the airplane, so that the next inspection can compare the measurements taken.")


def _pdf(path: Path, draw) -> str:  # noqa: ANN001 - a function drawing on a reportlab canvas
    pdf = canvas.Canvas(str(path), pagesize=(612, 792))
    draw(pdf)
    pdf.save()
    return extract_document(path, "pdf", Settings()).markdown


def _body(pdf: canvas.Canvas, y: float, lines: int = 4, x: float = 72, size: float = 10) -> float:
    pdf.setFont("Helvetica", size)
    for i in range(lines):
        pdf.drawString(x, y, f"{_TEXT[i % 2]}")
        y -= size * 1.4
    return y


def test_word_numbering_is_restored_in_headings_and_list_items(tmp_path: Path) -> None:
    document = docx.Document()
    numbering = document.part.numbering_part.element
    levels = "".join(f'<w:lvl w:ilvl="{i}"><w:start w:val="1"/><w:numFmt w:val="decimal"/><w:lvlText w:val="'
                     + ".".join(f"%{k + 1}" for k in range(i + 1)) + '."/></w:lvl>' for i in range(3))
    numbering.insert(0, parse_xml(f'<w:abstractNum {_W} w:abstractNumId="90">{levels}</w:abstractNum>'))
    numbering.insert(1, parse_xml(f'<w:abstractNum {_W} w:abstractNumId="91"><w:lvl w:ilvl="0"><w:start w:val="1"/>'
                                  '<w:numFmt w:val="lowerLetter"/><w:lvlText w:val="%1)"/></w:lvl></w:abstractNum>'))
    for num in ("90", "91"):
        numbering.append(parse_xml(f'<w:num {_W} w:numId="{num}"><w:abstractNumId w:val="{num}"/></w:num>'))

    def numbered(text: str, style: str, num: str, level: int) -> None:
        paragraph = document.add_paragraph(text, style=style)
        paragraph._p.get_or_add_pPr().append(
            parse_xml(f'<w:numPr {_W}><w:ilvl w:val="{level}"/><w:numId w:val="{num}"/></w:numPr>'))

    numbered("Objetivo", "Heading 1", "90", 0)
    numbered("Responsabilidades", "Heading 1", "90", 0)
    numbered("Comitê", "Heading 2", "90", 1)
    numbered("Solicitante", "Heading 2", "90", 1)
    numbered("Registro", "Heading 3", "90", 2)
    numbered("Registros", "Heading 1", "90", 0)
    numbered("o plano de reversão;", "Normal", "91", 0)
    numbered("a ata do comitê.", "Normal", "91", 0)
    path = tmp_path / "numerado.docx"
    document.save(str(path))

    markdown = extract_document(path, "docx", Settings()).markdown

    assert re.findall(r"^#+ .+$", markdown, re.M) == [
        "# 1. Objetivo", "# 2. Responsabilidades", "## 2.1. Comitê", "## 2.2. Solicitante",
        "### 2.2.1. Registro", "# 3. Registros"]  # was: the numbers Word draws were lost
    assert "- a) o plano de reversão;\n- b) a ata do comitê." in markdown


def test_a_table_nested_in_an_html_cell_reads_as_its_text(tmp_path: Path) -> None:
    path = tmp_path / "aninhada.html"
    path.write_text("<table><tr><th>Sistema</th><th>Contatos</th><th>Criticidade</th></tr><tr><td>ERP</td><td>"
                    "<table><tr><td>A1</td><td>B1</td><td>C1</td></tr><tr><td>D1</td></tr><tr><td>I</td><td>II</td>"
                    "</tr><tr><td>III</td><td>IV</td></tr></table></td><td>Alta</td></tr>"
                    "<tr><td>CRM</td><td>Equipe</td><td>Média</td></tr></table>", encoding="utf-8")
    markdown = extract_document(path, "html", Settings()).markdown
    assert "| ERP | A1 B1 C1 D1 I II III IV | Alta |" in markdown  # was: "A1, B1, C1; D1; I: II; III: IV"


def test_title_case_run_in_headings_and_capitals_headings(tmp_path: Path) -> None:
    def draw(pdf: canvas.Canvas) -> None:
        pdf.setFont("Helvetica-Bold", 10)
        pdf.drawString(72, 720, "DEPARTMENT OF TRANSPORTATION")
        pdf.drawString(72, 706, "Federal Aviation Administration")
        y = _body(pdf, 686, 2)
        pdf.setFont("Helvetica-Bold", 10)
        pdf.drawString(72, y - 6, "AGENCY:")  # a label, not a heading
        pdf.setFont("Helvetica", 10)
        pdf.drawString(120, y - 6, "Federal Aviation Administration (FAA), DOT.")
        y -= 26
        for head, text in (("Boots Self-Locking Nut", "The Boots self-locking nut may crack under load."),
                           ("Related Service Information", "The FAA reviewed the service bulletin.")):
            pdf.setFont("Helvetica-Bold", 10)
            pdf.drawString(82, y, head)
            pdf.setFont("Helvetica", 10)
            pdf.drawString(82 + pdf.stringWidth(head + " ", "Helvetica-Bold", 10), y, text)
            y = _body(pdf, y - 14, 2) - 6

    markdown = _pdf(tmp_path / "register.pdf", draw)

    headings = re.findall(r"^#+ (.+)$", markdown, re.M)
    assert headings == ["DEPARTMENT OF TRANSPORTATION", "Federal Aviation Administration", "Boots Self-Locking Nut",
                        "Related Service Information"]  # was: merged into one line, or into their paragraphs
    assert "Boots Self-Locking Nut\n\nThe Boots self-locking nut may crack" in markdown
    assert "AGENCY: Federal Aviation Administration (FAA), DOT." in markdown


def test_a_running_header_naming_each_chapter_leaves_the_body_and_the_cover_title_stays(tmp_path: Path) -> None:
    chapters = ["Chapter 1: Introduction", "Chapter 1: Introduction", "Chapter 2: Utilities",
                "Chapter 2: Utilities", "Chapter 3: Function reference", "Appendix A: Copying"]

    def draw(pdf: canvas.Canvas) -> None:
        pdf.setFont("Helvetica-Bold", 24)
        pdf.drawString(72, 740, "Chapter 1: Introduction")  # the cover's title, in display type
        _body(pdf, 700, 6)
        pdf.showPage()
        for number, header in enumerate(chapters, start=2):
            pdf.setFont("Helvetica-Oblique", 9)
            pdf.drawString(72, 760, header)
            pdf.drawRightString(540, 760, str(number))
            _body(pdf, 720, 6)
            pdf.showPage()

    markdown = _pdf(tmp_path / "manual.pdf", draw)

    assert markdown.startswith("# Chapter 1: Introduction\n")  # was: dropped as the running header
    for header in chapters[2:]:  # was: left in the body, on two pages in seven or one
        assert header not in markdown


def test_footnotes_drawn_before_the_text_follow_it(tmp_path: Path) -> None:
    def draw(pdf: canvas.Canvas) -> None:
        pdf.setFont("Helvetica", 7)
        pdf.drawString(72, 90, "1 The service bulletin is available from the manufacturer.")
        pdf.drawString(72, 81, "2 See the docket for the comments received.")
        pdf.setFont("Helvetica", 10)
        pdf.drawString(72, 720, "The FAA reviewed the service bulletin and the comments.")
        _body(pdf, 700, 6)

    markdown = _pdf(tmp_path / "notes.pdf", draw)

    assert markdown.index("The FAA reviewed") < markdown.index("1 The service bulletin")  # was: notes first
    assert markdown.index("1 The service bulletin") < markdown.index("2 See the docket")


def test_labels_drawn_over_the_page_after_its_text_are_read_first(tmp_path: Path) -> None:
    def draw(pdf: canvas.Canvas) -> None:
        pdf.setFont("Helvetica", 6)
        pdf.drawString(72, 40, "Rua Francisco Vieira da Maia, 10 - Fone (14) 3844-8200")  # a letterhead foot
        pdf.setFont("Helvetica-Bold", 14)
        pdf.drawString(72, 600, "DECRETO Nº 56 DE 26 DE OUTUBRO DE 2020")
        _body(pdf, 570, 4)
        pdf.setFont("Helvetica-Bold", 7)
        pdf.drawString(250, 700, "PODER EXECUTIVO")  # the gazette's section label, stamped last
        pdf.drawString(262, 688, "DECRETOS")

    markdown = _pdf(tmp_path / "diario.pdf", draw)

    assert markdown.index("PODER EXECUTIVO") < markdown.index("DECRETO Nº 56")  # was: after the decree


def test_a_heading_set_a_little_larger_than_the_body_is_a_heading(tmp_path: Path) -> None:
    def draw(pdf: canvas.Canvas) -> None:
        y = 720.0
        for name in ("asn1 parser2tree", "asn1 parser2array", "asn1 array2tree"):
            pdf.setFont("Helvetica", 13.1)  # 1.19 times the 11-point body
            pdf.drawString(72, y, name)
            y = _body(pdf, y - 20, 4, size=11) - 10

    markdown = _pdf(tmp_path / "reference.pdf", draw)

    assert re.findall(r"^#+ (.+)$", markdown, re.M) == ["asn1 parser2tree", "asn1 parser2array", "asn1 array2tree"]


def test_a_table_drawn_after_the_text_below_it_stays_under_its_caption(tmp_path: Path) -> None:
    def draw(pdf: canvas.Canvas) -> None:
        pdf.setFont("Helvetica", 10)
        pdf.drawString(72, 720, "Table 1. Inspections by month")
        _body(pdf, 615, 4)  # the text below the table, drawn before it
        rows = [["Month", "Checks", "Findings"], ["January", "12", "1"], ["February", "9", "0"]]
        for i in range(4):
            pdf.line(72, 700 - 20 * i, 372, 700 - 20 * i)
        for x in (72, 172, 272, 372):
            pdf.line(x, 700, x, 640)
        for i, row in enumerate(rows):
            for j, cell in enumerate(row):
                pdf.drawString(76 + 100 * j, 686 - 20 * i, cell)

    markdown = _pdf(tmp_path / "caption.pdf", draw)

    assert "Table 1. Inspections by month\n\n| Month | Checks | Findings |" in markdown  # was: after the text
    assert markdown.index("| February | 9 | 0 |") < markdown.index("The operator inspects")


def test_a_column_header_set_sideways_reads_forwards(tmp_path: Path) -> None:
    def draw(pdf: canvas.Canvas) -> None:
        pdf.setFont("Helvetica", 10)
        pdf.drawString(72, 740, "Registro de autoridades por estado.")
        cols = [72, 172, 232, 292]
        for y in (700, 620, 600, 580):
            pdf.line(72, y, 292, y)
        for x in cols:
            pdf.line(x, 700, x, 580)
        pdf.drawString(76, 660, "State")
        for x, label in ((192, "No Authority"), (252, "Authority")):  # set bottom to top
            pdf.saveState()
            pdf.translate(x, 625)
            pdf.rotate(90)
            pdf.drawString(0, 0, label)
            pdf.restoreState()
        for i, row in enumerate([["Alabama", "12", "3"], ["Alaska", "4", "1"]]):
            for j, cell in enumerate(row):
                pdf.drawString(cols[j] + 4, 606 - 20 * i, cell)

    markdown = _pdf(tmp_path / "sideways.pdf", draw)

    assert "| State | No Authority | Authority |\n| --- | --- | --- |\n| Alabama | 12 | 3 |" in markdown  # "ytirohtuA"


def test_a_table_without_side_rules_keeps_its_label_and_last_columns(tmp_path: Path) -> None:
    rows = [["State", "Permit", "Handgun", "Totals"], ["Alabama", "18,870", "23,022", "71,137"],
            ["Alaska", "209", "3,062", "7,095"]]
    xs = [72, 172, 252, 332, 412]

    def draw(pdf: canvas.Canvas) -> None:
        pdf.setFont("Helvetica", 10)
        pdf.drawString(72, 740, "Checks by state in November.")
        for i in range(len(rows) + 1):
            pdf.line(72, 720 - 20 * i, 412, 720 - 20 * i)
        for x in xs[1:-1]:  # rules between the columns only
            pdf.line(x, 720, x, 720 - 20 * len(rows))
        for i, row in enumerate(rows):
            for j, cell in enumerate(row):
                pdf.drawString(xs[j] + 4, 706 - 20 * i, cell)

    markdown = _pdf(tmp_path / "open.pdf", draw)

    assert ("| State | Permit | Handgun | Totals |\n| --- | --- | --- | --- |\n| Alabama | 18,870 | 23,022 | 71,137 |"
            in markdown)  # was: "| Permit | Handgun |", the states and totals gone


def test_heading_levels_follow_case_and_size_ranks(tmp_path: Path) -> None:
    def draw(pdf: canvas.Canvas) -> None:
        pdf.setFont("Helvetica-Bold", 20)
        pdf.drawString(72, 760, "Airworthiness Manual")
        pdf.setFont("Helvetica-Bold", 10)  # bold at body size: capitals over mixed case
        pdf.drawString(72, 730, "BACKGROUND")
        y = _body(pdf, 710, 2)
        pdf.setFont("Helvetica-Bold", 10)
        pdf.drawString(72, y - 8, "Discussion")
        y = _body(pdf, y - 28, 2)
        pdf.setFont("Helvetica-Bold", 14)  # a larger appendix heading, then a licence numbered from 0
        pdf.drawString(72, y - 16, "A.1 Free Documentation License")
        y -= 44
        for clause in ("0. PREAMBLE", "1. APPLICABILITY AND DEFINITIONS"):
            pdf.setFont("Helvetica", 10)
            pdf.drawString(72, y, clause)
            y = _body(pdf, y - 20, 2) - 8

    markdown = _pdf(tmp_path / "levels.pdf", draw)

    headings = re.findall(r"^(#+) (.+)$", markdown, re.M)
    assert headings == [("#", "Airworthiness Manual"), ("###", "BACKGROUND"), ("####", "Discussion"),
                        ("##", "A.1 Free Documentation License"), ("###", "0. PREAMBLE"),
                        ("###", "1. APPLICABILITY AND DEFINITIONS")]  # were "###" and "##" for the last four


def test_section_labels_listed_in_the_contents_are_headings_at_their_contents_level(tmp_path: Path) -> None:
    def draw(pdf: canvas.Canvas) -> None:
        pdf.setFont("Helvetica", 11)  # the cover's contents: two levels by indent, dot leaders, page numbers
        for x, title, page in ((72, "PODER EXECUTIVO", 2), (92, "DECRETOS", 2), (92, "LICITAÇÕES", 2)):
            pdf.drawString(x, 700 - 16 * ["PODER EXECUTIVO", "DECRETOS", "LICITAÇÕES"].index(title),
                           f"{title} {'.' * 60} {page}")
        pdf.showPage()
        y = _body(pdf, 640, 6, size=9)
        pdf.setFont("Helvetica-Bold", 7)  # the section labels, stamped in small type over the page
        pdf.drawCentredString(306, 740, "PODER EXECUTIVO")
        pdf.drawCentredString(306, 724, "DECRETOS")
        pdf.drawCentredString(306, y - 10, "LICITAÇÕES")
        _body(pdf, y - 30, 2, size=9)

    markdown = _pdf(tmp_path / "gazette.pdf", draw)

    headings = re.findall(r"^(#+) (.+)$", markdown, re.M)
    assert headings == [("##", "PODER EXECUTIVO"), ("###", "DECRETOS"), ("###", "LICITAÇÕES")]  # were body text


def test_text_set_sideways_keeps_its_own_paragraphs_and_a_stamp_on_every_page_leaves_the_body(
        tmp_path: Path) -> None:
    def sideways(pdf: canvas.Canvas, angle: int, x: float, y: float, text: str) -> None:
        pdf.saveState()
        pdf.translate(x, y)
        pdf.rotate(angle)
        pdf.setFont("Helvetica", 8)
        pdf.drawString(0, 0, text)
        pdf.restoreState()

    def draw(pdf: canvas.Canvas) -> None:
        for page in range(3):
            _body(pdf, 720, 6)
            sideways(pdf, 90, 40, 200, f"Documento assinado digitalmente por Maria Souza. Página {page + 1} de 3")
            if page == 0:  # a two-line note down the right margin, beside a one-line one
                sideways(pdf, 270, 560, 700, "Este documento foi publicado no diário oficial")
                sideways(pdf, 270, 550, 700, "da prefeitura em 12 de março de 2024.")
                sideways(pdf, 270, 520, 700, "Arquivo 2024/0042")
            pdf.showPage()

    markdown = _pdf(tmp_path / "sideways.pdf", draw)

    assert "Documento assinado" not in markdown  # a running stamp, as a header is
    assert "\n\nEste documento foi publicado no diário oficial da prefeitura em 12 de março de 2024.\n\n" in markdown
    assert "\n\nArquivo 2024/0042\n\n" in markdown  # was joined to the note beside it


def test_a_bold_line_opening_an_empty_section_is_not_a_heading(tmp_path: Path) -> None:
    def draw(pdf: canvas.Canvas) -> None:
        pdf.setFont("Helvetica-Bold", 18)
        pdf.drawString(72, 760, "Relatório Anual")
        pdf.setFont("Helvetica-Bold", 10)
        pdf.drawString(72, 730, "Maria Souza")  # a byline, then straight into the first section
        pdf.drawString(72, 700, "Resumo")
        _body(pdf, 680, 3)

    markdown = _pdf(tmp_path / "byline.pdf", draw)

    assert re.findall(r"^#+ (.+)$", markdown, re.M) == ["Relatório Anual", "Resumo"]  # "## Maria Souza" before
    assert "\n\nMaria Souza\n\n## Resumo\n\n" in markdown
