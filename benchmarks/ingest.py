"""Time of a full, a no-op and a one-file-change ingestion run over the sample corpus (or --source DIR).

    .venv/bin/python benchmarks/ingest.py [--source DIR]
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import peak_rss_mb, print_table, save  # noqa: E402

from lakehouse.settings import SAMPLE_SOURCE, Settings  # noqa: E402
from transforms.pipeline import run_index  # noqa: E402


def _timed(label: str, settings: Settings) -> dict:
    started = time.perf_counter()
    record = run_index(settings)
    return {"run": label, "seconds": round(time.perf_counter() - started, 3), "extracted": record.extracted,
            "chunked": record.chunked, "documents": record.documents_active, "chunks": record.chunks,
            "quarantined": record.quarantined}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--source", type=Path, default=SAMPLE_SOURCE)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / "source"
        shutil.copytree(args.source, source, symlinks=True)
        settings = Settings(home=Path(tmp) / "home", source=source)
        rows = [_timed("full", settings), _timed("no-op", settings)]
        target = next(p for p in sorted(source.rglob("*.md")) if p.is_file() and not p.is_symlink())
        target.write_text(target.read_text(encoding="utf-8") + "\n\nParágrafo novo.\n", encoding="utf-8")
        rows.append(_timed("one file changed", settings))
    print_table(rows, ["run", "seconds", "extracted", "chunked", "documents", "chunks", "quarantined"])
    path = save("ingest", {"source": str(args.source), "runs": rows, "peak_rss_mb": round(peak_rss_mb(), 1)})
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
