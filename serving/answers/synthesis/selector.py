"""The sentence selector: the graded evidence's units (grading's strips: sentences, list items, table rows)
ranked by the fitted grading score, redundancy removed, each part of a several-part question covered by its
best unit, each quoted with its citation. No rule per phrasing: the thresholds below are fitted on the dev
split (``benchmarks/synthesis_fit.py``).

- A unit's score is its strip score, optionally weighted by its item's grade score (``ITEM_WEIGHT``; fitted on
  dev + rewordings, 372 questions: 0, with ``SHARE`` 0.75, ``LIMIT`` 3 and ``novel``: correct 0.379, wrong 0.091,
  ``benchmarks/synthesis_fit.py --what fit-selector``).
- Redundancy: a unit sharing ``DUPLICATE`` of its words with a kept one is dropped; of several versions of
  one document only the current one (or the one the question names) answers, the others are named; a passage
  restating another document gives way to that document's own (``refine.primaries``).
- Parts: a question split into parts (``agentic.parts.split``) gets, for each part, the unit covering most of
  that part's weighted terms; then units within ``SHARE`` of the best, up to ``LIMIT``.
- Near misses are checked before it (``synthesis.guard``).
"""

from __future__ import annotations

from dataclasses import dataclass
from math import fsum

from serving.answers import compose, prompt, refine
from serving.answers.agentic.parts import split
from serving.answers.compose import Draft
from serving.answers.grading import AMBIGUOUS, CORRECT, Strip
from serving.answers.relevance import terms
from serving.answers.synthesis.base import Graded
from serving.answers.synthesis.rules import Extractive
from serving.answers.versions import asked_version, family

SHARE = 0.75
LIMIT = 3
ITEM_WEIGHT = 0.0
DUPLICATE = 0.8


@dataclass(frozen=True)
class Scored:
    n: int
    strip: Strip
    score: float


def _words(text: str) -> frozenset[str]:
    return frozenset(text.casefold().split())


def _duplicate(a: Strip, b: Strip) -> bool:
    x, y = _words(a.text), _words(b.text)
    return bool(x and y) and len(x & y) / min(len(x), len(y)) >= DUPLICATE


@dataclass
class Selector:
    share: float = SHARE
    limit: int = LIMIT
    item_weight: float = ITEM_WEIGHT
    novel: bool = True  # a unit after the first must cover a question term the kept ones do not
    versions: bool = True  # name the superseded versions of a quoted document
    primaries: bool = True  # quote the document a passage restates (a FAQ quoting the policy), not the passage
    name: str = "selector"

    def draft(self, evidence: Graded) -> Draft:
        req = evidence.request
        if req is None:
            return Extractive().draft(evidence)
        grades, language = req.grades, evidence.language
        ranked = sorted(grades, key=lambda n: -grades[n].score)
        pool = [n for n in ranked if grades[n].grade == CORRECT] or \
            [n for n in ranked if grades[n].grade == AMBIGUOUS]
        coded = refine.coded_documents(req.engine, req.q, req.groups)
        if coded and not req.q.parts:  # a document the question names by its code answers, not one citing it
            pool = [n for n in pool if req.item(n).document_id in coded] or pool
        if not pool:
            return compose.refusal(language)
        if self.primaries:  # a passage restating another document is replaced by that document's own
            pool = refine.primaries(req, pool)
        main, older, _ = refine.split_versions(req, pool) if self.versions else (pool, [], set())
        picked = self.pick(evidence, [Scored(n, s, s.score * (1 - self.item_weight + self.item_weight
                                                                 * grades[n].score))
                                      for n in main for s in grades[n].strips])
        if not picked:
            return compose.refusal(language)
        order = {n: i for i, n in enumerate(main)}
        picked.sort(key=lambda u: (order[u.n], u.strip.position))
        lines = [line for line in [prompt.describe_filters(evidence.filters, language)] if line]
        lines += [f"{u.strip.text}{refine.introduced(req, u.n, u.strip)} [{u.n}]" for u in picked]
        quoted = {family(req.item(u.n).title or "") for u in picked}
        notes = [n for n in older if family(req.item(n).title or "") in quoted and asked_version(req.q.text) is None]
        labels = refine.LABELS.get(language, refine.LABELS["pt"])
        seen: set[str | None] = set()
        for n in notes:  # each superseded version of a quoted document, named once and cited
            if (doc := req.item(n).document_id) not in seen:
                seen.add(doc)
                lines.append(f"{labels['superseded'].format(title=refine.version_name(req.item(n))).rstrip(':')}."
                             f" [{n}]")
        cited = list(dict.fromkeys([u.n for u in picked] + [n for n in notes if req.item(n).document_id in seen]))
        status = "answered" if grades[pool[0]].grade == CORRECT else "partial"
        return Draft("\n".join(lines), cited, status, "extractive")

    def pick(self, evidence: Graded, units: list[Scored]) -> list[Scored]:
        """Each part's best unit, then the best units within ``share`` of the best, up to ``limit``."""
        if not units:
            return []
        req = evidence.request
        assert req is not None
        units.sort(key=lambda u: (-u.score, u.n, u.strip.position))
        kept: list[Scored] = []
        covered: set[str] = set()

        def keep(u: Scored) -> None:
            if len(kept) < self.limit and not any(_duplicate(u.strip, k.strip) for k in kept):
                kept.append(u)
                covered.update(u.strip.held)

        parts = split(evidence.question)
        if len(parts) > 1:
            for part in parts:
                own = {t: w for t, w in req.q.weights.items() if t in terms(part.text, req.q.language)}
                total = fsum(own.values())
                if not total:
                    continue
                best = max(units, key=lambda u: fsum(own.get(t, 0.0) for t in u.strip.held) / total * u.score)
                if own.keys() & best.strip.held:
                    keep(best)
        top = units[0].score
        for u in units:
            if u.score < self.share * top:
                break
            if kept and self.novel and not u.strip.held - covered:
                continue
            keep(u)
        return kept
