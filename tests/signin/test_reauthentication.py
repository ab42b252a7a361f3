"""Sensitive account changes need a recent re-authentication (the password, and a code with 2FA)."""
from datetime import timedelta
from urllib.parse import parse_qs, urlsplit

import pytest
from sqlalchemy import func, select

from guardsvc.storage import clock
from guardsvc.accounts import passwords
from guardsvc.accounts.models import ApiToken, User
from guardsvc.extensions import db
from guardsvc.signin.models import LoginEvent
from guardsvc.trust.models import TrustedIp
from tests.support.factories import PASSWORD
from tests.support.pages_support import csrf_token, sign_in, sign_in_session, text_of
from tests.support.signin_support import enable_2fa, totp_code

CONFIRM = "/akun/konfirmasi"
NEW_PASSWORD = "kata sandi baru yang panjang"


def stale_session(app, user):
    """A signed-in browser whose last re-authentication is long past; returns (client, csrf token)."""
    browser = app.test_client()
    return browser, sign_in_session(browser, user, reauthenticated=False)


def confirm_target(response):
    """The ``next`` of a redirect to the confirmation page (AssertionError for any other answer)."""
    assert response.status_code == 303, response.status_code
    location = urlsplit(response.headers["Location"])
    assert location.path == CONFIRM
    return parse_qs(location.query)["next"][0]


def confirm(browser, next_url, password=PASSWORD, code=None):
    form = {"csrf_token": csrf_token(browser, f"{CONFIRM}?next={next_url}"), "password": password,
            "next": next_url}
    if code is not None:
        form["code"] = code
    return browser.post(CONFIRM, data=form)


def count(app, model, *where):
    with app.app_context():
        return db.session.scalar(select(func.count()).select_from(model).where(*where))


def test_a_new_token_waits_for_the_password_then_works(app, make_user):
    user = make_user()
    browser, token = stale_session(app, user)
    response = browser.post("/akun/token", data={"csrf_token": token, "name": "skrip"})
    assert confirm_target(response) == "/akun#token"
    assert count(app, ApiToken) == 0
    page = text_of(browser.get(response.headers["Location"]))
    assert "Konfirmasi identitas" in page and 'name="code"' not in page
    back = confirm(browser, "/akun#token")
    assert back.status_code == 303 and back.headers["Location"] == "/akun#token"
    assert browser.post("/akun/token", data={"csrf_token": token, "name": "skrip"}).status_code == 303
    assert count(app, ApiToken) == 1


def test_a_fresh_sign_in_counts_until_the_window_passes(app, make_user, monkeypatch):
    user = make_user()
    browser = app.test_client()
    sign_in(browser, user)
    token = csrf_token(browser, "/akun")
    assert browser.post("/akun/token", data={"csrf_token": token}).status_code == 303
    later = clock.utcnow() + timedelta(minutes=app.config["REAUTH_MINUTES"], seconds=1)
    monkeypatch.setattr(clock, "utcnow", lambda: later)
    assert confirm_target(browser.post("/akun/token", data={"csrf_token": token})) == "/akun#token"
    assert count(app, ApiToken) == 1


def two_step_started(app, user):
    with app.app_context():
        return db.session.get(User, user.id).totp_secret is not None


def device_trusted(app, user):
    return count(app, TrustedIp, TrustedIp.user_id == user.id) == 1


def password_changed(app, user):
    with app.app_context():
        return passwords.verify_password(db.session.get(User, user.id).password_hash, NEW_PASSWORD)


@pytest.mark.parametrize("path, form, back, changed", [
    ("/akun/dua-langkah/mulai", {}, "/akun#dua-langkah", two_step_started),
    ("/akun/perangkat", {"device_name": "Laptop"}, "/akun#perangkat", device_trusted),
    ("/akun/kata-sandi", {"new_password": NEW_PASSWORD, "confirmation": NEW_PASSWORD}, "/akun/kata-sandi",
     password_changed),
])
def test_sensitive_changes_wait_for_the_confirmation(app, make_user, path, form, back, changed):
    user = make_user()
    browser, token = stale_session(app, user)
    assert confirm_target(browser.post(path, data={"csrf_token": token, **form})) == back
    assert not changed(app, user)
    assert confirm(browser, back).status_code == 303
    assert browser.post(path, data={"csrf_token": token, **form}).status_code == 303
    assert changed(app, user)


