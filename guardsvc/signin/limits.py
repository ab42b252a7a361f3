"""Rate limit on wrong second-step codes, per client IP and account, shared by every door.

Only wrong codes count (``deduct_when``), so a person who types the right code
is never slowed down; once the limit is reached every code is refused until
the window passes, even a right one, and the history records ``locked``.
"""
import logging

from flask import current_app, g

from guardsvc.errors import GuardError
from guardsvc.extensions import limiter
from guardsvc.identity import client_ip, current_client
from guardsvc.signin.service import record_lockout
from guardsvc.transaction import keep_writes

log = logging.getLogger(__name__)
SCOPE = "signin-code"


def remember_outcome(outcome):
    """Tell the limiter how this request's sign-in attempt ended."""
    g.signin_result = outcome.result
    return outcome


def _wrong_code(_response):
    return g.get("signin_result") == "wrong_code"


def code_attempt_limit(account_email):
    """Decorator for a view that checks codes; ``account_email()`` names the account tried."""
    def key():
        return f"{client_ip()}|{(account_email() or '').strip().lower()}"

    def on_breach(_limit):
        try:
            record_lockout(current_client(), account_email())
            keep_writes()  # the 429 answer keeps the recorded lockout
        except GuardError:  # malformed identity headers: the 429 still stands
            pass
        return None

    return limiter.shared_limit(lambda: current_app.config["RATELIMIT_CODE"], scope=SCOPE,
                                key_func=key, deduct_when=_wrong_code, on_breach=on_breach)
