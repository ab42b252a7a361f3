"""``flask mail deliver``: the deliverer process."""
import logging
import signal
import threading

import click
from flask import current_app

from guardsvc.extensions import db
from guardsvc.outbox import delivery
from guardsvc.outbox.rounds import run_rounds
from guardsvc.transaction import CommandGroup

log = logging.getLogger("guardsvc.mail")
mail_cli = CommandGroup("mail", help="Deliver queued e-mail.")


def _summary(report):
    return f"sent {len(report.sent)}, retrying {len(report.retrying)}, failed {len(report.failed)}"


@mail_cli.command("deliver")
@click.option("--once", is_flag=True, help="Deliver what is due now, then exit.")
def deliver(once):
    """Queue periodic e-mail (digests) and deliver the queue; loops until stopped (SIGTERM/Ctrl-C) unless --once."""
    if once:
        run_rounds()
        click.echo(_summary(delivery.deliver_due()))
        return
    stop = threading.Event()
    # Finish the message in hand, then leave: a send is never cut off half-way.
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: stop.set())
    poll = current_app.config["MAIL_POLL_SECONDS"]
    log.info("mail deliverer started (polling every %ss)", poll)
    while not stop.is_set():
        try:
            run_rounds()
            report = delivery.deliver_due()
            if report.handled:
                log.info("mail delivery: %s", _summary(report))
        except Exception:  # the database may be away for a while; keep going
            log.exception("mail delivery round failed")
            # This loop is the deliverer's own transaction boundary (see outbox.delivery).
            db.session.rollback()
        finally:
            db.session.remove()
        stop.wait(poll)
    log.info("mail deliverer stopped")
