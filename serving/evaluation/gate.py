"""The publish gate: a candidate snapshot is published only if no gated metric is worse than the published
snapshot's by more than a tolerance (absolute, on scores in [0, 1]). Pure comparison; evaluation lives in
``serving.evaluation.publish``."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

from lakehouse.errors import LakeragError

GATED_METRICS = ("hit@5", "mrr@10")


@dataclass(frozen=True)
class MetricComparison:
    metric: str
    current: float | None
    candidate: float
    delta: float | None
    worse: bool


@dataclass(frozen=True)
class GateResult:
    passed: bool
    tolerance: float
    candidate_id: str
    current_id: str | None
    rows: list[MetricComparison] = field(default_factory=list)
    split: str | None = None  # the question split the metrics are measured on (test, or all for an unsplit set)

    def as_dict(self) -> dict:
        return asdict(self)

    def report(self) -> str:
        """A readable comparison table, one line per metric."""
        verdict = "passed" if self.passed else "REFUSED"
        split = f"{self.split} split, " if self.split else ""
        lines = [f"publish gate {verdict}: candidate {self.candidate_id} vs published "
                 f"{self.current_id or '-'} ({split}tolerance {self.tolerance:g})",
                 f"  {'metric':<10} {'published':>10} {'candidate':>10} {'delta':>8}"]
        for row in self.rows:
            current = "-" if row.current is None else f"{row.current:.4f}"
            delta = "-" if row.delta is None else f"{row.delta:+.4f}"
            flag = "  worse" if row.worse else ""
            lines.append(f"  {row.metric:<10} {current:>10} {row.candidate:>10.4f} {delta:>8}{flag}")
        return "\n".join(lines)


class GateRefused(LakeragError):
    """The candidate scored worse than the published snapshot beyond the tolerance; nothing was published."""

    def __init__(self, result: GateResult) -> None:
        super().__init__(result.report())
        self.result = result


def compare(candidate: dict[str, float], current: dict[str, float] | None, tolerance: float,
            candidate_id: str, current_id: str | None,
            metrics: tuple[str, ...] = GATED_METRICS, split: str | None = None) -> GateResult:
    """Compare the candidate's metrics with the published snapshot's (None: nothing published yet, passes)."""
    if tolerance < 0:
        raise ValueError(f"publish tolerance must be >= 0, got {tolerance}")
    rows = []
    for metric in metrics:
        if metric not in candidate:
            raise KeyError(f"candidate evaluation lacks metric {metric!r}")
        before = None if current is None else current.get(metric)
        delta = None if before is None else round(candidate[metric] - before, 6)
        rows.append(MetricComparison(metric, before, candidate[metric], delta,
                                     worse=delta is not None and delta < -tolerance - 1e-9))
    return GateResult(passed=not any(r.worse for r in rows), tolerance=tolerance, candidate_id=candidate_id,
                      current_id=current_id, rows=rows, split=split)
