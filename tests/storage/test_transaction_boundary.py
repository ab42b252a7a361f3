"""One unit of work per request and per command: what is kept, what is undone, and the race."""
import click
import pytest
from flask import redirect
from sqlalchemy import func, select

from guardsvc import create_app
from guardsvc.accounts.models import User
from guardsvc.web.doors import json_door
from guardsvc.web.errors import Conflict
from guardsvc.extensions import db
from guardsvc.outbox.models import OutboxMessage
from guardsvc.signin.models import LoginEvent
from guardsvc.storage.transaction import CommandGroup, ends_with
from guardsvc.trust import service as trust
from guardsvc.trust.models import TrustedIp
from tests.support.pages_support import post_form
from tests.support.signin_support import BROWSER_UA, enable_2fa, rate_limits_off, totp_code  # noqa: F401
from tests.support.factories import PASSWORD

pytestmark = pytest.mark.usefixtures("rate_limits_off")
NEW_DEVICE = "laptop-baru-42"


def _count(app, model, *where):
    with app.app_context():
        return db.session.scalar(select(func.count()).select_from(model).where(*where))


def test_losing_the_trust_race_keeps_the_sign_in_history_the_alert_and_the_used_code(
        app, make_user, monkeypatch):
    user = make_user()
    secret, _ = enable_2fa(app, user)
    with app.app_context():
        # An earlier sign-in from another device, so this one is unfamiliar and alerts.
        db.session.add(LoginEvent(user_id=user.id, email=user.email, ip_address="198.51.100.1",
                                  device_id="telepon-lama", user_agent=BROWSER_UA, result="success"))
        # The (user, IP, device) row a concurrent request inserted first: revoked, so the
        # code step is still asked, and the insert below collides with it.
        db.session.add(TrustedIp(user_id=user.id, ip_address="203.0.113.7", device_id=NEW_DEVICE,
                                 device_name="Laptop", is_active=False))
        db.session.commit()
    real_find, calls = trust._find, []

    def find_misses_once(*args):
        calls.append(args)
        return None if len(calls) == 1 else real_find(*args)

    monkeypatch.setattr(trust, "_find", find_misses_once)
    browser = app.test_client()
    browser.environ_base.update({"HTTP_USER_AGENT": BROWSER_UA, "REMOTE_ADDR": "203.0.113.7",
                                 "HTTP_X_DEVICE_ID": NEW_DEVICE})
    assert post_form(browser, "/masuk", {"email": user.email, "password": PASSWORD},
                     page="/masuk").status_code == 303
    code = totp_code(secret)
    response = post_form(browser, "/masuk/kode", {"code": code, "trust": "1"}, page="/masuk")

    assert response.status_code == 303 and browser.get("/akun").status_code == 200
    assert len(calls) == 2  # the insert lost the race, and the retry found the winner's row
    assert _count(app, LoginEvent, LoginEvent.user_id == user.id, LoginEvent.result == "2fa_passed",
                  LoginEvent.device_id == NEW_DEVICE) == 1
    assert _count(app, OutboxMessage, OutboxMessage.recipient == user.email,
                  OutboxMessage.kind == "signin_alert") == 1
    # The revoked device became trusted again: its owner is told once.
    assert _count(app, OutboxMessage, OutboxMessage.recipient == user.email,
                  OutboxMessage.kind == "notice_device_trusted") == 1
    assert _count(app, TrustedIp, TrustedIp.user_id == user.id, TrustedIp.is_active.is_(True)) == 1
    with app.app_context():
        assert db.session.get(User, user.id).totp_last_step is not None

    replay = app.test_client()
    replay.environ_base.update({"HTTP_USER_AGENT": BROWSER_UA, "REMOTE_ADDR": "192.0.2.50",
                                "HTTP_X_DEVICE_ID": "perangkat-penyerang"})
    post_form(replay, "/masuk", {"email": user.email, "password": PASSWORD}, page="/masuk")
    refused = post_form(replay, "/masuk/kode", {"code": code}, page="/masuk")
    assert refused.status_code == 401
    assert replay.get("/akun").status_code != 200


