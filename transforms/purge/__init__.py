"""Purge and erasure over the whole lakehouse: ``gc`` (retired content past retention) and ``erase`` (one
document, or everything that mentions one person, at once). File-level operations live in
``lakehouse.purge``; here the stages' tables, caches and snapshots are put together (ADR 0008)."""

from transforms.purge.erase import ErasurePlan, erase, plan_document, plan_subject, run_pending
from transforms.purge.gc import collect_garbage

__all__ = ["ErasurePlan", "collect_garbage", "erase", "plan_document", "plan_subject", "run_pending"]
