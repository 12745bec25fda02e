#!/usr/bin/env python
"""Build the bundled sample corpus from its authored sources.

Reads ``sample_corpus/src/`` (Markdown documents with a YAML front matter, the folder configuration and the
question set) and writes, byte for byte reproducibly:

- ``<out>/documents/``: the organisation's "shared drive": PDF, DOCX, HTML, Markdown and text documents,
  the folder configuration ``.lakerag.yaml``, access sidecars ``*.meta.yaml`` and a folder of bad files;
- ``<out>/EXPECTED.md``: what the pipeline should make of each file (quarantine kinds, doc_type, groups);
- ``<out>/questions.jsonl``: the labelled question set, with ``relevant_document_ids`` computed from
  ``relevant_paths`` by ``lakehouse.ids.document_id_for`` (the build fails if a relevant path does not exist);
- ``<out>/variants.jsonl``: reworded and English variants of those questions (``src/variants.yaml``, built by
  ``build_variants.py`` beside this script), each carrying its original's facts, groups and split.

Usage::

    .venv/bin/python scripts/build_sample_corpus.py              # rebuild sample_corpus/ in place
    .venv/bin/python scripts/build_sample_corpus.py --out /tmp/x # build somewhere else (tests)
    .venv/bin/python scripts/build_sample_corpus.py --questions-only

Determinism: reportlab runs with ``rl_config.invariant = 1`` (fixed ids and dates in PDFs), DOCX core
properties carry fixed dates and the DOCX zip members are rewritten with a fixed timestamp, random bytes come
from a seeded generator, and text files are written with explicit encodings and line endings.
"""

from __future__ import annotations

import argparse
import datetime as dt
import html
import io
import json
import random
import re
import shutil
import sys
import textwrap
import unicodedata
import zipfile
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

import yaml
from reportlab import rl_config

rl_config.invariant = 1

from reportlab.lib import colors  # noqa: E402
from reportlab.lib.enums import TA_JUSTIFY  # noqa: E402
from reportlab.lib.pagesizes import A4  # noqa: E402
from reportlab.lib.styles import ParagraphStyle, getSampleStyleSheet  # noqa: E402
from reportlab.lib.units import cm  # noqa: E402
from reportlab.pdfgen import canvas as rl_canvas  # noqa: E402
from reportlab.platypus import (  # noqa: E402
    ListFlowable,
    ListItem,
    Paragraph,
    SimpleDocTemplate,
    Spacer,
    Table,
    TableStyle,
)

REPO_ROOT = Path(__file__).resolve().parent.parent
for _folder in (REPO_ROOT, REPO_ROOT / "scripts"):  # lakehouse.ids; build_visual_corpus beside this script
    if str(_folder) not in sys.path:
        sys.path.insert(0, str(_folder))

from build_variants import write_variants  # noqa: E402 (beside this script)
from build_visual_corpus import write_visual  # noqa: E402 (beside this script)

from lakehouse.ids import document_id_for, normalize_relpath  # noqa: E402

CORPUS_ROOT = REPO_ROOT / "sample_corpus"
SRC_ROOT = CORPUS_ROOT / "src"
ORG_NAME = "Hospital Vale do Ipê"
FIXED_ZIP_TIME = (2024, 1, 1, 0, 0, 0)
BAD_DIR = "Diversos/arquivos-problematicos"
QUESTION_FIELDS = (
    "id",
    "question",
    "expected_answer",
    "relevant_paths",
    "relevant_document_ids",
    "groups",
    "answerable",
    "kind",
)
# Optional fields, written only when a question has them: gold key facts for the answer judge, the documents a
# multi-hop question must read (the agentic seed's format) with its step budget, and the governance "today".
# near_miss: an unanswerable question whose topic the corpus covers while the asked fact is absent.
OPTIONAL_QUESTION_FIELDS = ("facts", "must_read", "max_steps", "as_of", "split", "near_miss")
# dev: every rule, weight and threshold is fitted here; test: frozen, only measured (about a third per kind).
QUESTION_SPLITS = {"dev", "test"}
QUESTION_KINDS = {"fact", "code_lookup", "multi_hop", "governance", "global", "refusal", "injection"}

# ------------------------------------------------------------------------------------------------------------
# Source model
# ------------------------------------------------------------------------------------------------------------


@dataclass
class Block:
    kind: str  # h2 | h3 | p | ul | ol | table
    text: str = ""
    items: list[str] = field(default_factory=list)
    rows: list[list[str]] = field(default_factory=list)  # tables: rows[0] is the header


@dataclass
class SourceDoc:
    src: Path
    meta: dict[str, Any]
    body: str
    blocks: list[Block]

    @property
    def relpath(self) -> str:
        return normalize_relpath(self.meta["path"])

    @property
    def fmt(self) -> str:
        return PurePosixPath(self.relpath).suffix.lower().lstrip(".")

    @property
    def title(self) -> str:
        return str(self.meta["title"])

    @property
    def lang(self) -> str:
        return str(self.meta.get("lang", "pt"))


def read_source(path: Path) -> SourceDoc:
    text = path.read_text(encoding="utf-8")
    match = re.match(r"^---\n(.*?)\n---\n(.*)$", text, flags=re.S)
    if not match:
        raise SystemExit(f"{path}: missing YAML front matter")
    meta = yaml.safe_load(match.group(1)) or {}
    for key in ("path", "title"):
        if key not in meta:
            raise SystemExit(f"{path}: front matter lacks {key!r}")
    body = match.group(2).strip("\n") + "\n"
    return SourceDoc(src=path, meta=meta, body=body, blocks=parse_blocks(body, path))


def _split_row(line: str) -> list[str]:
    return [cell.strip() for cell in line.strip().strip("|").split("|")]


