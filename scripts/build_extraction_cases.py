"""Build the constructed extraction failure documents (issue 13) into a folder.

Usage: ``python scripts/build_extraction_cases.py OUT_DIR``. Each case reproduces one way real documents broke
extraction, made with reportlab, python-docx or by hand, so nothing binary is committed:

- ``non_bmp.pdf``: a character outside Unicode's basic plane (U+F0854, and U+1D400) in the text layer;
- ``fake_bold.pdf``: a heading, a paragraph and a ruled table whose every glyph is drawn twice, offset;
- ``ruled_dates.pdf``: a ruled table whose date cells are drawn with letter spacing;
- ``running_header.pdf``: three pages with a running header, a footer with the approver and page numbers;
- ``run_in_heading.pdf``: a bold numbered heading running into its paragraph, and font-size headings;
- ``no_table.pdf``: one page of text beside a drawn figure (curves), no table;
- ``headings.pdf``: two pages whose headings (``HEADINGS``) come from size, weight, numbering, capitals and a
  bold run-in start, beside a running header, page numbers, a numbered list, a bold label and a colophon;
- ``figure_labels.pdf``: body text around a line chart whose gridlines form a 9 x 5 grid, with labels in it;
- ``text_boxes.docx``: body text in text boxes (Word's wps shape with a VML fallback), one holding a table;
- ``footnotes.docx``: a paragraph with a footnote;
- ``header_footer.docx``: a header with the document code and a footer table with the approvals;
- ``nested_table.html``: a table nested in a table cell;
- ``mixed_encoding.txt``: UTF-8 lines and Latin-1 lines in one file.
"""

from __future__ import annotations

import argparse
import io
import zipfile
from collections.abc import Callable
from pathlib import Path

BODY = ("Este procedimento descreve como os dados pessoais são tratados pela empresa, quem responde por "
        "cada etapa e quais registros devem ser mantidos durante todo o ciclo de vida do tratamento.")


# ---------------------------------------------------------------- PDF


def _raw_pdf(objects: list[bytes]) -> bytes:
    """A PDF from numbered object bodies (object 1 is the catalog), with a correct xref table."""
    out = io.BytesIO()
    out.write(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(out.tell())
        out.write(b"%d 0 obj\n" % number + body + b"\nendobj\n")
    xref = out.tell()
    out.write(b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1))
    for offset in offsets:
        out.write(b"%010d 00000 n \n" % offset)
    out.write(b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref))
    return out.getvalue()


def non_bmp_pdf(path: Path) -> None:
    """Helvetica whose ToUnicode map sends ``#`` to U+F0854 and ``@`` to U+1D400 (surrogate pairs in the
    CMap, as real PDFs write them)."""
    cmap = (b"/CIDInit /ProcSet findresource begin 12 dict begin begincmap /CMapName /X def "
            b"1 begincodespacerange <00> <FF> endcodespacerange "
            b"2 beginbfchar <23> <DB82DC54> <40> <D835DC00> endbfchar "
            b"1 beginbfrange <20> <22> <0020> endbfrange "
            b"1 beginbfrange <24> <3F> <0024> endbfrange "
            b"1 beginbfrange <41> <7E> <0041> endbfrange "
            b"endcmap CMapName currentdict /CMap defineresource pop end end")
    text = (b"BT /F1 12 Tf 72 720 Td (Manual de Seguranca da Informacao) Tj 0 -20 Td "
            b"(Simbolo # marca os itens obrigatorios; @ e a constante de ajuste.) Tj 0 -20 Td "
            b"(Todos os colaboradores devem ler este manual antes do acesso aos sistemas.) Tj ET")
    path.write_bytes(_raw_pdf([
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> >> "
        b"/Contents 5 0 R >>",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /ToUnicode 6 0 R >>",
        b"<< /Length %d >>\nstream\n%s\nendstream" % (len(text), text),
        b"<< /Length %d >>\nstream\n%s\nendstream" % (len(cmap), cmap),
    ]))


