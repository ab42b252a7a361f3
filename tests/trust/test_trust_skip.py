"""Sign-in trust is a secret the service gave the browser: device ids and addresses skip nothing.

The code step is skipped only for a browser that presents the trust secret of a
live trusted record of the account at that record's IP. It is earned with a
second factor in that browser, ends with the record's lifetime, revocation and
2FA turned off, and a sign-in that skipped the code is no re-authentication.
"""
from datetime import timedelta

import pytest
from sqlalchemy import select

from guardsvc.extensions import db
from guardsvc.storage import clock
from guardsvc.trust.models import TrustedIp
from guardsvc.web.identity import digest
from tests.support.pages_support import csrf_token, post_form, text_of
from tests.support.signin_support import BROWSER_UA, enable_2fa, rate_limits_off, totp_code  # noqa: F401

pytestmark = pytest.mark.usefixtures("rate_limits_off")
IP = "203.0.113.7"
SAVE = "/api/security/trusted-ips/save-my-ip"
CHECK = "/api/security/trusted-ips/check"


def browser(app, ip=IP):
    client = app.test_client()
    client.environ_base.update({"HTTP_USER_AGENT": BROWSER_UA, "REMOTE_ADDR": ip})
    return client


def password_step(client, user):
    from tests.support.factories import PASSWORD

    return post_form(client, "/masuk", {"email": user.email, "password": PASSWORD}, page="/masuk")


def signs_in_without_code(client, user):
    response = password_step(client, user)
    assert response.status_code == 303
    return "/masuk/kode" not in response.headers["Location"]


def sign_out(client):
    assert post_form(client, "/keluar", page="/akun").status_code == 303


def trust_cookie(app, client):
    cookie = client.get_cookie(app.config["TRUST_COOKIE_NAME"])
    return cookie.value if cookie else None


@pytest.fixture()
def owner(app, make_user):
    """A 2FA account whose browser (at IP) trusted itself at the code step; returns (user, secret, browser)."""
    user = make_user()
    secret, _ = enable_2fa(app, user)
    laptop = browser(app)
    assert not signs_in_without_code(laptop, user)
    done = post_form(laptop, "/masuk/kode", {"code": totp_code(secret), "trust": "1"}, page="/masuk")
    assert done.status_code == 303 and "/masuk" not in done.headers["Location"]
    return user, secret, laptop


def test_the_secret_is_a_strict_httponly_cookie_kept_only_as_a_hash(app, owner):
    user, _, laptop = owner
    plain = trust_cookie(app, laptop)
    assert plain and len(plain) >= 43  # 256 random bits, URL-safe
    with app.app_context():
        stored = db.session.scalars(select(TrustedIp.secret_hash).where(TrustedIp.user_id == user.id)).all()
    assert stored == [digest(plain)]


def test_the_cookie_flags(app, make_user, monkeypatch):
    monkeypatch.setitem(app.config, "SESSION_COOKIE_SECURE", True)
    user = make_user()
    secret, _ = enable_2fa(app, user)
    laptop = browser(app)
    password_step(laptop, user)
    done = post_form(laptop, "/masuk/kode", {"code": totp_code(secret), "trust": "1"}, page="/masuk")
    header = next(value for value in done.headers.getlist("Set-Cookie")
                  if value.startswith(app.config["TRUST_COOKIE_NAME"] + "="))
    assert "HttpOnly" in header and "SameSite=Strict" in header and "Secure" in header


def test_only_the_secret_at_the_records_ip_skips_the_code(app, owner):
    user, _, laptop = owner
    sign_out(laptop)
    assert signs_in_without_code(laptop, user)
    device = laptop.get_cookie(app.config["DEVICE_COOKIE_NAME"]).value
    # A colleague on the same address with the password and the device id, as a cookie and a header.
    colleague = browser(app)
    colleague.set_cookie(app.config["DEVICE_COOKIE_NAME"], device)
    colleague.environ_base["HTTP_X_DEVICE_ID"] = device
    assert not signs_in_without_code(colleague, user)
    # The owner's browser from another network: the secret holds only at the record's IP.
    elsewhere = browser(app, ip="192.0.2.80")
    elsewhere.set_cookie(app.config["TRUST_COOKIE_NAME"], trust_cookie(app, laptop))
    assert not signs_in_without_code(elsewhere, user)


