"""Approximate nearest-neighbour indexes against today's int8 scan, at 100k and 1M (optionally 5M) chunks on
this machine: usearch (HNSW over f16 or i8 codes, cosine: the vectors are normalised), faiss-cpu (HNSW over
float32 or 8-bit scalar codes, IVF-flat, IVF-PQ) and hnswlib, each with its candidates rescored exactly in
float32, and the serving path itself (``lakerag-ann``: the ``ann`` stage's index, faiss's inverted file over
8-bit codes built by ``models.ann.build``, under ``DenseMatrix`` asked for the 100 candidates the hybrid search
fuses, its top 10 scored; ``--served-probes`` tries other probe counts).

Vectors. Real multilingual-e5-small passage vectors (``--vectors``: a ``vectors.parquet`` or a folder of
``cache/vectors/<model>`` parts; else the first ``--encode`` BEIR SciFact passages are encoded once) are the
base. Replicating them with small noise alone would give clusters of near-duplicates whose top 10 is a coin
toss, so each synthetic chunk is a point on the segment between two random real vectors (weight uniform in
[0, 0.5] toward the second) plus Gaussian noise whose norm is a quarter of the median distance between a real
vector and its nearest real neighbour, normalised: the data stay on e5's manifold and every size has
distinct neighbours. Queries are the real e5 query vectors of SciFact's claims (``query:`` prefix).

Measures per library and size: build time (2 threads), resident memory added by the index, bytes on disk,
p50/p95 of one query on one thread (candidates + exact rescoring), recall@10 against the exact float32 top 10
over every row, and the same with a permission mask that hides 90% of the rows (``faiss``: its ID-selector
filter during the graph walk; the others: over-fetch ``--overfetch`` x candidates and drop hidden rows), and
one that hides 10%.

    nice -n 10 .venv/bin/python benchmarks/ann.py --vectors PATH [--sizes 100000 1000000] [--libs ...]

faiss-cpu is in requirements.lock; the peers are not (``uv pip install usearch==2.26.6 hnswlib==0.8.0``): a
library that is not installed is skipped with a note.

Writes ``benchmarks/results/ann.json`` and prints a table; the ``crossover`` entry is the smallest measured size
at which the chosen index's p95 beats the int8 scan's.
"""

from __future__ import annotations

import argparse
import gc
import importlib.util
import json
import os
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
from threadpoolctl import threadpool_limits

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import peak_rss_mb, print_table, save  # noqa: E402

from models import ann as ann_module  # noqa: E402
from models.embedding import load_embedder  # noqa: E402
from serving.search import kernels  # noqa: E402
from serving.search.dense import DenseMatrix, best  # noqa: E402
from serving.search.masks import Visible  # noqa: E402

SCIFACT = Path(__file__).resolve().parents[1] / ".." / "shared" / "datasets" / "beir-scifact"
K = 10
SERVED_K = 100  # dense candidates the hybrid search asks for (IndexSettings.candidates)
LIBS = ("int8-scan", "lakerag-ann", "usearch-i8", "usearch-f16", "faiss-hnsw", "faiss-hnsw-sq8", "faiss-ivf-flat",
        "faiss-ivf-pq", "hnswlib")


def rss_mb() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def base_vectors(path: Path | None, encode: int, keep: Path | None = None) -> np.ndarray:
    """The real vectors the synthetic rows are drawn around: ``path``'s, else the first ``encode`` SciFact
    passages encoded (about an hour on 2 busy cores for 4,000), kept in ``keep`` (a .npy) for the next run."""
    if path is not None and path.suffix == ".npy":
        return np.load(path)
    if path is not None:
        files = sorted(path.glob("*.parquet")) if path.is_dir() else [path]
        rows = [np.asarray(pq.read_table(f, columns=["vector"])["vector"].to_pylist(), np.float32) for f in files]
        return np.concatenate(rows)
    if keep is not None and keep.exists():
        return np.load(keep)
    docs = [json.loads(line) for line in (SCIFACT / "corpus.jsonl").read_text(encoding="utf-8").splitlines()]
    vectors = load_embedder("e5-small").embed_passages([f"{d['title']}\n{d['text']}" for d in docs[:encode]])
    if keep is not None:
        np.save(keep, np.asarray(vectors, np.float32))
    return vectors


