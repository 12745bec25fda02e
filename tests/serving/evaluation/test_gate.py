"""The publish gate compares scores with a tolerance; its report names every metric."""

from __future__ import annotations

import pytest

from serving.evaluation.gate import GateRefused, compare


def test_first_publish_passes_and_small_drops_are_tolerated():
    assert compare({"hit@5": 0.5, "mrr@10": 0.4}, None, 0.02, "snap_b", None).passed
    result = compare({"hit@5": 0.89, "mrr@10": 0.80}, {"hit@5": 0.90, "mrr@10": 0.79}, 0.02, "b", "a")
    assert result.passed and [r.delta for r in result.rows] == [-0.01, 0.01]


def test_a_drop_beyond_the_tolerance_is_refused_with_a_readable_comparison():
    result = compare({"hit@5": 0.80, "mrr@10": 0.80}, {"hit@5": 0.90, "mrr@10": 0.80}, 0.02, "b", "snap_a")
    assert not result.passed and [r.worse for r in result.rows] == [True, False]
    report = str(GateRefused(result))
    assert "REFUSED" in report and "snap_a" in report and "hit@5" in report and "-0.1000" in report


def test_exactly_at_the_tolerance_passes_and_a_negative_tolerance_is_an_error():
    assert compare({"hit@5": 0.88, "mrr@10": 1.0}, {"hit@5": 0.90, "mrr@10": 1.0}, 0.02, "b", "a").passed
    with pytest.raises(ValueError, match="tolerance"):
        compare({"hit@5": 1.0, "mrr@10": 1.0}, None, -0.1, "b", None)


def test_the_report_names_the_split_it_measured():
    report = compare({"hit@5": 0.9, "mrr@10": 0.8}, None, 0.02, "b", None, split="test").report()
    assert "(test split, tolerance 0.02)" in report
