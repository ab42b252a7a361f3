"""Database set-up: bounded waits, SQLite pragmas for many processes, one session per request.

Every wait on the database has an end, so that a database that is down or
hangs costs a request a few seconds and a 503, never a worker stuck for good:

- PostgreSQL: ``connect_timeout`` for a new connection, the server's
  ``statement_timeout`` for a slow statement, and, while serving a request, a
  client-side limit on every wait for an answer (statement timeout plus a
  grace second) for a server or network that stops answering altogether: the
  server cannot time out what it never receives. A connection that overran is
  closed, so the pool drops it.
- SQLite: a writer waits for its process's earlier writers in a queue
  (``guardsvc.storage.sqlite_writers``), then ``busy_timeout`` for another process's lock.
- Both: the pool's wait for a free connection.

Serving a request, each of these waits is also cut to what is left of the
request's deadline (``guardsvc.storage.deadline``), so that they cannot add
up past it, and a wait that ran out trips the breaker that answers the next
second's requests at once. A new PostgreSQL connection is given up at the
deadline too, although psycopg's own ``connect_timeout`` waits whole seconds,
at least two; SQLite's lock wait is cut when a request takes its connection.

Behind a pooler in transaction mode (PgBouncer, ``DATABASE_TRANSACTION_POOLING``)
a connection's startup parameters and session settings would reach whichever
server connection the pooler picks: the statement timeout is then set inside
every transaction (``SET LOCAL``), and statements are never prepared.
"""
import logging
import math
import os
import socket
import threading
import time
import weakref

import sqlite3

import psycopg
from flask import has_request_context
from flask_babel.speaklater import LazyString
from psycopg.types.string import StrDumper
from sqlalchemy import event, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError, TimeoutError as PoolTimeout
from sqlalchemy.pool import QueuePool

from guardsvc.extensions import db
from guardsvc.storage import deadline, revisions, sqlite_writers
from guardsvc.translation import MessageId

log = logging.getLogger(__name__)
# On top of statement_timeout: time for the server's own cancellation to arrive first.
ANSWER_GRACE_SECONDS = 1.0


class _MessageDumper(StrDumper):
    def dump(self, obj):
        return super().dump(str(obj))


def _bind_message_ids_as_text():
    """A message id (guardsvc.messages) written to a column is stored as its text, in the language
    of the moment (a default note, a derived device name): a driver would refuse the lazy object."""
    for kind in (LazyString, MessageId):  # sqlite3 matches the exact type; psycopg follows subclasses too
        sqlite3.register_adapter(kind, str)
        psycopg.adapters.register_dumper(kind, _MessageDumper)


def init_database(app):
    _bind_message_ids_as_text()
    config = app.config
    uri = config["SQLALCHEMY_DATABASE_URI"]
    options = dict(config["SQLALCHEMY_ENGINE_OPTIONS"])
    statement_ms = int(config["DATABASE_STATEMENT_TIMEOUT_SECONDS"] * 1000)
    pooled = config["DATABASE_TRANSACTION_POOLING"]
    if uri.startswith("postgresql"):
        options["pool_timeout"] = config["DATABASE_POOL_TIMEOUT_SECONDS"]
        options["poolclass"] = DeadlinePool
        options["connect_args"] = {
            "connect_timeout": config["DATABASE_CONNECT_TIMEOUT_SECONDS"],
            # A pooler in transaction mode refuses startup options, and prepared statements
            # would live on a server connection the next transaction may not get.
            **({"prepare_threshold": None} if pooled else {"options": f"-c statement_timeout={statement_ms}"}),
            **options.get("connect_args", {}),
        }
    elif uri.startswith("sqlite"):
        # A SQLite connection is a file this process opened: no server can drop it, so a
        # liveness probe before each request would be a statement spent on nothing.
        options["pool_pre_ping"] = False
        # Writers take this process's turn, then the lock at once (guardsvc.storage.sqlite_writers).
        options["connect_args"] = {"factory": sqlite_writers.connection_class(
            make_url(uri).database or ":memory:", config["SQLITE_BUSY_TIMEOUT_SECONDS"]),
            **options.get("connect_args", {})}
    config["SQLALCHEMY_ENGINE_OPTIONS"] = options
    db.init_app(app)
    with app.app_context():
        engine = db.engine
    if uri.startswith("sqlite"):
        _owner_only_sqlite_file(make_url(uri).database)
        busy_seconds = config["SQLITE_BUSY_TIMEOUT_SECONDS"]
        event.listen(engine, "connect", _sqlite_pragmas(busy_seconds))
        event.listen(engine.pool, "checkout", lambda connection, record, _: _bound_lock_wait(connection, record,
                                                                                            busy_seconds))
    elif uri.startswith("postgresql+psycopg"):
        answer_limit = config["DATABASE_STATEMENT_TIMEOUT_SECONDS"] + ANSWER_GRACE_SECONDS
        event.listen(engine, "do_connect", _bounded_connect(answer_limit, pooled))
        event.listen(engine.pool, "checkout", lambda *_: deadline.pinging(False))
        if pooled:
            event.listen(engine, "begin", _timeout_per_transaction(statement_ms))


