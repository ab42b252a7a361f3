"""A quiet account's sign-in from a new country still asks for the e-mailed code (contract section 16).

The sign-in history is purged after GUARDSVC_SIGNIN_HISTORY_DAYS (90), the
new-country rule looks back 180 days: the countries are kept apart for those
180 days, and an account whose records are all gone is a returning account
from a new country, never a first sign-in. Replayed as it happens: a real
server locating sign-ins, the operator's ``flask --app guardsvc purge`` as a
process of its own, and someone holding the password coming back months later.
"""
from datetime import datetime, timedelta

import pytest
import requests
from sqlalchemy import func, select, text
from sqlalchemy.engine import make_url

from guardsvc import create_app
from guardsvc.accounts.models import User
from guardsvc.extensions import db
from guardsvc.outbox.models import OutboxMessage
from guardsvc.signin.models import LoginEvent, SignInCountry
from guardsvc.storage import clock
from tests.support.cli_processes import CommandProcess
from tests.conftest import TEST_DATABASE_URL
from tests.support.factories import PASSWORD
from tests.support.geoip_support import AMSTERDAM, JAKARTA, geoip_database  # noqa: F401
from tests.support.live import LiveServer

pytestmark = pytest.mark.live
UA = "Mozilla/5.0 (X11; Linux x86_64) Chrome/124.0 Safari/537.36"
DAY = timedelta(days=1)


@pytest.fixture(scope="module")
def located_server(app, geoip_database):  # noqa: F811
    """One worker behind one (pretended) proxy, locating with the test places."""
    server = LiveServer(workers=1, env={"GUARDSVC_PROXY_COUNT": "1", "GUARDSVC_GEOIP_DATABASE": str(geoip_database)})
    yield server
    server.stop()


def token(server, email, ip):
    return requests.post(server.url + "/api/auth/tokens", json={"email": email, "password": PASSWORD}, timeout=30,
                         headers={"X-Forwarded-For": ip, "User-Agent": UA})


def go_quiet(app, user, days):
    """Everything the account did happened ``days`` days earlier: its creation, its sign-ins, its countries."""
    back = days * DAY
    with app.app_context():
        account = db.session.get(User, user.id)
        account.created_at -= back
        if account.first_signed_in_at is not None:
            account.first_signed_in_at -= back
        for event in db.session.scalars(select(LoginEvent).where(LoginEvent.user_id == user.id)):
            event.created_at -= back
        for country in db.session.scalars(select(SignInCountry).where(SignInCountry.user_id == user.id)):
            country.last_signed_in_at -= back
        db.session.commit()


def purge_as_operator(tmp_path):
    """``flask --app guardsvc purge`` in a process of its own: what it printed, as {label: count}."""
    folder = tmp_path / "purge"
    (folder / "instance").mkdir(parents=True)
    code, out, err = CommandProcess(["purge"], {"GUARDSVC_INSTANCE_PATH": str(folder / "instance")}, folder).wait()
    assert code == 0 and "Traceback" not in err, (code, out, err)
    return {label: value.split()[0] for label, value in (line.split(": ", 1) for line in out.splitlines())}


def mails(app, user, kind):
    with app.app_context():
        return db.session.scalars(select(OutboxMessage.subject).where(
            OutboxMessage.recipient == user.email, OutboxMessage.kind == kind)).all()


def count(app, model, user):
    with app.app_context():
        return db.session.scalar(select(func.count()).select_from(model).where(model.user_id == user.id))


def test_a_quiet_accounts_sign_in_from_a_new_country_asks_for_the_code(app, located_server, make_user, tmp_path):
    user = make_user(email="sepi@example.com")
    assert token(located_server, user.email, JAKARTA).status_code == 201  # its first sign-in ever
    go_quiet(app, user, days=100)
    purged = purge_as_operator(tmp_path)
    assert purged["sign-in events deleted"] == "1", purged
    assert count(app, LoginEvent, user) == 0

    # Months later, the password alone, from a country the account never used: a code is asked.
    asked = token(located_server, user.email, AMSTERDAM)
    assert asked.status_code == 401 and asked.json()["verification_required"] is True, asked.text
    assert "token" not in asked.json()
    [subject] = mails(app, user, "signin_code")
    assert "Amsterdam" in subject
    # From home it signs in without a code, as a returning account: the owner is told of it.
    home = token(located_server, user.email, JAKARTA)
    assert home.status_code == 201, home.text
    assert len(mails(app, user, "signin_alert")) == 1
    # What told them apart: the country kept beyond the history (the purge kept it).
    assert purged["sign-in countries deleted"] == "0" and count(app, SignInCountry, user) == 1


