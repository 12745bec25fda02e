"""The query modes, one module each behind one interface (``base.Mode``): a ``ModeRequest`` in, a ``Retrieved``
out. ``retrieve`` runs the named mode; a graph mode on a snapshot without a graph index falls back to ``basic``
and says so (``partial``)."""

from __future__ import annotations

from serving.answers.modes.agentic import Agentic
from serving.answers.modes.base import Mode, ModeRequest, Retrieved, retrieval_filters, section_of
from serving.answers.modes.basic import Basic
from serving.answers.modes.global_search import Global
from serving.answers.modes.hybrid import Hybrid
from serving.answers.modes.local import Local

MODES: dict[str, Mode] = {mode.name: mode for mode in (Basic(), Local(), Global(), Hybrid(), Agentic())}

__all__ = ["MODES", "Mode", "ModeRequest", "Retrieved", "retrieval_filters", "retrieve",
           "section_of"]


def retrieve(mode: str, request: ModeRequest) -> Retrieved:
    """Run ``mode`` for the request (see the module docstring for the fallback)."""
    chosen = MODES[mode]
    engine = request.engine
    if chosen.needs_graph and engine.graph is None:
        out = MODES["basic"].retrieve(request)
        out.partial = True
        out.warnings.append(f"mode {mode!r} needs the graph index: {engine.graph_reason}; answered with basic "
                            f"retrieval instead")
        return out
    return chosen.retrieve(request)