def _canvas(path: Path):  # noqa: ANN202 - reportlab's Canvas, imported lazily
    from reportlab.pdfgen import canvas

    return canvas.Canvas(str(path), pagesize=(612, 792))


def fake_bold_pdf(path: Path) -> None:
    pdf = _canvas(path)
    y = 720
    for font, size, text in [("Helvetica", 16, "Specifies that the system"),
                             ("Helvetica", 11, "The operator specifies that the backup is verified every day."),
                             ("Helvetica", 11, "Each copy is kept for thirty days in the second site.")]:
        pdf.setFont(font, size)
        for dx in (0, 0.35):  # each glyph drawn twice, slightly offset: "fake bold"
            pdf.drawString(72 + dx, y, text)
        y -= size * 2
    xs, top = [72, 232, 372], 600  # and a ruled table whose cells are fake bold too
    for r, row in enumerate([("Nome", "Data"), ("Specifies", "03/25/2016"), ("Other", "04/25/2016")]):
        for c, cell in enumerate(row):
            for dx in (0, 0.35):
                pdf.drawString(xs[c] + 4 + dx, top - r * 22 - 15, cell)
    for r in range(4):
        pdf.line(xs[0], top - r * 22, xs[-1], top - r * 22)
    for x in xs:
        pdf.line(x, top, x, top - 66)
    pdf.save()


DATES = [("Contrato 001", "03/25/2016", "12/31/2017"), ("Contrato 002", "04/02/2016", "01/15/2018"),
         ("Contrato 003", "11/09/2016", "06/30/2018"), ("Contrato 004", "02/14/2017", "02/13/2019")]


def ruled_dates_pdf(path: Path) -> None:
    pdf = _canvas(path)
    pdf.setFont("Helvetica-Bold", 14)
    pdf.drawString(72, 740, "Vigência dos contratos")
    xs, top, step = [72, 232, 372, 512], 700, 22
    rows = [("Contrato", "Início", "Fim"), *DATES]
    for r, row in enumerate(rows):
        y = top - r * step
        for c, cell in enumerate(row):
            text = pdf.beginText(xs[c] + 4, y - 15)
            text.setFont("Helvetica-Bold" if r == 0 else "Helvetica", 9)
            text.setCharSpace(0 if c == 0 or r == 0 else 3.6)  # letter-spaced dates
            text.textOut(cell)
            pdf.drawText(text)
    for r in range(len(rows) + 1):
        pdf.line(xs[0], top - r * step, xs[-1], top - r * step)
    for x in xs:
        pdf.line(x, top, x, top - len(rows) * step)
    pdf.save()


def running_header_pdf(path: Path) -> None:
    pdf = _canvas(path)
    for page in range(1, 4):
        pdf.setFont("Helvetica-Bold", 13)
        pdf.drawString(72, 760, "REGISTRO DE OPERAÇÕES DE TRATAMENTO")
        pdf.setFont("Helvetica", 8)
        pdf.drawString(72, 40, "Aprovado por: Carla Mendes — Versão: 2.1")
        pdf.drawString(520, 40, f"{page}")
        y = 700
        if page == 1:
            pdf.setFont("Helvetica-Bold", 16)
            pdf.drawString(72, y, "Registro de Atividades")
            y -= 40
        pdf.setFont("Helvetica", 11)
        for i in range(12):
            pdf.drawString(72, y, f"Atividade {page}.{i + 1}: coleta de dados cadastrais dos clientes e fornecedores.")
            y -= 22
        pdf.showPage()
    pdf.save()


