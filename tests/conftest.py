"""Test set-up: one app per session on SQLite or PostgreSQL, clean tables per test.

``GUARDSVC_TEST_DATABASE_URL`` picks PostgreSQL (or any URL); otherwise a
SQLite file in a temporary folder. The schema always comes from the Alembic
migrations, so the migrations are tested too.

Every pytest process has a database of its own: the SQLite file lives in the
process's own temporary folder, and a server database gets the process's name
appended, created when missing: the lane's name (``GUARDSVC_TEST_LANE``, set by
``scripts/test`` for the lane that runs the ``one_database`` tests) and, under
pytest-xdist, the worker's (``test`` -> ``test_pages_gw0``). Live servers
started by a process inherit its database.

Passwords are hashed with Argon2id at its smallest costs (production costs
would make hashing most of a run's time); a test about hashing itself asks for
the production costs with ``@pytest.mark.production_password_hashing``.
"""
import functools
import os
import tempfile
from pathlib import Path

import pytest

_TMP = Path(tempfile.mkdtemp(prefix="guardsvc-tests-"))
# The lane and, in a pytest-xdist worker, "gw0", "gw1", ...: what makes this process's
# server database its own. Empty for a plain run.
PROCESS_SUFFIX = "_".join(filter(None, (os.environ.get("GUARDSVC_TEST_LANE", ""),
                                         os.environ.get("PYTEST_XDIST_WORKER", ""))))


def _process_database_url(url, suffix):
    """``url`` with ``suffix`` appended to its database name (a server database only)."""
    from sqlalchemy.engine import make_url

    if not suffix or url.startswith("sqlite"):
        return url
    parsed = make_url(url)
    # Without a database name the server's default applies: the user's name.
    name = parsed.database or parsed.username or "postgres"
    return parsed.set(database=f"{name}_{suffix}").render_as_string(hide_password=False)


TEST_DATABASE_URL = _process_database_url(
    os.environ.get("GUARDSVC_TEST_DATABASE_URL") or f"sqlite:///{_TMP / 'test.db'}", PROCESS_SUFFIX)

# Settings are read from the environment, also by the server processes that
# live tests start, so the environment is where the test settings go.
os.environ.update({
    "GUARDSVC_DATABASE_URL": TEST_DATABASE_URL,
    "GUARDSVC_SECRET_KEY": "test-secret-key-not-for-production",
    # What the proxy presents to forward auth and the edge list (tests.support.blocks_helpers.PROXY_SECRET);
    # set, so no test writes a generated one into the checkout's instance folder.
    "GUARDSVC_FORWARD_AUTH_SECRET": "test-proxy-secret-of-the-suite-0123456789",
    "GUARDSVC_RATELIMIT_ENABLED": "false",
    # An app a test builds with limits on counts in its own memory: a fresh count per app, where the
    # default (the instance folder's file, shared by every process) would carry counts from test to
    # test. The default store has tests of its own (tests/ratelimits/test_machine_limits.py).
    "GUARDSVC_RATELIMIT_STORAGE_URI": "memory://",
    "GUARDSVC_APPEAL_MIN_FILL_SECONDS": "0",
    "GUARDSVC_LOG_LEVEL": "WARNING",
    # Mail delivered without a mail server is kept here, never in the checkout's instance folder.
    "GUARDSVC_MAILBOX_DIR": str(_TMP / "mail"),
    "GUARDSVC_TESTING_CHEAP_PASSWORD_HASHES": "true",
    # The subscribed webhook events are read once (``app`` below) and again after a test that left
    # endpoints (``_clean_tables``), never because a period ran out: that read would land in
    # whichever request came next, and the statement budgets count every statement.
    "GUARDSVC_WEBHOOK_REFRESH_SECONDS": "86400",
    # Never the checkout's own instance folder: a list loaded there by hand must not refuse test passwords.
    "GUARDSVC_BREACHED_PASSWORDS_FILE": str(_TMP / "breached-passwords.bloom"),
    # Self-release proofs at the smallest cost (one PBKDF2 iteration an attempt): a test solves one in
    # milliseconds; bench/self_release_solve.py measures the real cost in Chromium.
    "GUARDSVC_SELF_RELEASE_COST": "1",
    # Test clients (and live servers' callers) are loopback addresses that many tests block; the default
    # that refuses it is tested with the setting given back (tests/blocks/test_block_bounds.py).
    "GUARDSVC_NEVER_BLOCK": "none",
    # Never the checkout's own instance folder (live servers write their node's id there, guardsvc.nodes).
    "GUARDSVC_INSTANCE_PATH": str(_TMP / "instance"),
})

from sqlalchemy import create_engine, exists, literal, select, text, union_all  # noqa: E402

