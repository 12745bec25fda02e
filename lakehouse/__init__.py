"""The lakehouse: settings, paths, Arrow schemas, atomic writes and run records."""

from lakehouse.paths import LakePaths
from lakehouse.settings import Settings, get_settings

__all__ = ["LakePaths", "Settings", "get_settings"]