def run_in_heading_pdf(path: Path) -> None:
    pdf = _canvas(path)
    pdf.setFont("Helvetica-Bold", 16)
    pdf.drawString(72, 740, "5 Experiments")
    lines = [("5.1 Hyper Parameter Optimization", " We have chosen the learning rate by a grid search over"),
             (None, "five values and kept the best one on the validation set for every later run."),
             (None, "The batch size was fixed at thirty-two for all experiments."),
             ("5.2 Results", " The model reaches the same accuracy as the baseline in half the time,"),
             (None, "and its errors are spread evenly across the classes of the test set.")]
    y = 710
    for bold, rest in lines:
        x = 72
        if bold:
            pdf.setFont("Helvetica-Bold", 11)
            pdf.drawString(x, y, bold)
            x += pdf.stringWidth(bold, "Helvetica-Bold", 11)
        pdf.setFont("Helvetica", 11)
        pdf.drawString(x, y, rest)
        y -= 15 if bold is None or rest else 15
    pdf.save()


def no_table_pdf(path: Path) -> None:
    pdf = _canvas(path)
    pdf.setFont("Helvetica-Bold", 16)
    pdf.drawString(72, 740, "Relatório anual")
    pdf.setFont("Helvetica", 11)
    for i in range(20):
        pdf.drawString(72, 700 - 16 * i, f"Parágrafo {i + 1}: o desempenho do trimestre foi estável em todas as áreas.")
    for k in range(8):  # a figure: circles, a curve and a frame, drawn as paths
        pdf.circle(420 + 12 * k, 200, 10 + k)
    path_obj = pdf.beginPath()
    path_obj.moveTo(72, 120)
    for k in range(1, 40):
        path_obj.curveTo(72 + 10 * k - 6, 130, 72 + 10 * k - 3, 110 + k, 72 + 10 * k, 120 + (k % 5))
    pdf.drawPath(path_obj)
    pdf.rect(60, 90, 480, 160)
    pdf.save()

HEADINGS = ["Política de Gestão de Documentos", "1 Objetivo", "1.1 Escopo", "Responsabilidades",
            "1.2 Prazos de guarda", "2 Classificação, temporalidade e descarte de documentos físicos e digitais "
            "da empresa", "3 DEFINIÇÕES", "4 Disposições Finais"]
_SENTENCE = "Os documentos da área são registrados no sistema e revisados uma vez por ano pelo gestor responsável."


def headings_pdf(path: Path) -> None:
    """The reference headings are ``HEADINGS``; nothing else on the pages is a heading."""
    pdf = _canvas(path)
    state = {"y": 720.0, "page": 1}

    def margins() -> None:
        pdf.setFont("Helvetica", 8)
        pdf.drawString(72, 760, "Manual Interno de Documentos — Uso Restrito")
        pdf.drawRightString(540, 40, f"Página {state['page']} de 2")

    def line(text: str, font: str = "Helvetica", size: float = 10, gap: float = 0, x: float = 72) -> None:
        if state["y"] - gap < 90:
            pdf.showPage()
            state["page"], state["y"] = state["page"] + 1, 720.0
            margins()
        state["y"] -= gap
        pdf.setFont(font, size)
        pdf.drawString(x, state["y"], text)
        state["y"] -= size * 1.45

    def para(n: int = 3) -> None:
        for _ in range(n - 1):
            line(_SENTENCE)
        line("O registro fica disponível para a auditoria interna.")

    margins()
    line(HEADINGS[0], "Helvetica-Bold", 18)
    para(4)
    line(HEADINGS[1], "Helvetica-Bold", 13, gap=10)
    para(5)
    line(HEADINGS[2], "Helvetica-Bold", 10, gap=6)
    para(5)
    line(HEADINGS[3], "Helvetica-Bold", 10, gap=6)
    pdf.setFont("Helvetica-Bold", 10)  # a bold label starting a sentence: no heading
    pdf.drawString(72, state["y"], "Atenção:")
    pdf.setFont("Helvetica", 10)
    pdf.drawString(72 + pdf.stringWidth("Atenção: ", "Helvetica-Bold", 10), state["y"], "o gestor responde pelo "
                   "registro de cada documento da área e pela revisão anual.")
    state["y"] -= 14.5
    para(4)
    state["y"] -= 6  # a bold numbered heading running into its paragraph, with a full stop
    pdf.setFont("Helvetica-Bold", 10)
    pdf.drawString(72, state["y"], HEADINGS[4] + ".")
    pdf.setFont("Helvetica", 10)
    pdf.drawString(72 + pdf.stringWidth(HEADINGS[4] + ". ", "Helvetica-Bold", 10), state["y"],
                   "Os contratos são guardados por dez anos depois do fim da vigência,")
    state["y"] -= 14.5
    line("e as notas fiscais por cinco anos a contar do exercício seguinte.")
    line("2 Classificação, temporalidade e descarte de documentos físicos", "Helvetica-Bold", 13, gap=10)
    line("e digitais da empresa", "Helvetica-Bold", 13)
    para(5)
    line("1. O gestor aprova a tabela de temporalidade da área.", gap=4)
    line("2. O arquivo central executa o descarte depois da aprovação.")
    line(HEADINGS[6], gap=8)  # regular capitals at body size
    para(4)
    line(HEADINGS[7], "Helvetica-Bold", 13, gap=10)
    para(3)
    for text in ("Secretaria de Administração", "Rua das Flores, 100 - Centro", "Tel: (11) 5555-0100"):
        line(text, "Helvetica-Bold", 13, gap=14)  # a colophon in display type: no headings
    pdf.save()


