"""Several nodes for the live tests: a PostgreSQL database of their own, nodes (gunicorn, each with its own
instance folder), their workers, and a look at what they wrote.

A node here is what an operator runs on a machine: ``gunicorn wsgi:app`` with an instance folder of its
own and, when it delivers, ``flask worker`` with the same settings. Nodes share nothing but the database
and Redis (rate limits under a key prefix of the test's own).
"""
import secrets
import threading

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

from tests.support.cli_processes import CommandProcess
from tests.conftest import TEST_DATABASE_URL, _create_postgres_database
from tests.support.live import REDIS_URL, LiveServer

ON_SQLITE = TEST_DATABASE_URL.startswith("sqlite")
# Several nodes share a server database and Redis; SQLite serves one machine (docs/production.md).
needs_a_server_database = pytest.mark.skipif(ON_SQLITE, reason=(
    "several nodes share a PostgreSQL database (GUARDSVC_TEST_DATABASE_URL); SQLite serves one machine"))


def separate_database(suffix):
    """A PostgreSQL database of its own beside the lane's (``<lane>_<suffix>``), emptied: its URL."""
    url = make_url(TEST_DATABASE_URL).set(database=f"{make_url(TEST_DATABASE_URL).database}_{suffix}")
    rendered = url.render_as_string(hide_password=False)
    _create_postgres_database(rendered)
    engine = create_engine(url.set(drivername="postgresql+psycopg"))
    with engine.begin() as connection:
        connection.execute(text("DROP SCHEMA public CASCADE"))
        connection.execute(text("CREATE SCHEMA public"))
    engine.dispose()
    return rendered


def migrate_in_process(url):
    """``flask db upgrade`` of this checkout on ``url``, in this process (no cold start): the app bound to it."""
    from flask_migrate import upgrade

    from guardsvc import create_app

    app = create_app({"TESTING": True, "SQLALCHEMY_DATABASE_URI": _psycopg(url)})
    with app.app_context():
        upgrade()
    return app


def dispose(app):
    """Close the pooled connections of an app ``migrate_in_process`` made (the server's connections are shared)."""
    from guardsvc.extensions import db

    with app.app_context():
        db.session.remove()
        db.engine.dispose()


def _psycopg(url):
    return url.replace("postgresql://", "postgresql+psycopg://", 1)


class Database:
    """Plain SQL on a test database."""

    def __init__(self, url):
        self.engine = create_engine(_psycopg(url))

    def rows(self, sql, **params):
        with self.engine.connect() as connection:
            return connection.execute(text(sql), params).all()

    def value(self, sql, **params):
        with self.engine.connect() as connection:
            return connection.execute(text(sql), params).scalar()

    def run(self, sql, **params):
        with self.engine.begin() as connection:
            connection.execute(text(sql), params)

    def dispose(self):
        self.engine.dispose()


def node_settings(database_url, folder, name, **extra):
    """What every node of a test shares (database, Redis, secrets, public address), and its own folder and name."""
    return {"GUARDSVC_DATABASE_URL": database_url, "GUARDSVC_INSTANCE_PATH": str(folder / name),
            "GUARDSVC_NODE_NAME": name, "GUARDSVC_NODE_REPORT_SECONDS": "0.5",
            "GUARDSVC_BASE_URL": "http://guardsvc.test", "GUARDSVC_PROXY_COUNT": "1",
            "GUARDSVC_WEBHOOK_REFRESH_SECONDS": "0.5", "GUARDSVC_WEBHOOK_ALLOW_PRIVATE_TARGETS": "true",
            "GUARDSVC_HASH_CONCURRENCY": "4", **extra}


def shared_limits(prefix):
    """Rate limits on, counted in Redis under ``prefix``: every node that has these counts with the others."""
    return {"GUARDSVC_RATELIMIT_ENABLED": "true", "GUARDSVC_RATELIMIT_STORAGE_URI": REDIS_URL,
            "GUARDSVC_RATELIMIT_KEY_PREFIX": prefix, "GUARDSVC_RATELIMIT_SUBMIT": "10000 per minute",
            "GUARDSVC_RATELIMIT_AUTH": "10000 per minute", "GUARDSVC_RATELIMIT_CHECK": "5 per minute"}


def new_prefix():
    return f"guardsvc-fleet-{secrets.token_hex(6)}"


def start_nodes(settings_by_name, workers=2, threads=2, cwd=None):
    """Start one gunicorn per entry at once; ``{name: LiveServer}``. Two threads a worker: enough for the
    tests' traffic, and few connections held on a database server other suites share."""
    started, failures = {}, []

    def start(name, settings):
        try:
            started[name] = LiveServer(workers=workers, threads=threads, env=settings, cwd=cwd)
        except Exception as exc:  # noqa: BLE001 - reported below, with the others stopped
            failures.append((name, exc))

    threads_ = [threading.Thread(target=start, args=item) for item in settings_by_name.items()]
    for thread in threads_:
        thread.start()
    for thread in threads_:
        thread.join()
    if failures:
        for server in started.values():
            server.stop()
        raise RuntimeError(f"nodes did not start: {failures}")
    return started


class Worker:
    """``flask --app guardsvc worker`` of a node (its settings), forked from the suite's forkserver: a process
    of its own that builds its application as a cold ``flask`` does, without the seconds of imports."""

    def __init__(self, settings, folder):
        folder.mkdir(parents=True, exist_ok=True)
        self.command = CommandProcess(["worker"], {**settings, "GUARDSVC_LOG_LEVEL": "INFO"}, folder)

    def kill(self):
        """SIGKILL: nothing of it runs a moment later, its claims stay as they were."""
        if self.command.process.is_alive():
            self.command.process.kill()
        self.command.process.join(10)

    def stop(self):
        """SIGTERM, as an operator stops it; (exit status, what it logged)."""
        _, code, stdout, stderr = self.command.stop_after(0)
        return code, stdout + stderr

    def output(self):
        """What it logged so far."""
        return (self.command.stdout_path.read_text(errors="replace")
                + self.command.stderr_path.read_text(errors="replace"))
