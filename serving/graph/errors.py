"""Errors of graph search."""

from lakehouse.errors import LakeragError


class GraphSearchError(LakeragError):
    """A graph search request or the graph tables it reads are invalid; the message names the field or
    file."""


class GraphNotReady(GraphSearchError):
    """The graph tables are missing (run the ``graph`` index stage first)."""
