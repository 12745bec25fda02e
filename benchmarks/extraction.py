"""Extraction speed on real text-layer PDFs and OCR character error rate on a real scan.

Usage: ``python benchmarks/extraction.py [--datasets PATH] [--repeat N]``. Prints a table and writes
``benchmarks/results/extraction.json``. The PDFs are in ``shared/datasets/pdfs`` beside the repository (see
its README): the LGPD statute (26 pages), a municipal gazette (8 pages) and the FBI NICS table (1 page); the
OCR sample is ``linn.pdf`` with its reference text ``linn.txt``.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import logging
import os
import platform
import statistics
import time
from pathlib import Path

from lakehouse.settings import Settings
from transforms.extraction import Extracted, extract_document
from transforms.extraction.ocr import tesseract_problem
from transforms.extraction.quality import character_error_rate

REPO = Path(__file__).resolve().parents[1]
DATASETS = REPO / ".." / "shared" / "datasets" / "pdfs"
RESULTS = REPO / "benchmarks" / "results" / "extraction.json"
TEXT_PDFS = [
    "lei_13709_2018_LGPD_planalto_print.pdf",
    "diario_oficial_pratania_sp_ed136_2020-10-26.pdf",
    "nics-background-checks-2015-11.pdf",
]


def _timed(path: Path, settings: Settings, repeat: int) -> tuple[Extracted, float]:
    """The extraction and its median wall time over ``repeat`` runs."""
    times, extracted = [], None
    for _ in range(repeat):
        started = time.perf_counter()
        extracted = extract_document(path, "pdf", settings)
        times.append(time.perf_counter() - started)
    assert extracted is not None
    return extracted, statistics.median(times)


def run(datasets: Path, repeat: int) -> dict[str, object]:
    settings = Settings()
    rows = []
    for name in TEXT_PDFS:
        extracted, seconds = _timed(datasets / name, settings, repeat)
        rows.append({"file": name, "pages": extracted.page_count, "seconds": round(seconds, 3),
                     "pages_per_second": round(extracted.page_count / seconds, 1), "method": extracted.method,
                     "characters": len(extracted.markdown), "tables": extracted.markdown.count("\n| --- ")})
    problem = tesseract_problem(settings.extraction.ocr_languages)
    ocr: dict[str, object] = {"file": "linn.pdf", "available": problem is None}
    if problem is None:
        extracted, seconds = _timed(datasets / "linn.pdf", settings, 1)
        reference = (datasets / "linn.txt").read_text(encoding="utf-8")
        ocr.update(method=extracted.method, seconds=round(seconds, 2), dpi=settings.extraction.ocr_dpi,
                   languages=settings.extraction.ocr_languages,
                   cer=round(character_error_rate(extracted.markdown, reference), 4))
    else:
        ocr["reason"] = problem
    return {
        "date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "machine": {"platform": platform.platform(), "python": platform.python_version(),
                    "processor": platform.processor() or platform.machine(), "cpu_count": os.cpu_count()},
        "repeat": repeat,
        "text_pdfs": rows,
        "ocr": ocr,
    }


def _print(result: dict[str, object]) -> None:
    print(f"{'file':50} {'pages':>5} {'seconds':>8} {'pages/s':>8}  method")
    for row in result["text_pdfs"]:  # type: ignore[attr-defined]
        print(f"{row['file']:50} {row['pages']:>5} {row['seconds']:>8.3f} {row['pages_per_second']:>8.1f}  "
              f"{row['method']}")
    ocr = result["ocr"]
    if ocr.get("available"):  # type: ignore[attr-defined]
        print(f"\nOCR {ocr['file']}: CER {ocr['cer']:.2%} in {ocr['seconds']} s "  # type: ignore[index]
              f"({ocr['method']}, {ocr['languages']}, {ocr['dpi']} dpi)")  # type: ignore[index]
    else:
        print(f"\nOCR not measured: {ocr['reason']}")  # type: ignore[index]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", type=Path, default=DATASETS, help="folder holding the PDFs")
    parser.add_argument("--repeat", type=int, default=3, help="runs per text PDF; the median is reported")
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    if not args.datasets.is_dir():
        raise SystemExit(f"datasets not found at {args.datasets}")
    result = run(args.datasets.resolve(), args.repeat)
    _print(result)
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    tmp = RESULTS.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    tmp.replace(RESULTS)
    print(f"\nwritten {RESULTS.relative_to(REPO)}")


if __name__ == "__main__":
    main()