def figure_labels_pdf(path: Path) -> None:
    """A line chart drawn on a full grid (the rules of a 9-column table) with a few labels inside its cells,
    one of them across a gridline, between paragraphs of body text."""
    pdf = _canvas(path)
    pdf.setFont("Helvetica-Bold", 16)
    pdf.drawString(72, 740, "Incidentes por mês")
    pdf.setFont("Helvetica", 11)
    for i in range(4):
        pdf.drawString(72, 710 - 15 * i, f"Linha {i + 1}: os incidentes caíram ao longo do ano após a nova política.")
    x0, y0, cw, rh, ncol, nrow = 110, 420, 45, 40, 9, 5
    pdf.setLineWidth(0.5)
    for k in range(nrow + 1):
        pdf.line(x0, y0 + k * rh, x0 + ncol * cw, y0 + k * rh)
    for k in range(ncol + 1):
        pdf.line(x0 + k * cw, y0, x0 + k * cw, y0 + nrow * rh)
    pdf.setFont("Helvetica", 8)
    for k, month in enumerate(["jan", "fev", "mar", "abr", "mai", "jun", "jul", "ago", "set", "out"]):
        pdf.drawCentredString(x0 + k * cw, y0 - 12, month)
    values = [42, 38, 35, 30, 31, 24, 20, 15, 12, 9]
    series = pdf.beginPath()
    series.moveTo(x0, y0 + values[0] * rh / 10)
    for k, value in enumerate(values[1:], start=1):
        series.lineTo(x0 + k * cw, y0 + value * rh / 10)
    pdf.setLineWidth(1.5)
    pdf.drawPath(series)
    pdf.drawString(x0 + 8, y0 + 4.4 * rh, "pico: 42")
    pdf.drawString(x0 + 5 * cw + 4, y0 + 2.6 * rh, "nova política")  # across a gridline
    pdf.drawString(x0 + 8 * cw + 4, y0 + 0.5 * rh, "mínimo")
    pdf.drawString(x0, y0 - 30, "Figura 1: incidentes registrados em cada mês de 2024.")
    pdf.setFont("Helvetica", 11)
    for i in range(3):
        pdf.drawString(72, 350 - 15 * i, f"Depois da figura {i + 1}: cada incidente foi tratado dentro do prazo.")
    pdf.save()


# ---------------------------------------------------------------- DOCX