def test_the_countries_go_after_the_rules_180_days_and_then_every_country_asks(app, located_server, make_user,
                                                                                tmp_path):
    user = make_user(email="lama@example.com")
    assert token(located_server, user.email, JAKARTA).status_code == 201
    go_quiet(app, user, days=181)
    purged = purge_as_operator(tmp_path)
    assert purged["sign-in events deleted"] == "1", purged
    # No record left at all: not a first sign-in, a new country.
    asked = token(located_server, user.email, JAKARTA)
    assert asked.status_code == 401 and asked.json()["verification_required"] is True, asked.text
    assert purged["sign-in countries deleted"] == "1" and count(app, SignInCountry, user) == 0


# An existing install upgraded: the new store is filled from the history there is ---------------

SUCCESS, REFUSED = "success", "wrong_password"


@pytest.fixture()
def database_before_the_countries(tmp_path):
    """A database of its own, migrated to the revision before this one: (its URL, an app on it)."""
    if TEST_DATABASE_URL.startswith("sqlite"):
        url = f"sqlite:///{tmp_path / 'upgrade.db'}"
        admin = None
    else:
        name = f"{make_url(TEST_DATABASE_URL).database}_quiet_upgrade"
        admin = db.create_engine(make_url(TEST_DATABASE_URL).set(database="postgres"), isolation_level="AUTOCOMMIT")
        with admin.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
            conn.execute(text(f'CREATE DATABASE "{name}"'))
        url = make_url(TEST_DATABASE_URL).set(database=name).render_as_string(hide_password=False)
    upgraded = create_app({"TESTING": True, "SQLALCHEMY_DATABASE_URI": url})
    from flask_migrate import upgrade

    from tests.support.migration_files import revision_before

    with upgraded.app_context():
        upgrade(revision=revision_before("0035_signin_countries"))
    yield upgraded
    with upgraded.app_context():
        db.session.remove()
        db.engine.dispose()
    if admin is not None:
        with admin.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{make_url(url).database}" WITH (FORCE)'))
        admin.dispose()


def test_the_upgrade_fills_the_countries_and_the_first_sign_ins_from_the_history(database_before_the_countries):
    now = clock.utcnow()
    accounts = {  # email: (created days ago, [(days ago, result, country)])
        "aktif@example.com": (300, [(10, SUCCESS, "ID"), (50, SUCCESS, "NL"), (60, REFUSED, "JP")]),
        "sepi@example.com": (200, []),  # signed in before the history was purged: nothing left
        "baru@example.com": (5, []),  # made after the oldest sign-in held: never signed in
        "gagal@example.com": (4, [(3, REFUSED, "ID")]),
    }
    with database_before_the_countries.app_context():
        for number, (email, (created, events)) in enumerate(accounts.items(), start=1):
            db.session.execute(text(
                "INSERT INTO users (id, email, name, password_hash, role, is_active, created_at, notify_new_appeals) "
                "VALUES (:id, :email, 'Uji', 'x', 'user', :yes, :created, :no)"),
                {"id": number, "email": email, "created": now - created * DAY, "yes": True, "no": False})
            for days, result, country in events:
                db.session.execute(text(
                    "INSERT INTO login_events (created_at, user_id, email, ip_address, result, alerted, known_browser, "
                    "country) VALUES (:at, :user, :email, '203.0.113.9', :result, :no, :no, :country)"),
                    {"at": now - days * DAY, "user": number, "email": email, "result": result, "country": country,
                     "no": False})
        db.session.commit()
        from flask_migrate import upgrade

        upgrade()
        first = dict(db.session.execute(text("SELECT email, first_signed_in_at FROM users")).all())
        kept = sorted(db.session.execute(text(
            "SELECT users.email, country FROM signin_countries JOIN users ON users.id = user_id")).all())

    def day_of(value):
        if value is None:
            return None
        return round((now - (datetime.fromisoformat(value) if isinstance(value, str) else value)) / DAY)

    assert {email: day_of(value) for email, value in first.items()} == {
        "aktif@example.com": 50, "sepi@example.com": 200, "baru@example.com": None, "gagal@example.com": None}
    assert kept == [("aktif@example.com", "ID"), ("aktif@example.com", "NL")]
