"""A ruled region is a figure, not a table, when its cells are mostly empty without a header row or label
column, or when it draws a plotted series and few cells hold text (``transforms/extraction/pdf_figures.py``);
the labels of a chart or diagram drawn with vector paths leave the body, its caption stays
(``transforms/extraction/pdf_drawings.py``)."""

from __future__ import annotations

import re
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from lakehouse.settings import Settings
from transforms.extraction import extract_document
from transforms.extraction.pdf_figures import is_figure

BBOX = (100.0, 100.0, 500.0, 300.0)


def _page(curves: list[dict] | None = None) -> SimpleNamespace:
    return SimpleNamespace(curves=curves or [], lines=[])


def _series() -> dict:
    pts = [(100 + 40 * k, 280 - 15 * k - 5 * (k % 2)) for k in range(10)]
    return {"x0": 100, "x1": 460, "top": 130, "bottom": 280, "pts": pts}


def test_chart_grid_with_scattered_labels_is_a_figure() -> None:
    rows = [["pico: 42"] + [""] * 8, [""] * 5 + ["nova polític", "a", "", ""], [""] * 8 + ["mínimo"]]
    assert is_figure(_page(), BBOX, rows)


def test_sparse_checklist_with_a_header_row_stays_a_table() -> None:
    rows = [["Etapa", "TI", "RH", "Jurídico", "DPO"], ["Coleta", "X", "", "", ""], ["Guarda", "", "", "", "X"],
            ["Descarte", "", "", "X", ""]]
    assert not is_figure(_page(), BBOX, rows)
    assert not is_figure(_page([_series()]), BBOX, rows)  # 11 of 20 cells hold text: still a table


def test_half_empty_grid_under_a_plotted_series_is_a_figure() -> None:
    rows = [["40", "", "meta", ""], ["30", "", "", "real"], ["20", "", "", ""]]
    assert not is_figure(_page(), BBOX, rows)  # its first column is filled: alone, it could be a table
    assert is_figure(_page([_series()]), BBOX, rows)


def _extract(tmp_path: Path, draw) -> str:  # noqa: ANN001 - a function drawing on a reportlab canvas
    from reportlab.pdfgen import canvas

    path = tmp_path / "figure.pdf"
    pdf = canvas.Canvas(str(path), pagesize=(595, 842))
    draw(pdf)
    pdf.save()
    return extract_document(path, "pdf", Settings()).markdown


def _paragraph(pdf: Any, y: float, text: str, lines: int = 1) -> None:
    pdf.setFont("Helvetica", 10)
    for i in range(lines):
        pdf.drawString(72, y - 14 * i, text if i == lines - 1 else "Os leitos de internação e as unidades de terapia")


def test_labels_of_a_vector_chart_leave_the_body_and_its_caption_stays(tmp_path: Path) -> None:
    def draw(pdf: Any) -> None:
        _paragraph(pdf, 760, "A taxa de ocupação dos leitos manteve-se acima da meta em todo o semestre.", 3)
        x, y = 120, 560
        for k in range(5):  # gridlines with their tick values left of the axis
            pdf.line(x, y + 37.5 * k, x + 300, y + 37.5 * k)
            pdf.setFont("Helvetica", 7)
            pdf.drawRightString(x - 4, y + 37.5 * k - 2, f"{60 + 10 * k}%")
        pdf.line(x, y, x, y + 150)  # the value axis
        points = [(x + 25 + 50 * i, y + 20 + 18 * (i % 3)) for i in range(6)]
        series = pdf.beginPath()
        series.moveTo(*points[0])
        for point in points[1:]:
            series.lineTo(*point)
        pdf.drawPath(series, stroke=1, fill=0)
        for i, month in enumerate(["Jan", "Fev", "Mar", "Abr", "Mai", "Jun"]):
            pdf.drawCentredString(x + 25 + 50 * i, y - 10, month)
        pdf.setFont("Helvetica-Oblique", 9)
        pdf.drawString(72, 525, "Figura 1 - Taxa de ocupação mensal, 2025")
        _paragraph(pdf, 495, "O pico de março acompanhou a sazonalidade das doenças respiratórias.", 3)

    markdown = _extract(tmp_path, draw)

    assert "Jan" not in markdown and "80%" not in markdown  # "60% 70% ... Jan Fev Mar" read as body text before
    assert re.search(r"acima da meta.*\n\nFigura 1 - Taxa de ocupação mensal, 2025\n\nOs leitos", markdown, re.S)


def test_a_flow_diagram_loses_its_box_labels_but_a_boxed_note_and_a_ruled_table_keep_their_text(
        tmp_path: Path) -> None:
    def draw(pdf: Any) -> None:
        _paragraph(pdf, 780, "O fluxo de aprovação segue as etapas abaixo.")
        pdf.setFont("Helvetica", 9)
        for i, label in enumerate(["Solicitante", "Comitê", "Implantação"]):  # boxes joined by arrows
            pdf.rect(72 + 150 * i, 700, 100, 40)
            pdf.drawCentredString(122 + 150 * i, 716, label)
            if i:
                tip = 72 + 150 * i
                pdf.line(tip - 50, 720, tip, 720)
                pdf.lines([(tip - 6, 724, tip, 720), (tip - 6, 716, tip, 720)])
        pdf.roundRect(72, 560, 450, 60, 8)  # a note in a rounded box: sentences, not labels
        _paragraph(pdf, 600, "Nota: toda mudança de risco alto passa pelo comitê antes da implantação.")
        cols, rows = [72, 200, 300], [480, 460, 440, 420]  # a ruled table of short cells
        for ry in rows:
            pdf.line(72, ry, 300, ry)
        for cx in cols:
            pdf.line(cx, 480, cx, 420)
        for r, row in enumerate([["Unidade", "Leitos"], ["UTI", "12"], ["Clínica", "40"]]):
            for c, cell in enumerate(row):
                pdf.drawString(cols[c] + 4, 466 - 20 * r, cell)

    markdown = _extract(tmp_path, draw)

    assert "Solicitante" not in markdown and "Comitê\n" not in markdown
    assert "Nota: toda mudança de risco alto passa pelo comitê antes da implantação." in markdown
    assert "| UTI | 12 |" in markdown