_TEXT_BOX = """<w:r xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"
 xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006"
 xmlns:wp="http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing"
 xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main"
 xmlns:wps="http://schemas.microsoft.com/office/word/2010/wordprocessingShape"
 xmlns:v="urn:schemas-microsoft-com:vml"><mc:AlternateContent><mc:Choice Requires="wps"><w:drawing>
<wp:anchor distT="0" distB="0" distL="0" distR="0" simplePos="0" relativeHeight="1" behindDoc="0" locked="0"
 layoutInCell="1" allowOverlap="1"><wp:simplePos x="0" y="0"/><wp:positionH relativeFrom="column">
<wp:posOffset>0</wp:posOffset></wp:positionH><wp:positionV relativeFrom="paragraph"><wp:posOffset>0</wp:posOffset>
</wp:positionV><wp:extent cx="5000000" cy="2000000"/><wp:wrapNone/><wp:docPr id="{id}" name="Caixa {id}"/>
<a:graphic><a:graphicData uri="http://schemas.microsoft.com/office/word/2010/wordprocessingShape"><wps:wsp>
<wps:cNvSpPr txBox="1"/><wps:spPr/><wps:txbx><w:txbxContent>{content}</w:txbxContent></wps:txbx><wps:bodyPr/>
</wps:wsp></a:graphicData></a:graphic></wp:anchor></w:drawing></mc:Choice><mc:Fallback><w:pict>
<v:shape style="width:400pt;height:160pt"><v:textbox><w:txbxContent>{content}</w:txbxContent></v:textbox>
</v:shape></w:pict></mc:Fallback></mc:AlternateContent></w:r>"""


def _p(text: str) -> str:
    return f'<w:p><w:r><w:t xml:space="preserve">{text}</w:t></w:r></w:p>'


def _tbl(rows: list[list[str]]) -> str:
    cells = "".join("<w:tr>" + "".join(f"<w:tc>{_p(c)}</w:tc>" for c in row) + "</w:tr>" for row in rows)
    return f'<w:tbl><w:tblGrid>{"<w:gridCol/>" * len(rows[0])}</w:tblGrid>{cells}</w:tbl>'


def text_boxes_docx(path: Path) -> None:
    import docx
    from docx.oxml import parse_xml

    document = docx.Document()
    document.add_heading("Plano de Continuidade de Negócios", level=1)
    document.add_paragraph("Diretoria de Operações")
    boxes = [
        _p("O plano é acionado quando um sistema crítico fica indisponível por mais de quatro horas.")
        + _p("A equipe de resposta se reúne na sala de crise do segundo andar."),
        _p("Contatos de emergência:") + _tbl([["Função", "Nome", "Ramal"], ["Coordenador", "Paulo Reis", "4410"],
                                              ["Suplente", "Ana Lima", "4411"]]),
    ]
    for i, content in enumerate(boxes, start=1):
        anchor = document.add_paragraph()
        anchor._p.append(parse_xml(_TEXT_BOX.format(id=i, content=content)))
    document.save(str(path))


def footnotes_docx(path: Path) -> None:
    import docx

    document = docx.Document()
    document.add_heading("Política de Retenção", level=1)
    paragraph = document.add_paragraph("Os registros fiscais são guardados por cinco anos")
    run = paragraph.add_run()
    run._r.append(_ref(1))
    paragraph.add_run(" a contar do encerramento do exercício.")
    buffer = io.BytesIO()
    document.save(buffer)
    _add_footnotes(buffer.getvalue(), path, {1: "Conforme o art. 173 do Código Tributário Nacional."})


def _ref(number: int):  # noqa: ANN202 - an lxml element
    from docx.oxml import parse_xml

    return parse_xml('<w:footnoteReference xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'
                     f' w:id="{number}"/>')