def parse_blocks(body: str, path: Path) -> list[Block]:
    """A small Markdown subset: ##/### headings, paragraphs, '- ' bullets, '1) ' lists and pipe tables."""
    blocks: list[Block] = []
    lines = body.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        stripped = line.strip()
        if not stripped:
            i += 1
            continue
        if stripped.startswith("# "):
            raise SystemExit(f"{path}: use the front matter title, not a '# ' heading")
        if stripped.startswith("### "):
            blocks.append(Block("h3", stripped[4:].strip()))
            i += 1
            continue
        if stripped.startswith("## "):
            blocks.append(Block("h2", stripped[3:].strip()))
            i += 1
            continue
        if stripped.startswith("|"):
            rows: list[list[str]] = []
            while i < len(lines) and lines[i].strip().startswith("|"):
                cells = _split_row(lines[i])
                if not all(re.fullmatch(r":?-{3,}:?", c) for c in cells):
                    rows.append(cells)
                i += 1
            width = len(rows[0])
            if any(len(r) != width for r in rows):
                raise SystemExit(f"{path}: ragged table starting {rows[0]}")
            blocks.append(Block("table", rows=rows))
            continue
        if stripped.startswith("- "):
            items: list[str] = []
            while i < len(lines) and (lines[i].strip().startswith("- ") or lines[i].startswith("  ")):
                if lines[i].strip().startswith("- "):
                    items.append(lines[i].strip()[2:].strip())
                elif lines[i].strip():
                    items[-1] += " " + lines[i].strip()
                else:
                    break
                i += 1
            blocks.append(Block("ul", items=items))
            continue
        if re.match(r"^[a-z0-9]{1,2}\) ", stripped):
            items = []
            while i < len(lines) and (
                re.match(r"^[a-z0-9]{1,2}\) ", lines[i].strip()) or lines[i].startswith("   ")
            ):
                if re.match(r"^[a-z0-9]{1,2}\) ", lines[i].strip()):
                    items.append(lines[i].strip())
                elif lines[i].strip():
                    items[-1] += " " + lines[i].strip()
                else:
                    break
                i += 1
            blocks.append(Block("ol", items=items))
            continue
        para = [stripped]
        i += 1
        while (
            i < len(lines)
            and lines[i].strip()
            and not re.match(r"^(#{2,3} |\||- |[a-z0-9]{1,2}\) )", lines[i].strip())
        ):
            para.append(lines[i].strip())
            i += 1
        blocks.append(Block("p", " ".join(para)))
    return blocks


# ------------------------------------------------------------------------------------------------------------
# Governance footer
# ------------------------------------------------------------------------------------------------------------

GOV_LABELS = {
    "pt": {
        "heading": "Controle do documento",
        "header": ["ELABORADO POR", "VERIFICADO POR", "APROVADO POR"],
        "versao": "Versão",
        "emissao": "Data de emissão",
        "revisao": "Última revisão",
        "proxima": "Próxima revisão",
        "departamento": "Departamento",
    },
    "en": {
        "heading": "Document control",
        "header": ["PREPARED BY", "REVIEWED BY", "APPROVED BY"],
        "versao": "Version",
        "emissao": "Issue date",
        "revisao": "Last revision",
        "proxima": "Next review",
        "departamento": "Department",
    },
}


def governance_parts(doc: SourceDoc) -> tuple[str, list[list[str]], list[str]] | None:
    gov = doc.meta.get("governance")
    if not gov:
        return None
    labels = GOV_LABELS[doc.lang]
    table = [labels["header"], [gov["elaborado"], gov["verificado"], gov["aprovado"]]]
    lines = [
        f"{labels[key]}: {gov[key]}"
        for key in ("versao", "emissao", "revisao", "proxima", "departamento")
        if gov.get(key) is not None
    ]
    return labels["heading"], table, lines


def preamble_lines(doc: SourceDoc) -> list[str]:
    """Short lines printed under the title (document code, etc.)."""
    return [str(x) for x in doc.meta.get("preamble", [])]


# ------------------------------------------------------------------------------------------------------------
# PDF
# ------------------------------------------------------------------------------------------------------------


def _inline_pdf(text: str) -> str:
    escaped = html.escape(text, quote=False)
    return re.sub(r"\*\*(.+?)\*\*", r"<b>\1</b>", escaped)


def _pdf_styles() -> dict[str, ParagraphStyle]:
    base = getSampleStyleSheet()
    body = ParagraphStyle(
        "Body",
        parent=base["BodyText"],
        fontName="Helvetica",
        fontSize=10,
        leading=13.5,
        alignment=TA_JUSTIFY,
        spaceAfter=6,
    )
    return {
        "title": ParagraphStyle(
            "T", parent=base["Title"], fontName="Helvetica-Bold", fontSize=16, leading=20, spaceAfter=6
        ),
        "pre": ParagraphStyle(
            "Pre", parent=body, alignment=1, fontSize=9, textColor=colors.HexColor("#444444"), spaceAfter=2
        ),
        "h2": ParagraphStyle(
            "H2",
            parent=base["Heading2"],
            fontName="Helvetica-Bold",
            fontSize=12.5,
            leading=16,
            spaceBefore=10,
            spaceAfter=4,
        ),
        "h3": ParagraphStyle(
            "H3",
            parent=base["Heading3"],
            fontName="Helvetica-Bold",
            fontSize=11,
            leading=14,
            spaceBefore=6,
            spaceAfter=3,
        ),
        "body": body,
        "cell": ParagraphStyle("Cell", parent=body, fontSize=8.5, leading=10.5, alignment=0, spaceAfter=0),
        "cellh": ParagraphStyle(
            "CellH",
            parent=body,
            fontName="Helvetica-Bold",
            fontSize=8.5,
            leading=10.5,
            alignment=0,
            spaceAfter=0,
        ),
    }