def query_vectors(count: int) -> np.ndarray:
    claims = [json.loads(line)["text"] for line in (SCIFACT / "queries.jsonl").read_text().splitlines()]
    return np.ascontiguousarray(load_embedder("e5-small").embed_queries(claims[:count]), np.float32)


def synthetic(size: int, base: np.ndarray, seed: int = 0) -> tuple[np.ndarray, float]:
    """``size`` rows on e5's manifold (module docstring); returns them and the noise norm used."""
    sample = base[:2000]
    d = 2 - 2 * (sample @ base.T)
    d[np.arange(len(sample)), np.arange(len(sample))] = np.inf
    noise_norm = float(np.median(np.sqrt(np.maximum(d.min(axis=1), 0)))) / 4
    sigma = noise_norm / np.sqrt(base.shape[1])
    rng, out = np.random.default_rng(seed), np.empty((size, base.shape[1]), np.float32)
    for start in range(0, size, 65536):
        n = min(size, start + 65536) - start
        a, b = base[rng.integers(0, len(base), n)], base[rng.integers(0, len(base), n)]
        w = rng.uniform(0, 0.5, (n, 1)).astype(np.float32)
        block = a + w * (b - a) + rng.standard_normal((n, base.shape[1]), dtype=np.float32) * sigma
        out[start:start + n] = block / np.linalg.norm(block, axis=1, keepdims=True)
    return out, noise_norm


def exact_top(x: np.ndarray, queries: np.ndarray, mask: np.ndarray | None) -> list[set[int]]:
    truth = []
    for q in queries:
        s = x @ q
        if mask is not None:
            s[~mask] = -np.inf
        truth.append(set(np.argpartition(-s, K)[:K].tolist()))
    return truth


class Ann:
    """One library behind one interface: build, candidates(query, wanted, mask), save."""

    def __init__(self, name: str, x: np.ndarray, args) -> None:
        self.name, self.n, self.args = name, len(x), args
        d = x.shape[1]
        if name.startswith("usearch"):
            from usearch.index import Index
            self.ix = Index(ndim=d, metric="cos", dtype=name.split("-")[1], connectivity=args.m,
                            expansion_add=args.ef_construction, expansion_search=args.ef)
            self.ix.add(np.arange(self.n, dtype=np.uint64), x, threads=args.threads)
        elif name.startswith("faiss"):
            import faiss
            faiss.omp_set_num_threads(args.threads)
            self.faiss = faiss
            if name == "faiss-hnsw":
                self.ix = faiss.IndexHNSWFlat(d, args.m, faiss.METRIC_INNER_PRODUCT)
            elif name == "faiss-hnsw-sq8":
                self.ix = faiss.IndexHNSWSQ(d, faiss.ScalarQuantizer.QT_8bit, args.m, faiss.METRIC_INNER_PRODUCT)
            else:
                nlist = int(4 * np.sqrt(self.n))
                quantizer = faiss.IndexFlatIP(d)
                self.ix = (faiss.IndexIVFFlat(quantizer, d, nlist, faiss.METRIC_INNER_PRODUCT)
                           if name == "faiss-ivf-flat" else
                           faiss.IndexIVFPQ(quantizer, d, nlist, 48, 8, faiss.METRIC_INNER_PRODUCT))
                self.quantizer = quantizer  # faiss does not own it: keep it alive
            if "hnsw" in name:
                self.ix.hnsw.efConstruction = args.ef_construction
            if not self.ix.is_trained:
                self.ix.train(x[np.random.default_rng(1).choice(self.n, min(self.n, 100_000), replace=False)])
            self.ix.add(x)
            faiss.omp_set_num_threads(1)
        else:
            import hnswlib
            self.ix = hnswlib.Index(space="ip", dim=d)
            self.ix.init_index(max_elements=self.n, M=args.m, ef_construction=args.ef_construction)
            self.ix.set_num_threads(args.threads)
            self.ix.add_items(x, np.arange(self.n))
            self.ix.set_num_threads(1)
            self.ix.set_ef(args.ef)

    def candidates(self, q: np.ndarray, wanted: int, mask: np.ndarray | None, bits: np.ndarray | None) -> np.ndarray:
        over = wanted
        if mask is not None and not self.name.startswith("faiss"):  # no predicate: over-fetch 1/visible share
            over = wanted * min(self.args.overfetch, int(np.ceil(self.n / max(1, int(mask.sum())))))
        if self.name.startswith("usearch"):
            self.ix.expansion_search = max(self.args.ef, over)
            rows = self.ix.search(q, over, threads=1).keys.astype(np.int64)
        elif self.name.startswith("faiss"):
            f = self.faiss
            sel = None if bits is None else f.IDSelectorBitmap(self.n, f.swig_ptr(bits))
            if "hnsw" in self.name:
                params = f.SearchParametersHNSW(efSearch=max(self.args.ef, over), sel=sel)
            else:
                params = f.SearchParametersIVF(nprobe=self.args.nprobe, sel=sel)
            _, found = self.ix.search(q[None, :], over, params=params)
            rows = found[0][found[0] >= 0]
        else:
            self.ix.set_ef(max(self.args.ef, over))
            found, _ = self.ix.knn_query(q, k=min(over, self.n))
            rows = found[0].astype(np.int64)
        return rows if mask is None else rows[mask[rows]]

    def disk_bytes(self) -> int:
        with tempfile.TemporaryDirectory(dir=self.args.tmp) as folder:
            path = os.path.join(folder, "index")
            if self.name.startswith("usearch"):
                self.ix.save(path)
            elif self.name.startswith("faiss"):
                self.faiss.write_index(self.ix, path)
            else:
                self.ix.save_index(path)
            return os.path.getsize(path)


