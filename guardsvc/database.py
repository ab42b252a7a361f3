"""Database set-up: SQLite pragmas for many processes, one session per request."""
import os

from sqlalchemy import event
from sqlalchemy.engine import Engine, make_url

from guardsvc.extensions import db

SQLITE_BUSY_TIMEOUT_MS = 15000


def init_database(app):
    db.init_app(app)
    if app.config["SQLALCHEMY_DATABASE_URI"].startswith("sqlite"):
        _owner_only_sqlite_file(make_url(app.config["SQLALCHEMY_DATABASE_URI"]).database)
        event.listen(Engine, "connect", _sqlite_pragmas)


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


def _sqlite_pragmas(dbapi_connection, _record):
    module = type(dbapi_connection).__module__
    if not module.startswith("sqlite3"):
        return
    cursor = dbapi_connection.cursor()
    # WAL lets readers work while one writer commits; writers queue up for
    # busy_timeout instead of failing at once (several gunicorn workers).
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.close()