def test_the_password_form_itself_asks_for_the_confirmation_first(app, make_user):
    user = make_user()
    browser, _ = stale_session(app, user)
    assert confirm_target(browser.get("/akun/kata-sandi")) == "/akun/kata-sandi"


def test_two_step_accounts_confirm_with_a_code_and_wrong_ones_are_recorded(app, make_user):
    user = make_user()
    secret, _ = enable_2fa(app, user)
    browser, token = stale_session(app, user)
    assert 'name="code"' in text_of(browser.get(f"{CONFIRM}?next=/akun"))
    wrong_code = confirm(browser, "/akun", code="000000")
    assert wrong_code.status_code == 401 and "Kode verifikasi salah" in text_of(wrong_code)
    wrong_password = confirm(browser, "/akun", password="bukan-kata-sandinya", code=totp_code(secret))
    assert wrong_password.status_code == 401 and "Kata sandi salah" in text_of(wrong_password)
    with app.app_context():
        results = db.session.scalars(select(LoginEvent.result).where(LoginEvent.user_id == user.id)
                                     .order_by(LoginEvent.id)).all()
    assert results == ["wrong_code", "wrong_password"]
    assert confirm_target(browser.post("/akun/dua-langkah/kode-pemulihan", data={"csrf_token": token})) == \
        "/akun#dua-langkah"
    assert confirm(browser, "/akun", code=totp_code(secret)).status_code == 303
    regenerated = browser.post("/akun/dua-langkah/kode-pemulihan", data={"csrf_token": token, "password": PASSWORD})
    assert regenerated.status_code == 201


def test_a_wrong_password_is_recorded_and_confirms_nothing(app, make_user):
    user = make_user()
    browser, token = stale_session(app, user)
    response = confirm(browser, "/akun#token", password="salah-sama-sekali")
    assert response.status_code == 401 and "Kata sandi salah" in text_of(response)
    with app.app_context():
        event = db.session.scalar(select(LoginEvent).where(LoginEvent.user_id == user.id))
        assert event.result == "wrong_password" and event.email == user.email
    assert confirm_target(browser.post("/akun/token", data={"csrf_token": token})) == "/akun#token"


@pytest.mark.parametrize("target", ["https://contoh.example/curi", "//contoh.example/", "/\\contoh.example"])
def test_the_confirmation_only_goes_back_to_local_pages(app, make_user, target):
    user = make_user()
    browser, _ = stale_session(app, user)
    response = confirm(browser, target)
    assert response.status_code == 303 and response.headers["Location"] == "/akun"


def test_the_confirmation_needs_csrf_and_a_session(app, client, make_user):
    response = client.get(f"{CONFIRM}?next=/akun")
    assert response.status_code == 302 and "/masuk" in response.headers["Location"]
    user = make_user()
    browser, _ = stale_session(app, user)
    assert browser.post(CONFIRM, data={"password": PASSWORD}).status_code == 400


def test_wrong_confirmations_use_up_the_accounts_password_guesses(app, make_user):
    """Re-authentication is a password check like signing in: the account throttle counts it."""
    user = make_user()
    browser, _ = stale_session(app, user)
    limit = app.config["ACCOUNT_PASSWORD_FAILURES"]
    for _ in range(limit):
        assert confirm(browser, "/akun", password="bukan-kata-sandinya").status_code == 401
    refused = confirm(browser, "/akun")  # the right password, but no guesses are left
    assert refused.status_code == 429 and int(refused.headers["Retry-After"]) > 0
    assert count(app, LoginEvent, LoginEvent.user_id == user.id, LoginEvent.result == "locked") == 1
    # The same account cannot sign in either: the count lives with the account, not the door.
    assert app.test_client().post("/api/auth/tokens", json={"email": user.email, "password": PASSWORD}) \
        .status_code == 429
