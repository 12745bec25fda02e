"""The publish gate: a candidate snapshot is published only if no gated metric is worse than the published
snapshot's by more than a tolerance (absolute, on scores in [0, 1]). With the questions' outcomes paired (the same
held-out questions asked of both snapshots), a drop also has to be one that the split can tell from chance: the
candidate must lose more questions than it wins with a one-sided sign-test p below ``ALPHA`` (on 42 test
questions, two lost and none won is a 0.048 drop in hit@5 that chance explains one time in four). Pure
comparison; evaluation lives in ``serving.evaluation.publish``."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from math import comb

from lakehouse.errors import LakeragError

GATED_METRICS = ("hit@5", "mrr@10")
ALPHA = 0.05


def sign_test(losses: int, wins: int) -> float:
    """One-sided sign-test p of at least ``losses`` lost questions among ``losses + wins`` changed ones."""
    n = losses + wins
    return sum(comb(n, k) for k in range(losses, n + 1)) / 2 ** n if n else 1.0


@dataclass(frozen=True)
class MetricComparison:
    metric: str
    current: float | None
    candidate: float
    delta: float | None
    worse: bool
    losses: int | None = None  # questions the candidate scores lower on (paired outcomes only)
    wins: int | None = None
    p: float | None = None  # sign-test p of the losses; worse needs p < ALPHA besides the tolerance


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
                 f"  {'metric':<10} {'published':>10} {'candidate':>10} {'delta':>8} {'lost/won':>9} {'p':>6}"]
        for row in self.rows:
            current = "-" if row.current is None else f"{row.current:.4f}"
            delta = "-" if row.delta is None else f"{row.delta:+.4f}"
            paired = "-" if row.losses is None else f"{row.losses}/{row.wins}"
            p = "-" if row.p is None else f"{row.p:.3f}"
            flag = "  worse" if row.worse else ""
            lines.append(f"  {row.metric:<10} {current:>10} {row.candidate:>10.4f} {delta:>8} {paired:>9} {p:>6}{flag}")
        return "\n".join(lines)


class GateRefused(LakeragError):
    """The candidate scored worse than the published snapshot beyond the tolerance; nothing was published."""

    def __init__(self, result: GateResult) -> None:
        super().__init__(result.report())
        self.result = result


def compare(candidate: dict[str, float], current: dict[str, float] | None, tolerance: float,
            candidate_id: str, current_id: str | None,
            metrics: tuple[str, ...] = GATED_METRICS, split: str | None = None,
            paired: dict[str, tuple[int, int]] | None = None) -> GateResult:
    """Compare the candidate's metrics with the published snapshot's (None: nothing published yet, passes);
    ``paired`` gives, per metric, the questions the candidate lost and won against the published snapshot."""
    if tolerance < 0:
        raise ValueError(f"publish tolerance must be >= 0, got {tolerance}")
    rows = []
    for metric in metrics:
        if metric not in candidate:
            raise KeyError(f"candidate evaluation lacks metric {metric!r}")
        before = None if current is None else current.get(metric)
        delta = None if before is None else round(candidate[metric] - before, 6)
        losses, wins = (paired or {}).get(metric, (None, None))
        p = None if losses is None or wins is None else round(sign_test(losses, wins), 4)
        worse = delta is not None and delta < -tolerance - 1e-9 and (p is None or p < ALPHA)
        rows.append(MetricComparison(metric, before, candidate[metric], delta, worse, losses, wins, p))
    return GateResult(passed=not any(r.worse for r in rows), tolerance=tolerance, candidate_id=candidate_id,
                      current_id=current_id, rows=rows, split=split)
