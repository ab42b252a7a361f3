"""The one place where a unit of work ends: once per request, once per CLI command.

Services and doors only add and flush. After the view, the request's writes
are committed once when the answer is a success, and rolled back when it is a
failure. A domain error decides for itself: ``GuardError.keeps_writes`` names
the refusals that must leave a trace (a refused sign-in still records the
attempt and the code step it used, so a wrong guess counts and a used code
cannot be replayed); every other domain error undoes what the request wrote,
even when the door turns it into a redirect. The error renderer passes each
error it answers to ``ends_with``; so does a door that answers a domain error
in its own way when the status alone would say otherwise (a refused sign-in
shown on the form again keeps its record; a flash and a 303 redirect keeps
nothing).

A request that wrote nothing (no flush, no statement other than a SELECT
through the session) is not committed: closing the session at the end of the
request ends its read-only transaction, and the commit would only add work to
the requests that arrive in floods (status checks, guarded pages).

A rule that expects a race inserts with ``ON CONFLICT DO NOTHING``
(``guardsvc.storage.inserts.insert_unless_conflict``): losing the race is an answer,
not an error, so it never undoes the rest of the request (a savepoint around
the insert would do the same at the cost of two more statements).
"""
import logging
from functools import wraps

from flask import current_app, g
from flask.cli import AppGroup
from sqlalchemy import event

from guardsvc.extensions import db

log = logging.getLogger(__name__)
_DECISION = "guardsvc_keep_writes"
_ON_FAILURE = "guardsvc.render_commit_failure"
_WROTE = "guardsvc_wrote"  # in Session.info: this session flushed or executed a write
# In g: the pooled connection of a request that only read, with no session (storage.statements).
READER = "guardsvc_reader_connection"
# In g: that connection reads in autocommit until it goes back to the pool (PostgreSQL).
_READER_AUTOCOMMIT = "guardsvc_reader_autocommit"


def _mark_written(session, *_):
    session.info[_WROTE] = True


def mark_written(session):
    """``session`` wrote through its connection without SQLAlchemy seeing it: the request commits."""
    session.info[_WROTE] = True


def _mark_statement(state):
    if not state.is_select:
        state.session.info[_WROTE] = True


def _wrote():
    """True when the session wrote, or holds changes that the commit would flush."""
    if not db.session.registry.has():
        return False  # no session was made for this request
    session = db.session()
    return session.info.get(_WROTE, False) or bool(session.new or session.deleted or session.dirty)


def _decide(keep):
    # One refusal that does not keep the writes is enough to undo them.
    setattr(g, _DECISION, g.get(_DECISION, True) and keep)


def keep_writes():
    """Commit this request's writes even though its answer is a refusal (4xx)."""
    _decide(True)


def ends_with(error):
    """The request answers with the domain error ``error``: its writes stay only if the error keeps them.

    Returns ``error``, so a door can render it in the same expression.
    """
    _decide(bool(error.keeps_writes))
    return error


def abandon():
    """Discard what this request wrote, now: before answering a failure that may read the database.

    Never raises: when the connection is gone, the session is discarded anyway.
    """
    if not db.session.registry.has():
        return  # no session was made: nothing to discard
    try:
        db.session.rollback()
    except Exception:  # noqa: BLE001
        log.warning("rollback after a failure also failed", exc_info=True)


def finish_request(response):
    """after_request: commit a success (or a refusal that keeps its writes) once; roll back the rest.

    Without a decision the status says it: below 400 commits. A server error
    (5xx) never commits. A commit that fails turns the answer into the error
    the client is owed (503 when the database is away), never a success it did
    not get.
    """
    decided = g.pop(_DECISION, None)
    keep = response.status_code < 400 if decided is None else decided and response.status_code < 500
    if not keep:
        abandon()
        return response
    if not _wrote():
        return response  # read only: closing the session ends the transaction
    try:
        db.session.commit()
    except Exception as error:  # noqa: BLE001 - rendered by the one error handler
        return current_app.extensions[_ON_FAILURE](error)
    return response


def keep_reader(fairy, dialect):
    """Make the pooled connection ``fairy`` the request's own for reads without a session.

    On PostgreSQL (psycopg) it reads in autocommit until the request gives it back: each read is
    then one round trip, instead of a BEGIN before the first and a ROLLBACK when the pool takes it
    back. A single statement sees the same rows either way (read committed: a snapshot per
    statement), and its waits are bounded as before (the connection's statement timeout, the
    request's deadline). SQLite's driver begins no transaction for a read anyway.
    """
    setattr(g, READER, fairy)
    if dialect.name == "postgresql" and dialect.driver == "psycopg":
        driver = fairy.driver_connection
        if not driver.autocommit:
            driver.autocommit = True
            setattr(g, _READER_AUTOCOMMIT, True)


def close_session(_error=None):
    """teardown: end the request's session, even when the connection died under it.

    A read-only request is not committed, so closing the session is what ends
    its transaction; when the database went away meanwhile, that rollback
    fails. The answer has been given by then and must stand: the session and
    its connection are discarded instead (the pool replaces the connection).
    Runs before Flask-SQLAlchemy's own removal, which then finds nothing left. A request that
    read alone on a pooled connection (``storage.statements``) gives it back.
    """
    reader = g.pop(READER, None)
    if reader is not None:
        try:
            if g.pop(_READER_AUTOCOMMIT, False):
                reader.driver_connection.autocommit = False  # as the pool hands connections out
            reader.close()
        except Exception:  # noqa: BLE001 - the answer stands; the connection is dropped
            log.warning("returning a reading connection failed: it is discarded", exc_info=True)
            reader.invalidate()
    try:
        db.session.remove()
    except Exception:  # noqa: BLE001 - nothing left to answer; the connection is dropped
        log.warning("closing the session failed: its connection is discarded", exc_info=True)
        try:
            db.session.invalidate()
        except Exception:  # noqa: BLE001
            pass
        db.session.registry.clear()


def committed(command):
    """Run a CLI command as one unit of work: commit when it returns, roll back when it fails."""
    @wraps(command)
    def run(*args, **kwargs):
        try:
            result = command(*args, **kwargs)
        except BaseException:
            abandon()
            raise
        db.session.commit()
        return result
    return run


class CommandGroup(AppGroup):
    """A ``flask`` command group whose every command is one unit of work (``committed``)."""

    def command(self, *args, **kwargs):
        register = super().command(*args, **kwargs)

        def decorator(callback):
            return register(committed(callback))
        return decorator


def init_transactions(app, render_failure):
    """Register the request commit; ``render_failure(error)`` answers a commit that failed.

    Registered after the other after_request hooks, so it runs first and they
    still decorate the answer it may substitute.
    """
    app.extensions[_ON_FAILURE] = render_failure
    if not event.contains(db.session, "after_flush", _mark_written):
        event.listen(db.session, "after_flush", _mark_written)
        event.listen(db.session, "do_orm_execute", _mark_statement)
    app.after_request(finish_request)
    app.teardown_appcontext(close_session)  # registered after Flask-SQLAlchemy's: runs before it
