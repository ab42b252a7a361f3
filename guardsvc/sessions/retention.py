"""What the sessions feature forgets, and when (``flask purge``, guardsvc.retention)."""
from guardsvc.retention.service import Rule, delete_rows
from guardsvc.sessions.models import UserSession
from guardsvc.sessions.service import idle_cutoff


def _sessions_due(now, config):
    return (UserSession.last_seen_at < idle_cutoff(now),)


RULES = (Rule("idle sessions deleted", UserSession, _sessions_due, delete_rows(UserSession)),)
