"""Errors raised by the lakehouse and the pipeline around it."""


class LakeragError(Exception):
    """Base class of every lakerag error."""


class ConfigError(LakeragError):
    """A setting or the folder configuration is invalid; the message names the file and field."""


class SourceError(LakeragError):
    """The source folder cannot be read."""


class DocumentError(LakeragError):
    """One document cannot be processed; it is quarantined with ``reason`` and the run continues."""

    def __init__(self, reason: str, stage: str = "extract") -> None:
        super().__init__(reason)
        self.reason = reason
        self.stage = stage

    def __reduce__(self):  # crosses process boundaries (the extraction watchdog) with its stage
        return (DocumentError, (self.reason, self.stage))