from guardsvc import create_app  # noqa: E402
from guardsvc.extensions import db  # noqa: E402

pytest_plugins = ["tests.support.factories", "tests.support.live", "tests.support.crowdsec_lapi"]
PRODUCTION_HASHING = "production_password_hashing"


# The longest tests (tens of seconds each), then every other live one: a pytest-xdist
# worker then starts them first, beside the many short ones, not last on one worker alone.
LONGEST_FIRST = ("tests/openapi/test_openapi_live.py", "tests/browser/test_accessibility.py")


def pytest_configure(config):
    config.addinivalue_line("markers", f"{PRODUCTION_HASHING}: hash passwords at production cost in this test")


def pytest_collection_modifyitems(config, items):
    """Under pytest-xdist only (each worker sorts alike): long and live tests first."""
    if not hasattr(config, "workerinput"):
        return

    def rank(item):
        if item.nodeid.startswith(LONGEST_FIRST):
            return 0
        return 1 if item.get_closest_marker("live") else 2

    items.sort(key=rank)


def _create_postgres_database(url):
    """Create the database of ``url`` when it does not exist yet (through the ``postgres`` database).

    A lane's or worker's database is the suite's own: its commits need not wait for the disk
    (``synchronous_commit = off``; every other process still sees them at once).
    """
    from sqlalchemy.engine import make_url

    name = make_url(url).database
    maintenance = create_engine(make_url(url).set(database="postgres"), isolation_level="AUTOCOMMIT")
    exists_query = text("SELECT 1 FROM pg_database WHERE datname = :name")
    try:
        with maintenance.connect() as conn:
            if not conn.execute(exists_query, {"name": name}).first():
                try:
                    conn.execute(text(f'CREATE DATABASE "{name}"'))
                except Exception:
                    # Another run may have created it in the meantime.
                    if not conn.execute(exists_query, {"name": name}).first():
                        raise
            conn.execute(text(f'ALTER DATABASE "{name}" SET synchronous_commit = off'))
    finally:
        maintenance.dispose()


def _reset_postgres(url):
    from guardsvc.config import load_settings

    url = load_settings(str(_TMP))["SQLALCHEMY_DATABASE_URI"]
    if PROCESS_SUFFIX:
        _create_postgres_database(url)
    engine = create_engine(url)
    with engine.begin() as conn:
        conn.execute(text("DROP SCHEMA public CASCADE"))
        conn.execute(text("CREATE SCHEMA public"))
    engine.dispose()


@pytest.fixture(scope="session")
def app():
    if TEST_DATABASE_URL.startswith("postgres"):
        _reset_postgres(TEST_DATABASE_URL)
    app = create_app({"TESTING": True})
    with app.app_context():
        from flask_migrate import upgrade

        upgrade()
        _read_webhook_subscriptions()
    yield app


def _read_webhook_subscriptions():
    """Read the subscribed webhook events (none, after a clean-up) now, not in the next test's request."""
    from guardsvc.webhooks.service import forget_subscriptions, subscribed_events

    forget_subscriptions()
    subscribed_events()
    db.session.remove()


@pytest.fixture(autouse=True)
def _clean_tables(request):
    """Every test starts with empty tables (live servers see the same database).

    One query finds the tables that hold rows, and only those are emptied: most
    tests write to a few tables. DELETE, because TRUNCATE of every table costs
    tens of milliseconds on PostgreSQL, many times more than this.
    """
    yield
    if "app" not in request.fixturenames:
        return
    app = request.getfixturevalue("app")
    with app.app_context():
        db.session.remove()
        tables = list(reversed(db.metadata.sorted_tables))
        with db.engine.begin() as conn:
            filled = set(conn.execute(_filled_tables_query()).scalars())
            for table in tables:
                if table.name in filled:
                    conn.execute(table.delete())
        if "webhook_endpoints" in filled:
            _read_webhook_subscriptions()


@functools.cache
def _filled_tables_query():
    """The names of the tables that hold a row: one statement, built (and compiled) once per run."""
    probes = [select(literal(table.name)).where(exists().select_from(table)) for table in db.metadata.sorted_tables]
    return union_all(*probes)


@pytest.fixture(autouse=True)
def _password_hashing(request):
    """Production hashing costs for the tests marked ``production_password_hashing``."""
    if request.node.get_closest_marker(PRODUCTION_HASHING):
        app = request.getfixturevalue("app")
        request.getfixturevalue("monkeypatch").setitem(app.config, "TESTING_CHEAP_PASSWORD_HASHES", False)


@pytest.fixture()
def ctx(app):
    """An application context for service-level tests."""
    with app.app_context():
        yield
        db.session.remove()


@pytest.fixture()
def client(app):
    return app.test_client()


@pytest.fixture()
def runner(app):
    return app.test_cli_runner()
