"""Which path a question takes, by a model fitted on the labelled dev split (``benchmarks/routing_fit.py``).

Four routes: ``catalog`` (a listing of documents by their metadata), ``corpus`` (a question over a whole class
of documents or the whole collection), ``compound`` (a comparison, a compliance check, several questions in
one) and ``lookup`` (one fact from one place). Two softmax heads are stored in ``data/routing.json``:

- ``dense``: over the loaded encoder's embedding of the question (when the snapshot's embedder is the one the
  head was fitted with) and the signals below;
- ``lexical``: over hashed word unigrams and bigrams of the folded question and the signals below: the
  deterministic path when no encoder is loaded (the BM25-only snapshot) or another one is.

The signals are what the question names, read against the catalog: document codes, document types (and whether
in the plural), catalog people and departments, a number of days, and how many parts it asks.
"""

from __future__ import annotations

import json
import re
import zlib
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np

from lakehouse.text import fold
from serving.answers.agentic.parts import split
from serving.answers.doctypes import DocTypes

ROUTES = ("catalog", "corpus", "compound", "lookup")
MODEL_FILE = Path(__file__).with_name("data") / "routing.json"
HASH_DIM = 2048
SIGNALS = ("codes_1", "codes_2", "named_2", "type_named", "type_plural", "person_named", "department_named", "days",
           "parts_2", "parts_uncoded", "english")
_CODE = re.compile(r"\b[a-z]{2,5}(?:-[a-z]{2,4})?-\d{2,4}(?:-\d{2,4})?\b")
_DAYS = re.compile(r"\b\d{1,4}\s+(?:dias|days)\b")
_WORD = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")


@dataclass(frozen=True)
class Names:
    """What the catalog calls things: document types, departments and people."""

    doc_types: DocTypes
    departments: tuple[str, ...] = ()
    people: tuple[str, ...] = ()


def _named(values: tuple[str, ...], text: str) -> bool:
    return any(len(v) > 3 and f" {v} " in text for v in (" ".join(fold(x).split()) for x in values))


def signals(question: str, names: Names, language: str | None = None) -> np.ndarray:
    """The signal vector (``SIGNALS``) of a question: ``named_2`` counts codes and document types together
    (two documents named); ``english``: the question's ``language`` as the answer layer read it (with the
    index's language shares, ``wording.language_of``), the detector's reading without one."""
    from models.analysis import detect_language

    text = " ".join(fold(question).split())
    padded = " " + re.sub(r"[^\w\s-]", " ", text) + " "
    padded = " ".join(padded.split()).join("  ")
    codes = len(set(_CODE.findall(text)))
    named = names.doc_types.named(question)
    values = [codes == 1, codes >= 2, codes + len(named) >= 2, bool(named), names.doc_types.plural_named(question),
              _named(names.people, padded), _named(names.departments, padded), bool(_DAYS.search(text)),
              (parts := len(split(question))) >= 2, parts >= 2 and codes == 0,
              (language or detect_language(question)) == "en"]
    return np.array(values, dtype=np.float32)


def hashed(question: str) -> np.ndarray:
    """Word unigrams and bigrams of the folded question and its BM25 stems, hashed into ``HASH_DIM`` buckets,
    L2-normalised."""
    from models.analysis import analyze

    words = _WORD.findall(" ".join(fold(question).split()))
    grams = words + [f"{a} {b}" for a, b in zip(words, words[1:], strict=False)]
    grams += [f"stem:{t}" for t in analyze(question)]
    out = np.zeros(HASH_DIM, dtype=np.float32)
    for gram in grams:
        out[zlib.crc32(gram.encode()) % HASH_DIM] += 1.0
    norm = float(np.linalg.norm(out))
    return out / norm if norm else out


@dataclass(frozen=True)
class Head:
    weights: np.ndarray  # (features, routes)
    bias: np.ndarray  # (routes,)
    mean: np.ndarray  # feature standardisation fitted on dev
    scale: np.ndarray

    def probabilities(self, x: np.ndarray) -> np.ndarray:
        z = ((x - self.mean) / self.scale) @ self.weights + self.bias
        e = np.exp(z - z.max())
        return e / e.sum()

    @classmethod
    def of(cls, data: dict) -> Head:
        return cls(*(np.asarray(data[k], dtype=np.float32) for k in ("weights", "bias", "mean", "scale")))


@dataclass(frozen=True)
class Router:
    lexical: Head
    dense: Head | None
    dense_model: str | None

    def ranked(self, question: str, names: Names, vector: np.ndarray | None = None,
               model_id: str | None = None, language: str | None = None) -> list[tuple[str, float]]:
        """Routes by probability, best first: the dense head when ``vector`` comes from the encoder it was
        fitted with, the lexical head otherwise; ``language``: the question's, as the answer layer read it."""
        sig = signals(question, names, language)
        if (self.dense is not None and vector is not None and model_id == self.dense_model
                and vector.shape[0] + sig.shape[0] == self.dense.mean.shape[0]):
            p = self.dense.probabilities(np.concatenate([vector.astype(np.float32), sig]))
        else:
            p = self.lexical.probabilities(np.concatenate([hashed(question), sig]))
        return sorted(zip(ROUTES, (float(v) for v in p), strict=True), key=lambda pair: -pair[1])


@cache
def load(path: Path = MODEL_FILE) -> Router:
    """The fitted router (read once per process)."""
    data = json.loads(path.read_text(encoding="utf-8"))
    if tuple(data["routes"]) != ROUTES or tuple(data["signals"]) != SIGNALS or data["hash_dim"] != HASH_DIM:
        raise ValueError(f"{path}: fitted for other routes, signals or hashing; rerun benchmarks/routing_fit.py")
    dense = data.get("dense")
    return Router(Head.of(data["lexical"]), Head.of(dense) if dense else None,
                  dense["model"] if dense else None)
