"""Tokens are for the API only: pages and forms ignore Authorization, and only a valid token waives CSRF."""
import pytest
from sqlalchemy import func, select

from guardsvc.accounts.models import ApiToken, User
from guardsvc.extensions import db
from guardsvc.sessions.models import UserSession
from guardsvc.trust.models import TrustedIp
from tests.support.pages_support import csrf_token, sign_in
from tests.support.signin_support import enable_2fa, totp_code

JSON = {"Accept": "application/json"}
SAVE_MY_IP = "/api/security/trusted-ips/save-my-ip"
SENSITIVE_FORMS = {
    "/akun/token": {"name": "curian"},
    "/akun/dua-langkah/mulai": {},
    "/akun/dua-langkah/aktifkan": {"code": "000000"},
    "/akun/dua-langkah/kode-pemulihan": {},
    "/akun/dua-langkah/nonaktifkan": {},
    "/akun/keluar-semua": {},
    "/akun/sesi/akhiri-lainnya": {},
    "/akun/kata-sandi": {"new_password": "kata sandi curian panjang", "confirmation": "kata sandi curian panjang",
                         "revoke_tokens": "1", "revoke_devices": "1"},
    "/akun/perangkat": {"device_name": "Laptop pencuri"},
}


def account_state(app, user):
    """Everything a forged form post could change about the account."""
    with app.app_context():
        record = db.session.get(User, user.id)
        count = lambda model, *where: db.session.scalar(  # noqa: E731
            select(func.count()).select_from(model).where(model.user_id == user.id, *where))
        return {"password": record.password_hash, "totp_secret": record.totp_secret,
                "totp_on": record.totp_enabled_at, "tokens": count(ApiToken, ApiToken.revoked_at.is_(None)),
                "sessions": count(UserSession), "devices": count(TrustedIp)}


def refused(response):
    """CSRF failure, or the sign-in redirect: never a success."""
    if response.status_code == 400:
        return True
    return response.status_code == 302 and "/masuk" in response.headers["Location"]


@pytest.mark.parametrize("path", sorted(SENSITIVE_FORMS))
@pytest.mark.parametrize("with_csrf", [False, True], ids=["no-csrf", "anonymous-csrf"])
def test_a_leaked_token_drives_no_form(app, make_user, make_token, path, with_csrf):
    user = make_user()
    enable_2fa(app, user) if path.endswith(("kode-pemulihan", "nonaktifkan")) else None
    headers = {"Authorization": f"Bearer {make_token(user)}"}
    owner = app.test_client()
    sign_in(owner, user)  # the owner's own session must survive the attempt
    attacker = app.test_client()
    form = dict(SENSITIVE_FORMS[path])
    if with_csrf:
        form["csrf_token"] = csrf_token(attacker, "/banding")
    before = account_state(app, user)
    response = attacker.post(path, data=form, headers=headers)
    assert refused(response), (response.status_code, response.get_data(as_text=True)[:300])
    assert account_state(app, user) == before
    assert owner.get("/akun").status_code == 200


def test_two_step_enrolment_cannot_be_confirmed_with_a_token(app, make_user, make_token):
    user = make_user()
    owner = app.test_client()
    sign_in(owner, user)
    token = csrf_token(owner, "/akun")
    assert owner.post("/akun/dua-langkah/mulai", data={"csrf_token": token}).status_code == 303
    with app.app_context():
        secret = db.session.get(User, user.id).totp_secret
    attacker = app.test_client()
    response = attacker.post("/akun/dua-langkah/aktifkan", data={"code": totp_code(secret)},
                             headers={"Authorization": f"Bearer {make_token(user)}"})
    assert refused(response)
    assert account_state(app, user)["totp_on"] is None


def test_pages_ignore_the_token(client, bearer):
    _, headers = bearer()
    response = client.get("/akun", headers=headers)
    assert response.status_code == 302 and "/masuk" in response.headers["Location"]


def test_the_api_still_takes_the_token_without_csrf(client, bearer):
    _, headers = bearer()
    assert client.get("/api/auth/tokens", headers={**JSON, **headers}).status_code == 200
    assert client.post(SAVE_MY_IP, json={}, headers={**JSON, **headers, "X-Device-Id": "skrip"}).status_code == 201


@pytest.mark.parametrize("junk", ["Bearer gsv_bukan-token-yang-sah", "Bearer ", "Basic dXNlcjpwYXNz"])
def test_a_cookie_with_a_junk_authorization_header_still_needs_csrf(app, make_user, junk):
    user = make_user()
    browser = app.test_client()
    sign_in(browser, user)
    headers = {**JSON, "Authorization": junk, "X-Device-Id": "laptop"}
    assert browser.post(SAVE_MY_IP, json={}, headers=headers).status_code == 400
    assert account_state(app, user)["devices"] == 0
    token = csrf_token(browser, "/akun")
    assert browser.post(SAVE_MY_IP, json={}, headers={**headers, "X-CSRFToken": token}).status_code == 201


def test_a_junk_authorization_header_on_a_form_post_waives_no_csrf(app, make_user):
    user = make_user()
    browser = app.test_client()
    sign_in(browser, user)
    response = browser.post("/akun/sesi/akhiri-lainnya", headers={"Authorization": "Bearer gsv_sampah"})
    assert response.status_code == 400


def test_a_valid_token_wins_over_the_cookie_on_the_api(app, make_user, make_token):
    cookie_user, token_user = make_user(), make_user()
    browser = app.test_client()
    sign_in(browser, cookie_user)
    headers = {**JSON, "Authorization": f"Bearer {make_token(token_user)}", "X-Device-Id": "skrip"}
    assert browser.post(SAVE_MY_IP, json={}, headers=headers).status_code == 201
    assert account_state(app, token_user)["devices"] == 1 and account_state(app, cookie_user)["devices"] == 0
