"""Forgotten passwords end to end: the request, the e-mail over real SMTP, the link, the new password."""
import re
from datetime import timedelta

import pytest
from sqlalchemy import select

from guardsvc import messages
from guardsvc.storage import clock
from guardsvc.accounts.models import PasswordReset, User
from guardsvc.extensions import db
from guardsvc.outbox.models import OutboxMessage
from tests.support.factories import PASSWORD
from tests.support.pages_support import csrf_token, post_form, text_of
from tests.support.signin_support import BROWSER_UA, enable_2fa, rate_limits_off, request_token  # noqa: F401
from tests.support.smtp import html_body, smtp_server, text_body  # noqa: F401

NEW_PASSWORD = "kuda-laut-biru-2026"
LINK = re.compile(r"http://localhost:8000(/masuk/atur-ulang/[A-Za-z0-9_-]+)")


def ask_for_link(client, email):
    return post_form(client, "/masuk/lupa", {"email": email}, page="/masuk/lupa",
                     headers={"User-Agent": BROWSER_UA})


def deliver(runner):
    result = runner.invoke(args=["mail", "deliver", "--once"])
    assert result.exit_code == 0, result.output


def link_in(message):
    return LINK.search(text_body(message)).group(1)


def set_new_password(client, path, password=NEW_PASSWORD, confirmation=None):
    return post_form(client, path, {"password": password, "confirmation": confirmation or password}, page=path)


@pytest.fixture()
def moved_clock(monkeypatch):
    """``move(minutes)``: the service's clock runs ``minutes`` ahead from now on."""
    real = clock.utcnow
    offset = {"minutes": 0}
    monkeypatch.setattr(clock, "utcnow", lambda: real() + timedelta(minutes=offset["minutes"]))

    def move(minutes):
        offset["minutes"] += minutes
    return move


@pytest.mark.usefixtures("rate_limits_off")
def test_the_whole_journey_over_smtp(app, client, runner, make_user, smtp_server):
    user = make_user(email="rina@example.com", name="Rina")
    assert 'href="/masuk/lupa"' in text_of(client.get("/masuk"))
    answer = ask_for_link(client, "Rina@Example.com")
    assert answer.status_code == 200
    assert "Periksa e-mail Anda" in text_of(answer)
    deliver(runner)
    [message] = smtp_server.inbox.to("rina@example.com")
    assert message["Subject"] == messages.RESET_MAIL_SUBJECT
    assert "berlaku 30 menit" in text_body(message) and "Chrome di Windows" in text_body(message)
    path = link_in(message)
    assert f'href="http://localhost:8000{path}"' in html_body(message)
    with app.app_context():  # only the hash of the secret is stored
        [record] = db.session.scalars(select(PasswordReset)).all()
        assert path.rsplit("/", 1)[1] not in record.secret_hash

    form = client.get(path)
    assert form.status_code == 200 and form.headers["Referrer-Policy"] == "no-referrer"
    assert "no-store" in form.headers["Cache-Control"]
    mismatch = set_new_password(client, path, NEW_PASSWORD, "lain-lagi-panjang")
    assert mismatch.status_code == 422 and str(messages.PASSWORD_MISMATCH) in text_of(mismatch)
    common = set_new_password(client, path, "qwertyuiop")
    assert common.status_code == 422 and str(messages.PASSWORD_TOO_COMMON) in text_of(common)
    done = set_new_password(client, path)
    assert done.status_code == 303 and done.headers["Location"] == "/masuk"

    assert request_token(client, user.email, PASSWORD).status_code == 401       # the old password fails
    assert request_token(client, user.email, NEW_PASSWORD).status_code == 201   # the new one works
    again = set_new_password(client, path, "satu-kali-lagi-2026")               # single use
    assert again.status_code == 410 and 'href="/masuk/lupa"' in text_of(again)
    assert client.get(path).status_code == 410

    deliver(runner)
    notices = [m for m in smtp_server.inbox.to("rina@example.com")
               if m["Subject"] == messages.NOTICE_PASSWORD_RESET_SUBJECT]
    assert len(notices) == 1
    assert "http://localhost:8000/masuk/lupa" in text_body(notices[0])


def test_an_unknown_or_disabled_address_gets_the_identical_answer(app, client, make_user):
    user = make_user(email="ada@example.com")
    disabled = make_user(email="mati@example.com")
    with app.app_context():
        db.session.get(User, disabled.id).is_active = False
        db.session.commit()
    answers = [ask_for_link(client, email) for email in (user.email, "tidak-ada@example.com", disabled.email)]
    assert {answer.status_code for answer in answers} == {200}
    bodies = {re.sub(r'content="[^"]+"|value="[^"]+"', "", text_of(answer)) for answer in answers}
    assert len(bodies) == 1
    with app.app_context():
        recipients = db.session.scalars(select(OutboxMessage.recipient)).all()
    assert recipients == [user.email]


