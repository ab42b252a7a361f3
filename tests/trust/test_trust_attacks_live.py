"""Replayed against a real gunicorn: trust that a client could once simply claim.

A colleague behind the same office address knows the password and the
trusted browser's device id; a token holder knows the password; a browser
signed in on a trusted device tries the sensitive changes. Each attack worked
when sign-in trust rested on a device id.
"""
from datetime import timedelta

import pytest
import requests
from sqlalchemy import select, update

from guardsvc.accounts.models import User
from guardsvc.extensions import db
from guardsvc.outbox.models import OutboxMessage
from guardsvc.sessions.models import UserSession
from guardsvc.storage import clock
from tests.support.factories import PASSWORD
from tests.support.pages_support import CSRF_META
from tests.support.signin_support import enable_2fa, totp_code

pytestmark = pytest.mark.live
UA = {"User-Agent": "Mozilla/5.0 (X11; Linux x86_64) Chrome/124.0 Safari/537.36"}


def token_of(browser, server, path):
    return CSRF_META.search(browser.get(server.url + path, timeout=30).text).group(1)


def password_step(browser, server, user, headers=None):
    """The /masuk form; returns where it sends the browser next."""
    answer = browser.post(server.url + "/masuk", data={"csrf_token": token_of(browser, server, "/masuk"),
                                                       "email": user.email, "password": PASSWORD},
                          headers={**UA, **(headers or {})}, allow_redirects=False, timeout=30)
    assert answer.status_code == 303, answer.text[:300]
    return answer.headers["Location"]


def code_step(browser, server, code, trust=False):
    form = {"csrf_token": token_of(browser, server, "/masuk/kode"), "code": code, **({"trust": "1"} if trust else {})}
    answer = browser.post(server.url + "/masuk/kode", data=form, headers=UA, allow_redirects=False, timeout=30)
    assert answer.status_code == 303 and "/masuk" not in answer.headers["Location"], answer.text[:300]


def sign_out(browser, server):
    browser.post(server.url + "/keluar", data={"csrf_token": token_of(browser, server, "/akun")},
                 headers=UA, allow_redirects=False, timeout=30)


def alerts(app, email):
    with app.app_context():
        return db.session.scalars(select(OutboxMessage.id).where(OutboxMessage.recipient == email,
                                                                 OutboxMessage.kind == "signin_alert")).all()


@pytest.fixture()
def trusted_owner(app, live_server, make_user):
    """A 2FA account whose browser trusted itself with a code; returns (user, totp secret, browser)."""
    user = make_user()
    secret, _ = enable_2fa(app, user)
    owner = requests.Session()
    assert "/masuk/kode" in password_step(owner, live_server, user)
    code_step(owner, live_server, totp_code(secret), trust=True)
    assert owner.cookies.get("guardsvc_trust")
    sign_out(owner, live_server)
    return user, secret, owner


def test_the_device_id_of_a_trusted_browser_skips_nothing(live_server, trusted_owner):
    user, _, owner = trusted_owner
    assert "/masuk/kode" not in password_step(owner, live_server, user)  # the owner: no code
    device = owner.cookies["guardsvc_device"]
    colleague = requests.Session()
    colleague.cookies.set("guardsvc_device", device)
    assert "/masuk/kode" in password_step(colleague, live_server, user, headers={"X-Device-Id": device})


def test_a_device_id_header_does_not_silence_the_new_device_alert(app, live_server, make_user):
    user = make_user()
    owner = requests.Session()
    password_step(owner, live_server, user)
    device = owner.cookies["guardsvc_device"]
    assert alerts(app, user.email) == []
    colleague = requests.Session()
    password_step(colleague, live_server, user, headers={"X-Device-Id": device})
    assert len(alerts(app, user.email)) == 1


def test_a_tokens_save_my_ip_does_not_skip_the_code_on_the_web(app, live_server, make_user):
    user = make_user()
    secret, _ = enable_2fa(app, user)
    api = requests.post(live_server.url + "/api/auth/tokens", timeout=30,
                        json={"email": user.email, "password": PASSWORD, "otp": totp_code(secret)},
                        headers={"X-Device-Id": "laptop-kantor"})
    assert api.status_code == 201
    saved = requests.post(live_server.url + "/api/security/trusted-ips/save-my-ip", json={}, timeout=30,
                          headers={"Authorization": f"Bearer {api.json()['token']}", "X-Device-Id": "laptop-kantor"})
    assert saved.status_code == 201 and "guardsvc_trust" not in saved.cookies
    browser = requests.Session()
    browser.cookies.set("guardsvc_device", "laptop-kantor")
    assert "/masuk/kode" in password_step(browser, live_server, user, headers={"X-Device-Id": "laptop-kantor"})


def test_a_sign_in_that_skipped_the_code_cannot_turn_2fa_off(app, live_server, trusted_owner):
    user, _, owner = trusted_owner
    assert "/masuk/kode" not in password_step(owner, live_server, user)
    answer = owner.post(live_server.url + "/akun/dua-langkah/nonaktifkan", headers=UA, timeout=30,
                        data={"csrf_token": token_of(owner, live_server, "/akun"), "password": PASSWORD},
                        allow_redirects=False)
    assert answer.status_code == 303 and "/akun/konfirmasi" in answer.headers["Location"]
    with app.app_context():
        assert db.session.get(User, user.id).has_2fa


def test_a_stale_reauthentication_cannot_save_my_ip_over_json(app, live_server, make_user):
    user = make_user()
    browser = requests.Session()
    password_step(browser, live_server, user)
    with app.app_context():
        db.session.execute(update(UserSession).where(UserSession.user_id == user.id)
                           .values(reauthenticated_at=clock.utcnow() - timedelta(minutes=30)))
        db.session.commit()
    answer = browser.post(live_server.url + "/api/security/trusted-ips/save-my-ip", json={}, timeout=30,
                          headers={**UA, "X-CSRFToken": token_of(browser, live_server, "/akun")})
    assert answer.status_code == 403 and answer.json()["success"] is False
