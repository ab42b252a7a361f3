"""Sign-in through ``POST /api/auth/tokens``: 2FA, trusted devices, history and alert e-mails."""
import pytest
from sqlalchemy import select

from guardsvc.extensions import db
from guardsvc.outbox.service import messages_to
from guardsvc.signin.models import LoginEvent
from tests.support.signin_support import (PHONE_UA, enable_2fa, rate_limits_off,  # noqa: F401
                                  request_token, totp_code)

pytestmark = pytest.mark.usefixtures("rate_limits_off")


def history(app, email):
    with app.app_context():
        return [(e.result, e.ip_address, e.device_id) for e in db.session.scalars(
            select(LoginEvent).where(LoginEvent.email == email).order_by(LoginEvent.id))]


def alerts(app, email):
    with app.app_context():
        return messages_to(email, "signin_alert")


def trust(client, token, ip="198.51.100.20", device="laptop-1"):
    response = client.post("/api/security/trusted-ips/save-my-ip", json={},
                           headers={"Authorization": f"Bearer {token}", "X-Device-Id": device},
                           environ_base={"REMOTE_ADDR": ip})
    assert response.status_code in (200, 201)


def test_account_without_2fa_gets_a_token_and_history_row(app, client, make_user):
    user = make_user()
    response = request_token(client, user.email)
    assert response.status_code == 201
    assert response.get_json()["token"].startswith("gsv_")
    assert history(app, user.email) == [("success", "198.51.100.20", "laptop-1")]


def test_wrong_password_is_recorded_with_and_without_an_account(app, client, make_user):
    user = make_user()
    response = request_token(client, user.email, "salah-sekali")
    assert response.status_code == 401
    assert response.get_json()["message"] == "E-mail atau kata sandi salah."
    unknown = request_token(client, "siapa@example.com", "salah-sekali")
    assert unknown.get_json()["message"] == "E-mail atau kata sandi salah."
    assert history(app, user.email) == [("wrong_password", "198.51.100.20", "laptop-1")]
    with app.app_context():
        stranger = db.session.scalar(select(LoginEvent).where(LoginEvent.email == "siapa@example.com"))
        assert stranger.user_id is None and stranger.result == "wrong_password"


def test_2fa_account_needs_otp_on_untrusted_device(app, client, make_user):
    user = make_user()
    secret, _ = enable_2fa(app, user)
    missing = request_token(client, user.email)
    assert missing.status_code == 401
    assert missing.get_json()["otp_required"] is True
    assert "kode" in missing.get_json()["message"]
    wrong = request_token(client, user.email, otp="000000" if totp_code(secret) != "000000" else "111111")
    assert wrong.status_code == 401
    assert wrong.get_json()["message"] == "Kode verifikasi salah atau sudah pernah dipakai."
    code = totp_code(secret)
    assert request_token(client, user.email, otp=code).status_code == 201
    reused = request_token(client, user.email, otp=code)
    assert reused.status_code == 401  # single use
    assert [r for r, *_ in history(app, user.email)] == [
        "code_required", "wrong_code", "2fa_passed", "wrong_code"]


def test_wrong_password_with_right_code_is_still_wrong_password(app, client, make_user):
    user = make_user()
    secret, _ = enable_2fa(app, user)
    assert request_token(client, user.email, "salah-sekali", otp=totp_code(secret)).status_code == 401
    assert [r for r, *_ in history(app, user.email)] == ["wrong_password"]
    # The code was not spent by the refused attempt.
    assert request_token(client, user.email, otp=totp_code(secret)).status_code == 201


def test_recovery_code_signs_in_once(app, client, make_user):
    user = make_user()
    _, codes = enable_2fa(app, user)
    assert request_token(client, user.email, otp=codes[3]).status_code == 201
    assert request_token(client, user.email, otp=codes[3]).status_code == 401
    assert [r for r, *_ in history(app, user.email)] == ["recovery_code_used", "wrong_code"]


