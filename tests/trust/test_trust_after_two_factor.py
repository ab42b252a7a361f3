"""The first hour of trust: right after turning 2FA on, what was typed before a confirmation, one entry per browser."""
from urllib.parse import urlsplit

from sqlalchemy import select

from guardsvc.accounts.models import User
from guardsvc.extensions import db
from guardsvc.trust.models import TrustedIp
from tests.support.factories import PASSWORD
from tests.support.pages_support import csrf_token, sign_in, sign_in_session, text_of
from tests.support.signin_support import browser_client, enable_2fa, totp_code

CONFIRM = "/akun/konfirmasi"


def entries(app, user):
    with app.app_context():
        return [(record.device_name, record.ip_address, record.secret_hash is not None)
                for record in db.session.scalars(select(TrustedIp).where(TrustedIp.user_id == user.id))]


def pending_secret(app, user):
    with app.app_context():
        return db.session.get(User, user.id).totp_secret


def test_the_code_that_turned_2fa_on_earns_trust_in_that_browser_at_once(app, make_user):
    user = make_user()
    browser = browser_client(app)
    sign_in(browser, user)  # the password alone: no second factor yet
    token = csrf_token(browser, "/akun")
    assert browser.post("/akun/dua-langkah/mulai", data={"csrf_token": token}).status_code == 303
    turned_on = browser.post("/akun/dua-langkah/aktifkan",
                             data={"csrf_token": token, "code": totp_code(pending_secret(app, user))})
    assert turned_on.status_code == 201 and "Simpan kode pemulihan" in text_of(turned_on)

    trusted = browser.post("/akun/perangkat", data={"csrf_token": token, "device_name": "Laptop Rina"})
    assert trusted.status_code == 303 and trusted.headers["Location"] == "/akun#perangkat"
    assert "guardsvc_trust=" in trusted.headers["Set-Cookie"]
    assert entries(app, user) == [("Laptop Rina", "203.0.113.7", True)]


def test_turning_2fa_on_counts_only_in_the_browser_that_did_it(app, make_user):
    user = make_user()
    other = browser_client(app)
    sign_in(other, user)  # signed in with the password before 2FA was on
    browser = browser_client(app)
    sign_in(browser, user)
    token = csrf_token(browser, "/akun")
    browser.post("/akun/dua-langkah/mulai", data={"csrf_token": token})
    browser.post("/akun/dua-langkah/aktifkan", data={"csrf_token": token, "code": totp_code(pending_secret(app, user))})
    refused = other.post("/akun/perangkat", data={"csrf_token": csrf_token(other, "/akun"), "device_name": "Lain"})
    assert urlsplit(refused.headers["Location"]).path == CONFIRM
    assert entries(app, user) == []


def test_the_typed_name_waits_through_the_confirmation(app, make_user):
    user = make_user()
    secret, _ = enable_2fa(app, user)
    browser = browser_client(app)
    token = sign_in_session(browser, user, reauthenticated=False)
    detour = browser.post("/akun/perangkat", data={"csrf_token": token, "device_name": "Laptop <Rina>"})
    assert urlsplit(detour.headers["Location"]).path == CONFIRM
    back = browser.post(CONFIRM, data={"csrf_token": token, "password": PASSWORD, "code": totp_code(secret),
                                       "next": "/akun#perangkat"})
    assert back.status_code == 303 and back.headers["Location"] == "/akun#perangkat"
    page = text_of(browser.get("/akun"))
    assert 'value="Laptop &lt;Rina&gt;"' in page and "Ada isian yang perlu diperbaiki" not in page
    assert 'value="Laptop &lt;Rina&gt;"' not in text_of(browser.get("/akun"))  # shown once, then forgotten
    assert browser.post("/akun/perangkat", data={"csrf_token": token, "device_name": "Laptop <Rina>"}
                        ).status_code == 303
    assert entries(app, user) == [("Laptop <Rina>", "203.0.113.7", True)]


def test_a_token_name_waits_through_the_confirmation_too(app, make_user):
    user = make_user()
    browser = app.test_client()
    token = sign_in_session(browser, user, reauthenticated=False)
    browser.post("/akun/token", data={"csrf_token": token, "name": "Skrip laporan"})
    browser.post(CONFIRM, data={"csrf_token": token, "password": PASSWORD, "next": "/akun#token"})
    page = text_of(browser.get("/akun"))
    assert 'value="Skrip laporan"' in page and 'id="nama-token"' in page


def test_one_browser_is_one_entry_trusting_again_renames_it(app, make_user):
    user = make_user()
    secret, _ = enable_2fa(app, user)
    browser = browser_client(app)
    sign_in(browser, user)
    code_step = browser.post("/masuk/kode", data={"csrf_token": csrf_token(browser, "/masuk/kode"),
                                                  "code": totp_code(secret), "trust": "1"})
    assert code_step.status_code == 303
    assert entries(app, user) == [("Chrome di Windows", "203.0.113.7", True)]
    page = text_of(browser.get("/akun"))
    assert "bernama" in page and "Chrome di Windows" in page and 'id="percayai"' not in page
    token = csrf_token(browser, "/akun")
    assert browser.post("/akun/perangkat", data={"csrf_token": token, "device_name": "Laptop Rina"}
                        ).status_code == 303
    assert entries(app, user) == [("Laptop Rina", "203.0.113.7", True)]
