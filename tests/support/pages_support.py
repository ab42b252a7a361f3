"""Helpers for functional tests of the HTML pages (CSRF token, signing in)."""
import re

import pytest

from tests.support.factories import PASSWORD

CSRF_META = re.compile(r'<meta name="csrf-token" content="([^"]+)">')


def csrf_token(client, path="/"):
    """The CSRF token a page hands out (the test client keeps the session cookie)."""
    html = client.get(path).get_data(as_text=True)
    return CSRF_META.search(html).group(1)


def post_form(client, path, data=None, *, page="/", **kwargs):
    """POST a form the way a browser does, CSRF token included."""
    form = {"csrf_token": csrf_token(client, page), **(data or {})}
    return client.post(path, data=form, **kwargs)


def sign_in(client, user, password=PASSWORD):
    """Sign in through the /masuk form, password and all."""
    response = post_form(client, "/masuk", {"email": user.email, "password": password}, page="/masuk")
    assert response.status_code == 303, response.get_data(as_text=True)
    return response


def start_session_record(app, user, *, ip="127.0.0.1", user_agent=None, device=None, reauthenticated=True):
    """A committed server-side session for ``user``; returns ``(cookie_key, session_id)``."""
    from guardsvc.extensions import db
    from guardsvc.web.identity import Client
    from guardsvc.sessions import service as sessions

    with app.app_context():
        # As a sign-in that proved every factor (the code too, when the account has 2FA).
        plain, record = sessions.start_session(user, Client(ip, device, None, user_agent), second_factor=True)
        if not reauthenticated:
            record.reauthenticated_at = None
        db.session.commit()
        return plain, record.id


def sign_in_session(client, user, page="/banding", **session_fields):
    """Give ``client`` the session cookie /masuk would give ``user``; returns the session's CSRF token.

    Skips the password step (a real session record is made, as sign-in makes
    it), for tests about what a signed-in session may do. The token is read
    from ``page`` (one never blocked) the way a page script reads it.
    """
    plain, _ = start_session_record(client.application, user, **session_fields)
    with client.session_transaction() as session:
        session["_user_id"] = plain
        session["_fresh"] = True
    return csrf_token(client, page)


def text_of(response):
    return response.get_data(as_text=True)


@pytest.fixture()
def quick_passwords(app, monkeypatch):
    """Cheap password hashing, which is every test's default already; kept for modules that ask for it."""
    monkeypatch.setitem(app.config, "TESTING_CHEAP_PASSWORD_HASHES", True)