def test_trust_ends_with_its_lifetime_revocation_and_2fa_off(app, owner, monkeypatch):
    user, _, laptop = owner
    sign_out(laptop)
    start = clock.utcnow()
    monkeypatch.setattr(clock, "utcnow", lambda: start + timedelta(days=90, minutes=1))
    assert not signs_in_without_code(laptop, user)
    monkeypatch.setattr(clock, "utcnow", lambda: start)
    with app.app_context():
        record = db.session.scalar(select(TrustedIp).where(TrustedIp.user_id == user.id))
        record.is_active = False
        db.session.commit()
    assert not signs_in_without_code(laptop, user)
    with app.app_context():
        from guardsvc.accounts.models import User
        from guardsvc.twofactor.service import reset_two_factor

        record = db.session.scalar(select(TrustedIp).where(TrustedIp.user_id == user.id))
        record.is_active = True
        reset_two_factor(db.session.get(User, user.id), actor=None, client=None)
        db.session.commit()
        assert db.session.scalar(select(TrustedIp.secret_hash).where(TrustedIp.user_id == user.id)) is None


def test_a_sign_in_that_skipped_the_code_is_no_reauthentication(app, owner):
    user, _, laptop = owner
    sign_out(laptop)
    assert signs_in_without_code(laptop, user)
    answer = post_form(laptop, "/akun/dua-langkah/nonaktifkan", {"password": "x"}, page="/akun")
    assert answer.status_code == 303 and "/akun/konfirmasi" in answer.headers["Location"]
    with app.app_context():
        from guardsvc.accounts.models import User

        assert db.session.get(User, user.id).has_2fa


def test_a_tokens_save_my_ip_gives_host_check_trust_only(app, client, bearer, make_user):
    user, token = bearer(role="user")
    _, admin = bearer(role="admin")
    response = client.post(SAVE, json={}, headers={**token, "X-Device-Id": "laptop-1"},
                           environ_base={"REMOTE_ADDR": IP})
    assert response.status_code == 201
    assert not any(value.startswith(app.config["TRUST_COOKIE_NAME"])
                   for value in response.headers.getlist("Set-Cookie"))
    query = {"user_id": user.id, "ip": IP, "device_id": "laptop-1"}
    assert client.get(CHECK, query_string=query, headers=admin).get_json()["data"]["trusted"] is True


def test_a_browser_saves_its_ip_only_when_recently_reauthenticated(app, make_user, monkeypatch):
    user = make_user()
    laptop = browser(app)
    assert signs_in_without_code(laptop, user)  # no 2FA: the password is every factor
    headers = {"X-CSRFToken": csrf_token(laptop, "/akun")}
    start = clock.utcnow()
    monkeypatch.setattr(clock, "utcnow", lambda: start + timedelta(minutes=11))
    stale = laptop.post(SAVE, json={}, headers=headers)
    assert stale.status_code == 403 and "/akun" in stale.get_json()["message"]
    monkeypatch.setattr(clock, "utcnow", lambda: start)
    fresh = laptop.post(SAVE, json={}, headers=headers)
    assert fresh.status_code == 201 and trust_cookie(app, laptop)


def test_listings_show_the_device_cookie_only_as_a_fingerprint(app, owner):
    user, _, laptop = owner
    device = laptop.get_cookie(app.config["DEVICE_COOKIE_NAME"]).value
    with app.app_context():
        record = db.session.scalar(select(TrustedIp).where(TrustedIp.user_id == user.id))
        assert record.device_id == device and record.device_issued
    page = text_of(laptop.get("/akun"))
    assert device not in page
    listing = laptop.get("/api/security/trusted-ips", headers={"X-CSRFToken": csrf_token(laptop, "/akun")})
    assert listing.get_json()["data"][0]["device_id"] == digest(device)[:8]
    logins = laptop.get("/api/auth/logins").get_json()["data"]
    assert device not in str(logins) and digest(device)[:8] in str(logins)
