"""``lakerag eval --answers --variants``: the same questions reworded (colloquial, no accents, a typo, keywords,
rambling) and rendered in English, asked beside their originals and compared with them.

``variants.jsonl`` (built from ``src/variants.yaml``) holds one variant a line: ``id``, ``original`` (the
original's id), ``style``, ``language`` and ``question``, then the original's fields copied. The gold a variant is
judged against is always its original's as it stands in ``questions.jsonl`` (the copy in the variant can lag
behind a change to the original's facts). Each group of variants (all, per style, per language) is compared with
the originals it rewords, counted once per variant: ``gap_correct`` is the variants' correct share minus those
originals' correct share, ``ratio_correct`` the first over the second.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from pathlib import Path

from lakehouse.errors import ConfigError
from serving.evaluation.labels import Judged, summarise

log = logging.getLogger(__name__)

VARIANTS = "variants.jsonl"
STYLES = ("colloquial", "no_accents", "typo", "keywords", "rambling", "english")
OWN = ("id", "original", "style", "language", "question")  # a variant's own fields; the rest is its original's


def read_variants(path: Path) -> list[dict]:
    """The variants in ``path``; a missing file or a variant without one of its own fields is an error naming it."""
    if not path.exists():
        raise ConfigError(f"--variants: {path} does not exist (build it with scripts/build_sample_corpus.py "
                          "--questions-only from src/variants.yaml)")
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    for n, row in enumerate(rows, start=1):
        for name in OWN:
            if not row.get(name):
                raise ConfigError(f"{path}:{n}: a variant needs a non-empty {name!r}")
        if row["style"] not in STYLES:
            raise ConfigError(f"{path}:{n}: style {row['style']!r} is not one of {', '.join(STYLES)}")
    return rows


def as_asked(variants: list[dict], originals: list[dict]) -> list[dict]:
    """The variants of the originals asked (the others are left out), each with its original's gold."""
    by_id = {str(q.get("id")): q for q in originals}
    return [{**by_id[v["original"]], **{k: v[k] for k in OWN}} for v in variants if v["original"] in by_id]


def _group(pairs: list[tuple[Judged, dict]], original_labels: dict[str, str]) -> dict:
    rows = [j for j, _ in pairs]
    result = summarise(rows)
    correct = result["labels"]["correct"]
    paired = [original_labels[v["original"]] == "correct" for _, v in pairs]
    originals = round(sum(paired) / len(paired), 4) if paired else 0.0
    result.update(originals_correct=originals, gap_correct=round(correct - originals, 4),
                  ratio_correct=round(correct / originals, 4) if originals else None)
    return result


def compare(judged: list[Judged], variants: list[dict], originals: list[dict]) -> dict:
    """One mode: the variants beside the originals they reword, all together, per style and per language, and
    every variant's label."""
    labels = {a["id"]: a["label"] for a in originals}
    pairs = list(zip(judged, variants, strict=True))
    styles = [s for s in STYLES if any(v["style"] == s for v in variants)]
    languages = sorted({v["language"] for v in variants})
    return {"variants": _group(pairs, labels),
            "by_style": {s: _group([p for p in pairs if p[1]["style"] == s], labels) for s in styles},
            "by_language": {lang: _group([p for p in pairs if p[1]["language"] == lang], labels)
                            for lang in languages},
            "answers": [{**{k: v[k] for k in OWN}, **j.as_dict()} for j, v in pairs]}


def evaluate_variants(label: Callable[[dict, str], Judged], variants: list[dict], result: dict,
                      questions: list[dict]) -> dict:
    """Ask every variant of the asked ``questions`` in each mode of ``result`` (``label(row, mode)`` asks and
    labels one) and compare it with the originals' labels there."""
    asked = as_asked(variants, questions)
    out: dict = {"questions": len(asked), "originals": len({v["original"] for v in asked}), "modes": {}}
    for mode, summary in result["modes"].items():
        judged = []
        for row in asked:
            judged.append(label(row, mode))
            log.info("%s %s: %s (%s)", mode, row["id"], judged[-1].label, judged[-1].reason)
        out["modes"][mode] = compare(judged, asked, summary["answers"])
    return out


def variants_table(variants: dict, split: str) -> str:
    """Originals against their variants, all together, per style and per language, for every mode."""
    head = f"{'':<24}{'correct':>8}{'partly':>8}{'wrong':>8}{'declined':>9}{'unans.decl':>11}{'ans.decl':>9}" \
           f"{'n':>5}{'orig.correct':>13}{'gap':>7}"
    lines = [f"variants ({split} split): {variants['questions']} variants of {variants['originals']} originals"]

    def line(name: str, m: dict) -> str:
        lab = m["labels"]
        return (f"{name:<24}{lab['correct']:>8.2f}{lab['partly']:>8.2f}{lab['wrong']:>8.2f}{lab['declined']:>9.2f}"
                f"{m['unanswerable_declined']:>11.2f}{m['answerable_declined']:>9.2f}"
                f"{m['questions']:>5}{m['originals_correct']:>13.2f}{m['gap_correct']:>+7.2f}")

    for mode, m in variants["modes"].items():
        lines += [f"mode {mode}", head, line("  all variants", m["variants"])]
        lines += [line(f"  style {s}", g) for s, g in m["by_style"].items()]
        lines += [line(f"  language {lang}", g) for lang, g in m["by_language"].items()]
        reworded, english = m["by_language"].get("pt"), m["by_language"].get("en")
        if reworded:
            lines.append(f"  reworded correct minus originals' correct: {reworded['gap_correct']:+.2f}")
        if english and english["ratio_correct"] is not None:
            lines.append(f"  English correct over originals' correct: {english['ratio_correct']:.2f}")
    return "\n".join(lines)
