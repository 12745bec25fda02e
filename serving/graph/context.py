"""Pack evidence into a character budget as graphrag-style sections of delimited rows, each row with its id.

Each section gets a share of the budget; what a section leaves unused passes to the next. Rows go in rank
order and a row that does not fit ends its section. Evidence that made it in is marked ``in_context``.
"""

from __future__ import annotations

from serving.graph.types import Evidence

DEFAULT_BUDGET = 8000
MAX_ROW_CHARS = 1500
SECTIONS = {  # kind -> (title, header, share of the budget)
    "report": ("Reports", "id|title|content", 0.25),
    "entity": ("Entities", "id|entity|type|description|evidence", 0.15),
    "relationship": ("Relationships", "id|source|target|description|weight", 0.15),
    "chunk": ("Sources", "id|document|text", 0.45),
}


def _clean(text: str, limit: int = MAX_ROW_CHARS) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def row(item: Evidence) -> str:
    """One delimited row: the evidence id first, then its fields."""
    x = item.extra
    if item.kind == "entity":
        evidence = str(x.get("evidence", len(item.chunk_ids)))
        fields = [x.get("name", ""), x.get("type", ""), item.text, evidence]
    elif item.kind == "relationship":
        fields = [x.get("source", ""), x.get("target", ""), item.text, f"{x.get('weight', 0.0):.2f}"]
    elif item.kind == "report":
        fields = [x.get("title", ""), item.text]
    else:
        fields = [item.title or item.document_id or "", item.text]
    return "|".join([item.id, *(_clean(f) for f in fields)])


def pack(evidence: list[Evidence], budget: int = DEFAULT_BUDGET) -> str:
    """The context text for ``evidence`` (any order across kinds; rank order within a kind)."""
    parts: list[str] = []
    spare = 0
    for kind, (title, header, share) in SECTIONS.items():
        items = [e for e in evidence if e.kind == kind]
        if not items:
            spare += int(budget * share)
            continue
        allowance = int(budget * share) + spare
        lines = [f"-----{title}-----", header]
        used = sum(len(line) + 1 for line in lines)
        count = 0
        for item in items:
            line = row(item)
            if used + len(line) + 1 > allowance:
                break
            lines.append(line)
            used += len(line) + 1
            item.extra["in_context"] = True
            count += 1
        spare = allowance - used if count else allowance
        if count:
            parts.append("\n".join(lines))
    return "\n\n".join(parts)
