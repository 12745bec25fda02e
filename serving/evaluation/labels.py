"""Label shares, refusal precision and recall, per kind and per mode: the shape ``lakerag eval --answers`` saves
and other tools read::

    {"default_mode": MODE, "modes": {MODE: {"labels": {"correct": share, "partly": share, "wrong": share,
     "declined": share}, "unanswerable_declined": share, "answerable_declined": share, "refusal_precision": x,
     "refusal_recall": x, "expected_document_top5": share, "questions": n, "by_kind": {KIND: {...}},
     "answers": [...]}}, ...}

Shares are of all questions asked in that mode (0 to 1); ``expected_document_top5`` is of the answerable ones.
"""

from __future__ import annotations

from dataclasses import dataclass

from serving.evaluation.judge import LABELS


@dataclass
class Judged:
    """One question asked in one mode and its label."""

    id: str
    kind: str
    answerable: bool
    label: str
    reason: str
    status: str
    mode_used: str
    top5: bool | None  # expected document among the first five evidence documents (None: unanswerable)
    answer: str = ""
    llm_label: str | None = None

    def as_dict(self) -> dict:
        return {k: v for k, v in self.__dict__.items() if v is not None}


def _share(part: int, whole: int) -> float:
    return round(part / whole, 4) if whole else 0.0


def summarise(rows: list[Judged]) -> dict:
    """Label shares and refusal metrics over ``rows`` (one mode, or one kind of one mode)."""
    n = len(rows)
    declined = [r for r in rows if r.label == "declined"]
    unanswerable = [r for r in rows if not r.answerable]
    answerable = [r for r in rows if r.answerable]
    right = sum(not r.answerable for r in declined)
    top5 = [r.top5 for r in answerable if r.top5 is not None]
    return {"labels": {label: _share(sum(r.label == label for r in rows), n) for label in LABELS},
            "unanswerable_declined": _share(right, len(unanswerable)),
            "answerable_declined": _share(len(declined) - right, len(answerable)),
            "refusal_precision": _share(right, len(declined)) if declined else 1.0,
            "refusal_recall": _share(right, len(unanswerable)) if unanswerable else 1.0,
            "expected_document_top5": _share(sum(top5), len(top5)),
            "questions": n}


def mode_summary(rows: list[Judged]) -> dict:
    """One mode: the summary, the same per question kind, and every judged answer."""
    kinds = sorted({r.kind for r in rows})
    result = summarise(rows)
    result["by_kind"] = {k: summarise([r for r in rows if r.kind == k]) for k in kinds}
    with_llm = [r for r in rows if r.llm_label is not None]
    if with_llm:
        result["llm_judge"] = {"judged": len(with_llm),
                               "agreement": _share(sum(r.llm_label == r.label for r in with_llm), len(with_llm))}
    result["answers"] = [r.as_dict() for r in rows]
    return result


def table(result: dict) -> str:
    """A plain-text table: one line per mode, then per kind of the default mode."""
    head = f"{'':<22}{'correct':>8}{'partly':>8}{'wrong':>8}{'declined':>9}{'unans.decl':>11}{'ans.decl':>9}" \
           f"{'ref.P':>7}{'ref.R':>7}{'top5':>7}{'n':>5}"

    def line(name: str, m: dict) -> str:
        lab = m["labels"]
        return (f"{name:<22}{lab['correct']:>8.2f}{lab['partly']:>8.2f}{lab['wrong']:>8.2f}{lab['declined']:>9.2f}"
                f"{m['unanswerable_declined']:>11.2f}{m['answerable_declined']:>9.2f}{m['refusal_precision']:>7.2f}"
                f"{m['refusal_recall']:>7.2f}{m['expected_document_top5']:>7.2f}{m['questions']:>5}")

    lines = [head] + [line(f"mode {name}", m) for name, m in result["modes"].items()]
    default = result["modes"].get(result["default_mode"])
    if default:
        lines += [f"by kind ({result['default_mode']}):"]
        lines += [line(f"  {kind}", m) for kind, m in default["by_kind"].items()]
    for name, m in result["modes"].items():
        if "llm_judge" in m:
            lines.append(f"LLM judge agreement ({name}): {m['llm_judge']['agreement']:.2f} "
                         f"over {m['llm_judge']['judged']} answers")
    return "\n".join(lines)