def test_a_tokens_trusted_record_never_skips_the_code(app, client, make_user):
    user = make_user()
    secret, _ = enable_2fa(app, user)
    token = request_token(client, user.email, otp=totp_code(secret)).get_json()["token"]
    trust(client, token)  # host-check trust only: no browser received a trust secret
    assert request_token(client, user.email).status_code == 401
    client.set_cookie(app.config["DEVICE_COOKIE_NAME"], "laptop-1")  # the id as a cookie: no better
    assert request_token(client, user.email, device=None).status_code == 401
    assert [r for r, *_ in history(app, user.email)] == ["2fa_passed", "code_required", "code_required"]


def browser_with_cookie(app, value):
    """A client holding the service's device cookie ``value`` (and sending no X-Device-Id)."""
    browser = app.test_client()
    browser.set_cookie(app.config["DEVICE_COOKIE_NAME"], value)
    return browser


def test_first_sign_in_sends_no_alert(app, client, make_user):
    user = make_user()
    request_token(client, user.email)
    assert alerts(app, user.email) == []


def test_the_device_cookie_of_an_earlier_sign_in_sends_no_alert(app, make_user):
    user = make_user()
    laptop = browser_with_cookie(app, "5d1f0e1c-laptop")
    request_token(laptop, user.email, device=None)
    request_token(laptop, user.email, device=None, ip="203.0.113.50")  # same browser, new network
    assert alerts(app, user.email) == []


def test_a_device_id_header_never_silences_the_alert(app, client, make_user):
    user = make_user()
    laptop = browser_with_cookie(app, "5d1f0e1c-laptop")
    request_token(laptop, user.email, device=None)
    # Someone who learned the id sends it as a header: that is a name, not the cookie.
    request_token(client, user.email, device="5d1f0e1c-laptop")
    assert len(alerts(app, user.email)) == 1


def test_new_device_sends_exactly_one_alert(app, make_user):
    user = make_user()
    request_token(browser_with_cookie(app, "laptop-cookie"), user.email, device=None)
    phone = browser_with_cookie(app, "phone-cookie")
    request_token(phone, user.email, ip="203.0.113.50", device=None, user_agent=PHONE_UA)
    request_token(phone, user.email, ip="203.0.113.50", device=None, user_agent=PHONE_UA)
    sent = alerts(app, user.email)
    assert len(sent) == 1
    assert "203.0.113.50" in sent[0].body_text and "Chrome di Android" in sent[0].body_text
    with app.app_context():
        flagged = db.session.scalars(select(LoginEvent.alerted).where(LoginEvent.email == user.email)
                                     .order_by(LoginEvent.id)).all()
    assert flagged == [False, True, False]


def test_failed_attempts_from_a_device_do_not_make_it_familiar(app, make_user):
    user = make_user()
    request_token(browser_with_cookie(app, "laptop-cookie"), user.email, device=None)
    phone = browser_with_cookie(app, "phone-cookie")
    request_token(phone, user.email, "salah-sekali", device=None)
    request_token(phone, user.email, device=None)
    assert len(alerts(app, user.email)) == 1


def test_a_tokens_trusted_record_does_not_silence_the_alert(app, client, make_user):
    user = make_user()
    token = request_token(client, user.email).get_json()["token"]
    trust(client, token, ip="203.0.113.50", device="phone-9")
    request_token(client, user.email, ip="203.0.113.50", device="phone-9")
    assert len(alerts(app, user.email)) == 1


def test_a_client_without_the_device_cookie_is_alerted_each_time(app, client, make_user):
    user = make_user()
    request_token(client, user.email, device=None)
    request_token(client, user.email, device=None)
    request_token(client, user.email, device=None, user_agent="curl/8.5.0")
    assert len(alerts(app, user.email)) == 2


def test_alert_is_queued_by_the_sign_in_without_any_smtp_server(app, client, make_user, monkeypatch):
    # An unreachable server must not matter: nothing is sent during the request.
    monkeypatch.setitem(app.config, "MAIL_SERVER", "127.0.0.1")
    monkeypatch.setitem(app.config, "MAIL_PORT", 9)
    user = make_user()
    request_token(client, user.email)
    assert request_token(client, user.email, device="phone-9").status_code == 201
    assert [m.status for m in alerts(app, user.email)] == ["pending"]


def test_otp_field_is_validated(client, make_user):
    user = make_user()
    response = request_token(client, user.email, otp="9" * 40)
    assert response.status_code == 422
    assert "otp" in response.get_json()["errors"]
