"""Extraction on the constructed failure documents (issue 13) and the real PDFs: correctness, time, table path.

Usage: ``python benchmarks/extraction_cases.py [--datasets PATH] [--repeat N] [--ocr] [--name NAME]``.
Builds every case with ``scripts/build_extraction_cases.py`` into a temporary folder, extracts each one
``--repeat`` times (median wall time), checks what a reader would check (expected text present, broken text
absent; ``headings.pdf`` is scored against the script's reference list ``HEADINGS``), times the table path
(the grid test plus pdfplumber) on every case, and reads the structure of the real PDFs in
``shared/datasets/pdfs`` (see its README; it holds no heading reference): LGPD chapters, sections and articles
against the lines of its text layer that begin with ``CAPÍTULO``, ``Seção`` or ``Art. N``, the NICS table
header, the gazette's headings, and with ``--ocr`` Tesseract's character error rate on ``linn.pdf``. Prints a
table and writes ``benchmarks/results/<NAME>.json`` (default ``extraction_cases``; the committed
``extraction_cases_before.json`` is ab7fe09, ``extraction_cases_after.json`` this branch, run back to back).
Only ``extract_document`` and ``extract_metadata`` are used, so the script also runs against older commits.
"""

from __future__ import annotations

import argparse
import importlib.util
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
from benchmarks._common import save  # noqa: E402
from lakehouse.settings import Settings  # noqa: E402
from transforms.extraction import extract_document, extract_metadata  # noqa: E402
from transforms.extraction import pdf as pdf_module  # noqa: E402

DATASETS = REPO / ".." / "shared" / "datasets" / "pdfs"
KINDS = {".pdf": "pdf", ".docx": "docx", ".html": "html", ".txt": "text"}
# case -> (strings that must appear, strings that must not)
CHECKS: dict[str, tuple[list[str], list[str]]] = {
    "non_bmp.pdf": (["Simbolo \U000f0854 marca", "\U0001d400 e a constante"], []),
    "fake_bold.pdf": (["| Specifies | 03/25/2016 |"], ["SSpp", "0033"]),
    "ruled_dates.pdf": (["| Contrato 001 | 03/25/2016 | 12/31/2017 |"], ["0 3 / 2 5"]),
    "running_header.pdf": (["Atividade 1.2:", "Atividade 2.1:", "Atividade 3.12:"],
                           ["REGISTRO DE OPERAÇÕES DE TRATAMENTO", "Aprovado por"]),
    "run_in_heading.pdf": (["# 5.1 Hyper Parameter Optimization\n\nWe have chosen", "# 5.2 Results\n\nThe model"],
                           []),
    "no_table.pdf": (["# Relatório anual"], ["| --- |"]),
    "headings.pdf": ([], []),  # scored against the script's HEADINGS: see _headings
    "figure_labels.pdf": (["\n\nFigura 1: incidentes", "Depois da figura 3"],
                          ["| --- |", "polític |", "pico: 42", "jan fev mar"]),
    "text_boxes.docx": (["quatro horas", "sala de crise", "| Coordenador | Paulo Reis | 4410 |"], []),
    "footnotes.docx": (["Código Tributário Nacional"], []),
    "header_footer.docx": (["# Gestão de Senhas"], ["ELABORADO POR"]),
    "nested_table.html": (["| ERP | Titular Ana Lima Suplente Paulo Reis | Alta |"], []),
    "mixed_encoding.txt": (["Relatório de ações", "Seção 2: informações", "Conclusão: não há"], []),
}
METADATA = {"header_footer.docx": {"responsible": "Rita Souza", "approver": "Helena Prado"},
            "running_header.pdf": {"approver": "Carla Mendes", "version": "2.1"}}