def _pdf_table(rows: list[list[str]], styles: dict[str, ParagraphStyle], width: float) -> Table:
    ncols = len(rows[0])
    # Each column gets at least its longest word (bold header words are wider), the rest in proportion to text.
    longest_word = [max(len(w) for r in rows for w in (r[c].split() or [""])) for c in range(ncols)]
    minimum = [n * 5.6 + 10 for n in longest_word]
    lengths = [max(min(len(r[c]), 60) for r in rows) + 4 for c in range(ncols)]
    spare = max(width - sum(minimum), 0)
    col_widths = [m + spare * n / sum(lengths) for m, n in zip(minimum, lengths, strict=True)]
    col_widths = [w * width / sum(col_widths) for w in col_widths]
    data = [[Paragraph(_inline_pdf(c), styles["cellh"]) for c in rows[0]]]
    data += [[Paragraph(_inline_pdf(c), styles["cell"]) for c in r] for r in rows[1:]]
    table = Table(data, colWidths=col_widths, repeatRows=1, hAlign="LEFT")
    table.setStyle(
        TableStyle(
            [
                ("GRID", (0, 0), (-1, -1), 0.5, colors.HexColor("#777777")),
                ("BACKGROUND", (0, 0), (-1, 0), colors.HexColor("#DDE6EE")),
                ("VALIGN", (0, 0), (-1, -1), "TOP"),
                ("TOPPADDING", (0, 0), (-1, -1), 2),
                ("BOTTOMPADDING", (0, 0), (-1, -1), 3),
            ]
        )
    )
    return table


def render_pdf(doc: SourceDoc) -> bytes:
    styles = _pdf_styles()
    buf = io.BytesIO()
    width = A4[0] - 4 * cm
    en = doc.lang == "en"
    running = doc.meta.get("running_footer") or (
        "Controlled document - printed copies are uncontrolled"
        if en and doc.meta.get("governance")
        else "Documento controlado - cópia impressa não controlada"
        if doc.meta.get("governance")
        else ORG_NAME
    )
    code = str(doc.meta.get("code", ""))
    page_word = "Page" if en else "Página"

    def on_page(canvas, pdf_doc):  # noqa: ANN001
        canvas.saveState()
        canvas.setFont("Helvetica", 8)
        canvas.setFillColor(colors.HexColor("#555555"))
        canvas.drawString(2 * cm, A4[1] - 1.2 * cm, ORG_NAME)
        if code:
            canvas.drawRightString(A4[0] - 2 * cm, A4[1] - 1.2 * cm, code)
        canvas.drawString(2 * cm, 1.1 * cm, running)
        canvas.drawRightString(A4[0] - 2 * cm, 1.1 * cm, f"{page_word} {pdf_doc.page}")
        canvas.restoreState()

    pdf = SimpleDocTemplate(
        buf,
        pagesize=A4,
        leftMargin=2 * cm,
        rightMargin=2 * cm,
        topMargin=2 * cm,
        bottomMargin=2 * cm,
        title=doc.title,
        author=str(doc.meta.get("author", ORG_NAME)),
        subject=code,
        creator="lakerag sample corpus",
        producer="ReportLab",
    )
    story: list[Any] = [Paragraph(_inline_pdf(doc.title), styles["title"])]
    for line in preamble_lines(doc):
        story.append(Paragraph(_inline_pdf(line), styles["pre"]))
    story.append(Spacer(1, 8))
    for block in doc.blocks:
        story.extend(_pdf_block(block, styles, width))
    gov = governance_parts(doc)
    if gov:
        heading, table, lines = gov
        story.append(Spacer(1, 10))
        story.append(Paragraph(_inline_pdf(heading), styles["h2"]))
        story.append(_pdf_table(table, styles, width))
        story.append(Spacer(1, 6))
        for line in lines:
            story.append(
                Paragraph(_inline_pdf(line), ParagraphStyle("g", parent=styles["body"], spaceAfter=1))
            )
    pdf.build(story, onFirstPage=on_page, onLaterPages=on_page)
    return buf.getvalue()


def _pdf_block(block: Block, styles: dict[str, ParagraphStyle], width: float) -> list[Any]:
    if block.kind in ("h2", "h3"):
        return [Paragraph(_inline_pdf(block.text), styles[block.kind])]
    if block.kind == "p":
        return [Paragraph(_inline_pdf(block.text), styles["body"])]
    if block.kind == "ul":
        items = [ListItem(Paragraph(_inline_pdf(t), styles["body"]), leftIndent=12) for t in block.items]
        return [ListFlowable(items, bulletType="bullet", start="•", leftIndent=12, bulletFontSize=8)]
    if block.kind == "ol":
        para = ParagraphStyle("ol", parent=styles["body"], leftIndent=14, firstLineIndent=-14)
        return [Paragraph(_inline_pdf(t), para) for t in block.items]
    if block.kind == "table":
        return [_pdf_table(block.rows, styles, width), Spacer(1, 8)]
    raise ValueError(block.kind)


# ------------------------------------------------------------------------------------------------------------
# DOCX
# ------------------------------------------------------------------------------------------------------------


def _docx_runs(paragraph, text: str) -> None:  # noqa: ANN001
    for i, part in enumerate(re.split(r"\*\*(.+?)\*\*", text)):
        if part:
            run = paragraph.add_run(part)
            run.bold = i % 2 == 1


def _docx_table(document, rows: list[list[str]]) -> None:  # noqa: ANN001
    table = document.add_table(rows=len(rows), cols=len(rows[0]))
    table.style = "Table Grid"
    for r, row in enumerate(rows):
        for c, value in enumerate(row):
            cell = table.cell(r, c)
            cell.text = ""
            par = cell.paragraphs[0]
            if r == 0:
                run = par.add_run(value)
                run.bold = True
            else:
                _docx_runs(par, value)


def _parse_date(value: str) -> dt.datetime:
    for fmt in ("%d/%m/%Y", "%Y-%m-%d"):
        try:
            return dt.datetime.strptime(str(value), fmt)
        except ValueError:
            pass
    raise ValueError(value)


