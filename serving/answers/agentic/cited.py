"""How a quoted line names the document it comes from: a line of a contract or of a contract's annex that does
not state the contract's code ("3.1 O valor mensal é de R$ ...") is led by it, since the reader must know which
contract says so."""

from __future__ import annotations

from dataclasses import replace

from serving.answers.agentic.parts import ENABLED, Pick

CONTRACTS = ("contrato", "anexo_contratual")  # the kinds of document whose code names a contract


def coded(pick: Pick, doc_type: str, codes: tuple[str, ...]) -> Pick:
    """``pick`` led by the document's code (``codes``: its own, from its title or path) when the document is a
    contract or an annex and the line does not state it."""
    if "contract_code" not in ENABLED or not pick.unit or doc_type not in CONTRACTS or not codes \
            or any(c in pick.unit.upper() for c in codes):
        return pick
    return replace(pick, unit=f"{codes[0]}: {pick.unit}")
