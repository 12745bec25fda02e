"""What one caller may see of the graph, computed before any ranking.

An entity or relationship is visible only through its evidence chunks that pass the caller's mask
(permissions and filters); with none left it does not exist for that caller. A report is visible only when the
caller can read every one of its sources. Nothing here reads text.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from serving.graph.graph_store import GraphStore


@dataclass
class View:
    store: GraphStore
    groups: frozenset[str]
    mask: np.ndarray  # chunk rows readable by the caller and passing the filters
    readable: np.ndarray  # chunk rows readable by the caller (permissions only)
    entity_counts: np.ndarray  # visible evidence chunks per entity
    relationship_counts: np.ndarray
    chunk_similarity: np.ndarray  # question . chunk vector, 0 outside the mask
    visible: int = 0  # rows in the mask

    @classmethod
    def of(cls, store: GraphStore, groups: frozenset[str], mask: np.ndarray, readable: np.ndarray,
           chunk_similarity: np.ndarray) -> View:
        allowed = mask.astype(np.float32)
        similarity = np.where(mask, chunk_similarity, 0.0).astype(np.float32)
        return cls(store, groups, mask, readable, store.entity_chunks @ allowed,
                   store.relationship_chunks @ allowed, similarity, int(mask.sum()))

    def entity_visible(self, i: int) -> bool:
        return self.entity_counts[i] > 0

    def relationship_visible(self, j: int) -> bool:
        s = self.store
        return (self.relationship_counts[j] > 0 and self.entity_counts[s.sources[j]] > 0
                and self.entity_counts[s.targets[j]] > 0)

    def entity_similarity(self) -> np.ndarray:
        """Mean question similarity of each entity's visible evidence chunks (0 for invisible entities)."""
        total = self.store.entity_chunks @ self.chunk_similarity
        return np.divide(total, self.entity_counts, out=np.zeros_like(total), where=self.entity_counts > 0)

    def evidence_rows(self, matrix, i: int, limit: int | None = None) -> np.ndarray:
        """Visible evidence rows of row ``i`` of an incidence matrix, most similar to the question first (the
        best ``limit`` only, when given)."""
        rows = matrix.indices[matrix.indptr[i]:matrix.indptr[i + 1]]
        rows = rows[self.mask[rows]]
        if limit is not None and rows.size > limit:
            rows = rows[np.argpartition(-self.chunk_similarity[rows], limit - 1)[:limit]]
        return rows[np.lexsort((rows, -self.chunk_similarity[rows]))]

    def report_visible(self, community_id: str) -> bool:
        report = self.store.reports.get(community_id)
        if report is None or not report.readable_by(self.groups, self.readable):
            return False
        # A report whose sources all left the index is stale: hidden. Filters keep it when one source passes.
        return report.rows.size > 0 and bool(self.mask[report.rows].any())