@pytest.fixture()
def probe_app(app):
    """A second app on the same database, with routes that write and then answer in various ways."""
    probe = create_app({"TESTING": True})

    def add_user(email):
        db.session.add(User(email=email, name="Probe", password_hash="x", role="user"))
        db.session.flush()

    @probe.post("/api/probe/refused")
    @json_door
    def refused():
        add_user("refused@example.com")
        raise Conflict()

    @probe.post("/api/probe/recorded")
    @json_door
    def recorded():
        add_user("recorded@example.com")
        raise Conflict(keeps_writes=True)

    @probe.post("/api/probe/redirected")
    @json_door
    def redirected():
        add_user("redirected@example.com")
        try:
            raise Conflict()
        except Conflict as conflict:
            ends_with(conflict)
            return redirect("/", code=303)  # a success status, yet the refusal undoes the write

    @probe.post("/api/probe/clash")
    @json_door
    def clash():
        db.session.add(User(email="clash@example.com", name="A", password_hash="x", role="user"))
        db.session.add(User(email="clash@example.com", name="B", password_hash="x", role="user"))
        return {"success": True}, 201  # the commit after the view is what fails

    group = CommandGroup("probe")

    @group.command("half")
    def half():
        add_user("half@example.com")
        raise click.ClickException("stopped half-way")

    probe.cli.add_command(group)
    return probe


def test_a_refusal_undoes_what_the_request_wrote(probe_app):
    assert probe_app.test_client().post("/api/probe/refused").status_code == 409
    assert _count(probe_app, User, User.email == "refused@example.com") == 0


def test_a_refusal_declared_recorded_keeps_its_writes(probe_app):
    assert probe_app.test_client().post("/api/probe/recorded").status_code == 409
    assert _count(probe_app, User, User.email == "recorded@example.com") == 1


def test_a_refusal_a_door_turns_into_a_redirect_still_undoes_the_writes(probe_app):
    assert probe_app.test_client().post("/api/probe/redirected").status_code == 303
    assert _count(probe_app, User, User.email == "redirected@example.com") == 0


def test_a_failed_commit_answers_an_error_never_the_success(probe_app):
    response = probe_app.test_client().post("/api/probe/clash")
    assert response.status_code == 500
    assert response.get_json() == {"success": False, "message": response.get_json()["message"]}
    assert _count(probe_app, User, User.email == "clash@example.com") == 0


def test_a_command_that_fails_half_way_leaves_nothing(probe_app):
    result = probe_app.test_cli_runner().invoke(args=["probe", "half"])
    assert result.exit_code == 1 and "stopped half-way" in result.output
    assert _count(probe_app, User, User.email == "half@example.com") == 0



def test_a_read_answered_before_the_database_went_away_still_stands(probe_app, monkeypatch):
    """A read-only request is not committed; the rollback that ends it fails when the connection died."""
    with probe_app.app_context():
        dialect = db.engine.dialect
    gone = []

    @probe_app.get("/api/probe/read")
    @json_door
    def read():
        users = db.session.scalar(select(func.count()).select_from(User))
        gone.append(True)  # the answer is ready; from now on the connection is dead
        return {"success": True, "users": users}

    real_rollback = dialect.do_rollback

    def rollback(connection):
        if gone:
            raise dialect.loaded_dbapi.OperationalError("server closed the connection unexpectedly")
        real_rollback(connection)

    monkeypatch.setattr(dialect, "do_rollback", rollback)
    client = probe_app.test_client()
    response = client.get("/api/probe/read")
    assert response.status_code == 200 and response.get_json()["success"] is True
    gone.clear()
    assert client.get("/api/probe/read").status_code == 200  # the next request gets a working connection
