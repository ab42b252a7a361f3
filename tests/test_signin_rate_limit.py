"""Wrong second-step codes are rate limited per client IP and account (real server, limits on)."""
import pytest
import requests

from guardsvc.extensions import db
from guardsvc.signin.models import LoginEvent
from tests.factories import PASSWORD
from tests.pages_support import CSRF_META
from tests.signin_support import enable_2fa, totp_code

pytestmark = pytest.mark.live


def ask(server, email, otp=None, password=PASSWORD):
    body = {"email": email, "password": password}
    if otp is not None:
        body["otp"] = otp
    return requests.post(server.url + "/api/auth/tokens", json=body, timeout=10,
                         headers={"X-Device-Id": "laptop-1"})


def wrong(secret):
    return "000000" if totp_code(secret) != "000000" else "111111"


def test_wrong_codes_lock_the_account_for_this_client(app, limited_server, make_user):
    user, neighbour = make_user(), make_user()
    secret, _ = enable_2fa(app, user)
    neighbour_secret, _ = enable_2fa(app, neighbour)
    # Missing codes and wrong passwords are not code guesses.
    assert ask(limited_server, user.email).status_code == 401
    assert ask(limited_server, user.email, wrong(secret), password="salah-sekali").status_code == 401
    for _ in range(3):
        assert ask(limited_server, user.email, wrong(secret)).status_code == 401
    locked = ask(limited_server, user.email, totp_code(secret))
    assert locked.status_code == 429
    assert int(locked.headers["Retry-After"]) > 0
    assert locked.json()["success"] is False and "ticket_number" not in locked.json()
    # Another account from the same address is not affected.
    assert ask(limited_server, neighbour.email, totp_code(neighbour_secret)).status_code == 201
    with app.app_context():
        results = db.session.scalars(db.select(LoginEvent.result).where(
            LoginEvent.user_id == user.id).order_by(LoginEvent.id)).all()
    assert results == ["code_required", "wrong_password", "wrong_code", "wrong_code", "wrong_code",
                       "locked"]


def test_right_codes_do_not_use_up_the_limit(app, limited_server, make_user):
    user = make_user()
    _, codes = enable_2fa(app, user)
    for code in codes[:5]:  # more successes than the limit allows failures
        assert ask(limited_server, user.email, code).status_code == 201


def test_code_page_is_limited_too(app, limited_server, make_user):
    user = make_user()
    secret, _ = enable_2fa(app, user)
    browser = requests.Session()
    page = browser.get(limited_server.url + "/masuk", timeout=10).text
    token = CSRF_META.search(page).group(1)
    step = browser.post(limited_server.url + "/masuk", timeout=10, allow_redirects=False,
                        data={"csrf_token": token, "email": user.email, "password": PASSWORD})
    assert step.headers["Location"] == "/masuk/kode"
    # A fresh session began at the password step (no fixation): the code page has its own token.
    page = browser.get(limited_server.url + "/masuk/kode", timeout=10).text
    token = CSRF_META.search(page).group(1)

    def code(value):
        return browser.post(limited_server.url + "/masuk/kode", data={"csrf_token": token, "code": value},
                            timeout=10, allow_redirects=False)

    for _ in range(3):
        assert code(wrong(secret)).status_code == 401
    locked = code(totp_code(secret))
    assert locked.status_code == 429
    assert "Terlalu banyak permintaan" in locked.text
