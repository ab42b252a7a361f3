"""The one place where a unit of work ends: once per request, once per CLI command.

Services and doors only add and flush. After the view, the request's writes
are committed once, when the answer is a success. A failure rolls back
everything the request wrote, unless the request declared that its refusal
must leave a trace (``keep_writes``): a refused sign-in still records the
attempt and the code step it used, so a wrong guess counts and a used code
cannot be replayed. A rule that expects a race wraps only its own insert in a
savepoint (``db.session.begin_nested()``), so losing the race never undoes the
rest of the request.
"""
import logging
from functools import wraps

from flask import current_app, g
from flask.cli import AppGroup

from guardsvc.extensions import db

log = logging.getLogger(__name__)
_KEEP = "guardsvc_keep_writes"
_ON_FAILURE = "guardsvc.render_commit_failure"


def keep_writes():
    """Commit this request's writes even though its answer is a refusal (4xx)."""
    g.setdefault(_KEEP, True)


def abandon():
    """Discard what this request wrote, now: before answering a failure that may read the database.

    Never raises: when the connection is gone, the session is discarded anyway.
    """
    try:
        db.session.rollback()
    except Exception:  # noqa: BLE001
        log.warning("rollback after a failure also failed", exc_info=True)


def finish_request(response):
    """after_request: commit a success (or a declared refusal) once; roll back anything else.

    A commit that fails turns the answer into the error the client is owed
    (503 when the database is away), never a success it did not get.
    """
    if response.status_code >= 400 and not g.pop(_KEEP, False):
        abandon()
        return response
    try:
        db.session.commit()
    except Exception as error:  # noqa: BLE001 - rendered by the one error handler
        return current_app.extensions[_ON_FAILURE](error)
    return response


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
    app.after_request(finish_request)