def measure(search, data, truth: list[set[int]] | None = None) -> dict:
    times, hits = [], 0
    for q, want in zip(data.queries, truth or data.truth, strict=True):
        t = time.perf_counter()
        rows = search(q)
        times.append((time.perf_counter() - t) * 1000)
        hits += len(want & set(rows.tolist()))
    return {"recall@10": round(hits / (K * len(data.queries)), 4), "p50_ms": round(float(np.percentile(times, 50)), 2),
            "p95_ms": round(float(np.percentile(times, 95)), 2)}


def rescored(x: np.ndarray, rows: np.ndarray, q: np.ndarray) -> np.ndarray:
    rows = np.sort(rows)
    return best(rows, x[rows] @ q, K)[0]


@dataclass
class Data:
    """One size's rows, its callers' masks (share of rows visible -> mask, bitmap, Visible) and exact answers."""

    x: np.ndarray
    queries: np.ndarray
    truth: list[set[int]]
    masks: dict[int, tuple[np.ndarray, np.ndarray, Visible, list[set[int]]]]


def data_for(size: int, base: np.ndarray, queries: np.ndarray) -> tuple[Data, float]:
    x, noise = synthetic(size, base)
    draw = np.random.default_rng(2).random(size)
    masks = {}
    for share in (90, 10):  # callers who may read 90% / 10% of the rows
        mask = draw < share / 100
        masks[share] = (mask, np.packbits(mask, bitorder="little"), Visible.of(mask), exact_top(x, queries, mask))
    return Data(x, queries, exact_top(x, queries, None), masks), noise


def measured(data: Data, search) -> dict:
    """``search(query, mask, bitmap, visible)`` unmasked and under each caller's mask."""
    row = measure(lambda q: search(q, None, None, None), data)
    for share, (mask, bits, visible, truth) in data.masks.items():
        found = measure(lambda q, m=mask, b=bits, v=visible: search(q, m, b, v), data, truth)
        row.update({f"masked{share}_recall@10": found["recall@10"], f"masked{share}_p95_ms": found["p95_ms"]})
    return row


