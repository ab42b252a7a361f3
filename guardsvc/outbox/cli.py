"""``flask mail deliver``: the deliverer process; ``flask mail show``: the local mailbox."""
import logging

import click
from flask import current_app

from guardsvc.cli.background import run_round, stop_on_signals
from guardsvc.outbox import delivery
from guardsvc.outbox.mailbox import kept_messages, mailbox_folder, readable
from guardsvc.outbox.rounds import run_rounds
from guardsvc.storage.transaction import CommandGroup

log = logging.getLogger("guardsvc.mail")
mail_cli = CommandGroup("mail", help="Deliver queued e-mail; read the local mailbox.")


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


@mail_cli.command("show")
@click.option("--last", type=click.IntRange(min=1), default=None, help="Only the N newest messages.")
def show(last):
    """Print the mail kept in the local mailbox (no GUARDSVC_MAIL_SERVER set), whole, links included."""
    config = current_app.config
    if config["MAIL_SERVER"]:
        click.echo(f"GUARDSVC_MAIL_SERVER is set: mail goes to {config['MAIL_SERVER']}, not to the local mailbox.")
    kept = kept_messages(config, last)
    if not kept:
        click.echo(f"No mail in the local mailbox ({mailbox_folder(config)}) yet. The worker delivers "
                   "queued mail every few seconds (`make run` starts it; or: flask --app guardsvc mail deliver --once).")
        return
    for path, message in kept:
        click.echo(f"===== {path.name} =====")
        click.echo(readable(message))
