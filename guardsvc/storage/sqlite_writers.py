"""SQLite writers queue in their process, never sleep in SQLite's busy handler.

SQLite has one writer at a time per database file. A connection that wants the write lock while
another holds it waits in SQLite's busy handler, which sleeps (1, 2, 5, 10 ... 100 ms steps) and
looks again: eight threads of a worker writing at once wake and sleep in turn, and a submission's
p99 under a modest flood was a second. So a process hands the write lock to its own threads in
order before they reach SQLite:

- the first write statement of a transaction (INSERT, UPDATE, DELETE, REPLACE, or a SAVEPOINT
  outside a transaction) first takes this process's turn for that file (``WriteQueue``: first
  come, first served; a waiting thread is woken by the one that ends its transaction), then
  begins with ``BEGIN IMMEDIATE``, so SQLite's lock is taken at once, before any statement ran;
- the turn passes on when the transaction ends (commit, rollback, or the connection closed).

Reads never queue: a request that only reads runs in autocommit as before, and WAL lets it read
while a writer writes. Between processes (one gunicorn worker per core) SQLite's own lock and its
busy handler remain the last resort: only each process's head of the queue can be waiting there.

Serving a request, both waits end with the request's deadline (``guardsvc.storage.deadline``):
the turn is awaited at most what is left of it, and SQLite's busy timeout is cut to the rest.
A write that cannot begin in time fails before it wrote anything (``database is locked``), and
the request answers the documented 503.
"""
import collections
import os
import sqlite3
import threading

from guardsvc.storage import deadline

_STARTS_WRITE = ("INSERT", "UPDATE", "DELETE", "REPLACE", "SAVEPOINT")
# Outside a request (commands, the background worker) a turn is awaited this long at most.
TURN_SECONDS = 30.0


class WriteQueue:
    """One process's turn to write to one database file, handed over first come, first served."""

    def __init__(self):
        self._lock = threading.Lock()
        self._waiting = collections.deque()
        self._held = False

    def acquire(self, timeout):
        """Wait at most ``timeout`` seconds for the turn; True when it is this thread's."""
        with self._lock:
            if not self._held:
                self._held = True
                return True
            waiter = threading.Lock()
            waiter.acquire()
            self._waiting.append(waiter)
        if waiter.acquire(timeout=max(timeout, 0)):
            return True
        with self._lock:
            try:
                self._waiting.remove(waiter)
            except ValueError:  # handed the turn just as the wait ran out: it is ours
                return True
        return False

    def release(self):
        """End this thread's turn: the longest waiting thread gets it, or nobody holds it."""
        with self._lock:
            if self._waiting:
                self._waiting.popleft().release()  # the turn passes straight on
            else:
                self._held = False

    def waiting(self):
        return len(self._waiting)


_QUEUES = {}
_QUEUES_LOCK = threading.Lock()


def queue_for(path):
    """The process's write queue for the database file ``path`` (one however many engines use it)."""
    key = os.path.abspath(path)
    with _QUEUES_LOCK:
        queue = _QUEUES.get(key)
        if queue is None or queue[0] != os.getpid():  # a fork starts with nobody writing
            queue = _QUEUES[key] = (os.getpid(), WriteQueue())
        return queue[1]


def connection_class(path, busy_seconds):
    """A ``sqlite3.Connection`` class (``factory=`` of ``sqlite3.connect``) whose writers queue for ``path``."""

    class QueuedConnection(_QueuedConnection):
        _path = path
        _busy_seconds = busy_seconds

    return QueuedConnection


class _QueuedConnection(sqlite3.Connection):
    _path = None
    _busy_seconds = 5.0
    _queue = None
    _holding = False
    _busy_ms = None  # the busy timeout this connection has now

    def cursor(self, factory=None):
        return super().cursor(factory or _QueuedCursor)

    def begin_write(self):
        """Take this process's turn, then SQLite's write lock (``BEGIN IMMEDIATE``); no-op inside a transaction."""
        if self._holding or self.in_transaction:
            return
        if self._queue is None or self._queue is not queue_for(self._path):
            self._queue = queue_for(self._path)
        if not self._queue.acquire(deadline.bounded(TURN_SECONDS)):
            raise sqlite3.OperationalError("database is locked (waited for this process's earlier writers "
                                           "until the request's deadline)")
        self._holding = True
        try:
            busy_ms = int(deadline.bounded(self._busy_seconds) * 1000)
            if busy_ms != self._busy_ms:
                super().execute(f"PRAGMA busy_timeout={busy_ms}")
                self._busy_ms = busy_ms
            super().execute("BEGIN IMMEDIATE")
        except BaseException:
            self.end_write()
            raise

    def end_write(self):
        """Pass the turn on once the transaction is over."""
        if self._holding:
            try:
                over = not self.in_transaction
            except sqlite3.ProgrammingError:  # closed
                over = True
            if over:
                self._holding = False
                self._queue.release()

    def commit(self):
        try:
            super().commit()
        finally:
            self.end_write()

    def rollback(self):
        try:
            super().rollback()
        finally:
            self.end_write()

    def close(self):
        try:
            super().close()
        finally:
            self.end_write()


def _writes(sql):
    return sql.lstrip()[:9].upper().startswith(_STARTS_WRITE)


class _QueuedCursor(sqlite3.Cursor):
    def execute(self, sql, *args, **kwargs):
        if not _writes(sql):
            return super().execute(sql, *args, **kwargs)
        connection = self.connection
        connection.begin_write()
        try:
            return super().execute(sql, *args, **kwargs)
        except BaseException:
            connection.end_write()  # passes the turn on only if no transaction is open
            raise

    def executemany(self, sql, *args, **kwargs):
        if not _writes(sql):
            return super().executemany(sql, *args, **kwargs)
        connection = self.connection
        connection.begin_write()
        try:
            return super().executemany(sql, *args, **kwargs)
        except BaseException:
            connection.end_write()
            raise
