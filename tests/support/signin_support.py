"""Helpers for sign-in tests: turning on 2FA, computing codes, asking for tokens."""
import calendar

import pyotp
import pytest

from guardsvc.storage import clock
from guardsvc.accounts.models import User
from guardsvc.extensions import db
from guardsvc.twofactor import service as twofactor
from tests.support.factories import PASSWORD

TOKENS = "/api/auth/tokens"
BROWSER_UA = ("Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) "
              "Chrome/124.0 Safari/537.36")
PHONE_UA = ("Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) "
            "Chrome/124.0 Mobile Safari/537.36")


def browser_client(app, ip="203.0.113.7"):
    """A test client that looks like a browser on one network."""
    client = app.test_client()
    client.environ_base.update({"HTTP_USER_AGENT": BROWSER_UA, "REMOTE_ADDR": ip})
    return client


def totp_code(secret, steps=0):
    """The code of the step ``steps`` away from the service's clock."""
    now = calendar.timegm(clock.utcnow().utctimetuple())
    return pyotp.TOTP(secret).at(now + steps * twofactor.STEP_SECONDS)


def enable_2fa(app, user):
    """Turn 2FA on for ``user``; returns ``(secret, recovery_codes)``."""
    with app.app_context():
        record = db.session.get(User, user.id)
        enrolment = twofactor.begin_enrolment(record)
        codes = twofactor.confirm_enrolment(record, totp_code(enrolment.secret), client=None)
        # Forget the step used to confirm, so a test may use the current code once more.
        record.totp_last_step = None
        db.session.commit()
        return enrolment.secret, codes


def request_token(client, email, password=PASSWORD, *, otp=None, ip="198.51.100.20",
                  device="laptop-1", user_agent=BROWSER_UA):
    """``POST /api/auth/tokens`` as a given client."""
    body = {"email": email, "password": password}
    if otp is not None:
        body["otp"] = otp
    headers = {"Accept": "application/json", "User-Agent": user_agent}
    if device:
        headers["X-Device-Id"] = device
    return client.post(TOKENS, json=body, headers=headers, environ_base={"REMOTE_ADDR": ip})


@pytest.fixture()
def rate_limits_off(app, monkeypatch):
    """Keep rate limits out of tests that sign in many times from one IP, whatever the settings say."""
    from guardsvc.ratelimits.limits import EXTENSION

    monkeypatch.setattr(app.extensions[EXTENSION], "enabled", False)