def _add_footnotes(docx_bytes: bytes, path: Path, notes: dict[int, str]) -> None:
    """Add a footnotes part (python-docx cannot write one): the part, its relationship and content type."""
    ns = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'
    body = ('<w:footnote w:type="separator" w:id="-1"><w:p><w:r><w:separator/></w:r></w:p></w:footnote>'
            '<w:footnote w:type="continuationSeparator" w:id="0"><w:p><w:r><w:continuationSeparator/></w:r>'
            '</w:p></w:footnote>')
    body += "".join(f'<w:footnote w:id="{n}">{_p(text)}</w:footnote>' for n, text in notes.items())
    footnotes = f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:footnotes {ns}>{body}</w:footnotes>'
    with zipfile.ZipFile(io.BytesIO(docx_bytes)) as src, zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as dst:
        for item in src.infolist():
            data = src.read(item.filename)
            if item.filename == "[Content_Types].xml":
                data = data.replace(b"</Types>", b'<Override PartName="/word/footnotes.xml" ContentType="application/'
                                    b'vnd.openxmlformats-officedocument.wordprocessingml.footnotes+xml"/></Types>')
            elif item.filename == "word/_rels/document.xml.rels":
                data = data.replace(b"</Relationships>", b'<Relationship Id="rIdFn1" Type="http://schemas.'
                                    b'openxmlformats.org/officeDocument/2006/relationships/footnotes" '
                                    b'Target="footnotes.xml"/></Relationships>')
            dst.writestr(item, data)
        dst.writestr("word/footnotes.xml", footnotes)


def header_footer_docx(path: Path) -> None:
    import docx

    document = docx.Document()
    section = document.sections[0]
    section.header.paragraphs[0].text = "Código: POP-TI-009 — Procedimento Operacional Padrão"
    table = section.footer.add_table(rows=2, cols=3, width=section.page_width - section.left_margin
                                     - section.right_margin)
    for j, (label, name) in enumerate([("ELABORADO POR", "Rita Souza"), ("VERIFICADO POR", "Igor Lima"),
                                       ("APROVADO POR", "Helena Prado")]):
        table.cell(0, j).text, table.cell(1, j).text = label, name
    document.add_heading("Gestão de Senhas", level=1)
    for i in range(3):
        document.add_paragraph(f"{i + 1}. {BODY}")
    document.save(str(path))


# ---------------------------------------------------------------- HTML and text


def nested_table_html(path: Path) -> None:
    path.write_text("""<html><head><meta charset="utf-8"><title>Tabela de sistemas</title></head>
<body><h1>Sistemas</h1>
<table>
  <tr><th>Sistema</th><th>Responsáveis</th><th>Criticidade</th></tr>
  <tr>
    <td>ERP</td>
    <td>
      <table>
        <tr><td>Titular</td><td>Ana Lima</td></tr>
        <tr><td>Suplente</td><td>Paulo Reis</td></tr>
      </table>
    </td>
    <td>Alta</td>
  </tr>
  <tr><td>Intranet</td><td>Carla Mendes</td><td>Baixa</td></tr>
</table></body></html>
""", encoding="utf-8")


def mixed_encoding_txt(path: Path) -> None:
    path.write_bytes("Relatório de ações — versão em UTF-8\n".encode()
                     + "Seção 2: informações de segurança gravadas em Latin-1\n".encode("latin-1")
                     + "Conclusão: não há pendências.\n".encode())


CASES: dict[str, Callable[[Path], None]] = {
    "non_bmp.pdf": non_bmp_pdf,
    "fake_bold.pdf": fake_bold_pdf,
    "ruled_dates.pdf": ruled_dates_pdf,
    "running_header.pdf": running_header_pdf,
    "run_in_heading.pdf": run_in_heading_pdf,
    "no_table.pdf": no_table_pdf,
    "headings.pdf": headings_pdf,
    "figure_labels.pdf": figure_labels_pdf,
    "text_boxes.docx": text_boxes_docx,
    "footnotes.docx": footnotes_docx,
    "header_footer.docx": header_footer_docx,
    "nested_table.html": nested_table_html,
    "mixed_encoding.txt": mixed_encoding_txt,
}


def build(out: Path, names: list[str] | None = None) -> dict[str, Path]:
    """Write the cases (all, or ``names``) into ``out``; returns name -> path."""
    out.mkdir(parents=True, exist_ok=True)
    built = {}
    for name in names or list(CASES):
        CASES[name](out / name)
        built[name] = out / name
    return built


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    for name, path in build(parser.parse_args().out).items():
        print(f"{name}: {path.stat().st_size} bytes")


if __name__ == "__main__":
    main()
