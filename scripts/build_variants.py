"""Reworded variants of the labelled questions (``sample_corpus/src/variants.yaml`` -> ``variants.jsonl``).

Each source item names its original (``of: q001``), a ``style`` and the reworded ``question``; the built row is
``{"id": "q001-colloquial", "original", "style", "language", "question"}`` followed by every other field of the
built original (expected answer, relevant documents, groups, kind, facts, split...), so a variant always keeps its
original's facts, access groups and split. Two variants of one original never share a style.

Called by ``scripts/build_sample_corpus.py`` (``--questions-only`` too); the build fails with a message that names
the item and the field on an unknown original, an unknown style, a repeated style or an empty question."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

# style -> language of the reworded question (everything but english stays in the documents' Portuguese)
VARIANT_STYLES = {
    "colloquial": "pt",
    "no_accents": "pt",
    "typo": "pt",
    "keywords": "pt",
    "rambling": "pt",
    "english": "en",
}
VARIANT_FIELDS = ("id", "original", "style", "language", "question")


class VariantError(SystemExit):
    """A variants.yaml item the build refuses (its message names the item and the field)."""


def _item_text(item: Any, n: int, key: str) -> str:
    value = item.get(key) if isinstance(item, dict) else None
    if not isinstance(value, str) or not value.strip():
        raise VariantError(f"variants.yaml item {n}: field {key!r} must be a non-empty string, not {value!r}")
    return " ".join(value.split())


def build_variants(questions: list[dict[str, Any]], src: Path) -> list[dict[str, Any]]:
    """The built variant rows, ordered by original then style (the order of ``VARIANT_STYLES``)."""
    raw = yaml.safe_load(src.read_text(encoding="utf-8")) or []
    if not isinstance(raw, list):
        raise VariantError(f"{src.name}: expected a list of variants, not {type(raw).__name__}")
    originals = {q["id"]: q for q in questions}
    order = {qid: n for n, qid in enumerate(originals)}
    rows: dict[tuple[str, str], dict[str, Any]] = {}
    for n, item in enumerate(raw, start=1):
        of, style, question = (_item_text(item, n, key) for key in ("of", "style", "question"))
        if of not in originals:
            raise VariantError(f"variants.yaml item {n}: field 'of' names an unknown question {of!r}")
        if style not in VARIANT_STYLES:
            raise VariantError(
                f"variants.yaml item {n} ({of}): field 'style' is {style!r}, not one of {sorted(VARIANT_STYLES)}"
            )
        if (of, style) in rows:
            raise VariantError(f"variants.yaml item {n}: {of} already has a {style!r} variant (one per style)")
        original = originals[of]
        if question == original["question"]:
            raise VariantError(f"variants.yaml item {n} ({of}-{style}): field 'question' repeats the original")
        row = {"id": f"{of}-{style}", "original": of, "style": style, "language": VARIANT_STYLES[style],
               "question": question}
        row.update({k: v for k, v in original.items() if k not in ("id", "question")})
        rows[(of, style)] = row
    styles = list(VARIANT_STYLES)
    return [rows[key] for key in sorted(rows, key=lambda k: (order[k[0]], styles.index(k[1])))]


def write_variants(out_dir: Path, questions: list[dict[str, Any]], src: Path) -> int:
    """Write ``variants.jsonl`` beside ``questions.jsonl``; returns the number of variants."""
    rows = build_variants(questions, src)
    lines = [json.dumps(row, ensure_ascii=False) for row in rows]
    (out_dir / "variants.jsonl").write_text("\n".join(lines) + "\n" if lines else "", encoding="utf-8")
    return len(rows)
