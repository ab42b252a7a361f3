"""Per-IP rate limits of signing in, each one bucket shared by every door (API and pages).

They limit volume from one address. How many wrong passwords and codes an
account may take is counted in the database instead (``signin/throttle.py``),
so that it holds across workers, machines and addresses.

``sign_in_limit``: password attempts per client IP (``RATELIMIT_AUTH``), the
same quota whether they come to /masuk or to ``POST /api/auth/tokens``.

``code_limit``: wrong second-step codes per client IP (``RATELIMIT_CODE``).
Only wrong codes count (``counts_when``), so a person who types the right code
is never slowed down.
"""
from flask import g

from guardsvc.ratelimits.limits import Limit

sign_in_limit = Limit("RATELIMIT_AUTH", scope="sign-in")


def remember_outcome(outcome):
    """Tell the limiter how this request's sign-in attempt ended."""
    g.signin_result = outcome.result
    return outcome


def _wrong_code(_response):
    return g.get("signin_result") == "wrong_code"


code_limit = Limit("RATELIMIT_CODE", scope="signin-code", counts_when=_wrong_code)