def render_docx(doc: SourceDoc) -> bytes:
    from docx import Document
    from docx.shared import Pt

    document = Document()
    normal = document.styles["Normal"]
    normal.font.name = "Calibri"
    normal.font.size = Pt(11)
    document.add_heading(doc.title, level=0)
    for line in preamble_lines(doc):
        document.add_paragraph(line)
    for block in doc.blocks:
        if block.kind == "h2":
            document.add_heading(block.text, level=1)
        elif block.kind == "h3":
            document.add_heading(block.text, level=2)
        elif block.kind == "p":
            _docx_runs(document.add_paragraph(), block.text)
        elif block.kind == "ul":
            for item in block.items:
                _docx_runs(document.add_paragraph(style="List Bullet"), item)
        elif block.kind == "ol":
            for item in block.items:
                _docx_runs(document.add_paragraph(), item)
        elif block.kind == "table":
            _docx_table(document, block.rows)
            document.add_paragraph()
    gov = governance_parts(doc)
    if gov:
        heading, table, lines = gov
        document.add_heading(heading, level=1)
        _docx_table(document, table)
        for line in lines:
            document.add_paragraph(line)
    section = document.sections[0]
    section.footer.paragraphs[0].text = f"{ORG_NAME} - {doc.meta.get('code', doc.title)}"

    gov_meta = doc.meta.get("governance") or {}
    stamp = _parse_date(
        gov_meta.get("revisao") or gov_meta.get("emissao") or doc.meta.get("date", "2024-01-01")
    )
    props = document.core_properties
    props.title = doc.title
    props.author = str(gov_meta.get("elaborado", doc.meta.get("author", ORG_NAME)))
    props.last_modified_by = str(gov_meta.get("elaborado", doc.meta.get("author", ORG_NAME)))
    props.created = stamp
    props.modified = stamp
    props.last_printed = stamp
    props.revision = int(gov_meta.get("versao", 1) or 1)
    props.subject = str(doc.meta.get("code", ""))
    props.keywords = ""
    props.comments = ""
    props.language = "pt-BR" if doc.lang == "pt" else "en-US"
    buf = io.BytesIO()
    document.save(buf)
    return normalize_zip(buf.getvalue())


def normalize_zip(data: bytes) -> bytes:
    """Rewrite a zip with fixed member timestamps and attributes, so equal content gives equal bytes."""
    src = zipfile.ZipFile(io.BytesIO(data))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            new = zipfile.ZipInfo(info.filename, date_time=FIXED_ZIP_TIME)
            new.compress_type = zipfile.ZIP_DEFLATED
            new.external_attr = 0o644 << 16
            new.create_system = 0
            dst.writestr(new, src.read(info.filename))
    return out.getvalue()


# ------------------------------------------------------------------------------------------------------------
# HTML, Markdown, text
# ------------------------------------------------------------------------------------------------------------


def _inline_html(text: str) -> str:
    return re.sub(r"\*\*(.+?)\*\*", r"<strong>\1</strong>", html.escape(text, quote=False))


def _html_table(rows: list[list[str]], css: str = "") -> list[str]:
    cls = f' class="{css}"' if css else ""
    out = [
        f"<table{cls}>",
        "  <thead>",
        "    <tr>" + "".join(f"<th>{_inline_html(c)}</th>" for c in rows[0]) + "</tr>",
        "  </thead>",
        "  <tbody>",
    ]
    out += ["    <tr>" + "".join(f"<td>{_inline_html(c)}</td>" for c in r) + "</tr>" for r in rows[1:]]
    out += ["  </tbody>", "</table>"]
    return out


def render_html(doc: SourceDoc) -> bytes:
    en = doc.lang == "en"
    nav = (
        ("Home", "Policies", "Procedures", "Forms", "Contact")
        if en
        else ("Início", "Documentos", "Procedimentos", "Formulários", "Fale conosco")
    )
    out = [
        "<!DOCTYPE html>",
        f'<html lang="{"en" if en else "pt-BR"}">',
        "<head>",
        '  <meta charset="utf-8">',
        f"  <title>{html.escape(doc.title)} | Intranet {html.escape(ORG_NAME)}</title>",
        "  <style>body{font-family:Arial,sans-serif;max-width:60rem;margin:auto} "
        "table{border-collapse:collapse} td,th{border:1px solid #999;padding:4px}</style>",
        "</head>",
        "<body>",
        '<header class="intranet-topo">',
        f'  <div class="logo">Intranet {html.escape(ORG_NAME)}</div>',
        "  <nav><ul>" + "".join(f'<li><a href="#">{n}</a></li>' for n in nav) + "</ul></nav>",
        "</header>",
        "<main>",
        "<article>",
        f"<h1>{_inline_html(doc.title)}</h1>",
    ]
    for line in preamble_lines(doc):
        out.append(f'<p class="preambulo">{_inline_html(line)}</p>')
    for block in doc.blocks:
        if block.kind == "h2":
            out.append(f"<h2>{_inline_html(block.text)}</h2>")
        elif block.kind == "h3":
            out.append(f"<h3>{_inline_html(block.text)}</h3>")
        elif block.kind == "p":
            out.append(f"<p>{_inline_html(block.text)}</p>")
        elif block.kind == "ul":
            out.append("<ul>" + "".join(f"<li>{_inline_html(t)}</li>" for t in block.items) + "</ul>")
        elif block.kind == "ol":
            out += [f"<p>{_inline_html(t)}</p>" for t in block.items]
        elif block.kind == "table":
            out += _html_table(block.rows)
    gov = governance_parts(doc)
    if gov:
        heading, table, lines = gov
        out.append('<section class="controle-documento">')
        out.append(f"<h2>{_inline_html(heading)}</h2>")
        out += _html_table(table, "controle")
        out += [f"<p>{_inline_html(line)}</p>" for line in lines]
        out.append("</section>")
    out += [
        "</article>",
        "</main>",
        '<footer class="intranet-rodape">',
        f"  <p>&copy; {html.escape(ORG_NAME)} - Intranet corporativa. "
        + ("Internal use only." if en else "Uso interno.")
        + "</p>",
        "</footer>",
        "</body>",
        "</html>",
        "",
    ]
    return "\n".join(out).encode("utf-8")


