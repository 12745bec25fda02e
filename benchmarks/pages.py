#!/usr/bin/env python
"""The pages path on this machine: Parquet bytes per page (ColPali-sized random multi-vectors, 1030 x 128, as the
pages table stores them, with and without token pooling), rendering + encoding throughput of the tiny random
ColPali over the sample corpus's PDF pages, and numpy MaxSim scoring throughput. Table + benchmarks/results/pages.json.

    python benchmarks/pages.py [--pages 2000] [--encode 24]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402
import pyarrow as pa  # noqa: E402
import pyarrow.parquet as pq  # noqa: E402

from benchmarks._common import print_table, save  # noqa: E402
from lakehouse.settings import SAMPLE_SOURCE  # noqa: E402
from models.late_interaction import maxsim, pool_tokens  # noqa: E402

TOKENS, DIM = 1030, 128  # a ColPali page: 1024 patches + the prompt's tokens, 128 dims


def _unit(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    x = rng.standard_normal(shape, dtype=np.float32)
    return x / np.linalg.norm(x, axis=-1, keepdims=True)


def storage(rng: np.random.Generator, pages: int, pool: int) -> dict:
    """Bytes per page of the ``vectors`` column written like tables/pages.parquet (float16 list, zstd)."""
    vectors = [pool_tokens(_unit(rng, (TOKENS, DIM)), pool).astype(np.float16).reshape(-1) for _ in range(pages)]
    table = pa.table({"n_tokens": [len(v) // DIM for v in vectors],
                      "vectors": pa.array(vectors, pa.list_(pa.float16()))})
    path = Path(tempfile.mkdtemp()) / "pages.parquet"
    pq.write_table(table, path, compression="zstd")
    per_page = path.stat().st_size / pages
    return {"check": f"storage, pool factor {pool}", "value": f"{per_page / 1024:.1f} KiB/page",
            "detail": f"{sum(table['n_tokens'].to_pylist()) / pages:.0f} vectors/page"}


def encoding(count: int) -> dict:
    from models.page_images import render_pages
    from models.vision import load_page_model
    from tests.fixtures.colpali import build_tiny_colpali

    model = load_page_model(build_tiny_colpali(Path(tempfile.mkdtemp()) / "tiny"), "cpu", 0)
    started = time.perf_counter()
    images = []
    for pdf in sorted(SAMPLE_SOURCE.rglob("*.pdf")):
        try:
            images += render_pages(pdf, 72)
        except Exception:  # noqa: BLE001 - the corpus's broken PDFs are meant to fail
            continue
        if len(images) >= count:
            break
    images = images[:count]
    rendered = time.perf_counter() - started
    started = time.perf_counter()
    model.encode_pages(images)
    encoded = time.perf_counter() - started
    return {"check": "render (72 dpi) + encode, tiny random ColPali", "value":
            f"{len(images) / (rendered + encoded):.1f} pages/s",
            "detail": f"{len(images)} pages: render {len(images) / rendered:.1f} pages/s, encode "
                      f"{len(images) / encoded:.1f} pages/s"}


def scoring(rng: np.random.Generator, pages: int) -> dict:
    tokens = np.concatenate([_unit(rng, (TOKENS, DIM)) for _ in range(pages)])  # float32, as PageIndex holds them
    offsets = np.arange(0, pages * TOKENS + 1, TOKENS, dtype=np.int64)
    queries = [_unit(rng, (20, DIM)) for _ in range(3)]
    maxsim(queries[0], tokens, offsets)  # warm-up
    started = time.perf_counter()
    for q in queries:
        maxsim(q, tokens, offsets)
    seconds = (time.perf_counter() - started) / len(queries)
    return {"check": f"MaxSim (numpy) over {pages:,} pages x {TOKENS} tokens", "value":
            f"{pages / seconds:,.0f} pages/s", "detail": f"{seconds * 1000:.0f} ms per 20-token question"}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pages", type=int, default=2000, help="pages scored by MaxSim")
    parser.add_argument("--encode", type=int, default=24, help="sample-corpus pages rendered and encoded")
    args = parser.parse_args(argv)
    rng = np.random.default_rng(0)
    rows = [storage(rng, 50, 1), storage(rng, 50, 3), scoring(rng, args.pages), encoding(args.encode)]
    load = os.getloadavg()
    print(f"load average {load[0]:.1f}")
    print_table(rows, ["check", "value", "detail"])
    print(f"wrote {save('pages', {'rows': rows, 'load': load, 'args': vars(args)})}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
