#!/usr/bin/env python
"""One prepared GPU check (issue 15): what a CUDA machine does with lakerag's model paths, in under 5 minutes and
without any download. On a CPU it runs the same steps at smaller sizes (``--size smallest`` is what CI runs).

Measures: passages/s of the shipped embedding models (e5-small's CPU engine; MiniLM through sentence-transformers
on the device), passages/s of a randomly initialised encoder with BGE-M3's shape (XLM-RoBERTa large: 24 layers,
1024 wide; fewer layers off CUDA), pages/s of the tiny random ColPali (the real architecture; the pipeline code
path), MaxSim over N pages of random ColPali-sized multi-vectors, and dense search over M random chunk vectors.
Prints a table and writes JSON (``benchmarks/results/gpu_check-<device>.json`` unless ``--out``).

    python benchmarks/gpu_check.py                    # sizes for the device found
    python benchmarks/gpu_check.py --size smallest --out /tmp/gpu_check.json
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

from benchmarks._common import RESULTS, machine, print_table  # noqa: E402

# pages, page tokens, chunks, BGE-M3-shaped layers, passages per model, page images, queries
SIZES = {
    "cuda": dict(pages=100_000, page_tokens=1030, chunks=1_000_000, m3_layers=24, passages=512, images=256,
                 queries=64),
    "cpu": dict(pages=2_000, page_tokens=1030, chunks=200_000, m3_layers=2, passages=32, images=16, queries=8),
    "smallest": dict(pages=200, page_tokens=64, chunks=5_000, m3_layers=1, passages=4, images=2, queries=2),
}
PASSAGE = ("O contrato de prestação de serviços estabelece prazos de atendimento, níveis de serviço e multas "
           "por descumprimento, além das obrigações de segurança da informação da contratada. ") * 3


def _sync(device: str) -> None:
    import torch

    if device.startswith("cuda"):
        torch.cuda.synchronize()


def _timed(fn, device: str) -> float:
    _sync(device)
    started = time.perf_counter()
    fn()
    _sync(device)
    return time.perf_counter() - started


def shipped_embedders(size: dict, device: str) -> list[dict]:
    from models.embedding import load_embedder

    rows = []
    for name in ("e5-small", "minilm"):
        embedder = load_embedder(name, device, 0)
        embedder.embed_passages([PASSAGE])  # warm-up
        texts = [f"{PASSAGE} ({i})" for i in range(size["passages"])]  # distinct: an engine may cache repeats
        seconds = _timed(lambda e=embedder, t=texts: e.embed_passages(t), device)
        rows.append({"check": f"embed {name}", "items": size["passages"], "seconds": round(seconds, 6),
                     "rate": f"{size['passages'] / seconds:.1f} passages/s"})
    return rows


def bge_m3_shaped(size: dict, device: str) -> dict:
    """A random XLM-RoBERTa with BGE-M3's width (1024, 16 heads, 4096 FFN) and ``m3_layers`` layers, 256 tokens
    per passage: the encoder cost of BGE-M3 without its weights."""
    import torch
    from transformers import XLMRobertaConfig, XLMRobertaModel

    from models.embedding import batch_for

    vocab = 250_002 if device.startswith("cuda") else 32_000  # the vocabulary costs memory, not compute
    config = XLMRobertaConfig(vocab_size=vocab, hidden_size=1024, num_hidden_layers=size["m3_layers"],
                              num_attention_heads=16, intermediate_size=4096, max_position_embeddings=8194)
    dtype = torch.float16 if device.startswith("cuda") else torch.float32
    model = XLMRobertaModel(config).to(device=device, dtype=dtype).eval()
    batch = batch_for(device, 0)
    ids = torch.randint(5, vocab - 1, (size["passages"], 256), device=device)

    def run() -> None:
        with torch.inference_mode():
            for start in range(0, len(ids), batch):
                model(input_ids=ids[start:start + batch]).last_hidden_state[:, 0]

    with torch.inference_mode():
        model(input_ids=ids[:batch])  # warm-up
    seconds = _timed(run, device)
    return {"check": f"embed BGE-M3 shape ({size['m3_layers']} layers, random)", "items": size["passages"],
            "seconds": round(seconds, 6), "rate": f"{size['passages'] / seconds:.1f} passages/s"}


def colpali_pages(size: dict, device: str) -> dict:
    from PIL import Image

    from models.vision import load_page_model
    from tests.fixtures.colpali import build_tiny_colpali

    folder = build_tiny_colpali(Path(tempfile.mkdtemp(prefix="gpu-check-")) / "tiny-colpali")
    model = load_page_model(folder, device, 0)
    rng = np.random.default_rng(0)
    images = [Image.fromarray(rng.integers(0, 255, (842, 595, 3), dtype=np.uint8)) for _ in range(size["images"])]
    model.encode_pages(images[:1])  # warm-up
    seconds = _timed(lambda: model.encode_pages(images), device)
    return {"check": "encode pages (tiny random ColPali)", "items": size["images"], "seconds": round(seconds, 6),
            "rate": f"{size['images'] / seconds:.1f} pages/s"}


def maxsim_pages(size: dict, device: str) -> dict:
    """MaxSim of 20-token questions over ``pages`` pages of ``page_tokens`` random 128-d vectors: torch on CUDA
    (float16), the serving path's numpy code on a CPU."""
    n, tokens, queries = size["pages"], size["page_tokens"], size["queries"]
    if device.startswith("cuda"):
        import torch

        pages = torch.nn.functional.normalize(torch.randn(n, tokens, 128, device=device, dtype=torch.float16), dim=-1)
        qs = torch.nn.functional.normalize(torch.randn(queries, 20, 128, device=device, dtype=torch.float16), dim=-1)

        def run() -> None:
            for q in qs:
                for start in range(0, n, 8192):
                    block = pages[start:start + 8192]
                    torch.topk((block @ q.T).amax(dim=1).float().sum(dim=1), 1)
    else:
        from models.late_interaction import maxsim

        rng = np.random.default_rng(0)
        flat = rng.standard_normal((n * tokens, 128), dtype=np.float32)  # float32, as the serving index holds it
        offsets = np.arange(0, n * tokens + 1, tokens, dtype=np.int64)
        qs = rng.standard_normal((queries, 20, 128), dtype=np.float32)

        def run() -> None:
            for q in qs:
                maxsim(q, flat, offsets)
    seconds = _timed(run, device)
    return {"check": f"MaxSim over {n:,} pages x {tokens} tokens", "items": queries, "seconds": round(seconds, 6),
            "rate": f"{seconds * 1000 / queries:.1f} ms/query"}