def served_library(data: Data, args) -> list[dict]:
    """The serving path itself: ``models.ann.build`` (the ann stage's index) loaded as the API loads it, under
    ``DenseMatrix`` asked for the 100 candidates the hybrid search fuses, its top 10 scored; once per probe
    count in ``--served-probes``."""
    x, before, t = data.x, rss_mb(), time.perf_counter()
    with tempfile.TemporaryDirectory(dir=args.tmp) as folder:
        ann_module.build(Path(folder), x, np.arange(len(x), dtype=np.uint64), "m", "c", threads=args.threads)
        build_s = round(time.perf_counter() - t, 1)
        disk = sum(f.stat().st_size for f in Path(folder).iterdir())
        searcher = ann_module.load(Path(folder), "m", x.shape[1], "c")
    row = {"build_s": build_s, "memory_mb": round(rss_mb() - before, 1), "disk_mb": round(disk / 2**20, 1)}
    served = DenseMatrix(x, "int8", ann=searcher)
    shipped, rows = searcher.probes, []
    for probes in args.served_probes:
        searcher.probes = min(probes, int(searcher.index.nlist))
        raw = measure(lambda q: searcher.candidates(q, K), data)["recall@10"]
        label = "lakerag-ann-k100" if probes == ann_module.PROBES else f"lakerag-ann-k100-probes{probes}"
        rows.append({"library": label, **row, "lists": int(searcher.index.nlist), "probes": searcher.probes,
                     "raw_recall@10": raw, **measured(data, lambda q, m, b, v: served.top(q, v, SERVED_K)[0][:K])})
    searcher.probes = shipped
    return rows


def one_library(name: str, data: Data, args) -> list[dict]:
    if name == "lakerag-ann":
        return served_library(data, args)
    x, before, t = data.x, rss_mb(), time.perf_counter()
    if name == "int8-scan":
        scan = DenseMatrix(x, "int8")
        row = {"build_s": round(time.perf_counter() - t, 1),
               "memory_mb": round(scan.memory()["scan_bytes"] / 2**20, 1), "disk_mb": 0.0}
        return [{"library": name, **row, **measured(data, lambda q, m, b, v: scan.top(q, v, K)[0])}]
    index = Ann(name, x, args)
    row = {"build_s": round(time.perf_counter() - t, 1), "memory_mb": round(rss_mb() - before, 1),
           "disk_mb": round(index.disk_bytes() / 2**20, 1),
           "raw_recall@10": measure(lambda q: index.candidates(q, K, None, None)[:K], data)["recall@10"]}
    wanted = args.candidates
    rows = [{"library": name, **row,
             **measured(data, lambda q, m, b, v: rescored(x, index.candidates(q, wanted, m, b), q))}]
    return rows


