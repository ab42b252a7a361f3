"""Helpers for tests of the e-mailed sign-in code: asking for tokens from a place, reading the code."""
import re

import pytest
from sqlalchemy import select, update

from guardsvc.extensions import db
from guardsvc.outbox.models import OutboxMessage
from guardsvc.signin.models import LoginEvent, SignInCountry
from guardsvc.storage import clock
from tests.support.factories import PASSWORD
from tests.support.geoip_support import JAKARTA
from tests.support.signin_support import BROWSER_UA, TOKENS

CODE_LINE = re.compile(r"^ {4}([0-9]{8})\r?$", re.MULTILINE)


def token_from(client, email, ip, *, email_code=None, password=PASSWORD, language=None, device="laptop-1"):
    """``POST /api/auth/tokens`` from ``ip`` (the test client's peer address)."""
    body = {"email": email, "password": password}
    if email_code is not None:
        body["email_code"] = email_code
    headers = {"Accept": "application/json", "User-Agent": BROWSER_UA, "X-Device-Id": device}
    if language:
        headers["Accept-Language"] = language
    return client.post(TOKENS, json=body, headers=headers, environ_base={"REMOTE_ADDR": ip})


def code_mails(app, email):
    """The e-mailed sign-in codes queued for ``email``, oldest first: ``[(subject, text, code), ...]``."""
    with app.app_context():
        rows = db.session.scalars(select(OutboxMessage).where(
            OutboxMessage.recipient == email, OutboxMessage.kind == "signin_code").order_by(OutboxMessage.id)).all()
        return [(row.subject, row.body_text, code_in(row.body_text)) for row in rows]


def code_in(text):
    match = CODE_LINE.search(text)
    return match.group(1) if match else None


def last_code(app, email):
    return code_mails(app, email)[-1][2]


def age_history(app, user, **delta):
    """Move every sign-in of ``user`` (and the countries kept from them) back in time by ``delta`` (timedelta keywords)."""
    from datetime import timedelta

    with app.app_context():
        for event in db.session.scalars(select(LoginEvent).where(LoginEvent.user_id == user.id)):
            event.created_at = event.created_at - timedelta(**delta)
        for country in db.session.scalars(select(SignInCountry).where(SignInCountry.user_id == user.id)):
            country.last_signed_in_at = country.last_signed_in_at - timedelta(**delta)
        db.session.commit()


def results(app, user):
    with app.app_context():
        return db.session.scalars(select(LoginEvent.result).where(LoginEvent.user_id == user.id)
                                  .order_by(LoginEvent.id)).all()


def expire_codes(app):
    from guardsvc.signin.models import EmailVerification

    with app.app_context():
        db.session.execute(update(EmailVerification).values(expires_at=clock.utcnow()))
        db.session.commit()


@pytest.fixture()
def jakartan(app, client, make_user):
    """An account without 2FA that signed in from Jakarta yesterday."""
    user = make_user(email="sari@example.com", name="Sari")
    assert token_from(client, user.email, JAKARTA).status_code == 201
    age_history(app, user, days=1)
    return user
