"""Sign-in throttles against real gunicorn workers, from several real source addresses.

Per account (counted in the database): every worker and every address draws
on one allowance. Per client IP (Flask-Limiter, in Redis): wrong codes from one
address, whatever the account.
"""
import http.client
import json
import threading

import pytest

from guardsvc.extensions import db
from guardsvc.signin.models import LoginEvent
from tests.support.factories import PASSWORD
from tests.support.signin_support import TOKENS, enable_2fa, totp_code

pytestmark = pytest.mark.live
# Every 127.x address is this machine; the server sees each as a different client.
SOURCES = [f"127.0.0.{n}" for n in range(2, 10)]


def ask(server, email, password=PASSWORD, otp=None, source="127.0.0.1", device="laptop-1"):
    """``POST /api/auth/tokens`` from ``source``; returns (status, Retry-After, body)."""
    body = {"email": email, "password": password}
    if otp is not None:
        body["otp"] = otp
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30, source_address=(source, 0))
    try:
        conn.request("POST", TOKENS, body=json.dumps(body),
                     headers={"Content-Type": "application/json", "X-Device-Id": device})
        response = conn.getresponse()
        return response.status, response.getheader("Retry-After"), json.loads(response.read())
    finally:
        conn.close()


def wrong(secret):
    return "000000" if totp_code(secret) != "000000" else "111111"


def history(app, email):
    with app.app_context():
        return db.session.scalars(db.select(LoginEvent.result).where(LoginEvent.email == email)
                                  .order_by(LoginEvent.id)).all()


@pytest.mark.parametrize("known", [True, False], ids=["existing account", "unknown e-mail"])
def test_ten_wrong_passwords_over_workers_and_addresses(app, live_server, make_user, known):
    email = make_user().email if known else "tidak-ada-live@example.test"
    statuses = [ask(live_server, email, "salah-sekali", source=SOURCES[i % 8])[0] for i in range(10)]
    assert statuses == [401] * 10
    status, retry_after, body = ask(live_server, email, PASSWORD, source=SOURCES[3])
    assert status == 429 and int(retry_after) > 0
    assert body["success"] is False and "ticket_number" not in body
    assert history(app, email) == ["wrong_password"] * 10 + ["locked"]


def test_five_wrong_codes_over_workers_and_addresses(app, live_server, make_user):
    user = make_user()
    secret, _ = enable_2fa(app, user)
    statuses = [ask(live_server, user.email, otp=wrong(secret), source=SOURCES[i])[0] for i in range(5)]
    assert statuses == [401] * 5
    status, retry_after, _ = ask(live_server, user.email, otp=totp_code(secret), source=SOURCES[7])
    assert status == 429 and int(retry_after) > 0
    assert history(app, user.email) == ["wrong_code"] * 5 + ["locked"]


def test_concurrent_wrong_passwords_get_exactly_the_allowance(app, live_server, make_user):
    user = make_user()
    barrier = threading.Barrier(16)
    statuses = []

    def guess(i):
        barrier.wait()
        statuses.append(ask(live_server, user.email, "salah-sekali", source=SOURCES[i % 8])[0])

    threads = [threading.Thread(target=guess, args=(i,)) for i in range(16)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert sorted(statuses) == [401] * 10 + [429] * 6


def test_wrong_codes_are_limited_per_address_too(app, limited_server, make_user):
    users = [make_user() for _ in range(5)]
    secrets_ = [enable_2fa(app, user)[0] for user in users]
    source = "127.0.0.20"  # this test's own address: its own bucket
    # A right code does not use up the address's allowance.
    assert ask(limited_server, users[4].email, otp=totp_code(secrets_[4]), source=source)[0] == 201
    for user, secret in zip(users[:3], secrets_[:3]):
        assert ask(limited_server, user.email, otp=wrong(secret), source=source)[0] == 401
    # A fourth account, untouched in the database, is refused from this address...
    status, retry_after, body = ask(limited_server, users[3].email, otp=totp_code(secrets_[3]),
                                    source=source)
    assert status == 429 and int(retry_after) > 0 and "ticket_number" not in body
    # ...and not from another one.
    assert ask(limited_server, users[3].email, otp=totp_code(secrets_[3]), source="127.0.0.21",
               device="laptop-2")[0] == 201
