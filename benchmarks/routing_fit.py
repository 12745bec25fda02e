"""Fit the router (``serving.answers.router``) on the dev split and report its accuracy on the frozen test split.

Each labelled question gets a route from its kind (``global`` -> corpus, ``multi_hop`` -> compound,
``governance`` -> catalog unless it asks about one named document, the rest -> lookup; see
``routing_labels.json``). The dev split is the sample's dev questions, their rewordings (``--variants``, each
variant in its original's split) and ``routing_questions.jsonl`` (colloquial, listing and English forms, all
dev). Two softmax regressions (gradient descent, L2 chosen by 5-fold cross-validation on dev, folds by question,
classes weighted to balance) are fitted: one over the encoder's question embedding plus the router's signals,
one over hashed words plus the signals (the BM25-only fallback). The document types, departments and people are
those of the sample's catalog (``--home``: an indexed sample; without one, the types of the folder
configuration).

    .venv/bin/python benchmarks/routing_fit.py [--home /tmp/x] [--variants PATH.jsonl] [--embedding-model e5-small]

Writes serving/answers/data/routing.json and benchmarks/results/routing-fit.json.
"""

from __future__ import annotations

import argparse
import json
import sys
import zlib
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))
from _common import save  # noqa: E402

from serving.answers.router import HASH_DIM, MODEL_FILE, ROUTES, SIGNALS, Names, hashed, signals  # noqa: E402

HERE = Path(__file__).resolve().parent
KIND_ROUTES = {"global": "corpus", "multi_hop": "compound", "governance": "catalog"}
L2_GRID = (1e-3, 1e-2, 1e-1, 0.3, 1.0, 3.0)


def labelled(questions: Path, variants: Path | None) -> list[dict]:
    labels = json.loads((HERE / "routing_labels.json").read_text(encoding="utf-8"))["lookup_governance"]
    cases, by_id = [], {}
    for line in questions.read_text(encoding="utf-8").splitlines():
        q = json.loads(line)
        route = "lookup" if q["id"] in labels else KIND_ROUTES.get(q["kind"], "lookup")
        by_id[q["id"]] = (route, q["split"])
        cases.append({"question": q["question"], "route": route, "split": q["split"], "source": "sample",
                      "group": q["id"]})
    if variants is not None:
        for line in variants.read_text(encoding="utf-8").splitlines():
            v = json.loads(line)
            original = v.get("original") or v.get("id", "").split("-")[0]
            if original in by_id and v.get("question"):
                route, split = by_id[original]
                cases.append({"question": v["question"], "route": route, "split": v.get("split", split),
                              "source": f"variant:{v.get('style', '')}", "group": original})
    for n, line in enumerate((HERE / "routing_questions.jsonl").read_text(encoding="utf-8").splitlines()):
        cases.append({**json.loads(line), "split": "dev", "source": "routing", "group": f"routing-{n}"})
    return cases


def names_of(home: Path | None) -> Names:
    from serving.answers.doctypes import DocTypes

    if home is not None:
        from lakehouse.settings import Settings
        from serving.answers.reloader import SnapshotHolder

        holder = SnapshotHolder(Settings(home=home))
        holder.refresh()
        cat = holder.require().catalog
        return Names(DocTypes.of(cat.values("doc_type")), tuple(cat.values("department")),
                     tuple(cat.values("approver") + cat.values("responsible")))
    import yaml

    config = yaml.safe_load((ROOT / "sample_corpus/documents/.lakerag.yaml").read_text(encoding="utf-8"))
    return Names(DocTypes.of([r["doc_type"] for r in config["taxonomy"]]))


def fit(x: np.ndarray, y: np.ndarray, l2: float, standardise: slice | None, steps: int = 600) -> dict:
    mean, scale = np.zeros(x.shape[1], np.float32), np.ones(x.shape[1], np.float32)
    if standardise is not None:
        mean[standardise] = x[:, standardise].mean(0)
        scale[standardise] = x[:, standardise].std(0) + 1e-3
    z = (x - mean) / scale
    if standardise is None:  # hashed words: mostly zeros, multiplied as a sparse matrix
        from scipy.sparse import csr_matrix

        z = csr_matrix(z)
    k = len(ROUTES)
    onehot = np.eye(k)[y]
    counts = np.bincount(y, minlength=k).astype(float)
    sample_w = (len(y) / (k * np.maximum(counts, 1)))[y]
    w, b = np.zeros((x.shape[1], k)), np.zeros(k)
    lr = 0.5
    for _ in range(steps):
        logits = np.asarray(z @ w) + b
        logits -= logits.max(1, keepdims=True)
        p = np.exp(logits)
        p /= p.sum(1, keepdims=True)
        g = (p - onehot) * sample_w[:, None] / len(y)
        w -= lr * (np.asarray(z.T @ g) + l2 * w)
        b -= lr * g.sum(0)
    return {"weights": w, "bias": b, "mean": mean, "scale": scale}


def predict(model: dict, x: np.ndarray) -> np.ndarray:
    return (((x - model["mean"]) / model["scale"]) @ model["weights"] + model["bias"]).argmax(1)


