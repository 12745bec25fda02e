"""Build the constructed documents of the structure development set (``benchmarks/structure.py``).

Each reproduces, with reportlab or python-docx, the layout of a kind of real document the team was scored on
(issue 26), with text in the style of public-domain originals, so nothing binary is committed:

- ``register.pdf``: three pages of a two-column US Federal Register rule (US public domain genre): a bold
  running header with the page number on the outer side (after it on odd pages, before it on even ones),
  agency headings in capitals, bold run-in headings ("Related Service Information Under 1 CFR Part 51 The FAA
  reviewed ..."), and footnotes in small type at the foot of a column, drawn before the columns in the content
  stream (as the register's typesetting does);
- ``numbered.docx``: a procedure whose headings and list items take their numbers ("2.3.2.") from Word's
  automatic numbering (``numbering.xml``), not from their text;
- ``nested.html``: a table whose cell holds a nested table, and one holding a list.
- ``figures.pdf``: a hospital indicators report with a line chart and a bar chart drawn as vector paths
  (gridlines, a plotted series, bars, tick values, axis titles, a legend) between paragraphs, each with its
  caption below, and a note in a rounded box (a frame around sentences, which stays text).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

HEADER = "Federal Register / Vol. 85, No. 151 / Wednesday, August 5, 2020 / Rules and Regulations"
SENTENCES = [
    "The FAA issued a notice of proposed rulemaking to amend 14 CFR part 39 by adding an airworthiness directive "
    "that would apply to the specified products.",
    "This condition, if not addressed, could result in reduced structural integrity of the airplane.",
    "The FAA has determined that the unsafe condition described previously is likely to exist or develop in "
    "other products of the same type design.",
    "Operators must inspect the affected parts within the compliance time specified in the service information.",
    "The FAA has reviewed the relevant data, considered the comments received, and determined that air safety "
    "requires adopting this rule as proposed.",
    "The NPRM was prompted by reports of cracking in the wing attach fittings found during scheduled checks.",
    "The FAA gave the public the opportunity to participate in developing this final rule.",
    "One commenter supported the NPRM without change, and two commenters asked for a longer compliance time.",
    "The FAA estimates that this AD affects 212 airplanes of U.S. registry.",
    "The agency has determined that this AD will not have federalism implications under Executive Order 13132.",
    "Title 49 of the United States Code specifies the FAA's authority to issue rules on aviation safety.",
    "This AD is issued in accordance with section 44701, which describes the authority of the FAA Administrator.",
    "The manufacturer has not yet developed a modification that addresses the unsafe condition.",
    "Once the modification is developed, approved, and available, the FAA might consider additional rulemaking.",
]


def _wrap(text: str, font: str, size: float, width: float) -> list[str]:
    from reportlab.pdfbase.pdfmetrics import stringWidth

    lines, current = [], ""
    for word in text.split():
        trial = f"{current} {word}".strip()
        if current and stringWidth(trial, font, size) > width:
            lines.append(current)
            current = word
        else:
            current = trial
    return lines + ([current] if current else [])


def register_pdf(path: Path) -> None:
    from reportlab.pdfbase.pdfmetrics import stringWidth
    from reportlab.pdfgen import canvas

    c = canvas.Canvas(str(path), pagesize=(612, 792))
    cols = [(54.0, 294.0), (318.0, 558.0)]
    # per page: the two columns' contents; ("h", text) bold heading alone, ("caps", text) capitals heading,
    # ("run", head, text) a bold run-in heading, ("p", text) a paragraph; and the footnotes of column 0
    pages = [
        ([[("caps", "DEPARTMENT OF TRANSPORTATION"), ("h", "Federal Aviation Administration"),
           ("p", "14 CFR Part 39"), ("p", "[Docket No. FAA-2020-0123; Product Identifier 2019-NM-180-AD]"),
           ("h", "Airworthiness Directives; The Boeing Company Airplanes"),
           ("run", "AGENCY:", "Federal Aviation Administration (FAA), Department of Transportation (DOT)."),
           ("run", "ACTION:", "Final rule."), ("run", "SUMMARY:", " ".join(SENTENCES[:3]))],
          [("caps", "BACKGROUND"), ("h", "Discussion"), ("p", " ".join(SENTENCES[3:6])),
           ("h", "Comments"), ("p", " ".join(SENTENCES[6:8]))]], []),
        ([[("run", "Related Service Information Under 1 CFR Part 51", "The FAA reviewed Boeing Alert Service "
            "Bulletin 737-57A1234, which describes procedures for inspecting the wing attach fittings.¹ "
            + SENTENCES[8]),
           ("run", "Boots Self-Locking Nut", "The Boots self-locking nut installed on the fitting may crack. "
            + SENTENCES[9])],
          [("h", "Costs of Compliance"), ("p", SENTENCES[10]),
           ("run", "Interim Action", "The FAA considers this AD interim action. " + SENTENCES[12])]],
         ["¹ The service bulletin is available from Boeing Commercial Airplanes, Seattle, Washington.",
          "² See the docket for the comments received on the proposal."]),
        ([[("h", "Authority for This Rulemaking"), ("p", SENTENCES[11])],
          [("h", "Regulatory Findings"), ("p", SENTENCES[13])]], []),
    ]
    for number, (columns, notes) in enumerate(pages):
        c.setFont("Helvetica-Bold", 7)  # the page number outside: right on odd pages, left on even ones
        if number % 2 == 0:
            c.drawString(54, 760, HEADER)
            c.drawRightString(558, 760, str(47699 + number))
        else:
            c.drawString(54, 760, str(47699 + number))
            c.drawRightString(558, 760, HEADER)
        if notes:  # the register draws a column's footnotes before its text
            y = 90.0
            for note in notes:
                for line in _wrap(note, "Helvetica", 7, cols[0][1] - cols[0][0]):
                    c.setFont("Helvetica", 7)
                    c.drawString(cols[0][0], y, line)
                    y -= 9
        for (x0, x1), blocks in zip(cols, columns, strict=True):
            y, width = 730.0, x1 - x0
            for block in blocks:
                kind = block[0]
                if kind in ("h", "caps"):
                    c.setFont("Helvetica-Bold", 9)
                    c.drawString(x0, y, block[1])
                    y -= 15
                    continue
                if kind == "run":
                    head, text = block[1], block[2]
                    c.setFont("Helvetica-Bold", 9)
                    c.drawString(x0 + 10, y, head)
                    start = x0 + 10 + stringWidth(head + " ", "Helvetica-Bold", 9)
                    first = _wrap(text, "Helvetica", 9, x1 - start)[0]
                    c.setFont("Helvetica", 9)
                    c.drawString(start, y, first)
                    y -= 11
                    rest = text[len(first):].strip()
                    indent = 0.0
                else:
                    rest, indent = block[1], 10.0
                for i, line in enumerate(_wrap(rest, "Helvetica", 9, width - indent)):
                    c.setFont("Helvetica", 9)
                    c.drawString(x0 + (indent if i == 0 else 0), y, line)
                    y -= 11
                y -= 4
        c.showPage()
    c.save()


def numbered_docx(path: Path) -> None:
    """Headings 1-3 and list items numbered by one multi-level list (``%1.``, ``%1.%2.``, ``%1.%2.%3.``)."""
    import docx
    from docx.oxml import parse_xml

    document = docx.Document()
    numbering = document.part.numbering_part.element
    w = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'
    levels = "".join(
        f'<w:lvl w:ilvl="{i}"><w:start w:val="1"/><w:numFmt w:val="decimal"/>'
        f'<w:lvlText w:val="{".".join(f"%{k + 1}" for k in range(i + 1))}."/></w:lvl>' for i in range(3))
    numbering.insert(0, parse_xml(f'<w:abstractNum {w} w:abstractNumId="90">{levels}</w:abstractNum>'))
    numbering.append(parse_xml(f'<w:num {w} w:numId="90"><w:abstractNumId w:val="90"/></w:num>'))
    bullets = (f'<w:abstractNum {w} w:abstractNumId="91"><w:lvl w:ilvl="0"><w:start w:val="1"/>'
               f'<w:numFmt w:val="lowerLetter"/><w:lvlText w:val="%1)"/></w:lvl></w:abstractNum>')
    numbering.insert(1, parse_xml(bullets))
    numbering.append(parse_xml(f'<w:num {w} w:numId="91"><w:abstractNumId w:val="91"/></w:num>'))

    def numbered(text: str, style: str, num: int, level: int) -> None:
        paragraph = document.add_paragraph(text, style=style)
        ppr = paragraph._p.get_or_add_pPr()
        ppr.append(parse_xml(f'<w:numPr {w}><w:ilvl w:val="{level}"/><w:numId w:val="{num}"/></w:numPr>'))

    document.add_paragraph("Procedimento de Gestão de Mudanças", style="Title")
    numbered("Objetivo", "Heading 1", 90, 0)
    document.add_paragraph("Este procedimento define como as mudanças nos sistemas são avaliadas e aprovadas.")
    numbered("Escopo", "Heading 1", 90, 0)
    document.add_paragraph("Aplica-se a todos os sistemas de produção mantidos pela área de tecnologia.")
    numbered("Responsabilidades", "Heading 1", 90, 0)
    numbered("Comitê de mudanças", "Heading 2", 90, 1)
    document.add_paragraph("O comitê avalia as mudanças de risco alto antes da implantação.")
    numbered("Solicitante", "Heading 2", 90, 1)
    numbered("Registro da solicitação", "Heading 3", 90, 2)
    document.add_paragraph("O solicitante registra a mudança com o plano de reversão.")
    numbered("Aprovação da mudança", "Heading 3", 90, 2)
    document.add_paragraph("A mudança só é implantada depois de aprovada.")
    numbered("Registros", "Heading 1", 90, 0)
    for item in ("o plano de reversão;", "a ata do comitê;", "o resultado dos testes."):
        numbered(item, "Normal", 91, 0)
    document.save(str(path))


NESTED_HTML = """<!DOCTYPE html><html><head><meta charset="utf-8"><title>Tabela aninhada</title></head><body>
<h1>Matriz de contatos</h1>
<p>Os contatos abaixo respondem por cada sistema.</p>
<table border="1">
<tr><th>Sistema</th><th>Contatos</th><th>Criticidade</th></tr>
<tr><td>ERP</td><td><table><tr><td>A1</td><td>B1</td><td>C1</td></tr><tr><td>D1</td></tr>
<tr><td>I</td><td>II</td></tr><tr><td>III</td><td>IV</td></tr></table></td><td>Alta</td></tr>
<tr><td>CRM</td><td>Equipe comercial</td><td>Média</td></tr>
</table>
<p>Fim da matriz.</p>
</body></html>
"""


def nested_html(path: Path) -> None:
    path.write_text(NESTED_HTML, encoding="utf-8")


FIGURE_TEXT = [
    "A taxa de ocupação dos leitos de internação manteve-se acima da meta durante todo o primeiro semestre.",
    "O pico de março acompanhou a sazonalidade das doenças respiratórias e a reforma da ala norte.",
    "As unidades de terapia intensiva concentraram a maior parte das transferências entre hospitais da rede.",
    "A enfermaria cirúrgica reduziu a permanência média depois da revisão dos protocolos de alta.",
]
MONTHS = ["Jan", "Fev", "Mar", "Abr", "Mai", "Jun"]


def draw_line_chart(c: Any, x: float, y: float, values: list[float]) -> None:
    """A line chart whose plot area's lower-left corner is (x, y): 300 x 150 points."""
    c.setStrokeColorRGB(0.8, 0.8, 0.8)
    for k in range(5):  # gridlines and tick values
        c.line(x, y + 37.5 * k, x + 300, y + 37.5 * k)
        c.setFont("Helvetica", 7)
        c.drawRightString(x - 4, y + 37.5 * k - 2, f"{60 + 10 * k}%")
    c.setStrokeColorRGB(0, 0, 0)
    c.line(x, y, x, y + 150)
    points = [(x + 25 + 50 * i, y + (v - 60) * 3.75) for i, v in enumerate(values)]
    path = c.beginPath()
    path.moveTo(*points[0])
    for point in points[1:]:
        path.lineTo(*point)
    c.setStrokeColorRGB(0.1, 0.3, 0.7)
    c.drawPath(path, stroke=1, fill=0)
    for px, py in points:
        c.circle(px, py, 2, stroke=1, fill=1)
    c.setStrokeColorRGB(0, 0, 0)
    c.setFont("Helvetica", 7)
    for i, month in enumerate(MONTHS):
        c.drawCentredString(x + 25 + 50 * i, y - 10, month)
    c.drawString(x + 210, y + 160, "Ocupação (%)")
    c.line(x + 190, y + 162, x + 205, y + 162)
    c.drawString(x + 210, y + 150, "Meta 85%")


