"""Bounded multi-step retrieval for the ``agentic`` mode: tools over what one caller may read (a search per
document type, ``read_document``, a catalog lookup), reference detection in the evidence, the deterministic
workflow that follows those references, the agent loop through an LLM's function calling, the comparison
answer (requirement beside evidence) and the trace of every step.

Every tool is bound to one caller's groups when it is built, so nothing the loop sees, cites or quotes can
come from a chunk that caller may not read."""
