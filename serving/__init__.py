"""The query API (built in a later issue)."""