def _builder() -> Any:
    spec = importlib.util.spec_from_file_location("cases", REPO / "scripts" / "build_extraction_cases.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class _TablePath:
    """Adds up the time spent in the table path: the per-page grid test (``has_grid``, absent before the
    extraction work) and the table reader (``_read_tables``: pdfplumber on the pages that pass it)."""

    def __init__(self) -> None:
        self.seconds = 0.0
        for name in ("_read_tables", "has_grid"):
            if hasattr(pdf_module, name):
                setattr(pdf_module, name, self._timed(getattr(pdf_module, name)))

    def _timed(self, function: Any) -> Any:
        def timed(*args: Any, **kwargs: Any) -> Any:
            started = time.perf_counter()
            try:
                return function(*args, **kwargs)
            finally:
                self.seconds += time.perf_counter() - started
        return timed


def _extract(path: Path, repeat: int, timer: _TablePath) -> tuple[Any, float, float, str | None]:
    times, tables, extracted, error = [], [], None, None
    for _ in range(repeat):
        timer.seconds = 0.0
        started = time.perf_counter()
        try:
            extracted = extract_document(path, KINDS[path.suffix], Settings())
            extracted.markdown.encode("utf-8")
        except Exception as exc:  # noqa: BLE001 - a crash is a result here
            error = f"{type(exc).__name__}: {exc}"[:160]
        times.append(time.perf_counter() - started)
        tables.append(timer.seconds)
    return extracted, statistics.median(times), statistics.median(tables), error


def _case_row(name: str, path: Path, repeat: int, timer: _TablePath) -> dict:
    extracted, seconds, table_seconds, error = _extract(path, repeat, timer)
    present, absent = CHECKS[name]
    failed = [f"missing {s!r}" for s in present if extracted is None or s not in extracted.markdown]
    failed += [f"unexpected {s!r}" for s in absent if extracted is not None and s in extracted.markdown]
    if extracted is not None and name in METADATA:
        meta = extract_metadata(extracted, path.stem)
        failed += [f"{k}={getattr(meta, k)!r}" for k, v in METADATA[name].items() if getattr(meta, k) != v]
    row: dict[str, Any] = {}
    if extracted is not None and name == "headings.pdf":
        row = _headings(extracted.markdown, _builder().HEADINGS)
        failed += [f"missing heading {h!r}" for h in row["missing"]]
        failed += [f"false heading {h!r}" for h in row["false"]]
    if error:
        failed = [error]
    return {"document": name, "seconds": round(seconds, 4), "table_path_seconds": round(table_seconds, 4),
            "pages": extracted.page_count if extracted else 0, "correct": not failed, "problems": failed, **row}


def _headings(markdown: str, reference: list[str]) -> dict[str, Any]:
    """Reference headings found as Markdown headings (text equal up to spacing), and headings found that are
    not in the reference."""
    found = [" ".join(h.split()) for h in re.findall(r"^#{1,6} (.+)$", markdown, re.M)]
    missing = [h for h in reference if h not in found]
    return {"headings_found": len(reference) - len(missing), "headings_reference": len(reference),
            "missing": missing, "false": [h for h in found if h not in reference]}


def _real_pdfs(datasets: Path, repeat: int, timer: _TablePath, ocr: bool) -> list[dict]:
    rows = []
    for name in ("lei_13709_2018_LGPD_planalto_print.pdf", "nics-background-checks-2015-11.pdf",
                 "diario_oficial_pratania_sp_ed136_2020-10-26.pdf"):
        extracted, seconds, table_seconds, error = _extract(datasets / name, repeat, timer)
        md = extracted.markdown if extracted else ""
        headings = re.findall(r"^(#{1,6}) ", md, re.M)
        row = {"document": name, "seconds": round(seconds, 4), "table_path_seconds": round(table_seconds, 4),
               "headings": len(headings), "articles": len(set(re.findall(r"^#### Art\. (\d+)", md, re.M))),
               "chapters": len(re.findall(r"^## CAPÍTULO ", md, re.M)), "error": error,
               "pages": extracted.page_count if extracted else 0}
        if "LGPD" in name:
            row["structure"] = _structure(datasets / name, md)
        elif "diario" in name:
            row["heading_texts"] = re.findall(r"^#{1,6} (.{0,60})", md, re.M)
        if "nics" in name:
            header = next((ln for ln in md.split("\n") if ln.startswith("| State")), "")
            row["table_header"] = header[:200]
        rows.append(row)
    if ocr:
        from transforms.extraction.quality import character_error_rate

        extracted, seconds, _, error = _extract(datasets / "linn.pdf", 1, timer)
        reference = (datasets / "linn.txt").read_text(encoding="utf-8")
        cer = character_error_rate(extracted.markdown, reference) if extracted else None
        rows.append({"document": "linn.pdf", "seconds": round(seconds, 2), "cer": cer and round(cer, 4),
                     "error": error})
    return rows


_STRUCTURE = {"chapters": r"CAPÍTULO [IVXL]+\b", "sections": r"Seção [IVXL]+\b", "articles": r"Art\. \d+"}


def _structure(path: Path, markdown: str) -> dict[str, str]:
    """Headings found / lines of the text layer that begin with each legal division (a reference taken from
    the statute's own markers, read with pypdfium2 alone)."""
    import pypdfium2 as pdfium

    doc = pdfium.PdfDocument(path)
    text = "\n".join(page.get_textpage().get_text_range() for page in doc).replace("\r", "")
    doc.close()
    lines = [ln.strip() for ln in text.split("\n")]
    found = [h.strip() for h in re.findall(r"^#{1,6} (.+)$", markdown, re.M)]
    return {kind: f"{sum(bool(re.match(p, h)) for h in found)}/{sum(bool(re.match(p, ln)) for ln in lines)}"
            for kind, p in _STRUCTURE.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", type=Path, default=DATASETS)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--ocr", action="store_true", help="also OCR linn.pdf (Tesseract, ~30 s)")
    parser.add_argument("--name", default="extraction_cases", help="result file name (before/after runs)")
    args = parser.parse_args()
    timer = _TablePath()
    with tempfile.TemporaryDirectory() as tmp:
        built = _builder().build(Path(tmp))
        cases = [_case_row(name, path, args.repeat, timer) for name, path in built.items()]
    real = _real_pdfs(args.datasets, args.repeat, timer, args.ocr) if args.datasets.is_dir() else []
    print(f"{'document':50} {'seconds':>8} {'table s':>8}  result")
    for row in cases:
        result = "ok" if row["correct"] else "; ".join(row["problems"])[:110]
        print(f"{row['document']:50} {row['seconds']:>8.3f} {row['table_path_seconds']:>8.3f}  {result}")
    for row in real:
        extra = {k: v for k, v in row.items() if k not in ("document", "seconds", "table_path_seconds")}
        print(f"{row['document']:50} {row['seconds']:>8.3f} {row.get('table_path_seconds', 0):>8.3f}  {extra}")
    correct = sum(r["correct"] for r in cases)
    print(f"correct: {correct}/{len(cases)} constructed documents")
    path = save(args.name, {"repeat": args.repeat, "cases": cases, "real_pdfs": real,
                            "correct": correct, "total": len(cases)})
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