def run_size(size: int, base: np.ndarray, queries: np.ndarray, args) -> list[dict]:
    data, noise = data_for(size, base, queries)
    out = []
    for name in args.libs:
        libraries = {"usearch": "usearch", "faiss": "faiss", "hnswlib": "hnswlib", "lakerag": "faiss"}
        module = libraries.get(name.split("-")[0])
        if module and importlib.util.find_spec(module) is None:
            print(f"skipped {name}: {module} is not installed", flush=True)
            continue
        gc.collect()
        for row in one_library(name, data, args):
            row = {"size": size, **row, "noise_norm": round(noise, 4)}
            print(json.dumps(row), flush=True)
            out.append(row)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--vectors", type=Path, help="e5-small vectors: a vectors.parquet, a cache folder or a "
                        ".npy that --keep-base wrote")
    parser.add_argument("--keep-base", type=Path, help="a .npy: the encoded SciFact passages are kept there, and "
                        "read from there when it exists")
    parser.add_argument("--encode", type=int, default=4000, help="SciFact passages to encode without --vectors")
    parser.add_argument("--sizes", type=int, nargs="+", default=[100_000, 1_000_000])
    parser.add_argument("--libs", nargs="+", default=list(LIBS), choices=LIBS)
    parser.add_argument("--big-libs", nargs="+", default=None, choices=LIBS,
                        help="libraries measured at sizes above 100k (default: all of --libs)")
    parser.add_argument("--small-libs", nargs="+", default=None, choices=LIBS,
                        help="libraries measured at sizes below 100k, for the crossover (default: all of --libs)")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--m", type=int, default=16, help="HNSW links per node")
    parser.add_argument("--ef-construction", type=int, default=128)
    parser.add_argument("--ef", type=int, default=128, help="HNSW search beam (raised to the candidates asked)")
    parser.add_argument("--nprobe", type=int, default=32, help="IVF lists probed")
    parser.add_argument("--candidates", type=int, default=100, help="candidates rescored exactly per query")
    parser.add_argument("--overfetch", type=int, default=10, help="x candidates when a mask cannot be pushed down")
    parser.add_argument("--threads", type=int, default=2, help="build threads")
    parser.add_argument("--served-probes", type=int, nargs="+", default=[ann_module.PROBES],
                        help="lists probed on the serving path (default: models.ann.PROBES, the shipped count)")
    parser.add_argument("--tmp", default=None, help="folder for the on-disk size measurement")
    parser.add_argument("--out", default="ann")
    parser.add_argument("--summary", type=Path, help="rebuild the table and JSON from the JSON lines a run "
                        "printed (a run stopped before its end); nothing is measured")
    args = parser.parse_args()
    if args.summary:
        lines = args.summary.read_text(encoding="utf-8").splitlines()
        rows = [json.loads(line) for line in lines if line.startswith("{")]
        report(rows, args, {"rebuilt_from": str(args.summary)})
        return
    threadpool_limits(1, user_api="blas")
    base = np.ascontiguousarray(base_vectors(args.vectors, args.encode, args.keep_base), np.float32)
    base /= np.linalg.norm(base, axis=1, keepdims=True)
    queries = query_vectors(args.queries)
    rows = []
    for size in args.sizes:
        saved = args.libs
        if size > 100_000 and args.big_libs:
            args.libs = args.big_libs
        elif size < 100_000 and args.small_libs:
            args.libs = args.small_libs
        rows += run_size(size, base, queries, args)
        args.libs = saved
    report(rows, args, {"base_vectors": int(len(base)), "queries": int(len(queries))})


def crossover(rows: list[dict], stat: str) -> dict[str, int | None]:
    """Per library: the smallest measured size from which its ``stat`` beats the int8 scan's at every size."""
    scan = {r["size"]: r[stat] for r in rows if r["library"] == "int8-scan"}
    out = {}
    for name in sorted({r["library"] for r in rows} - {"int8-scan"}):
        sizes = sorted(r["size"] for r in rows if r["library"] == name and r["size"] in scan)
        wins = {r["size"]: r[stat] < scan[r["size"]] for r in rows if r["library"] == name and r["size"] in scan}
        out[name] = next((size for i, size in enumerate(sizes) if all(wins[s] for s in sizes[i:])), None)
    return out


def report(rows: list[dict], args, extra: dict) -> None:
    print_table(rows, ["library", "size", "build_s", "memory_mb", "disk_mb", "raw_recall@10", "recall@10",
                       "p50_ms", "p95_ms", "masked90_recall@10", "masked90_p95_ms", "masked10_recall@10",
                       "masked10_p95_ms"])
    crossovers = {"p50_ms": crossover(rows, "p50_ms"), "p95_ms": crossover(rows, "p95_ms")}
    print("crossover (smallest measured size from which it beats the int8 scan):", json.dumps(crossovers))
    params = {k: str(v) if isinstance(v, Path) else v for k, v in vars(args).items()
              if k not in ("vectors", "tmp", "keep_base")}
    path = save(args.out, {**extra, "k": K, "params": params, "simd_kernels": kernels.available(),
                           "peak_rss_mb": round(peak_rss_mb()), "load_average": os.getloadavg(), "rows": rows,
                           "crossover": crossovers})
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
