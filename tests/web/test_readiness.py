"""/readyz answers within a second whatever the database does: one short try, or the breaker at once.

The whole picture (a PostgreSQL frozen with SIGSTOP for 20 s under traffic, gunicorn as
shipped) is in tests/storage/test_faults_live.py; here, each part on its own: a SQLite file another
process holds, a new PostgreSQL connection given up at the request's deadline, a breaker
trial that tries once.
"""
import contextvars
import subprocess
import sys
import time

import psycopg
import pytest
from sqlalchemy import text

from guardsvc import create_app
from guardsvc.extensions import db
from guardsvc.storage import deadline
from guardsvc.storage.database import BoundedConnection
from tests.conftest import TEST_DATABASE_URL
from tests.support.faults_support import DatabaseProxy, postgres_target

ON_SQLITE = TEST_DATABASE_URL.startswith("sqlite")
# What an exclusive holder of a SQLite file looks like to everyone else (a backup tool, an operator's
# sqlite3 shell with locking_mode=EXCLUSIVE): every statement waits for the lock, then fails.
HOLD_SQLITE_FILE = """
import sqlite3, sys, time
holder = sqlite3.connect(sys.argv[1], isolation_level=None)
holder.execute("PRAGMA journal_mode=WAL")
holder.execute("PRAGMA locking_mode=EXCLUSIVE")
holder.execute("BEGIN EXCLUSIVE")
holder.execute("CREATE TABLE IF NOT EXISTS held (x)")
print("held", flush=True)
time.sleep(60)
"""


def during_a_request(seconds, call):
    """``call()`` as the application would run it serving a request with a deadline of ``seconds``."""
    middleware = deadline.RequestDeadline(lambda _environ, _start: call(), seconds)
    return contextvars.copy_context().run(middleware, {}, None)


def timed(call):
    started = time.monotonic()
    result = call()
    return result, time.monotonic() - started


@pytest.mark.skipif(not ON_SQLITE, reason="about SQLite")
def test_a_sqlite_file_held_by_another_process_is_not_ready_within_a_second(tmp_path):
    path = tmp_path / "held.db"
    holder = subprocess.Popen([sys.executable, "-c", HOLD_SQLITE_FILE, str(path)], stdout=subprocess.PIPE,
                              text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        client = create_app({"SQLALCHEMY_DATABASE_URI": f"sqlite:///{path}"}).test_client()
        held, seconds = timed(lambda: client.get("/readyz"))
        # Before: 10 s (the lock waited for twice, 5 s each), then the usual 503 without a reason.
        assert seconds < 1
        assert held.status_code == 503 and held.get_json()["reason"] == "database_unavailable"
        assert held.headers["Retry-After"] == "5"
    finally:
        holder.kill()
        holder.wait()
    # Readable again: this file was never migrated, which the same single query tells apart.
    missing = client.get("/readyz")
    assert missing.status_code == 503 and missing.get_json()["reason"] == "schema_missing"


@pytest.mark.skipif(not ON_SQLITE, reason="about SQLite")
def test_sqlite_waits_for_a_lock_no_longer_than_what_is_left_of_the_request(app):
    def busy_timeout():
        with app.app_context():
            try:
                return db.session.execute(text("PRAGMA busy_timeout")).scalar()
            finally:
                db.session.remove()

    assert busy_timeout() == app.config["SQLITE_BUSY_TIMEOUT_SECONDS"] * 1000  # a command: as configured
    assert 0 < during_a_request(0.3, busy_timeout) <= 300
    assert busy_timeout() == app.config["SQLITE_BUSY_TIMEOUT_SECONDS"] * 1000  # given back


@pytest.mark.skipif(ON_SQLITE, reason="needs a PostgreSQL test database to freeze")
def test_a_new_postgresql_connection_is_given_up_at_the_deadline():
    """psycopg's own connect_timeout waits whole seconds, at least 2: serving, the deadline ends it."""
    proxy = DatabaseProxy(postgres_target(TEST_DATABASE_URL))
    url = proxy.url_for(TEST_DATABASE_URL).replace("+psycopg", "")
    try:
        during_a_request(0.5, lambda: BoundedConnection.connect(url, connect_timeout=3)).close()  # it answers
        proxy.freeze()
        started = time.monotonic()
        with pytest.raises(psycopg.errors.ConnectionTimeout):
            during_a_request(0.5, lambda: BoundedConnection.connect(url, connect_timeout=3))
        assert time.monotonic() - started < 1
    finally:
        proxy.close()


def test_a_trial_that_trips_the_breaker_tries_nothing_more(monkeypatch):
    breaker = deadline._Breaker()
    now = [1000.0]
    monkeypatch.setattr(deadline.time, "monotonic", lambda: now[0])

    def trial():
        tried = [breaker.allows()]
        breaker.trip()  # its wait ran out
        tried.append(breaker.allows())
        now[0] += deadline.BREAKER_SECONDS
        tried.append(breaker.allows())  # half-open again: it may become the next trial
        return tried

    breaker.trip()
    assert not breaker.allows()
    now[0] += deadline.BREAKER_SECONDS
    assert during_a_request(5, trial) == [True, False, True]


def test_a_tripped_trial_ending_late_does_not_end_the_next_one(monkeypatch):
    breaker = deadline._Breaker()
    now = [1000.0]
    monkeypatch.setattr(deadline.time, "monotonic", lambda: now[0])
    breaker.trip()
    now[0] += deadline.BREAKER_SECONDS
    first, second = contextvars.copy_context(), contextvars.copy_context()
    assert first.run(breaker.allows)
    breaker.trip()
    now[0] += deadline.BREAKER_SECONDS
    assert second.run(breaker.allows)  # the next trial, under way
    first.run(breaker.end_trial)  # the first one's request only now ends
    assert not breaker.allows()  # a third request still waits for the second trial
