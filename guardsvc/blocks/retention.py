"""What the blocks feature forgets, and when (``flask purge``, guardsvc.retention)."""
from datetime import timedelta, timezone

from sqlalchemy import func, select

from guardsvc.blocks.models import MANUAL, AllowEntry, EdgeChange
from guardsvc.retention.service import Rule, days_ago, delete_rows

# How long the edge's change log reaches back: an edge that has not pulled for longer loads the whole list.
EDGE_CHANGES_KEPT = timedelta(days=1)


def _spent_approval_allows_due(now, config):
    """An approval's or a self-release's allow entry pairs a person's address with their device: once
    it has ended (expired or removed) for the retention period, nothing keeps the two linked."""
    ended = func.coalesce(AllowEntry.removed_at, AllowEntry.expires_at)
    return (AllowEntry.made_by != MANUAL, ended < days_ago(now, config, "RETENTION_DAYS"))


def _old_edge_changes_due(now, config):
    """Changes every running edge has long pulled; the newest stays, so a cursor older than the log shows."""
    cutoff = int((now - EDGE_CHANGES_KEPT).replace(tzinfo=timezone.utc).timestamp())
    return (EdgeChange.logged_at < cutoff, EdgeChange.id < select(func.max(EdgeChange.id)).scalar_subquery())


RULES = (
    Rule("approval and self-release allow entries deleted", AllowEntry, _spent_approval_allows_due,
         delete_rows(AllowEntry)),
    Rule("old edge list changes deleted", EdgeChange, _old_edge_changes_due, delete_rows(EdgeChange)),
)
