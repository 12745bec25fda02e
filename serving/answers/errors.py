"""Errors of the answering layer. Each names the field or resource at fault; the API maps them to 4xx."""

from lakehouse.errors import LakeragError


class AnswerError(LakeragError):
    """Base class: a request the answering layer cannot serve."""


class InvalidRequest(AnswerError):
    """A request parameter is invalid; ``field`` names it."""

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field


class NotFound(AnswerError):
    """The document or section does not exist, or the caller may not read it (the two look the same)."""


class ModeUnavailable(AnswerError):
    """The requested mode needs an artefact this snapshot lacks (the graph index)."""


class NotReady(AnswerError):
    """No snapshot is loaded yet (nothing published, or the published one is broken)."""


class Unauthorized(AnswerError):
    """The API key presented is unknown."""