def _timeout_per_transaction(statement_ms):
    def begin(connection):
        connection.exec_driver_sql(f"SET LOCAL statement_timeout = {statement_ms}")
    return begin


# What PgBouncer (and other poolers in transaction mode) answer to the statement timeout we send
# as a startup option.
_POOLER_REFUSAL = "unsupported startup parameter"
POOLER_FIX = ("the database (a pooler such as PgBouncer in transaction mode) refused the startup option "
              "that sets the statement timeout: set GUARDSVC_DATABASE_TRANSACTION_POOLING=true, which sets "
              "it inside every transaction instead")


def _bounded_connect(answer_limit, pooled):
    def connect(_dialect, _record, cargs, cparams):
        serving = deadline.remaining() is not None
        if serving and not deadline.database_breaker.allows():
            raise psycopg.OperationalError("the database did not answer a moment ago")
        params = dict(cparams)
        if params.get("connect_timeout"):  # libpq counts whole seconds
            params["connect_timeout"] = max(1, math.ceil(deadline.bounded(params["connect_timeout"])))
        if serving:
            _watchdog.watch(cargs, cparams)
        started = time.monotonic()
        try:
            connection = BoundedConnection.connect(*cargs, **params)
        except psycopg.OperationalError as exc:
            if not pooled and _POOLER_REFUSAL in str(exc):
                log.error(POOLER_FIX)
                raise psycopg.OperationalError(f"{exc}".strip() + f"\n{POOLER_FIX}") from exc
            if serving and time.monotonic() - started >= deadline.BREAKER_EVIDENCE_SECONDS:
                _trip_and_cut_waits()  # it accepted nothing, or answered nothing, for a while
            raise
        deadline.database_breaker.answered()
        connection.answer_limit = answer_limit
        return connection
    return connect


class DeadlinePool(QueuePool):
    """A QueuePool whose wait for a free connection ends with the request's deadline.

    Serving a request while the breaker is open (the database just failed to
    answer), it does not wait at all.
    """

    @property
    def _timeout(self):
        if deadline.remaining() is not None and not deadline.database_breaker.allows():
            raise PoolTimeout("the database did not answer a moment ago")
        return deadline.bounded(self._configured_timeout)

    @_timeout.setter
    def _timeout(self, value):
        self._configured_timeout = value

    def _do_get(self):
        record = super()._do_get()
        deadline.pinging(True)  # the liveness check comes next; the "checkout" event ends it
        return record