def test_the_link_expires_after_thirty_minutes(client, make_user, moved_clock, app):
    make_user(email="lambat@example.com")
    ask_for_link(client, "lambat@example.com")
    path = _link_from_outbox(app, "lambat@example.com")
    moved_clock(29)
    assert client.get(path).status_code == 200
    moved_clock(2)
    gone = client.get(path)
    assert gone.status_code == 410 and "kedaluwarsa" in text_of(gone)
    assert set_new_password(client, path).status_code == 410


def test_one_link_a_minute_and_a_newer_link_voids_the_older_one(client, make_user, app, moved_clock):
    make_user(email="dua@example.com")
    ask_for_link(client, "dua@example.com")
    first = _link_from_outbox(app, "dua@example.com")
    moved_clock(0.5)
    again = ask_for_link(client, "dua@example.com")
    assert again.status_code == 200 and "Periksa e-mail Anda" in text_of(again)  # the same answer
    assert _link_from_outbox(app, "dua@example.com") == first                   # but no second e-mail
    moved_clock(1)
    ask_for_link(client, "dua@example.com")
    second = _link_from_outbox(app, "dua@example.com")
    assert first != second
    assert client.get(first).status_code == 410
    assert set_new_password(client, second).status_code == 303


def test_an_unknown_link_is_404_with_a_way_to_ask_again(client):
    response = client.get("/masuk/atur-ulang/bukan-tautan-yang-benar")
    assert response.status_code == 404 and 'href="/masuk/lupa"' in text_of(response)
    assert client.get("/masuk/atur-ulang/" + "x" * 300).status_code == 404


@pytest.mark.usefixtures("rate_limits_off")
def test_a_reset_keeps_2fa_and_ends_every_session(app, make_user):
    from tests.support.pages_support import sign_in_session

    user = make_user(email="aman@example.com")
    enable_2fa(app, user)
    signed_in = app.test_client()
    sign_in_session(signed_in, user)
    assert signed_in.get("/akun").status_code == 200
    browser = app.test_client()
    ask_for_link(browser, user.email)
    assert set_new_password(browser, _link_from_outbox(app, user.email)).status_code == 303
    assert signed_in.get("/akun").status_code == 302  # the old session is over
    with app.app_context():
        assert db.session.get(User, user.id).has_2fa
    answer = request_token(browser, user.email, NEW_PASSWORD)
    assert answer.status_code == 401 and answer.get_json()["otp_required"] is True


def test_asking_needs_the_csrf_token(client, make_user):
    make_user(email="csrf@example.com")
    assert client.post("/masuk/lupa", data={"email": "csrf@example.com"}).status_code == 400


def test_a_malformed_address_is_a_field_error(client):
    response = ask_for_link(client, "bukan alamat")
    assert response.status_code == 422 and str(messages.FIELD_BAD_EMAIL) in text_of(response)


def test_asking_is_rate_limited_per_ip(make_user):
    from guardsvc import create_app

    limited = create_app({"TESTING": True, "RATELIMIT_ENABLED": True, "RATELIMIT_RESET": "2 per minute"})
    client = limited.test_client()
    token = csrf_token(client, "/masuk/lupa")
    statuses = [client.post("/masuk/lupa", data={"csrf_token": token, "email": "x@example.com"}).status_code
                for _ in range(3)]
    assert statuses == [200, 200, 429]


def _link_from_outbox(app, email):
    with app.app_context():
        message = db.session.scalars(select(OutboxMessage).where(
            OutboxMessage.recipient == email, OutboxMessage.kind == "password_reset")
            .order_by(OutboxMessage.id.desc())).first()
        return LINK.search(message.body_text).group(1)


@pytest.mark.parametrize("ticked", [(), ("revoke_tokens", "revoke_devices")])
def test_a_reset_revokes_tokens_and_trusted_devices_only_when_ticked(app, make_user, make_token, ticked):
    from guardsvc.accounts.models import ApiToken
    from guardsvc.web.identity import Client
    from guardsvc.trust import service as trust
    from guardsvc.trust.models import TrustedIp

    user = make_user()
    make_token(user)
    with app.app_context():
        trust.trust_device(db.session.get(User, user.id), Client("192.0.2.10", "ponsel-1", None, BROWSER_UA),
                           device_name="Ponsel")
        db.session.commit()
    browser = app.test_client()
    ask_for_link(browser, user.email)
    path = _link_from_outbox(app, user.email)
    form = {"password": NEW_PASSWORD, "confirmation": NEW_PASSWORD, **dict.fromkeys(ticked, "1")}
    assert post_form(browser, path, form, page=path).status_code == 303
    with app.app_context():
        tokens = db.session.scalars(select(ApiToken).where(ApiToken.user_id == user.id)).all()
        devices = db.session.scalars(select(TrustedIp).where(TrustedIp.user_id == user.id)).all()
        assert [t.revoked_at is not None for t in tokens] == [bool(ticked)]
        assert [d.is_active for d in devices] == [not ticked]
