"""The code step is skipped only for a trusted record with the same device id, within its lifetime."""
from datetime import timedelta

import pytest

from guardsvc.storage import clock
from guardsvc.trust.models import TrustedIp
from guardsvc.extensions import db
from tests.signin_support import enable_2fa, request_token, totp_code

SAVE = "/api/security/trusted-ips/save-my-ip"
CHECK = "/api/security/trusted-ips/check"
IP = "198.51.100.20"


def trust(client, token, device):
    headers = {"Authorization": f"Bearer {token}"}
    if device:
        headers["X-Device-Id"] = device
    response = client.post(SAVE, json={}, headers=headers, environ_base={"REMOTE_ADDR": IP})
    assert response.status_code in (200, 201)


def host_check(client, admin, user, device):
    query = {"user_id": user.id, "ip": IP, **({"device_id": device} if device else {})}
    return client.get(CHECK, query_string=query, headers=admin).get_json()["data"]["trusted"]


@pytest.fixture()
def two_step_user(app, client, make_user):
    """A user with 2FA and a token (from a first sign-in with a code); returns (user, secret, token)."""
    user = make_user()
    secret, _ = enable_2fa(app, user)
    token = request_token(client, user.email, otp=totp_code(secret), ip=IP, device="setup").get_json()["token"]
    return user, secret, token


def test_record_without_device_never_skips_the_code_but_answers_the_host_check(
        client, bearer, two_step_user):
    user, _, token = two_step_user
    _, admin = bearer(role="admin")
    trust(client, token, device=None)
    assert host_check(client, admin, user, None) is True
    # Neither a client without a device id nor one with any device id skips the code.
    assert request_token(client, user.email, ip=IP, device=None).status_code == 401
    assert request_token(client, user.email, ip=IP, device="laptop-1").status_code == 401


@pytest.mark.parametrize("device, skips", [("laptop-1", True), ("laptop-2", False), (None, False)])
def test_record_with_device_skips_only_for_that_device(client, two_step_user, device, skips):
    user, _, token = two_step_user
    trust(client, token, device="laptop-1")
    answer = request_token(client, user.email, ip=IP, device=device)
    assert answer.status_code == (201 if skips else 401)


def test_device_cookie_counts_as_the_device(app, client, two_step_user):
    user, _, token = two_step_user
    trust(client, token, device="browser-7")
    client.set_cookie(app.config["DEVICE_COOKIE_NAME"], "browser-7")
    assert request_token(client, user.email, ip=IP, device=None).status_code == 201


def test_default_lifetime_is_ninety_days_from_the_last_save(app, client, bearer, two_step_user,
                                                             monkeypatch):
    assert app.config["TRUST_LIFETIME_DAYS"] == 90
    user, _, token = two_step_user
    _, admin = bearer(role="admin")
    trust(client, token, device="laptop-1")
    start = clock.utcnow()
    monkeypatch.setattr(clock, "utcnow", lambda: start + timedelta(days=89, hours=23))
    assert request_token(client, user.email, ip=IP, device="laptop-1").status_code == 201
    monkeypatch.setattr(clock, "utcnow", lambda: start + timedelta(days=90, minutes=1))
    assert request_token(client, user.email, ip=IP, device="laptop-1").status_code == 401
    assert host_check(client, admin, user, "laptop-1") is False
    # Saving again renews it from now.
    trust(client, token, device="laptop-1")
    with app.app_context():
        assert db.session.scalar(db.select(TrustedIp.verified_at)) > start + timedelta(days=90)
    assert request_token(client, user.email, ip=IP, device="laptop-1").status_code == 201
