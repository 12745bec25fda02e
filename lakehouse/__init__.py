"""The ground floor: settings, paths and pointers, table schemas, storage, runs, snapshots, ids, errors."""

from lakehouse.paths import LakePaths
from lakehouse.settings import Settings, get_settings

__all__ = ["LakePaths", "Settings", "get_settings"]
