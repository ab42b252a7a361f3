"""Against real gunicorn workers: located sign-ins, the e-mailed code over real SMTP, and its rules under
concurrency (one code per place, five tries, one use)."""
import re

import pytest
import requests
from sqlalchemy import func, select

from guardsvc.extensions import db
from guardsvc.outbox.delivery import deliver_due
from guardsvc.outbox.models import OutboxMessage
from guardsvc.signin.models import EmailVerification, LoginEvent
from tests.support.email_code_support import age_history, code_in, last_code
from tests.support.factories import PASSWORD
from tests.support.geoip_support import AMSTERDAM, JAKARTA, TOKYO, geoip_database  # noqa: F401
from tests.support.live import LiveServer, all_at_once
from tests.support.pages_support import CSRF_META
from tests.support.smtp import smtp_server, text_body  # noqa: F401

pytestmark = pytest.mark.live
UA = "Mozilla/5.0 (X11; Linux x86_64) Chrome/124.0 Safari/537.36"


@pytest.fixture(scope="module")
def located_server(app, geoip_database):
    """Two workers behind one (pretended) proxy, locating with the test places."""
    server = LiveServer(workers=2, env={"GUARDSVC_PROXY_COUNT": "1", "GUARDSVC_GEOIP_DATABASE": str(geoip_database),
                                        "GUARDSVC_HASH_CONCURRENCY": "8"})
    yield server
    server.stop()


def token(server, email, ip, email_code=None, language="id"):
    body = {"email": email, "password": PASSWORD, **({"email_code": email_code} if email_code else {})}
    return requests.post(server.url + "/api/auth/tokens", json=body, timeout=30,
                         headers={"X-Forwarded-For": ip, "User-Agent": UA, "Accept-Language": language})


@pytest.fixture()
def jakartan(app, located_server, make_user):
    user = make_user(email="sari@example.com", name="Sari")
    assert token(located_server, user.email, JAKARTA).status_code == 201
    age_history(app, user, days=1)
    return user


def count(app, query):
    with app.app_context():
        return db.session.scalar(query)


def test_json_flow_over_real_smtp_in_both_languages(app, located_server, jakartan, smtp_server):
    asked = token(located_server, jakartan.email, AMSTERDAM, language="en")
    assert asked.status_code == 401 and asked.json()["verification_required"] is True
    assert asked.json()["message"].startswith("This account is signing in from a new place")
    with app.app_context():
        assert deliver_due().sent
    # The holder never chose a language (a JSON sign-in keeps none): the request's applies.
    [message] = smtp_server.inbox.to(jakartan.email, "Code to sign in")
    assert message["Subject"] == "Code to sign in to guardsvc from Amsterdam, Netherlands"
    done = token(located_server, jakartan.email, AMSTERDAM, email_code=code_in(text_body(message)))
    assert done.status_code == 201, done.text
    history = requests.get(located_server.url + "/api/auth/logins", timeout=30,
                           headers={"Authorization": f"Bearer {done.json()['token']}"}).json()["data"]
    assert [(row["result"], row["country"], row["city"]) for row in history] == [
        ("email_verified", "NL", "Amsterdam"), ("email_code_required", "NL", "Amsterdam"),
        ("success", "ID", "Jakarta")]


def test_the_pages_flow_in_english(app, located_server, jakartan):
    browser = requests.Session()
    browser.headers.update({"User-Agent": UA, "X-Forwarded-For": TOKYO})
    browser.cookies.set("guardsvc_lang", "en")
    csrf = CSRF_META.search(browser.get(located_server.url + "/masuk", timeout=30).text).group(1)
    step = browser.post(located_server.url + "/masuk", timeout=30, allow_redirects=True,
                        data={"csrf_token": csrf, "email": jakartan.email, "password": PASSWORD})
    assert step.url.endswith("/masuk/kode-email")
    text = re.sub(r"<[^>]+>", "", step.text)
    assert "This account has not signed in from Tokyo, Japan in the last 180 days." in text
    csrf = CSRF_META.search(step.text).group(1)
    done = browser.post(located_server.url + "/masuk/kode-email", timeout=30,
                        data={"csrf_token": csrf, "code": last_code(app, jakartan.email)})
    assert done.url.endswith("/akun") and "Tokyo, Japan" in done.text


def test_concurrent_password_attempts_from_one_new_place_mail_one_code(app, located_server, jakartan):
    answers = all_at_once(8, lambda _: token(located_server, jakartan.email, AMSTERDAM))
    assert [answer.status_code for answer in answers] == [401] * 8
    assert count(app, select(func.count()).select_from(EmailVerification)) == 1
    assert count(app, select(func.count()).where(OutboxMessage.kind == "signin_code")) == 1


def test_concurrent_wrong_codes_take_at_most_five_tries_of_a_code(app, located_server, jakartan):
    token(located_server, jakartan.email, AMSTERDAM)
    code = last_code(app, jakartan.email)
    wrong = f"{(int(code) + 7) % 10**8:08d}"
    answers = all_at_once(14, lambda _: token(located_server, jakartan.email, AMSTERDAM, email_code=wrong))
    assert all(answer.status_code in (401, 429) for answer in answers)
    assert any(answer.status_code == 429 for answer in answers)  # the account's wrong-password allowance (10)
    with app.app_context():
        first = db.session.scalar(select(EmailVerification).order_by(EmailVerification.id))
        assert (first.state, first.tries) == ("spent", 5)
        assert max(db.session.scalars(select(EmailVerification.tries))) <= 5
        assert db.session.scalar(select(func.count()).where(LoginEvent.result == "wrong_email_code")) <= 10


def test_concurrent_right_codes_use_the_code_once(app, located_server, jakartan):
    token(located_server, jakartan.email, AMSTERDAM)
    code = last_code(app, jakartan.email)
    answers = all_at_once(6, lambda _: token(located_server, jakartan.email, AMSTERDAM, email_code=code))
    # Once one of them has signed in from the Netherlands, the country is known: the others need no code.
    assert [answer.status_code for answer in answers] == [201] * 6
    assert count(app, select(func.count()).where(LoginEvent.result == "email_verified")) == 1
    assert count(app, select(EmailVerification.state)) == "used"