def _md_table(rows: list[list[str]]) -> list[str]:
    out = ["| " + " | ".join(rows[0]) + " |", "|" + "|".join("---" for _ in rows[0]) + "|"]
    out += ["| " + " | ".join(r) + " |" for r in rows[1:]]
    return out


def render_markdown(doc: SourceDoc) -> bytes:
    out = [f"# {doc.title}", ""]
    for line in preamble_lines(doc):
        out += [line, ""]
    out.append(doc.body.rstrip("\n"))
    gov = governance_parts(doc)
    if gov:
        heading, table, lines = gov
        out += ["", f"## {heading}", ""] + _md_table(table) + [""] + [f"{line}  " for line in lines]
        out[-1] = out[-1].rstrip()
    return ("\n".join(out) + "\n").encode("utf-8")


def render_text(doc: SourceDoc) -> bytes:
    def wrap(text: str, indent: str = "") -> list[str]:
        text = text.replace("**", "")
        return textwrap.wrap(
            text, width=88, initial_indent=indent, subsequent_indent=" " * len(indent), break_on_hyphens=False
        ) or [""]

    def table(rows: list[list[str]]) -> list[str]:
        widths = [max(len(r[c]) for r in rows) for c in range(len(rows[0]))]
        return [" | ".join(cell.ljust(widths[c]) for c, cell in enumerate(r)).rstrip() for r in rows]

    out = [doc.title.upper(), "=" * len(doc.title), ""]
    for line in preamble_lines(doc):
        out.append(line)
    if preamble_lines(doc):
        out.append("")
    for block in doc.blocks:
        if block.kind in ("h2", "h3"):
            out += [block.text, ("-" if block.kind == "h2" else "~") * len(block.text), ""]
        elif block.kind == "p":
            out += wrap(block.text) + [""]
        elif block.kind == "ul":
            for item in block.items:
                out += wrap(item, "  - ")
            out.append("")
        elif block.kind == "ol":
            for item in block.items:
                out += wrap(item, "  ")
            out.append("")
        elif block.kind == "table":
            out += table(block.rows) + [""]
    gov = governance_parts(doc)
    if gov:
        heading, rows, lines = gov
        out += [heading.upper(), "-" * len(heading), ""] + table(rows) + [""] + lines + [""]
    text = "\n".join(out).rstrip("\n") + "\n"
    encoding = str(doc.meta.get("encoding", "utf-8")).lower()
    newline = str(doc.meta.get("newline", "crlf" if encoding in ("cp1252", "utf-16") else "lf"))
    if newline == "crlf":
        text = text.replace("\n", "\r\n")
    if encoding == "utf-16":
        return b"\xff\xfe" + text.encode("utf-16-le")  # BOM + little endian, explicitly
    if encoding in ("cp1252", "latin-1", "utf-8"):
        return text.encode(encoding)
    raise SystemExit(f"{doc.src}: unsupported encoding {encoding}")


RENDERERS = {
    "pdf": render_pdf,
    "docx": render_docx,
    "html": render_html,
    "htm": render_html,
    "md": render_markdown,
    "txt": render_text,
}


# ------------------------------------------------------------------------------------------------------------
# Bad files
# ------------------------------------------------------------------------------------------------------------


def _small_pdf(title: str, paragraphs: list[str], encrypt: str | None = None) -> bytes:
    buf = io.BytesIO()
    canvas = rl_canvas.Canvas(buf, pagesize=A4, encrypt=encrypt, invariant=1)
    canvas.setTitle(title)
    canvas.setAuthor(ORG_NAME)
    canvas.setFont("Helvetica-Bold", 14)
    canvas.drawString(2 * cm, A4[1] - 3 * cm, title)
    canvas.setFont("Helvetica", 10)
    y = A4[1] - 4 * cm
    for para in paragraphs:
        for line in textwrap.wrap(para, 95):
            canvas.drawString(2 * cm, y, line)
            y -= 14
        y -= 8
    canvas.showPage()
    canvas.save()
    return buf.getvalue()


def _scanned_pdf() -> bytes:
    """One page that is only an image of text (a 'scan'): no text layer at all."""
    from PIL import Image, ImageDraw, ImageFont
    from reportlab.lib.utils import ImageReader

    font_dir = Path(rl_config.__file__).resolve().parent / "fonts"
    font = ImageFont.truetype(str(font_dir / "Vera.ttf"), 26)
    bold = ImageFont.truetype(str(font_dir / "VeraBd.ttf"), 34)
    img = Image.new("L", (1240, 1754), 255)
    draw = ImageDraw.Draw(img)
    draw.text((110, 120), "TERMO DE CIÊNCIA - USO DO ESTACIONAMENTO", font=bold, fill=20)
    lines = [
        "Declaro que recebi e li as Normas de Uso do Estacionamento",
        "do Hospital Vale do Ipê e que estou ciente de que:",
        "",
        "1. O estacionamento de colaboradores funciona das 6h às 23h.",
        "2. O cartão de acesso é pessoal e intransferível.",
        "3. A vaga para motocicletas fica no subsolo, setor B.",
        "4. Veículos sem adesivo serão orientados a sair.",
        "",
        "Nome: ____________________________________________",
        "Matrícula: ______________   Data: ____/____/________",
        "",
        "Assinatura: ______________________________________",
    ]
    y = 230
    for line in lines:
        draw.text((110, y), line, font=font, fill=35)
        y += 48
    img = img.rotate(0.6, resample=Image.BICUBIC, fillcolor=255)
    buf = io.BytesIO()
    canvas = rl_canvas.Canvas(buf, pagesize=A4, invariant=1)
    canvas.setTitle("Digitalização")
    canvas.drawImage(ImageReader(img), 0, 0, width=A4[0], height=A4[1])
    canvas.showPage()
    canvas.save()
    return buf.getvalue()


