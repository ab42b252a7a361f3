"""Account throttles: wrong passwords and wrong codes per account, counted in the database.

The login history is the record: every worker on every machine reads the same
rows, so the allowance holds however attempts are spread over processes,
addresses or replays of a half-finished sign-in. An account is its user id when
the e-mail names one, else the e-mail itself, so an unknown e-mail is throttled
exactly like an existing account and the answers tell nothing about which
accounts exist. A browser the account knows (signin/known_browsers.py) has a
count of its own, so strangers using up the account's allowance lock out
everyone but the owner's browsers; a completed password reset starts every
count afresh (``User.failures_cleared_at``). Only the failures count (``wrong_password`` / ``wrong_code``;
a wrong e-mailed sign-in code counts as a wrong password); the ``locked`` rows a
throttle writes do not, so the throttle ends when the window has passed. The
count is never skipped: a database that cannot answer
fails the request, it never lets the guess through.
"""
import hashlib
import math
from datetime import timedelta

from flask import current_app
from sqlalchemy import and_, select, text

from guardsvc.storage import clock
from guardsvc.web.errors import TooManyAttempts
from guardsvc.extensions import db
from guardsvc.signin.models import EMAIL_MAX, LoginEvent

WRONG_PASSWORD = "wrong_password"
WRONG_CODE = "wrong_code"
_ALLOWANCE = {WRONG_PASSWORD: "ACCOUNT_PASSWORD_FAILURES", WRONG_CODE: "ACCOUNT_CODE_FAILURES"}
# The history results each allowance counts: a wrong e-mailed sign-in code (signin/verification.py)
# completes a password step, so it is counted like a wrong password.
COUNTED = {WRONG_PASSWORD: (WRONG_PASSWORD, "wrong_email_code"), WRONG_CODE: (WRONG_CODE,)}


def account_email(email):
    """The e-mail as the login history stores it (the account key of an unknown e-mail)."""
    return (email if isinstance(email, str) else "").strip().lower()[:EMAIL_MAX]


def check_account_throttle(failure, *, user=None, email="", lane=None, exact=True):
    """Raise TooManyAttempts (429 with Retry-After) when the account has no ``failure`` left.

    ``failure`` is ``WRONG_PASSWORD`` or ``WRONG_CODE``. ``user`` is the account
    when one is known; without it the rows of ``email`` count. Call it before
    acting on the secret (a slow password hash is best checked before, so the
    account's lock is not held across it), and record a failed check as a
    ``failure`` row of the login history (``record_attempt``) in the same transaction.
    ``lane``: the known browser's device-cookie hash (its own count), None for
    everyone else. ``exact=False`` reads the count without the account's lock:
    the cheap first look that refuses before any password hash runs.
    """
    config = current_app.config
    allowance = config[_ALLOWANCE[failure]]
    window = timedelta(minutes=config["ACCOUNT_FAILURE_WINDOW_MINUTES"])
    now = clock.utcnow()
    account = (LoginEvent.user_id == user.id) if user is not None else (
        LoginEvent.email == account_email(email))
    whose = (and_(LoginEvent.known_browser.is_(True), LoginEvent.device_cookie_hash == lane) if lane
             else LoginEvent.known_browser.is_(False))
    since = now - window
    if user is not None and user.failures_cleared_at is not None:
        since = max(since, user.failures_cleared_at)
    if exact:
        _serialize(f"{user.id}" if user is not None else f"e:{account_email(email)}")
    newest = db.session.scalars(
        select(LoginEvent.created_at).where(account, whose, LoginEvent.result.in_(COUNTED[failure]),
                                            LoginEvent.created_at > since)
        .order_by(LoginEvent.created_at.desc()).limit(allowance)).all()
    if allowance > 0 and len(newest) < allowance:
        return
    # The allowance comes back when the oldest failure still counted leaves the window.
    frees_at = newest[-1] + window if newest else now
    raise TooManyAttempts(max(1, math.ceil((frees_at - now).total_seconds())))


def _serialize(account):
    """Let one attempt per account count and record at a time, until the request commits.

    Without it, concurrent guesses on several workers could all read the same
    count and each pass. PostgreSQL takes a lock of this account only. SQLite
    has one writer at a time: a write that changes nothing takes that lock
    now instead of at the history row, so concurrent sign-ins queue (for the
    count and the history row each, never a password hash) and every count is exact.
    """
    dialect = db.session.get_bind().dialect.name
    if dialect == "postgresql":
        digest = hashlib.sha256(f"guardsvc-signin:{account}".encode("utf-8")).digest()
        db.session.execute(text("SELECT pg_advisory_xact_lock(:key)"),
                           {"key": int.from_bytes(digest[:8], "big", signed=True)})
    elif dialect == "sqlite":
        db.session.execute(text("UPDATE login_events SET id = id WHERE 0"))