def choose_l2(x: np.ndarray, y: np.ndarray, standardise: slice | None,
              groups: list[str]) -> tuple[float, dict]:
    """The L2 of the best 5-fold accuracy, the folds drawn by question (a question's rewordings share its fold:
    otherwise a fold holds another wording of what it is scored on, and the weakest penalty always wins)."""
    folds = np.array([zlib.crc32(g.encode()) % 5 for g in groups])
    scores = {}
    for l2 in L2_GRID:
        right = 0
        for f in range(5):
            m = fit(x[folds != f], y[folds != f], l2, standardise)
            right += int((predict(m, x[folds == f]) == y[folds == f]).sum())
        scores[l2] = right / len(y)
    best = max(L2_GRID, key=lambda v: (scores[v], v))
    return best, scores


def report(model: dict, x: np.ndarray, cases: list[dict], y: np.ndarray) -> dict:
    got = predict(model, x)
    out = {"accuracy": round(float((got == y).mean()), 3), "n": len(y)}
    for source in sorted({c["source"].split(":")[0] for c in cases}):
        idx = [i for i, c in enumerate(cases) if c["source"].startswith(source)]
        out[source] = round(float((got[idx] == y[idx]).mean()), 3) if idx else None
    out["errors"] = [f"{cases[i]['question'][:90]} -> {ROUTES[got[i]]} (label {ROUTES[y[i]]})"
                     for i in np.nonzero(got != y)[0]]
    return out


def rounded(fitted: dict, **extra: object) -> dict:
    return {**extra, **{k: np.round(v.astype(float), 5).tolist() for k, v in fitted.items()}}


def embedded(embedder: object, texts: list[str], cache: Path | None) -> np.ndarray:
    """Question embeddings, from ``cache`` where it holds them (keyed by model and text)."""
    known: dict[str, np.ndarray] = {}
    if cache is not None and cache.exists():
        with np.load(cache) as data:
            known = dict(zip(data["keys"].tolist(), data["vectors"], strict=True))
    keys = [f"{embedder.model_id}\t{t}" for t in texts]
    todo = [t for k, t in zip(keys, texts, strict=True) if k not in known]
    if todo:
        for t, v in zip(todo, embedder.embed_queries(todo), strict=True):
            known[f"{embedder.model_id}\t{t}"] = np.asarray(v, dtype=np.float32)
        if cache is not None:
            np.savez(cache, keys=np.array(list(known)), vectors=np.stack(list(known.values())))
    return np.stack([known[k] for k in keys]).astype(np.float32)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=Path, default=ROOT / "sample_corpus/questions.jsonl")
    parser.add_argument("--variants", type=Path, default=ROOT / "sample_corpus/variants.jsonl")
    parser.add_argument("--home", type=Path)
    parser.add_argument("--embedding-model", default="e5-small")
    parser.add_argument("--cache", type=Path, help="an .npz of question embeddings kept between runs")
    args = parser.parse_args()
    from models.embedding import load_embedder

    cases = labelled(args.questions, args.variants)
    names = names_of(args.home)
    sig = np.stack([signals(c["question"], names) for c in cases])
    lex = np.hstack([np.stack([hashed(c["question"]) for c in cases]), sig])
    embedder = load_embedder(args.embedding_model)
    vec = embedded(embedder, [c["question"] for c in cases], args.cache)
    dense = np.hstack([vec, sig])
    y = np.array([ROUTES.index(c["route"]) for c in cases])
    dev = np.array([c["split"] == "dev" for c in cases])
    test = ~dev
    results, stored = {}, {"routes": list(ROUTES), "signals": list(SIGNALS), "hash_dim": HASH_DIM}
    for name, x, standardise in (("lexical", lex, None), ("dense", dense, slice(0, vec.shape[1]))):
        l2, cv = choose_l2(x[dev], y[dev], standardise, [c["group"] for c, d in zip(cases, dev, strict=True) if d])
        model = fit(x[dev], y[dev], l2, standardise)
        test_cases = [c for c, t in zip(cases, test, strict=True) if t]
        results[name] = {"l2": l2, "dev_cv": cv, "dev_fit": report(model, x[dev], [c for c, d in zip(
            cases, dev, strict=True) if d], y[dev]), "test": report(model, x[test], test_cases, y[test])}
        stored[name] = rounded(model, **({"model": embedder.model_id} if name == "dense" else {}))
        print(f"{name}: l2 {l2}  dev cv {cv[l2]:.3f}  dev fit {results[name]['dev_fit']['accuracy']:.3f}  "
              f"test {results[name]['test']['accuracy']:.3f} (n={int(test.sum())})")
        for line in results[name]["test"]["errors"]:
            print("   ", line)
    stored["fitted_on"] = f"dev split: {int(dev.sum())} questions; test {int(test.sum())}"
    MODEL_FILE.write_text(json.dumps(stored, separators=(",", ":")), encoding="utf-8")
    save("routing-fit", {"cases": {"dev": int(dev.sum()), "test": int(test.sum())}, **results})


if __name__ == "__main__":
    main()