def _xlsx() -> bytes:
    """A minimal but valid .xlsx workbook (an unsupported type for the pipeline)."""
    files = {
        "[Content_Types].xml": (
            '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
            '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
            '<Default Extension="rels" '
            'ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
            '<Default Extension="xml" ContentType="application/xml"/>'
            '<Override PartName="/xl/workbook.xml" '
            'ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>'
            '<Override PartName="/xl/worksheets/sheet1.xml" '
            'ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>'
            "</Types>"
        ),
        "_rels/.rels": (
            '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
            '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
            '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/'
            'officeDocument" Target="xl/workbook.xml"/></Relationships>'
        ),
        "xl/workbook.xml": (
            '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
            '<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" '
            'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships">'
            '<sheets><sheet name="Custos" sheetId="1" r:id="rId1"/></sheets></workbook>'
        ),
        "xl/_rels/workbook.xml.rels": (
            '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
            '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
            '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/'
            'worksheet" Target="worksheets/sheet1.xml"/></Relationships>'
        ),
        "xl/worksheets/sheet1.xml": (
            '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
            '<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>'
            '<row r="1"><c r="A1" t="inlineStr"><is><t>Centro de custo</t></is></c>'
            '<c r="B1" t="inlineStr"><is><t>Valor</t></is></c></row>'
            '<row r="2"><c r="A2" t="inlineStr"><is><t>Hotelaria</t></is></c><c r="B2"><v>86400</v></c></row>'
            '<row r="3"><c r="A3" t="inlineStr"><is><t>TI</t></is></c><c r="B3"><v>104000</v></c></row>'
            "</sheetData></worksheet>"
        ),
    }
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for name, content in files.items():
            info = zipfile.ZipInfo(name, date_time=FIXED_ZIP_TIME)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            zf.writestr(info, content.encode("utf-8"))
    return out.getvalue()


# name -> (expected quarantine kind, acceptable alternative kinds, what it is)
BAD_FILES: dict[str, tuple[str, tuple[str, ...], str]] = {
    "pdf-corrompido.pdf": ("corrupt", (), "a %PDF-1.4 header followed by 6,000 random bytes"),
    "pdf-truncado.pdf": (
        "truncated",
        ("corrupt",),
        "the first 40% of the bytes of Manuais/Manual do Colaborador.pdf (no xref, no trailer)",
    ),
    "pdf-protegido-por-senha.pdf": (
        "encrypted",
        (),
        "a valid PDF encrypted with a user password (reportlab encrypt=)",
    ),
    "vazio.txt": ("empty", (), "a zero-byte file"),
    "planilha.xlsx": (
        "unsupported_type",
        (),
        "a real, valid .xlsx workbook: a type the pipeline does not extract",
    ),
    "relatorio.docx": (
        "wrong_extension",
        ("corrupt",),
        "the bytes of a one-page text PDF saved with a .docx extension (not a zip)",
    ),
    "dados.txt": ("undecodable", ("binary",), "4,096 random bytes (NULs and control bytes) named .txt"),
    "digitalizado-sem-texto.pdf": (
        "no_text",
        (),
        "a 'scanned' page: one image of text, no text layer. With OCR enabled and "
        "tesseract installed it is extracted instead (text: 'TERMO DE CIÊNCIA - USO DO "
        "ESTACIONAMENTO ...')",
    ),
    "loop": (
        "symlink_loop",
        ("skipped",),
        "a symbolic link to its own folder (loop -> .): a directory cycle that a walker must not follow",
    ),
}


def write_bad_files(documents: Path, truncated_source: bytes) -> list[str]:
    """The deliberately broken files; returns their relative paths (the symlink included)."""
    rng = random.Random(20261129)
    bad = documents / BAD_DIR
    bad.mkdir(parents=True, exist_ok=True)
    written: dict[str, bytes] = {
        "pdf-corrompido.pdf": b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n" + rng.randbytes(6000),
        "pdf-truncado.pdf": truncated_source[: int(len(truncated_source) * 0.4)],
        "pdf-protegido-por-senha.pdf": _small_pdf(
            "Relatório Confidencial de Auditoria Interna 2025",
            [
                "Este relatório apresenta os achados da auditoria interna de contas a pagar "
                "realizada em 2025.",
                "Acesso restrito ao Comitê de Auditoria.",
            ],
            encrypt="Aud!t0r1a-2025",
        ),
        "vazio.txt": b"",
        "planilha.xlsx": _xlsx(),
        "relatorio.docx": _small_pdf(
            "Relatório de Indicadores de Qualidade - 3º trimestre de 2025",
            [
                "Taxa de adesão à higiene das mãos: 82%. Meta institucional: 85%.",
                "Densidade de incidência de quedas: 1,1 por 1.000 pacientes-dia. Meta: abaixo de 1,5.",
                "Tempo médio porta-antibiótico na sepse: 52 minutos. Meta: até 60 minutos.",
            ],
        ),
        "dados.txt": rng.randbytes(4096),
        "digitalizado-sem-texto.pdf": _scanned_pdf(),
    }
    assert set(written) | {"loop"} == set(BAD_FILES)
    for name, data in written.items():
        (bad / name).write_bytes(data)
    (bad / "loop").symlink_to(".", target_is_directory=True)
    return [f"{BAD_DIR}/{name}" for name in BAD_FILES]


