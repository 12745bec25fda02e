"""DOCX extraction time against paragraph count, and the cost of resolving paragraph styles: python-docx's
``paragraph.style`` (a scan of every style per call) against lakerag's per-document table (``_StyleNames``).
Both are measured in one run on the same generated files.

    .venv/bin/python benchmarks/docx_styles.py [--paragraphs 2000,16000]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import docx  # noqa: E402
from _common import print_table, save  # noqa: E402

from transforms.extraction.docx import _StyleNames, extract_docx  # noqa: E402


def build(path: Path, paragraphs: int) -> None:
    """A report with a heading every 20 paragraphs, list items and body text, in several styles."""
    document = docx.Document()
    for i in range(paragraphs):
        if i % 20 == 0:
            document.add_heading(f"Seção {i // 20 + 1}", level=1 + (i // 20) % 3)
        elif i % 7 == 0:
            document.add_paragraph(f"Item {i} da lista de verificação", style="List Bullet")
        else:
            document.add_paragraph(f"Parágrafo {i}: o procedimento descreve responsabilidades e prazos.")
    document.save(str(path))


def _seconds(fn) -> float:
    started = time.perf_counter()
    fn()
    return time.perf_counter() - started


def measure(paragraphs: int, folder: Path) -> dict:
    path = folder / f"p{paragraphs}.docx"
    build(path, paragraphs)
    document = docx.Document(str(path))
    per_call = _seconds(lambda: [p.style.name for p in document.paragraphs])
    names = _StyleNames(document)
    per_document = _seconds(lambda: [names.of(p) for p in document.paragraphs])
    extract = _seconds(lambda: extract_docx(path))
    return {"paragraphs": paragraphs, "style_lookup_python_docx_s": round(per_call, 3),
            "style_lookup_lakerag_s": round(per_document, 4),
            "speedup": round(per_call / max(per_document, 1e-9), 1), "extract_docx_s": round(extract, 2)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--paragraphs", default="2000,16000")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        rows = [measure(int(n), Path(tmp)) for n in args.paragraphs.split(",")]
    print_table(rows, list(rows[0]))
    print("saved", save("docx_styles", {"rows": rows}))


if __name__ == "__main__":
    main()
