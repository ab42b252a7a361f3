"""Wrong passwords and wrong codes are counted per account in the login history."""
from datetime import timedelta

import pytest
from sqlalchemy.exc import OperationalError

from guardsvc import messages
from guardsvc.storage import clock
from guardsvc.accounts.models import User
from guardsvc.extensions import db
from guardsvc.web.identity import Client
from guardsvc.signin import service, throttle
from guardsvc.signin.models import LoginEvent
from tests.support.factories import PASSWORD
from tests.support.pages_support import post_form, text_of
from tests.support.signin_support import BROWSER_UA, enable_2fa, request_token, totp_code

WINDOW = timedelta(minutes=15)


def client_at(number):
    return Client(f"198.51.100.{number}", f"device-{number}", None, BROWSER_UA)


def results(email):
    return db.session.scalars(db.select(LoginEvent.result).where(LoginEvent.email == email)
                              .order_by(LoginEvent.id)).all()


def wrong(secret):
    return "000000" if totp_code(secret) != "000000" else "111111"


@pytest.fixture()
def later(monkeypatch):
    """Move the service clock forward by a timedelta."""
    start = clock.utcnow()

    def move(delta):
        monkeypatch.setattr(clock, "utcnow", lambda: start + delta)
    return move


@pytest.mark.parametrize("known", [True, False], ids=["existing account", "unknown e-mail"])
def test_ten_wrong_passwords_from_anywhere_then_even_the_right_one_is_refused(
        app, ctx, make_user, later, known):
    email = make_user().email if known else "tidak-ada@example.test"
    for number in range(10):  # ten addresses, ten devices: still one account
        outcome = service.sign_in(email, "salah-sekali", client_at(number))
        assert outcome.result == "wrong_password" and outcome.error.status == 401
    refused = service.sign_in(email, PASSWORD, client_at(50))
    assert refused.result == "locked" and refused.error.status == 429
    assert refused.error.keeps_writes
    assert 0 < int(refused.error.headers["Retry-After"]) <= WINDOW.total_seconds()
    # The oldest failure leaves the window: one more attempt is allowed, and it is counted.
    later(WINDOW + timedelta(seconds=1))
    expected = "success" if known else "wrong_password"
    assert service.sign_in(email, PASSWORD if known else "lagi", client_at(51)).result == expected
    assert results(email) == ["wrong_password"] * 10 + ["locked", expected]


def test_unknown_and_existing_accounts_answer_alike(app, client, make_user):
    user = make_user()
    answers = []
    for email in (user.email, "tidak-ada@example.test"):
        for _ in range(10):
            request_token(client, email, "salah-sekali")
        answer = request_token(client, email, "salah-sekali")
        answers.append((answer.status_code, answer.json, "Retry-After" in answer.headers))
    assert answers[0] == answers[1]
    assert answers[0][0] == 429


def test_retry_after_counts_down_to_the_oldest_counted_failure(app, ctx, make_user, later):
    user = make_user()
    for minute in range(10):
        later(timedelta(minutes=minute))
        service.sign_in(user.email, "salah-sekali", client_at(1))
    later(timedelta(minutes=10))
    # The first failure (minute 0) leaves the window at minute 15: five minutes from now.
    refused = service.sign_in(user.email, PASSWORD, client_at(1))
    assert refused.error.headers["Retry-After"] == str(5 * 60)


def test_five_wrong_codes_lock_the_code_step_across_doors(app, client, make_user):
    user = make_user()
    secret, _ = enable_2fa(app, user)
    for number in range(5):
        answer = request_token(client, user.email, otp=wrong(secret), ip=f"203.0.113.{number}",
                               device=f"phone-{number}")
        assert answer.status_code == 401
    refused = request_token(client, user.email, otp=totp_code(secret), ip="203.0.113.99")
    assert refused.status_code == 429 and int(refused.headers["Retry-After"]) > 0
    # The web password step does not lead to a code step that could only be refused.
    page = post_form(client, "/masuk", {"email": user.email, "password": PASSWORD}, page="/masuk")
    assert page.status_code == 429 and int(page.headers["Retry-After"]) > 0
    assert str(messages.SIGNIN_THROTTLED) in text_of(page)
    with app.app_context():
        assert results(user.email)[-2:] == ["locked", "locked"]


def test_wrong_codes_count_separately_from_wrong_passwords(app, ctx, make_user):
    user = make_user()
    secret, _ = enable_2fa(app, user)
    for _ in range(9):
        service.sign_in(user.email, "salah-sekali", client_at(1))
    for _ in range(4):
        assert service.sign_in(user.email, PASSWORD, client_at(1), code=wrong(secret)).result == "wrong_code"
    assert service.sign_in(user.email, PASSWORD, client_at(1), code=totp_code(secret)).signed_in


def test_half_signed_in_state_replayed_gains_no_extra_codes(app, ctx, make_user):
    user = make_user()
    secret, _ = enable_2fa(app, user)
    assert service.sign_in(user.email, PASSWORD, client_at(1)).needs_code
    stamp = service.account_stamp(db.session.get(User, user.id))
    for number in range(5):  # the same pending state, sent from five addresses
        outcome = service.sign_in_with_code(user.id, stamp, wrong(secret), client_at(number))
        assert outcome.result == "wrong_code" and not outcome.restart
    locked = service.sign_in_with_code(user.id, stamp, totp_code(secret), client_at(9))
    assert locked.result == "locked" and locked.error.status == 429 and not locked.signed_in


def test_settings_change_the_allowance(app, ctx, make_user, monkeypatch):
    monkeypatch.setitem(app.config, "ACCOUNT_PASSWORD_FAILURES", 2)
    user = make_user()
    for _ in range(2):
        service.sign_in(user.email, "salah-sekali", client_at(1))
    assert service.sign_in(user.email, PASSWORD, client_at(1)).result == "locked"


def test_a_count_that_cannot_be_taken_refuses_the_attempt(app, client, make_user, monkeypatch):
    user = make_user()

    def unreachable(*_args, **_kwargs):
        raise OperationalError("SELECT", {}, Exception("database is away"))

    monkeypatch.setattr(throttle, "_serialize", unreachable)
    answer = request_token(client, user.email)
    assert answer.status_code == 503 and "token" not in answer.get_json()
