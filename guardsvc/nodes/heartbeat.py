"""The thread that reports this process's node to the database, every ``GUARDSVC_NODE_REPORT_SECONDS``.

Started in each gunicorn worker (``post_worker_init`` in guardsvc/gunicorn_conf.py) and in the
long-running commands (``flask worker``, ``flask mail deliver``), never in a test client or a
one-off command. It asks whether its node's row is due (one read) and writes it only when it is
(guardsvc.nodes.service.report), so the workers of a node make one write per interval together. A
database that does not answer costs a report, logged once until it answers again; the process
serves on.
"""
import logging
import os
import threading
import time

from guardsvc.extensions import db
from guardsvc.nodes import service

log = logging.getLogger("guardsvc.nodes")
WEB, WORKER = service.WEB, service.WORKER
_lock = threading.Lock()
_reporting_in = None  # the process whose reporter runs (a forked child starts its own)


def start_reporting(app, kind, started=None):
    """Start this process's reporter unless one runs here already; the Reporter, or None."""
    global _reporting_in
    with _lock:
        if _reporting_in == os.getpid():
            return None
        _reporting_in = os.getpid()
    reporter = Reporter(app, kind, started or time.time())
    threading.Thread(target=reporter.run, name="guardsvc-node-report", daemon=True).start()
    return reporter


class Reporter:
    """Reports one node for one process: ``kind`` web (every interval) or worker (four times an interval,
    writing only when no web worker of its node did)."""

    def __init__(self, app, kind, started):
        self.app, self.kind, self.started = app, kind, started
        self.stop = threading.Event()
        self.node = None
        self.failing = False

    def run(self):
        interval = self.app.config["NODE_REPORT_SECONDS"]
        period = interval if self.kind == WEB else interval / 4
        while not self.stop.is_set():
            self.report_once()
            self.stop.wait(period)

    def report_once(self):
        """One look at the node's row, and a write when it is due; True when written."""
        with self.app.app_context():
            try:
                if self.node is None:
                    self.node = service.this_node(self.app, self.kind, self.started)
                written = service.report(self.app, self.node)
                db.session.commit()
            except Exception as error:  # noqa: BLE001 - the next round tries again; the process serves on
                self._failed(error)
                return False
            finally:
                db.session.remove()
        if self.failing:
            log.info("node report: the database answers again")
            self.failing = False
        return written

    def _failed(self, error):
        try:
            db.session.rollback()
        except Exception:  # noqa: BLE001 - a broken connection: the pool drops it
            pass
        if not self.failing:
            log.warning("node report failed (%s: %s); tried again every %s s", error.__class__.__name__,
                        str(error).splitlines()[0] if str(error) else "", self.app.config["NODE_REPORT_SECONDS"])
        self.failing = True
