"""Database set-up: SQLite pragmas for many processes, one session per request."""
from sqlalchemy import event
from sqlalchemy.engine import Engine

from guardsvc.extensions import db

SQLITE_BUSY_TIMEOUT_MS = 15000


def init_database(app):
    db.init_app(app)
    if app.config["SQLALCHEMY_DATABASE_URI"].startswith("sqlite"):
        event.listen(Engine, "connect", _sqlite_pragmas)


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
