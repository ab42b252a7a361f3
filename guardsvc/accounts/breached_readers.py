"""What each serving process answers from, reported to the database for ``passwords breached-status``.

The loader's own notes (the ``.json`` beside the filter) say what it wrote; a
process that could not read that file answers from something else (the last
good list, or none). So each serving process (a gunicorn worker) writes a row
saying what it answers from, with the filter's fingerprint: when it starts,
and whenever that changes (a new list read, the file unreadable while it keeps
the last good list, the file gone), and again every ``REPORT_EVERY`` while it
serves requests, so a row that stops being renewed is a process that ended (or
has had no request since). ``/metrics`` has the same as a gauge, 1 while a
serving process cannot read the file. A row is written on a connection
of its own (from a thread when a request found the change), never inside a
request's transaction. The database is the one place every node's processes
reach, so the rows of every node are seen from any of them.
"""
import logging
import os
import socket
import threading
import time
from datetime import timedelta

from sqlalchemy import delete, insert, select

from guardsvc.accounts.breached import _FILTER, current_state, filter_path, snapshot
from guardsvc.accounts.models import BreachedListReader
from guardsvc.config import process_alive
from guardsvc.extensions import db
from guardsvc.metrics.counters import BREACHED_LIST_UNREADABLE
from guardsvc.storage import clock

log = logging.getLogger("guardsvc.passwords")
_REPORTING = threading.Lock()
REPORT_EVERY = 300  # seconds between a serving process's reports when nothing changed
# A row not renewed for this long is left out of breached-status (and deleted after FORGOTTEN).
SILENT, FORGOTTEN = timedelta(hours=1), timedelta(days=1)
_last_report = [float("-inf")]


def process_name():
    return f"{socket.gethostname()}:{os.getpid()}"


def serve(app):
    """This process serves requests: read the list now, report it, and report each later change."""
    with app.app_context():
        current_state(app)
    _FILTER.on_change = lambda: threading.Thread(target=report, args=(app,), daemon=True,
                                                 name="breached-list-report").start()
    report(app, prune=True)


def recheck():
    """before_request: a serving process notices a changed or unreadable file within a second (a stat),
    and renews its report every ``REPORT_EVERY``."""
    if _FILTER.on_change is None:
        return
    _FILTER.current(filter_path())
    if time.monotonic() - _last_report[0] > REPORT_EVERY:
        _last_report[0] = time.monotonic()
        _FILTER.on_change()


def report(app, prune=False):
    """Write this process's row (and its gauge) as it is now; a failure is logged, never raised.

    ``prune`` (at start): also delete the rows of this host's processes that have ended, and
    every row not renewed for ``FORGOTTEN``.
    """
    with _REPORTING:  # reports in order: the last one written is the latest state
        _last_report[0] = time.monotonic()
        state = snapshot()
        BREACHED_LIST_UNREADABLE.set(0 if state["problem"] is None else 1)
        name = process_name()
        try:
            with app.app_context(), db.engine.begin() as connection:
                connection.execute(delete(BreachedListReader).where(BreachedListReader.process == name))
                if prune:
                    _prune(connection)
                connection.execute(insert(BreachedListReader).values(
                    process=name, host=socket.gethostname(), pid=os.getpid(),
                    path=state["path"] or str(filter_path(app)), state=state["state"],
                    fingerprint=state["fingerprint"], loaded_at=state["loaded_at"],
                    problem=state["problem"], reported_at=clock.utcnow()))
        except Exception as exc:  # noqa: BLE001 - a report must never take the process down
            log.warning("could not record which breached-password list this process answers from: %s", exc)


def _prune(connection):
    table, host = BreachedListReader.__table__, socket.gethostname()
    ended = [pid for pid in connection.scalars(select(table.c.pid).where(table.c.host == host))
             if not process_alive(pid)]
    if ended:
        connection.execute(delete(table).where(table.c.host == host, table.c.pid.in_(ended)))
    connection.execute(delete(table).where(table.c.reported_at < clock.utcnow() - FORGOTTEN))


def serving_readers():
    """(rows of the processes that may still serve, how many were left out as silent).

    Left out: a row of this host whose process has ended, one not renewed for ``SILENT`` (the
    process ended elsewhere, or has had no request for that long). A server deletes such rows
    when it starts (``report(prune=True)``); this reads only.
    """
    host, now, found, silent = socket.gethostname(), clock.utcnow(), [], 0
    for row in db.session.scalars(select(BreachedListReader).order_by(BreachedListReader.process)):
        if row.host == host and not process_alive(row.pid):
            continue
        if row.reported_at < now - SILENT:
            silent += 1
        else:
            found.append(row)
    return found, silent
