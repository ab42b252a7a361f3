"""Database set-up: bounded waits, SQLite pragmas for many processes, one session per request.

Every wait on the database has an end, so that a database that is down or
hangs costs a request a few seconds and a 503, never a worker stuck for good:

- PostgreSQL: ``connect_timeout`` for a new connection, the server's
  ``statement_timeout`` for a slow statement, and, while serving a request, a
  client-side limit on every wait for an answer (statement timeout plus a
  grace second) for a server or network that stops answering altogether: the
  server cannot time out what it never receives. A connection that overran is
  closed, so the pool drops it.
- SQLite: ``busy_timeout`` for a writer waiting for another process's lock.
- Both: the pool's wait for a free connection.
"""
import logging
import os

import psycopg
from flask import has_request_context
from sqlalchemy import event, text
from sqlalchemy.engine import make_url

from guardsvc.extensions import db

log = logging.getLogger(__name__)
# On top of statement_timeout: time for the server's own cancellation to arrive first.
ANSWER_GRACE_SECONDS = 1.0


def init_database(app):
    config = app.config
    uri = config["SQLALCHEMY_DATABASE_URI"]
    options = dict(config["SQLALCHEMY_ENGINE_OPTIONS"])
    if uri.startswith("postgresql"):
        options["pool_timeout"] = config["DATABASE_POOL_TIMEOUT_SECONDS"]
        statement_ms = int(config["DATABASE_STATEMENT_TIMEOUT_SECONDS"] * 1000)
        options["connect_args"] = {
            "connect_timeout": config["DATABASE_CONNECT_TIMEOUT_SECONDS"],
            "options": f"-c statement_timeout={statement_ms}",
            **options.get("connect_args", {}),
        }
    elif uri.startswith("sqlite"):
        # A SQLite connection is a file this process opened: no server can drop it, so a
        # liveness probe before each request would be a statement spent on nothing.
        options["pool_pre_ping"] = False
    config["SQLALCHEMY_ENGINE_OPTIONS"] = options
    db.init_app(app)
    with app.app_context():
        engine = db.engine
    if uri.startswith("sqlite"):
        _owner_only_sqlite_file(make_url(uri).database)
        event.listen(engine, "connect", _sqlite_pragmas(int(config["SQLITE_BUSY_TIMEOUT_SECONDS"] * 1000)))
    elif uri.startswith("postgresql+psycopg"):
        answer_limit = config["DATABASE_STATEMENT_TIMEOUT_SECONDS"] + ANSWER_GRACE_SECONDS
        event.listen(engine, "do_connect", _bounded_connect(answer_limit))


def _bounded_connect(answer_limit):
    def connect(_dialect, _record, cargs, cparams):
        connection = BoundedConnection.connect(*cargs, **cparams)
        connection.answer_limit = answer_limit
        return connection
    return connect


class BoundedConnection(psycopg.Connection):
    """A psycopg connection that, serving a request, waits for the server at most ``answer_limit`` s per operation.

    Commands (migrations building an index, bulk loads) may legitimately wait
    longer and are left to the server's own ``statement_timeout``.
    """

    answer_limit = None

    def wait(self, gen, interval=0.1, timeout=None):
        if timeout is None and has_request_context():
            timeout = self.answer_limit
        try:
            return super().wait(gen, interval=interval, timeout=timeout)
        except psycopg.errors._WaitTimeout:  # psycopg's own "timeout expired" (private name)
            log.error("the database did not answer within %.1f s: closing the connection",
                      self.answer_limit)
            self.pgconn.finish()
            raise psycopg.OperationalError("the database did not answer in time") from None


def _sqlite_pragmas(busy_ms):
    def set_pragmas(dbapi_connection, _record):
        cursor = dbapi_connection.cursor()
        # WAL lets readers work while one writer commits; writers queue up for
        # busy_timeout instead of failing at once (several gunicorn workers).
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute(f"PRAGMA busy_timeout={busy_ms}")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.close()
    return set_pragmas


def _owner_only_sqlite_file(path):
    """Create the SQLite file readable by its owner only, before SQLite creates it.

    SQLite gives its -wal and -shm files the mode of the database file, so
    they follow. A file left by an earlier version is narrowed too.
    """
    if not path or path == ":memory:" or path.startswith("file:"):
        return
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT, 0o600))
        for name in (path, path + "-wal", path + "-shm"):
            if os.path.exists(name) and os.stat(name).st_mode & 0o077:
                os.chmod(name, 0o600)
    except OSError:  # a folder that does not exist yet, or a file of another owner: SQLite will say
        pass


_HEADS = "guardsvc.schema_heads"  # app.extensions: the revisions the code's migrations end in


def schema_is_current(app):
    """True when the database's Alembic revision is the code's head (read from the migrations once)."""
    heads = app.extensions.get(_HEADS)
    if heads is None:
        from alembic.config import Config
        from alembic.script import ScriptDirectory

        config = Config()
        config.set_main_option("script_location", app.extensions["migrate"].directory)
        heads = app.extensions[_HEADS] = frozenset(ScriptDirectory.from_config(config).get_heads())
    stored = {row[0] for row in db.session.execute(text("SELECT version_num FROM alembic_version"))}
    return stored == heads
