"""Server-side sessions: start, find, refresh, list and end them.

The cookie holds a random 256-bit key; only its SHA-256 is stored, so a copy
of this table opens no session. A session is dead once it is deleted (sign-out,
"end this session", password change), once its account is disabled, or once it
has been idle for ``SESSION_IDLE_DAYS``, and ``SESSION_ABSOLUTE_DAYS`` after its sign-in however active.
"""
import hashlib
import secrets
from datetime import timedelta

from flask import current_app
from sqlalchemy import bindparam, delete, select
from sqlalchemy.orm import joinedload

from guardsvc import messages
from guardsvc.storage import clock
from guardsvc.web.errors import NotFound
from guardsvc.extensions import db
from guardsvc.sessions.models import UserSession

KEY_MAX = 128
# last_seen_at is refreshed at most this often, so a page view is not a write.
LAST_SEEN_RESOLUTION = timedelta(seconds=60)


def hash_key(plain):
    return hashlib.sha256(plain.encode("utf-8")).hexdigest()


def idle_cutoff(now):
    """Sessions last seen before this moment are dead (``SESSION_IDLE_DAYS``)."""
    return now - timedelta(days=current_app.config["SESSION_IDLE_DAYS"])


def start_session(user, client, *, reauthenticated=True, second_factor=False):
    """Record a new session for ``user`` on ``client``; returns ``(plain_key, record)``.

    A sign-in that proved every factor the account has starts re-authenticated
    (``reauthenticated``); one that skipped the code on a trusted browser does
    not. ``second_factor``: the sign-in passed a code in this browser.
    """
    plain = secrets.token_urlsafe(32)
    now = clock.utcnow()
    record = UserSession(user_id=user.id, key_hash=hash_key(plain), created_at=now, last_seen_at=now,
                         reauthenticated_at=now if reauthenticated else None,
                         second_factor_at=now if second_factor else None, ip_address=client.ip_address,
                         user_agent=client.user_agent, device_id=client.device_id)
    db.session.add(record)
    db.session.flush()
    return plain, record


# Every signed-in request asks it: built once.
_LIVE_SESSION = (select(UserSession).options(joinedload(UserSession.user, innerjoin=True))
                 .where(UserSession.key_hash == bindparam("key_hash"),
                        UserSession.last_seen_at >= bindparam("cutoff"),
                        UserSession.created_at >= bindparam("born_after")))


def find_session(plain):
    """The live session this key names, its active user loaded with it (one statement), or None."""
    if not isinstance(plain, str) or not plain or len(plain) > KEY_MAX:
        return None
    now = clock.utcnow()
    record = db.session.scalar(_LIVE_SESSION, {
        "key_hash": hash_key(plain), "cutoff": idle_cutoff(now),
        "born_after": now - timedelta(days=current_app.config["SESSION_ABSOLUTE_DAYS"])})
    if record is None or not record.user.is_active:
        return None
    if now - record.last_seen_at >= LAST_SEEN_RESOLUTION:
        # Rides on the request's own commit; at most one write a minute per session.
        record.last_seen_at = now
    return record


def list_sessions(user):
    """The account's live sessions, most recently used first."""
    return db.session.scalars(
        select(UserSession).where(UserSession.user_id == user.id,
                                  UserSession.last_seen_at >= idle_cutoff(clock.utcnow()))
        .order_by(UserSession.last_seen_at.desc(), UserSession.id.desc())).all()


def _delete(*conditions):
    # "evaluate": rows deleted here also leave the identity map, so an id the database
    # reuses (SQLite) never meets a stale object.
    return db.session.execute(delete(UserSession).where(*conditions)
                              .execution_options(synchronize_session="evaluate")).rowcount


def end_session(record):
    """End one session (sign-out): a copy of its cookie stops working at once."""
    _delete(UserSession.id == record.id)


def end_own_session(user, session_id):
    """End one of the account's own sessions (another account's: NotFound)."""
    if not _delete(UserSession.id == session_id, UserSession.user_id == user.id):
        raise NotFound(messages.SESSION_NOT_FOUND)


def end_sessions(user, *, keep=None):
    """End every session of ``user`` except ``keep`` (None: all of them); returns how many ended."""
    conditions = [UserSession.user_id == user.id]
    if keep is not None:
        conditions.append(UserSession.id != keep.id)
    return _delete(*conditions)


def mark_reauthenticated(record, *, second_factor=False):
    """The person just proved it is them again on this session (``second_factor``: with a code too)."""
    record.reauthenticated_at = clock.utcnow()
    if second_factor:
        record.second_factor_at = record.reauthenticated_at
    db.session.flush()


def mark_second_factor(record):
    """This session just passed a second factor in its browser (the code that turned 2FA on)."""
    record.second_factor_at = clock.utcnow()
    db.session.flush()


def _within_window(moment):
    window = timedelta(minutes=current_app.config["REAUTH_MINUTES"])
    return moment is not None and clock.utcnow() - moment <= window


def is_recently_reauthenticated(record):
    """True when ``record`` proved every factor of its account within ``REAUTH_MINUTES``.

    With 2FA on that means the password and a second factor: a sign-in that
    skipped the code on a trusted browser is not a re-authentication.
    """
    if record is None or not _within_window(record.reauthenticated_at):
        return False
    return not record.user.has_2fa or _within_window(record.second_factor_at)


def purge_expired_sessions():
    """Delete sessions idle past ``SESSION_IDLE_DAYS``; returns how many went."""
    return _delete(UserSession.last_seen_at < idle_cutoff(clock.utcnow()))