class BoundedConnection(psycopg.Connection):
    """A psycopg connection that, serving a request, waits for the server at most ``answer_limit`` s per operation.

    Commands (migrations building an index, bulk loads) may legitimately wait
    longer and are left to the server's own ``statement_timeout``.
    """

    answer_limit = None
    fixed_limit = None  # the watchdog's own connection: always this, request or not

    @classmethod
    def _connect_gen(cls, conninfo=""):
        """Connecting while serving a request: given up at its deadline (psycopg's own timeout waits at least 2 s)."""
        connecting = super()._connect_gen(conninfo)
        left = deadline.remaining()
        return connecting if left is None else _given_up_after(connecting, time.monotonic() + left)

    def wait(self, gen, interval=0.1, timeout=None):
        if self.fixed_limit is not None:
            timeout = self.fixed_limit
        elif timeout is None and (deadline.remaining() is not None or has_request_context()):
            timeout = deadline.answer_limit(self.answer_limit)
        pinging = deadline.is_pinging()
        # Only a request's waits are the watchdog's to cut: a command (a migration, a bulk load) waits as long
        # as the server lets it, and may use another database than the one the watchdog pings.
        watched = self.fixed_limit is None and deadline.remaining() is not None
        if watched:
            _WAITING[self] = time.monotonic()
        try:
            result = super().wait(gen, interval=interval, timeout=timeout)
        except psycopg.errors._WaitTimeout:  # psycopg's own "timeout expired" (private name)
            log.error("the database did not answer within %.1f s: closing the connection", timeout)
            self.pgconn.finish()
            if pinging and deadline.remaining() is not None:
                _trip_and_cut_waits()  # SELECT 1 unanswered: the database is silent for everyone
            raise psycopg.OperationalError("the database did not answer in time") from None
        finally:
            _WAITING.pop(self, None)
        deadline.database_breaker.answered()
        return result


def _given_up_after(steps, ends):
    """psycopg's connection generator ``steps``, failing once the monotonic time ``ends`` has passed.

    psycopg resumes it at least every 0.1 s while it waits for the server.
    """
    try:
        step = next(steps)
        while True:
            ready = yield step
            if time.monotonic() >= ends:
                steps.close()  # the half-open connection is closed with it
                raise psycopg.errors.ConnectionTimeout("the database did not accept a connection in time")
            step = steps.send(ready)
    except StopIteration as finished:
        return finished.value


# The connections of this process that wait for the database now, and since when (cut when the
# database is known silent).
_WAITING = weakref.WeakKeyDictionary()


class _Watchdog:
    """Asks the database whether it is alive when a request has waited for an answer a while.

    A request already past its liveness check (mid-statement when the database
    froze) would wait until its deadline; meanwhile no new request may get a
    thread to notice. So when any wait has lasted ``deadline.PING_SECONDS``, this
    thread sends ``SELECT 1`` on a connection of its own, bounded the same way:
    unanswered, the breaker trips and every wait ends. A slow statement on a
    healthy database is left alone (the ping is answered). One thread and, once
    needed, one connection per process.
    """

    def __init__(self):
        self._lock = threading.Lock()
        self._thread = None
        self._params = None
        self._connection = None

    def watch(self, cargs, cparams):
        with self._lock:
            self._params = (cargs, dict(cparams))
            if self._thread is None or not self._thread.is_alive():  # started in each forked worker
                self._thread = threading.Thread(target=self._run, name="guardsvc-db-watchdog", daemon=True)
                self._thread.start()

    def _run(self):
        while True:
            time.sleep(deadline.PING_SECONDS / 2)
            now = time.monotonic()
            try:
                waited = min(list(_WAITING.values()), default=now)
            except RuntimeError:  # changed by a request thread meanwhile: look again next time
                continue
            if not deadline.database_breaker.is_closed():
                self._alive()  # an answer closes the breaker: recovery does not wait for a trial request
                continue
            if now - waited < deadline.PING_SECONDS:
                if self._connection is None:
                    self._alive()  # connect while the database answers: a freeze then costs one ping
                continue
            if not self._alive():
                _trip_and_cut_waits()

    def _alive(self):
        try:
            if self._connection is None or self._connection.closed:
                cargs, cparams = self._params
                self._connection = BoundedConnection.connect(*cargs, **{**cparams, "connect_timeout": 2,
                                                                        "autocommit": True})
                self._connection.fixed_limit = deadline.PING_SECONDS
            self._connection.execute("SELECT 1")
            return True
        except psycopg.Error:
            self._connection = None
            return False


