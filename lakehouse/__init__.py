"""The ground floor: settings, paths and pointers, table schemas, storage, runs, snapshots, ids, errors.

The package's names are resolved on first use (PEP 562): ``lakehouse.settings`` imports pydantic (~0.3 s), and
``lakehouse.errors`` alone, which ``lakerag query --server`` needs, must not pay for it."""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from lakehouse.paths import LakePaths
    from lakehouse.settings import Settings, get_settings

__all__ = ["LakePaths", "Settings", "get_settings"]
_WHERE = {"LakePaths": "lakehouse.paths", "Settings": "lakehouse.settings", "get_settings": "lakehouse.settings"}


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module 'lakehouse' has no attribute {name!r}")
    return getattr(import_module(_WHERE[name]), name)
