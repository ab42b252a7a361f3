"""Browsers an account knows, by what the service gave them (never by a device id or an IP).

A browser is known to an account when it presents the trust secret of one of
the account's live trusted records, or the service-issued device cookie of one
of its earlier successful sign-ins. Known browsers skip the new-device alert,
and their wrong passwords and codes are counted apart from every other client's,
so a stranger's guesses cannot lock the owner out (OWASP's device cookies).
"""
from sqlalchemy import select

from guardsvc.extensions import db
from guardsvc.signin.models import SUCCESS_RESULTS, LoginEvent
from guardsvc.trust.signin_trust import presents_trust_secret
from guardsvc.web.identity import digest


def successful_sign_ins(user):
    return select(LoginEvent.id).where(LoginEvent.user_id == user.id, LoginEvent.result.in_(SUCCESS_RESULTS))


_CACHE = "guardsvc.known_browsers"


def is_known_browser(user, client):
    """Does ``client`` present the trust secret or an earlier sign-in's device cookie of ``user``?

    One attempt asks several times (the throttle's first look, its exact count,
    the alert): the answer is kept for the session's unit of work, until a
    successful sign-in is recorded (``forget_known``).
    """
    if user is None:
        return False
    cache = db.session.info.setdefault(_CACHE, {})
    key = (user.id, client.device_cookie, client.trust_secret)
    if key not in cache:
        cache[key] = _recognise(user, client)
    return cache[key]


def forget_known(user):
    """A sign-in of ``user`` was just recorded: what its browsers are may have changed."""
    cache = db.session.info.get(_CACHE, {})
    for key in [key for key in cache if key[0] == user.id]:
        del cache[key]


def _recognise(user, client):
    if presents_trust_secret(user.id, client.trust_secret):
        return True
    if not client.device_cookie:
        return False
    query = successful_sign_ins(user).where(LoginEvent.device_cookie_hash == digest(client.device_cookie))
    return db.session.scalar(query.limit(1)) is not None


def throttle_lane(user, client):
    """Whose failures an attempt is counted with: this known browser's own (its device cookie's
    hash), or None for every other client of the account."""
    if client.device_cookie and is_known_browser(user, client):
        return digest(client.device_cookie)
    return None