def dense_search(size: dict, device: str) -> dict:
    """Top-10 by dot product over ``chunks`` random 384-d vectors (float16 on CUDA, float32 numpy on a CPU)."""
    n, queries = size["chunks"], size["queries"]
    if device.startswith("cuda"):
        import torch

        vectors = torch.nn.functional.normalize(torch.randn(n, 384, device=device, dtype=torch.float16), dim=-1)
        qs = torch.nn.functional.normalize(torch.randn(queries, 384, device=device, dtype=torch.float16), dim=-1)

        def run() -> None:
            for q in qs:
                torch.topk(vectors @ q, 10)
    else:
        rng = np.random.default_rng(0)
        vectors = rng.standard_normal((n, 384), dtype=np.float32)
        qs = rng.standard_normal((queries, 384), dtype=np.float32)

        def run() -> None:
            for q in qs:
                scores = vectors @ q
                np.argpartition(-scores, 10)[:10]
    seconds = _timed(run, device)
    return {"check": f"dense search over {n:,} chunks", "items": queries, "seconds": round(seconds, 6),
            "rate": f"{seconds * 1000 / queries:.2f} ms/query"}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", choices=["auto", *SIZES], default="auto",
                        help="sizes: cuda (100k pages, 1M chunks), cpu, smallest (CI); auto: by device")
    parser.add_argument("--out", type=Path, help="JSON file (default: benchmarks/results/gpu_check-<device>.json)")
    args = parser.parse_args(argv)
    import torch

    device = "cuda" if torch.cuda.is_available() else "cpu"
    size_name = args.size if args.size != "auto" else device
    size = SIZES[size_name]
    started = time.perf_counter()
    rows = [*shipped_embedders(size, device), bge_m3_shaped(size, device), colpali_pages(size, device),
            maxsim_pages(size, device), dense_search(size, device)]
    total = round(time.perf_counter() - started, 1)
    gpu = torch.cuda.get_device_name(0) if device == "cuda" else None
    print(f"device {device}{f' ({gpu})' if gpu else ''}, sizes {size_name}, {total} s in all")
    print_table(rows, ["check", "items", "seconds", "rate"])
    out = args.out or RESULTS / f"gpu_check-{device}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    import json
    from datetime import UTC, datetime

    out.write_text(json.dumps({"date": datetime.now(UTC).isoformat(timespec="seconds"), "machine": machine(),
                               "device": device, "gpu": gpu, "sizes": size_name, **size, "seconds": total,
                               "load": os.getloadavg(), "rows": rows}, indent=2), encoding="utf-8")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
