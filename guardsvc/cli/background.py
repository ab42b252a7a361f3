"""Long-running commands (``mail deliver``, ``worker``): stop cleanly, survive a failed round."""
import logging
import signal
import threading
from dataclasses import dataclass
from typing import Callable

from guardsvc.extensions import db

log = logging.getLogger("guardsvc.background")


def stop_on_signals():
    """An event set by SIGTERM/SIGINT: the round in hand finishes, then the loop leaves."""
    stop = threading.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: stop.set())
    return stop


def run_round(name, work):
    """Run one round of ``work``; a failure is logged and rolled back, and the loop goes on.

    The database may be away for a while. Each long-running loop is its own
    transaction boundary, so the session is always left clean for the next round.
    """
    try:
        return work()
    except Exception:  # noqa: BLE001 - logged; the next round tries again
        log.exception("%s round failed", name)
        db.session.rollback()
        return None
    finally:
        db.session.remove()


@dataclass(frozen=True)
class Round:
    """One kind of work of ``flask worker``, which a feature registers (``Feature.worker_rounds``).

    ``work()`` runs at the worker's start, then again once ``every`` seconds have
    passed: a setting's name (``"MAIL_POLL_SECONDS"``) or a number.
    """

    name: str
    work: Callable
    every: str | float

    def interval(self, config):
        return config[self.every] if isinstance(self.every, str) else self.every