_watchdog = _Watchdog()


def _snapshot(connections):
    for _ in range(10):
        try:
            return list(connections)
        except RuntimeError:  # changed by another thread meanwhile
            continue
    return []


def _trip_and_cut_waits():
    """Open the breaker and end every wait on the database in this process at once.

    Shutting a waiting connection's socket down wakes its thread, which fails
    that request with a 503 now instead of at its deadline: the threads go back
    to serving what needs no database.
    """
    deadline.database_breaker.trip()
    for connection in _snapshot(_WAITING):
        try:
            with socket.socket(fileno=os.dup(connection.pgconn.socket)) as duplicate:
                duplicate.shutdown(socket.SHUT_RDWR)
        except (OSError, psycopg.Error):
            pass  # already closed


def _sqlite_pragmas(busy_seconds):
    def set_pragmas(dbapi_connection, record):
        # First: the pragmas below wait for a lock too (a file another process holds exclusively).
        _bound_lock_wait(dbapi_connection, record, busy_seconds)
        cursor = dbapi_connection.cursor()
        # WAL lets readers work while one writer commits. A process's writers queue for their
        # turn (sqlite_writers); busy_timeout is the wait for another process's writer.
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.close()
    return set_pragmas


_BUSY_MS = "guardsvc_busy_ms"  # in a SQLite connection's record: its busy_timeout now


def _bound_lock_wait(dbapi_connection, record, busy_seconds):
    """SQLite waits ``busy_seconds`` for another process's lock; serving a request, at most what is left of it.

    What is left is counted in steps of 0.1 s, rounded down: most requests take their connection
    with as much time left as the one before, and then no statement is spent on it.
    """
    busy_ms = int(busy_seconds * 1000)
    left = deadline.remaining()
    if left is not None and left < busy_seconds:
        busy_ms = int(left * 10) * 100
    if record.info.get(_BUSY_MS) != busy_ms:
        dbapi_connection.execute(f"PRAGMA busy_timeout={busy_ms}")
        record.info[_BUSY_MS] = busy_ms


def _owner_only_sqlite_file(path):
    """Create the SQLite file readable by its owner only, before SQLite creates it.

    SQLite gives its -wal and -shm files the mode of the database file, so
    they follow. A file left by an earlier version is narrowed too.
    """
    if not path or path == ":memory:" or path.startswith("file:"):
        return
    try:
        # Only a file that does not exist yet is opened: closing a descriptor of a database this
        # process already uses would drop every POSIX lock SQLite holds on it (fcntl locks belong
        # to the process), and another process could then delete the -wal file under it.
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    except FileExistsError:
        pass
    except OSError:  # a folder that does not exist yet, or a file of another owner: SQLite will say
        return
    try:
        for name in (path, path + "-wal", path + "-shm"):
            if os.path.exists(name) and os.stat(name).st_mode & 0o077:
                os.chmod(name, 0o600)
    except OSError:  # a folder that does not exist yet, or a file of another owner: SQLite will say
        pass


def schema_state(app):
    """How the database's schema stands to this code: a state of ``guardsvc.storage.revisions``.

    ``"current"`` (its revision is the code's head), ``"ahead"`` (newer migrations ran, none declared
    incompatible with this code: it serves, and a node of the previous release stays ready during
    an upgrade), ``"behind"`` (a migration is still to run), ``"incompatible"`` (ahead by a migration
    that declared it breaks this code) or ``"missing"`` (never migrated). A database that cannot be
    reached (or a SQLite file locked) raises, as any query would, after that one query: a missing
    table is told from the error itself, not by asking again.
    """
    try:
        stored = {row[0] for row in db.session.execute(text("SELECT version_num FROM alembic_version"))}
    except DBAPIError as error:
        db.session.rollback()
        if not revisions.no_such_table(error):
            raise
        return revisions.MISSING
    return revisions.compare(app, frozenset(stored))
