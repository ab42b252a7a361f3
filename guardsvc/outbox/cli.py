"""``flask mail deliver``: the deliverer process."""
import logging

import click
from flask import current_app

from guardsvc.cli.background import run_round, stop_on_signals
from guardsvc.outbox import delivery
from guardsvc.outbox.rounds import run_rounds
from guardsvc.storage.transaction import CommandGroup

log = logging.getLogger("guardsvc.mail")
mail_cli = CommandGroup("mail", help="Deliver queued e-mail.")


def deliver_round():
    """Queue periodic mail, deliver what is due now, log what happened (a round of the deliverer or the worker)."""
    run_rounds()
    report = delivery.deliver_due()
    if report.handled:
        log.info("mail delivery: %s", report.summary())
    return report


@mail_cli.command("deliver")
@click.option("--once", is_flag=True, help="Deliver what is due now, then exit.")
def deliver(once):
    """Queue periodic e-mail (digests) and deliver the queue; loops until stopped (SIGTERM/Ctrl-C) unless --once."""
    if once:
        click.echo(deliver_round().summary())
        return
    # Finish the message in hand, then leave: a send is never cut off half-way.
    stop = stop_on_signals()
    poll = current_app.config["MAIL_POLL_SECONDS"]
    log.info("mail deliverer started (polling every %ss)", poll)
    while not stop.is_set():
        run_round("mail delivery", deliver_round)
        stop.wait(poll)
    log.info("mail deliverer stopped")