def draw_bar_chart(c: Any, x: float, y: float, values: list[float], labels: list[str]) -> None:
    """A column chart whose baseline starts at (x, y)."""
    c.line(x, y, x + 60 * len(values), y)
    c.setFont("Helvetica", 7)
    for i, (value, label) in enumerate(zip(values, labels, strict=True)):
        c.setFillColorRGB(0.3, 0.5, 0.3)
        c.rect(x + 10 + 60 * i, y, 40, value * 10, stroke=0, fill=1)
        c.setFillColorRGB(0, 0, 0)
        c.drawCentredString(x + 30 + 60 * i, y + value * 10 + 3, f"{value:g}")
        c.drawCentredString(x + 30 + 60 * i, y - 10, label)
    c.drawString(x, y + 110, "Dias de permanência")


def figures_pdf(path: Path) -> None:
    from reportlab.pdfgen import canvas

    c = canvas.Canvas(str(path), pagesize=(595, 842))
    c.setFont("Helvetica-Bold", 16)
    c.drawString(72, 780, "Relatório de Indicadores Assistenciais")
    y = 750.0
    for text in FIGURE_TEXT[:2]:
        for line in _wrap(text, "Helvetica", 10, 450):
            c.setFont("Helvetica", 10)
            c.drawString(72, y, line)
            y -= 14
        y -= 6
    draw_line_chart(c, 120, 520, [82, 86, 93, 90, 87, 84])
    c.setFont("Helvetica-Oblique", 9)
    c.drawString(72, 490, "Figura 1 - Taxa de ocupação mensal dos leitos de internação, 2025")
    y = 460.0
    for line in _wrap(FIGURE_TEXT[2], "Helvetica", 10, 450):
        c.setFont("Helvetica", 10)
        c.drawString(72, y, line)
        y -= 14
    draw_bar_chart(c, 120, 270, [6.5, 4.2, 9.8, 3.1], ["Clínica", "Cirúrgica", "UTI", "Pediatria"])
    c.setFont("Helvetica-Oblique", 9)
    c.drawString(72, 240, "Figura 2 - Permanência média por unidade (dias)")
    c.roundRect(72, 120, 450, 70, 8, stroke=1, fill=0)
    y = 172.0
    for line in _wrap("Nota: " + FIGURE_TEXT[3], "Helvetica", 10, 430):
        c.setFont("Helvetica", 10)
        c.drawString(82, y, line)
        y -= 14
    c.showPage()
    c.save()


BUILDERS = {"register.pdf": register_pdf, "numbered.docx": numbered_docx, "nested.html": nested_html,
            "figures.pdf": figures_pdf}