# ------------------------------------------------------------------------------------------------------------
# Folder configuration (a reference reading of .lakerag.yaml, used only to document expectations)
# ------------------------------------------------------------------------------------------------------------


def _fold(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c)).casefold()


def expected_doc_type(relpath: str, config: dict[str, Any]) -> str:
    folded = _fold(relpath)
    best: tuple[int, str] | None = None
    for rule in config.get("taxonomy", []):
        prefix = _fold(rule["prefix"])
        if folded.startswith(prefix) and (best is None or len(prefix) > best[0]):
            best = (len(prefix), rule["doc_type"])
    return best[1] if best else "unclassified"


def expected_groups(relpath: str, config: dict[str, Any], sidecar: list[str] | None) -> list[str]:
    if sidecar:
        return list(sidecar)
    best: tuple[int, list[str]] | None = None
    for rule in config.get("access", []):
        prefix = normalize_relpath(rule["prefix"]) + ("/" if rule["prefix"].endswith("/") else "")
        if relpath.startswith(prefix) and (best is None or len(prefix) > best[0]):
            best = (len(prefix), list(rule["groups"]))
    return best[1] if best else list(config.get("default_groups", ["public"]))


# ------------------------------------------------------------------------------------------------------------
# Questions
# ------------------------------------------------------------------------------------------------------------


def build_questions(documents: Path, src: Path) -> list[dict[str, Any]]:
    raw = yaml.safe_load(src.read_text(encoding="utf-8"))
    existing = {
        normalize_relpath(p.relative_to(documents).as_posix())
        for p in documents.rglob("*")
        if p.is_file() and not p.is_symlink()
    }
    out: list[dict[str, Any]] = []
    seen: set[str] = set()
    for n, item in enumerate(raw, start=1):
        qid = f"q{n:03d}"
        paths = [normalize_relpath(p) for p in item.get("relevant_paths", [])]
        missing = [p for p in paths if p not in existing]
        if missing:
            raise SystemExit(f"{qid}: relevant path(s) not in the corpus: {missing}")
        answerable = bool(item.get("answerable", True))
        kind = item["kind"]
        if kind not in QUESTION_KINDS:
            raise SystemExit(f"{qid}: unknown kind {kind!r}")
        if not answerable and (paths or kind != "refusal"):
            raise SystemExit(f"{qid}: an unanswerable question has kind 'refusal' and no relevant paths")
        if answerable and (not paths or kind == "refusal"):
            raise SystemExit(f"{qid}: an answerable question needs relevant paths and a non-refusal kind")
        split = item.get("split")
        if split not in QUESTION_SPLITS:
            raise SystemExit(f"{qid}: split must be one of {sorted(QUESTION_SPLITS)} (frozen), not {split!r}")
        near_miss = item.get("near_miss", False)
        if near_miss not in (True, False) or (near_miss and answerable):
            raise SystemExit(f"{qid}: near_miss is true only on an unanswerable question, not {near_miss!r}")
        question = " ".join(str(item["question"]).split())
        if question in seen:
            raise SystemExit(f"{qid}: duplicate question")
        seen.add(question)
        out.append(
            {
                "id": qid,
                "question": question,
                "expected_answer": " ".join(str(item["expected_answer"]).split()),
                "relevant_paths": paths,
                "relevant_document_ids": [document_id_for(p) for p in paths],
                "groups": list(item.get("groups", ["public"])),
                "answerable": answerable,
                "kind": kind,
            }
        )
        must_read = [normalize_relpath(p) for p in item.get("must_read_paths", [])]
        if [p for p in must_read if p not in existing]:
            raise SystemExit(f"{qid}: must_read path(s) not in the corpus: {must_read}")
        extra = {
            "facts": [str(f) for f in item.get("facts", [])],
            "must_read": [document_id_for(p) for p in must_read],
            "max_steps": 12 if must_read else None,
            "as_of": REFERENCE_DATE.isoformat() if kind == "governance" else None,
            "split": split,
            "near_miss": near_miss,
        }
        out[-1].update({k: v for k, v in extra.items() if v})
        assert tuple(out[-1])[: len(QUESTION_FIELDS)] == QUESTION_FIELDS
        assert set(tuple(out[-1])[len(QUESTION_FIELDS):]) <= set(OPTIONAL_QUESTION_FIELDS)
    return out


