"""How well evidence covers a question, for the refusal decision, and for ranking extractive sentences.

coverage(text) = the IDF-weighted share of the question's analysed terms (BM25's analysis: stems, folded
accents, whole identifiers) that occur in ``text``. The relevance of a set of evidence is the best single
item's coverage, so a question whose key terms are spread over unrelated passages still scores low. A code in
the question ("CT-2024-0817"), or a proper name ("Brilho Serviços": a capitalised word inside a sentence), that
no chunk readable by the caller contains makes the question unanswerable whatever the coverage: the question is
about something the caller's documents do not hold.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from functools import lru_cache

import numpy as np

from lakehouse.text import fold
from models.analysis import LANGUAGES, analyze, analyze_query, synonyms
from models.lexicon import lexicon
from serving.answers.focus import asking_segments
from serving.graph import bilingual
from serving.search.index import SearchIndex

CODE = re.compile(r"(?=.*[a-z])(?=.*\d)[a-z0-9]+(?:-[a-z0-9]+)+")
# a capitalised word that does not open a sentence ("Brilho", "NuvemSul"); all-capital acronyms are left out
# (the analyser reads them unevenly: "CISO" -> "cis")
_NAME = re.compile(r"(?<![.!?:;]\s)(?<!^)(?<![\w-])[A-ZÁÉÍÓÚÂÊÔÃÕÇ][a-záéíóúâêôãõçà]+(?:[A-Z][a-z]+)*(?![\w-])")


TYPO_MIN = 5
_LETTERS = "abcdefghijklmnopqrstuvwxyz"


def _one_edit(word: str) -> set[str]:
    """Every string one deletion, transposition, substitution or insertion (of a folded letter) from ``word``."""
    splits = [(word[:i], word[i:]) for i in range(len(word) + 1)]
    out = {a + b[1:] for a, b in splits if b}
    out |= {a + b[1] + b[0] + b[2:] for a, b in splits if len(b) > 1}
    out |= {a + c + b[1:] for a, b in splits if b for c in _LETTERS}
    out |= {a + c + b for a, b in splits for c in _LETTERS}
    out.discard(word)
    return out


def respelled_words(text: str, language: str, spell: Callable[[str], str]) -> str:
    """``text`` with each word of ``TYPO_MIN`` letters or more whose term the index reads as another one edit
    away (``spell``: ``Relevance.spelled``) written as a word of that term ("Qual o forncedor" -> "Qual o
    fornecedor"), so that the words asking a kind of fact or a slot of a document are read through a typo too."""
    def fixed(m: re.Match[str]) -> str:
        word = m.group(0)
        stems = analyze(word, language)
        if len(stems) != 1 or (target := spell(stems[0])) == stems[0]:
            return word
        return next((c for c in sorted(_one_edit(fold(word.lower()))) if analyze(c, language) == [target]), word)
    return re.sub(rf"[^\W\d_]{{{TYPO_MIN},}}", fixed, text)


def names_of(question: str, language: str) -> list[tuple[str, ...]]:
    """The proper names of a question's ask (``focus``), adjacent capitalised words as one name ("Dr. Helena
    Prado"), without the words its language capitalises that name nothing (the lexicon's ``capitals``:
    "August")."""
    common = lexicon(language).capitals if language in LANGUAGES else frozenset()
    out: list[list[str]] = []
    end = -2
    # a name in the situation around the ask ("Voltei de um congresso em Recife. Qual é o prazo ...?") is no
    # subject of the question
    question = " ".join(s for s, asks in asking_segments(question, language) if asks) or question
    for m in _NAME.finditer(question):
        word = m.group(0)
        if fold(word.lower()) in common:
            continue
        if out and question[end:m.start()].strip() in ("", "-"):
            out[-1].append(word)
        else:
            out.append([word])
        end = m.end()
    return [tuple(n) for n in out]


@lru_cache(maxsize=20_000)
def terms(text: str, language: str) -> frozenset[str]:
    """The analysed terms of a text (cached: evidence texts recur across requests)."""
    return frozenset(analyze(text, language))


class Relevance:
    def __init__(self, index: SearchIndex) -> None:
        self.index = index
        self.sparse = index.sparse
        self.n = max(self.sparse.matrix.shape[0], 1)

    def df(self, term: str) -> int:
        """Chunks that hold ``term``."""
        return self._df(term)

    def _df(self, term: str) -> int:
        column = self.sparse.vocabulary.get(term)
        matrix = self.sparse.matrix
        return 0 if column is None else int(matrix.indptr[column + 1] - matrix.indptr[column])

    def weights(self, question: str, language: str) -> dict[str, float]:
        """Lucene BM25 idf of each distinct question term; a term no chunk holds that is one edit (a typed
        letter too many, too few, wrong or swapped) from a term of the index is read as that term
        (``spelled``)."""
        out: dict[str, float] = {}
        alternatives = self.synonyms(question, language)
        for t in dict.fromkeys(analyze_query(question, language)):
            t = t if t in alternatives else self.spelled(t)
            # a colloquial word the documents rarely write weighs what the rarest word they write for it weighs
            df = min(map(self._df, alternatives[t])) if t in alternatives else self._df(t)
            out.setdefault(t, math.log(1 + (self.n - df + 0.5) / (df + 0.5)))
        return out

    def synonyms(self, question: str, language: str) -> dict[str, tuple[str, ...]]:
        """The question's terms that have synonyms in the lexicon the index holds more often than the term
        itself, with those synonyms (``models.analysis.synonyms``): "tir" (tirar) -> revog, remov."""
        out = {}
        for t, alternatives in synonyms(analyze_query(question, language), language).items():
            kept = tuple(a for a in alternatives if self._df(a) > self._df(t))
            if kept:
                out[t] = kept
        return out

    def spelled(self, term: str) -> str:
        """``term``, or the index term one edit from it that the most chunks hold when no chunk holds ``term``
        (a word of at least ``TYPO_MIN`` letters; codes, numbers and the glossary's words are never respelled)."""
        if len(term) < TYPO_MIN or not term.isalpha() or self._df(term) > 0 or bilingual.known(term):
            return term
        best, best_df = term, 0
        for candidate in _one_edit(term):
            df = self._df(candidate)
            if df > best_df:
                best, best_df = candidate, df
        return best

    @staticmethod
    def coverage(text: str, language: str, weights: dict[str, float]) -> float:
        total = math.fsum(weights.values())
        if not total:
            return 0.0
        present = terms(text, language) & weights.keys()
        return math.fsum(weights[t] for t in present) / total

    def score(self, weights: dict[str, float], language: str, texts: list[str]) -> float:
        """The best single text's coverage of the question (its term ``weights``)."""
        return max((self.coverage(t, language, weights) for t in texts), default=0.0)

    def missing_codes(self, weights: dict[str, float], readable: Callable[[], np.ndarray],
                      question: str = "", language: str = "pt") -> list[str]:
        """Codes among the question's terms, and proper names of the ``question``, that no chunk the caller can
        read (``readable()``, a row mask) contains (a name as the question writes it)."""
        codes = [t for t in weights if CODE.fullmatch(t)]
        names = names_of(question, language)
        if not codes and not names:
            return []
        mask, matrix = readable(), self.sparse.matrix

        def held(term: str) -> bool:
            column = self.sparse.vocabulary.get(term)
            if column is None:
                return False
            return bool(mask[matrix.indices[matrix.indptr[column]:matrix.indptr[column + 1]]].any())
        missing = [t for t in codes if not held(t)]
        # a name's words are read in every language the index may hold; in the language most of the documents
        # are written in, each word of a name must be held ("Brilho Serviços"); asked in another, a name's common
        # words are translated in the documents and one held word is enough ("Morse Fall Scale": "Escala de
        # Morse")
        def known(word: str) -> bool:  # a function word of any language ("The", "Me", "Da") names nothing; a
            # name typed one letter off is the index's ("Clostridiodes" for Clostridioides: ``spelled``)
            read = [analyze(word, lang) for lang in LANGUAGES]
            if not all(read) or any(held(t) or held(self.spelled(t)) for terms_ in read for t in terms_):
                return True
            # a stem too short to respell ("Morce" is read as morc) is respelled as the word the question wrote
            folded = fold(word.lower())
            return (len(folded) >= TYPO_MIN and folded.isalpha()
                    and any(held(t) for c in _one_edit(folded) for t in analyze(c, language)))
        native = self.language_share(language) >= 0.5
        for name in names:
            unknown = [w for w in name if not known(w)]
            if unknown and (native or len(unknown) == len(name)):
                missing.append(" ".join(unknown))
        return missing

    def language_share(self, language: str) -> float:
        """The share of the index's chunks written in ``language``."""
        return self.index.language_shares.get(language, 0.0)
