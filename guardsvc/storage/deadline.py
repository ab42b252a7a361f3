"""The whole-request deadline: every wait on a dependency ends by the time the request must have its answer.

A request gets ``REQUEST_DEADLINE_SECONDS`` from the moment the WSGI server
hands it over until its last teardown (the session's closing ROLLBACK
included). Each wait on the database - a connection from the pool, a new
connection, an answer from the server - is bounded by what is left of it, so
the waits of one request cannot add up past it; the request then answers the
service's own 503.

A database that stopped answering is remembered (the breaker): requests
arriving meanwhile are answered 503 at once instead of each waiting out its own
deadline, so the workers' threads stay free for what needs no database
(``/healthz``, static files) while the database is frozen. After
``BREAKER_SECONDS`` one request at a time may try the database again; the
first answer the database gives closes the breaker; a trial that fails trips it
again and ends there (it waits for nothing more). The liveness check a
request makes when it takes a connection from the pool waits at most
``PING_SECONDS``: a frozen database is known within half a second of its freeze.

A request that must answer sooner than the deadline (the readiness probe)
``shorten``-s its own: every wait after that, teardown included, ends by then.
"""
import threading
import time
from contextvars import ContextVar

_deadline = ContextVar("guardsvc_request_deadline", default=None)
_started = ContextVar("guardsvc_request_started", default=None)
_pinging = ContextVar("guardsvc_pinging", default=False)  # taking a connection: its liveness check runs
# This request tries the database for everyone: the breaker's trip count when it became the trial.
_trial = ContextVar("guardsvc_breaker_trial", default=None)
PING_SECONDS = 0.5
# Never less than this for one wait: a request that overran still gets to close its transaction
# on a healthy database instead of having its connection dropped.
MINIMUM_WAIT_SECONDS = 0.25
BREAKER_SECONDS = 1.0
# A wait shorter than this that ran out says more about the request's own deadline than about the
# database: only a longer silence trips the breaker.
BREAKER_EVIDENCE_SECONDS = PING_SECONDS


def remaining():
    """Seconds left before the current request's deadline (at least the minimum wait); None outside a request."""
    deadline = _deadline.get()
    if deadline is None:
        return None
    return max(deadline - time.monotonic(), MINIMUM_WAIT_SECONDS)


def allow_up_to(seconds):
    """Let the current request run until ``seconds`` after it started, when that is later than its deadline.

    For the few requests whose work is known to be long and bounded by their
    own size (one administrator's decision of a thousand tickets at once), never
    for what a client's input can stretch. Outside a request: nothing to do.
    """
    started, deadline = _started.get(), _deadline.get()
    if started is not None and deadline is not None:
        _deadline.set(max(deadline, started + seconds))


def bounded(limit):
    """``limit`` (seconds, or None for none) cut to the current request's deadline."""
    left = remaining()
    if left is None:
        return limit
    return left if limit is None else min(limit, left)


def shorten(seconds):
    """From now on this request's waits, teardown included, end within ``seconds`` (never past its deadline)."""
    deadline = _deadline.get()
    if deadline is not None:
        _deadline.set(min(deadline, time.monotonic() + seconds))


def pinging(active):
    _pinging.set(active)


def is_pinging():
    return _pinging.get()


def answer_limit(limit):
    """How long to wait for the database's next answer: ``limit`` cut to the deadline and, during a ping, to PING_SECONDS."""
    limit = bounded(limit)
    return min(limit, PING_SECONDS) if _pinging.get() and limit is not None else limit


class _Breaker:
    """Shared by the process's threads: closed, open (refuse at once), or half-open (one request tries)."""

    def __init__(self):
        self._lock = threading.Lock()
        self._trips = 0
        self.reset()

    def trip(self):
        with self._lock:
            self._closed, self._open_until, self._trial_until = False, time.monotonic() + BREAKER_SECONDS, 0.0
            self._trips += 1  # ends the trial under way, if any: its request tries nothing more

    def allows(self):
        """May this request use the database now? Half-open: the first asker becomes the trial."""
        if self._closed or _trial.get() == self._trips:
            return True
        with self._lock:
            now = time.monotonic()
            if self._closed:
                return True
            if now < self._open_until or now < self._trial_until:
                return False
            # This request is the trial (its pool check, its new connection, its statements) until
            # it ends: no second thread of this process joins the wait meanwhile.
            self._trial_until = now + (remaining() or PING_SECONDS)
            _trial.set(self._trips)
            return True

    def end_trial(self):
        """The trial request ended: without an answer, the next request may try."""
        trips = _trial.get()
        if trips is not None:
            _trial.set(None)
            with self._lock:
                if trips == self._trips:  # not tripped since: no later trial is under way
                    self._trial_until = 0.0

    def is_closed(self):
        return self._closed

    def answered(self):
        """The database answered: close (a cheap read when already closed)."""
        if not self._closed:
            with self._lock:
                self._closed = True

    def reset(self):
        self._closed, self._open_until, self._trial_until = True, 0.0, 0.0


database_breaker = _Breaker()


class RequestDeadline:
    """WSGI middleware: start the deadline before the application runs, end it after its teardown."""

    def __init__(self, wsgi_app, seconds):
        self.wsgi_app, self.seconds = wsgi_app, seconds

    def __call__(self, environ, start_response):
        started = time.monotonic()
        token, started_token = _deadline.set(started + self.seconds), _started.set(started)
        try:
            return self.wsgi_app(environ, start_response)
        finally:
            database_breaker.end_trial()
            _deadline.reset(token)
            _started.reset(started_token)
            _pinging.set(False)