def write_questions(out_dir: Path, documents: Path, src: Path = SRC_ROOT) -> tuple[int, int]:
    """Write questions.jsonl and variants.jsonl; returns (questions, variants)."""
    questions = build_questions(documents, src / "questions.yaml")
    n_variants = write_variants(out_dir, questions, src / "variants.yaml")
    lines = [json.dumps(q, ensure_ascii=False, sort_keys=False) for q in questions]
    (out_dir / "questions.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return len(questions), n_variants


# ------------------------------------------------------------------------------------------------------------
# Main
# ------------------------------------------------------------------------------------------------------------


def _cp1252_ok(char: str) -> bool:
    try:
        char.encode("cp1252")
        return True
    except UnicodeEncodeError:
        return False


REFERENCE_DATE = dt.date(2026, 11, 29)


def review_status(doc: SourceDoc) -> tuple[str, str]:
    gov = doc.meta.get("governance")
    if not gov:
        return "", "no footer"
    due = _parse_date(gov["proxima"]).date()
    if due < REFERENCE_DATE:
        status = "overdue"
    elif (due - REFERENCE_DATE).days <= 30:
        status = "due in 30 days"
    else:
        status = "ok"
    return due.isoformat(), status


def write_expected(out_dir: Path, docs: list[SourceDoc], bad: list[str]) -> None:
    config = yaml.safe_load((SRC_ROOT / "lakerag.yaml").read_text(encoding="utf-8"))
    lines = [
        "# Sample corpus: expected outcomes",
        "",
        "Generated by `scripts/build_sample_corpus.py` from `src/`; do not edit by hand.",
        "Paths are relative to `documents/`. Review statuses are computed against the reference date "
        f'**{REFERENCE_DATE.isoformat()}** ("today" for the governance questions).',
        "",
        "## Bad files",
        "",
        "Each must be quarantined (or, for the symlink, skipped and reported) with the kind below;",
        "the run goes on.",
        "",
        "| Path | Expected kind | Also acceptable | What it is |",
        "|---|---|---|---|",
    ]
    for rel in bad:
        kind, alternatives, what = BAD_FILES[PurePosixPath(rel).name]
        lines.append(f"| `{rel}` | {kind} | {', '.join(alternatives) or '-'} | {what} |")
    lines += [
        "",
        "Not committed: a file over `LAKERAG_MAX_FILE_BYTES` (default 50 MiB) -> kind `too_large`;",
        "tests create it.",
        "",
        "`loop` is a committed symlink (`loop -> .`). Copy this folder with",
        "`shutil.copytree(..., symlinks=True)`; `glob.glob('**', recursive=True)` and `copytree` without",
        "`symlinks=True` follow it (about 40 levels deep before ELOOP). `os.walk` (default) and `Path.rglob`",
        "on Python 3.11 do not follow it.",
        "",
        "## Documents",
        "",
        f"{len(docs)} good documents. `doc_type` and `groups` are what `.lakerag.yaml` (and sidecars)",
        "should give.",
        "",
        "| Path | Format | Lang | Encoding | doc_type | Groups | Code | Version | Next review "
        "| Review status |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for doc in sorted(docs, key=lambda d: d.relpath):
        gov = doc.meta.get("governance") or {}
        due, status = review_status(doc)
        encoding = str(doc.meta.get("encoding", "utf-8")) if doc.fmt in ("txt", "md", "html") else "-"
        if encoding == "utf-16":
            encoding = "utf-16 (BOM, LE)"
        groups = expected_groups(doc.relpath, config, doc.meta.get("groups"))
        sidecar = " (sidecar)" if doc.meta.get("groups") else ""
        lines.append(
            f"| `{doc.relpath}` | {doc.fmt} | {doc.lang} | {encoding} "
            f"| {expected_doc_type(doc.relpath, config)} | {', '.join(groups)}{sidecar} "
            f"| {doc.meta.get('code', '-')} | {gov.get('versao', '-')} | {due or '-'} | {status} |"
        )
    lines += ["", (SRC_ROOT / "expected_notes.md").read_text(encoding="utf-8").rstrip("\n")]
    (out_dir / "EXPECTED.md").write_text("\n".join(lines) + "\n", encoding="utf-8")


def load_sources() -> list[SourceDoc]:
    docs = [read_source(p) for p in sorted((SRC_ROOT / "docs").rglob("*.md"))]
    seen: dict[str, Path] = {}
    for doc in docs:
        if doc.fmt not in RENDERERS:
            raise SystemExit(f"{doc.src}: no renderer for .{doc.fmt}")
        if doc.relpath in seen:
            raise SystemExit(f"{doc.src}: path {doc.relpath} already produced by {seen[doc.relpath]}")
        if doc.relpath.startswith(BAD_DIR):
            raise SystemExit(f"{doc.src}: {BAD_DIR} is reserved for the bad files")
        if doc.fmt == "pdf" or str(doc.meta.get("encoding", "")).lower() == "cp1252":
            # PDFs use reportlab's standard fonts (WinAnsi): a character outside cp1252 would render as a box.
            text = yaml.safe_dump(doc.meta, allow_unicode=True) + doc.body
            bad = sorted({c for c in text if not _cp1252_ok(c)})
            if bad:
                raise SystemExit(f"{doc.src}: characters not representable in cp1252: {bad}")
        seen[doc.relpath] = doc.src
    return docs


def build(out_dir: Path) -> dict[str, Any]:
    docs = load_sources()
    documents = out_dir / "documents"
    if documents.exists():
        shutil.rmtree(documents)  # rmtree unlinks symlinks, it does not follow them
    documents.mkdir(parents=True)
    shutil.copyfile(SRC_ROOT / "lakerag.yaml", documents / ".lakerag.yaml")
    rendered: dict[str, bytes] = {}
    for doc in docs:
        data = RENDERERS[doc.fmt](doc)
        target = documents / doc.relpath
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        rendered[doc.relpath] = data
        groups = doc.meta.get("groups")
        if groups:
            sidecar = target.with_name(target.name + ".meta.yaml")
            sidecar.write_text(
                "# Access override for the document next to this file (replaces its folder's groups).\n"
                f"groups: [{', '.join(groups)}]\n",
                encoding="utf-8",
            )
    truncated_from = normalize_relpath("Manuais/Manual do Colaborador.pdf")
    bad = write_bad_files(documents, rendered[truncated_from])
    write_expected(out_dir, docs, bad)
    n_questions, n_variants = write_questions(out_dir, documents)
    n_visual = write_visual(documents, out_dir)  # chart-only PDFs and their questions (build_visual_corpus.py)
    return {"documents": len(docs), "bad_files": len(bad), "questions": n_questions, "variants": n_variants,
            "visual_questions": n_visual}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--out",
        type=Path,
        default=CORPUS_ROOT,
        help="folder that receives documents/ and questions.jsonl (default: sample_corpus/)",
    )
    parser.add_argument(
        "--questions-only",
        action="store_true",
        help="only rewrite questions.jsonl and variants.jsonl from src/ against existing documents/",
    )
    args = parser.parse_args(argv)
    out_dir: Path = args.out.resolve()
    out_dir.mkdir(parents=True, exist_ok=True)
    if args.questions_only:
        n, n_variants = write_questions(out_dir, out_dir / "documents")
        print(f"questions: {n}, variants: {n_variants}")
        return 0
    summary = build(out_dir)
    print(", ".join(f"{k}: {v}" for k, v in summary.items()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
