"""What each serving process answers from, reported to the database for ``passwords breached-status``.

The loader's own notes (the ``.json`` beside the filter) say what it wrote; a
process that could not read that file answers from something else (the last
good list, or none). So each serving process (a gunicorn worker) writes a row
saying what it answers from, with the filter's fingerprint: when it starts,
and whenever that changes (a new list read, the file unreadable while it keeps
the last good list, the file gone). ``/metrics`` has the same as a gauge, 1
while a serving process cannot read the file. A row is written on a connection
of its own (from a thread when a request found the change), never inside a
request's transaction. The database is the one place every node's processes
reach, so the rows of every node are seen from any of them.
"""
import logging
import os
import socket
import threading

from sqlalchemy import delete, insert, select

from guardsvc.accounts.breached import _FILTER, current_state, filter_path
from guardsvc.accounts.models import BreachedListReader
from guardsvc.config import process_alive
from guardsvc.extensions import db
from guardsvc.metrics.counters import BREACHED_LIST_UNREADABLE
from guardsvc.storage import clock

log = logging.getLogger("guardsvc.passwords")
_REPORTING = threading.Lock()


def process_name():
    return f"{socket.gethostname()}:{os.getpid()}"


def serve(app):
    """This process serves requests: read the list now, report it, and report each later change."""
    with app.app_context():
        current_state(app)
    _FILTER.on_change = lambda: threading.Thread(target=report, args=(app,), daemon=True,
                                                 name="breached-list-report").start()
    report(app)


def recheck():
    """before_request: a serving process notices a changed or unreadable file within a second (a stat)."""
    if _FILTER.on_change is not None:
        _FILTER.current(filter_path())


def report(app):
    """Write this process's row (and its gauge) as it is now; a failure is logged, never raised."""
    with _REPORTING:  # reports in order: the last one written is the latest state
        state = _FILTER.snapshot()
        BREACHED_LIST_UNREADABLE.set(0 if state["problem"] is None else 1)
        name = process_name()
        try:
            with app.app_context(), db.engine.begin() as connection:
                connection.execute(delete(BreachedListReader).where(BreachedListReader.process == name))
                connection.execute(insert(BreachedListReader).values(
                    process=name, host=socket.gethostname(), pid=os.getpid(),
                    path=state["path"] or str(filter_path(app)), state=state["state"],
                    fingerprint=state["fingerprint"], loaded_at=state["loaded_at"],
                    problem=state["problem"], reported_at=clock.utcnow()))
        except Exception as exc:  # noqa: BLE001 - a report must never take the process down
            log.warning("could not record which breached-password list this process answers from: %s", exc)


def serving_readers():
    """The rows of processes that may still serve: a row of this host whose process has ended is removed."""
    host, found = socket.gethostname(), []
    for row in db.session.scalars(select(BreachedListReader).order_by(BreachedListReader.process)):
        if row.host == host and not process_alive(row.pid):
            db.session.execute(delete(BreachedListReader).where(BreachedListReader.id == row.id))
            continue
        found.append(row)
    return found

