"""The one source of time, so tests can move it.

Datetimes are naive UTC everywhere in the database (SQLite keeps no zone).
"""
from datetime import datetime, timezone


def utcnow():
    """Current time as a naive UTC datetime."""
    return datetime.now(timezone.utc).replace(tzinfo=None)


def isoformat(value):
    """Render a naive-UTC datetime as ``2026-11-22T08:50:00.123456Z`` (None stays None)."""
    if value is None:
        return None
    if value.tzinfo is not None:
        value = value.astimezone(timezone.utc).replace(tzinfo=None)
    return value.isoformat(timespec="microseconds") + "Z"  # strftime's %f would cost five times more
