#!/usr/bin/env python
"""Visual documents of the sample corpus: PDFs whose key facts exist only inside a chart image (labels and values
drawn with PIL, placed in the PDF with reportlab; the PDF's text layer names the topic, never the numbers), and
their labelled questions (``visual_questions.jsonl``: the relevant document and the page that holds the answer).

Called by ``scripts/build_sample_corpus.py`` (so ``make corpus`` rebuilds them and the corpus test checks them);
``--out`` builds them elsewhere. Byte for byte reproducible: reportlab invariant mode, PIL drawing, no dates."""

from __future__ import annotations

import argparse
import io
import json
import sys
import unicodedata
from dataclasses import dataclass
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont
from reportlab.lib.pagesizes import A4
from reportlab.lib.utils import ImageReader
from reportlab.pdfgen import canvas

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from lakehouse.ids import document_id_for  # noqa: E402


@dataclass(frozen=True)
class Chart:
    path: str
    title: str
    intro: list[str]  # the text page: the topic, never the numbers
    chart_title: str
    kind: str  # bar | line
    labels: list[str]
    values: list[float]
    unit: str
    questions: list[tuple[str, str]]  # (question, expected answer)
    groups: tuple[str, ...] = ("public",)


CHARTS = [
    Chart("Relatórios/Indicadores/Taxa de Ocupação por Unidade 2025.pdf", "Taxa de Ocupação por Unidade - 2025",
          ["Relatório de indicadores assistenciais do Hospital Vale do Ipê.",
           "A taxa de ocupação média anual de cada unidade de internação está no gráfico da página 2."],
          "Taxa de ocupação média 2025 (%)", "bar", ["UTI Adulto", "Clínica Médica", "Pediatria", "Maternidade"],
          [92, 81, 64, 58], "%",
          [("Qual unidade teve a maior taxa de ocupação média em 2025?", "UTI Adulto, com 92%."),
           ("Qual foi a taxa de ocupação média da Pediatria em 2025?", "64%.")]),
    Chart("Relatórios/Indicadores/Tempo de Espera no Pronto-Socorro 2025.pdf",
          "Tempo Médio de Espera no Pronto-Socorro - 1º semestre de 2025",
          ["Acompanhamento mensal do tempo entre a classificação de risco e o primeiro atendimento médico.",
           "A série mensal do semestre está no gráfico da página 2."],
          "Tempo médio de espera (minutos)", "line", ["jan", "fev", "mar", "abr", "mai", "jun"],
          [48, 52, 61, 57, 44, 39], "min",
          [("Em que mês do primeiro semestre de 2025 a espera no pronto-socorro foi mais longa?",
            "Março, com 61 minutos em média."),
           ("Qual foi o tempo médio de espera no pronto-socorro em junho de 2025?", "39 minutos.")]),
    Chart("RH/Indicadores/Absenteísmo por Setor 2025.pdf", "Absenteísmo por Setor - 2025",
          ["Indicador de absenteísmo dos colaboradores por setor, acumulado do ano.",
           "Os índices de cada setor estão no gráfico da página 2."],
          "Absenteísmo acumulado 2025 (%)", "bar", ["Enfermagem", "Higienização", "Administrativo", "TI"],
          [6.4, 5.1, 2.3, 1.7], "%",
          [("Qual setor teve o maior absenteísmo acumulado em 2025?", "Enfermagem, com 6,4%.")],
          groups=("rh",)),
]


def _ascii(text: str) -> str:
    """Pillow's built-in font has no accented glyphs: the chart's words are written without accents."""
    return unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()


def chart_png(chart: Chart) -> bytes:
    width, height, left, bottom, top = 900, 560, 90, 470, 90
    image = Image.new("RGB", (width, height), "white")
    draw = ImageDraw.Draw(image)
    font, small = ImageFont.load_default(size=26), ImageFont.load_default(size=20)
    draw.text((left, 25), _ascii(chart.chart_title), fill="black", font=font)
    draw.line([(left, top), (left, bottom), (width - 40, bottom)], fill="black", width=2)
    high = max(chart.values) * 1.15
    step = (width - 40 - left) / len(chart.values)
    points = []
    for i, (label, value) in enumerate(zip(chart.labels, chart.values, strict=True)):
        x = left + step * i + step / 2
        y = bottom - (bottom - top) * value / high
        text = f"{value:g}".replace(".", ",") + chart.unit.replace("min", "")
        if chart.kind == "bar":
            draw.rectangle([x - step * 0.3, y, x + step * 0.3, bottom], fill=(46, 94, 170))
        points.append((x, y))
        draw.text((x, y - 12), text, fill="black", font=small, anchor="mb")
        draw.text((x, bottom + 12), _ascii(label), fill="black", font=small, anchor="mt")
    if chart.kind == "line":
        draw.line(points, fill=(200, 60, 40), width=4)
        for x, y in points:
            draw.ellipse([x - 6, y - 6, x + 6, y + 6], fill=(200, 60, 40))
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


def chart_pdf(chart: Chart) -> bytes:
    out = io.BytesIO()
    pdf = canvas.Canvas(out, pagesize=A4, invariant=1)
    pdf.setTitle(chart.title)
    pdf.setFont("Helvetica-Bold", 15)
    pdf.drawString(60, 780, chart.title)
    pdf.setFont("Helvetica", 11)
    for n, line in enumerate(chart.intro):
        pdf.drawString(60, 750 - 18 * n, line)
    pdf.showPage()  # page 2: the chart alone, its facts only in pixels
    pdf.drawImage(ImageReader(io.BytesIO(chart_png(chart))), 50, 380, width=495, height=308)
    pdf.save()
    return out.getvalue()


def write_visual(documents: Path, out_dir: Path) -> int:
    """Write the chart PDFs under ``documents`` and ``visual_questions.jsonl`` in ``out_dir``; returns the
    number of questions."""
    rows = []
    for chart in CHARTS:
        target = documents / chart.path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(chart_pdf(chart))
        for question, answer in chart.questions:
            rows.append({"id": f"v{len(rows) + 1:03d}", "question": question, "expected_answer": answer,
                         "relevant_paths": [chart.path], "relevant_document_ids": [document_id_for(chart.path)],
                         "relevant_pages": [2], "groups": list(chart.groups), "answerable": True,
                         "kind": "visual"})
    lines = [json.dumps(row, ensure_ascii=False) for row in rows]
    (out_dir / "visual_questions.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return len(rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parent.parent / "sample_corpus")
    args = parser.parse_args(argv)
    print(f"visual questions: {write_visual(args.out / 'documents', args.out)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
