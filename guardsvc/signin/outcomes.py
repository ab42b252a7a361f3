"""What a sign-in attempt comes to: its row in the login history, the alert, the refusal, the throttle.

The steps of signing in (signin/service.py, signin/email_step.py) end through
``succeed`` or ``refuse``; both return a SignInOutcome instead of raising, so the
door can commit the history row even when the attempt is refused.
"""
import hashlib
from dataclasses import dataclass
from datetime import timedelta

from flask import current_app

from guardsvc.accounts import notices
from guardsvc.accounts.models import User
from guardsvc.extensions import db
from guardsvc.metrics import counters as metrics
from guardsvc.places.geoip import locate
from guardsvc.signin import verification
from guardsvc.signin.alerts import queue_signin_alert
from guardsvc.signin.known_browsers import forget_known, is_known_browser, throttle_lane
from guardsvc.signin.models import SUCCESS_RESULTS, LoginEvent
from guardsvc.signin.throttle import account_email, check_account_throttle
from guardsvc.storage import clock
from guardsvc.web.errors import GuardError, TooManyAttempts
from guardsvc.web.identity import digest

SECOND_FACTOR_RESULTS = {"totp": "2fa_passed", "recovery": "recovery_code_used"}
# A sign-in that proved every factor of its account (so its session starts re-authenticated).
FULLY_PROVEN_RESULTS = frozenset({"success", "email_verified", *SECOND_FACTOR_RESULTS.values()})
EMAIL_CODE_REQUIRED, WRONG_EMAIL_CODE = "email_code_required", "wrong_email_code"


@dataclass
class SignInOutcome:
    """What an attempt came to: the history row, the user (when known) and any refusal."""

    event: LoginEvent
    user: User | None = None
    error: GuardError | None = None
    token: str | None = None
    token_record: object = None
    # The half-finished sign-in no longer holds (account changed): start again at the password.
    restart: bool = False
    # A new trust secret for this browser ("trust this device" at the code step); the door sends it.
    trust_secret: str | None = None
    # The right password is on the breached-password list: the owner is asked to change it.
    password_breached: bool = False
    # Why an e-mailed code is asked for (signin/verification.py), while one is.
    email_code_reason: str | None = None

    @property
    def result(self):
        return self.event.result

    @property
    def signed_in(self):
        return self.event.result in SUCCESS_RESULTS

    @property
    def needs_code(self):
        return self.event.result == "code_required"

    @property
    def needs_email_code(self):
        return self.event.result == EMAIL_CODE_REQUIRED

    @property
    def alerted(self):
        return self.event.alerted

    @property
    def reauthenticates(self):
        """Every factor of the account was proved (not a code step skipped on a trusted browser)."""
        return self.event.result in FULLY_PROVEN_RESULTS

    @property
    def passed_second_factor(self):
        return self.event.result in SECOND_FACTOR_RESULTS.values()


def record_attempt(result, client, email, user=None, *, alerted=False, lane=None, place=None):
    """Add one row to the login history (in the caller's transaction); ``lane``: signin.throttle.

    ``place``: where the address is (guardsvc.places), when the caller located it already.
    """
    place = place or locate(client.ip_address)
    event = LoginEvent(created_at=clock.utcnow(), user_id=user.id if user else None,
                       country=place.country if place else None, city=place.city if place else None,
                       email=account_email(email), ip_address=client.ip_address,
                       device_id=client.device_id, user_agent=client.user_agent, result=result,
                       alerted=alerted, known_browser=lane is not None,
                       device_cookie_hash=digest(client.device_cookie) if client.device_cookie else None)
    db.session.add(event)
    db.session.flush()
    metrics.SIGN_INS.labels(result).inc()
    if user is not None and result in SUCCESS_RESULTS:
        forget_known(user)
        verification.remember_sign_in(user, place, event.created_at)
    return event


def needs_alert(user, client):
    """Alert on a sign-in from a browser that is not known (never on the account's first sign-in ever)."""
    if is_known_browser(user, client):
        return False
    return verification.has_signed_in(user)


def succeed(user, client, email, result, novelty=None):
    """Record a successful sign-in; alert the owner when the browser is not known (naming the place)."""
    novelty = novelty or verification.judge_place(user, client)
    alert = needs_alert(user, client)
    event = record_attempt(result, client, email, user, alerted=alert, place=novelty.place)
    if alert:
        queue_signin_alert(user, event, novelty)
    return SignInOutcome(event, user)


def refuse(result, client, email, user, error):
    # The refusal is on record (history row, used code step): the request keeps it.
    error.keeps_writes = True
    lane = throttle_lane(user, client) if user is not None else None
    return SignInOutcome(record_attempt(result, client, email, user, lane=lane), user, error)


def throttled(failure, client, email, user, *, exact=True):
    """A refusal recorded as ``locked`` when the account has no ``failure`` left, else None.

    ``exact=False``: the first look, before any password hash runs. When the
    count of every client but the owner's known browsers is spent, the owner
    gets one notice per window.
    """
    lane = throttle_lane(user, client) if user is not None else None
    try:
        check_account_throttle(failure, user=user, email=email, lane=lane, exact=exact)
    except TooManyAttempts as error:
        if user is not None and lane is None:
            _notify_lock_once(user, client)
        return refuse("locked", client, email, user, error)
    return None


def _notify_lock_once(user, client):
    window = timedelta(minutes=current_app.config["ACCOUNT_FAILURE_WINDOW_MINUTES"])
    notices.account_locked_once(user, client=client, since=clock.utcnow() - window)


def account_stamp(user):
    """A short fingerprint of the account's password hash: it changes when the password does."""
    return hashlib.sha256(user.password_hash.encode("utf-8")).hexdigest()[:16]


def still_pending(user_id, stamp, *, needs_2fa=True):
    """The account that passed the password step, unless it changed since (deactivated, password changed,
    2FA turned off for a code step, or on for an e-mailed-code step)."""
    user = db.session.get(User, user_id)
    if user is None or not user.is_active or account_stamp(user) != stamp or user.has_2fa != needs_2fa:
        return None
    return user
