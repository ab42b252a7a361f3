"""``flask purge`` and ``flask worker``: the retention rules on demand and in the background."""
import logging
import time

import click
from flask import current_app
from flask.cli import with_appcontext

from guardsvc.retention import service as retention
from guardsvc.cli.background import run_round, stop_on_signals
from guardsvc.extensions import db
from guardsvc.outbox.cli import deliver_round

log = logging.getLogger("guardsvc.retention")


def purge_now():
    """Apply the retention rules, committing batch by batch; ``[(label, count), ...]``."""
    report = retention.purge(after_batch=db.session.commit)
    db.session.commit()
    return report


@click.command("purge")
@click.option("--dry-run", is_flag=True, help="Count what is due; change nothing.")
@with_appcontext
def purge_command(dry_run):
    """Apply the retention rules of personal data now; one line per rule."""
    if dry_run:
        report = retention.purge(dry_run=True)
        db.session.rollback()
    else:
        report = purge_now()
    for label, count in report:
        click.echo(f"{label}: {count}" + (" (dry run, nothing changed)" if dry_run else ""))


def _purge_round():
    report = purge_now()
    log.info("purge: %s", ", ".join(f"{label} {count}" for label, count in report))
    return report


@click.command("worker")
@with_appcontext
def worker_command():
    """Deliver queued e-mail and apply the retention rules (at start, then every interval) until stopped."""
    stop = stop_on_signals()
    poll = current_app.config["MAIL_POLL_SECONDS"]
    interval = current_app.config["PURGE_INTERVAL_SECONDS"]
    log.info("worker started (mail every %ss, purge every %ss)", poll, interval)
    next_purge = time.monotonic()
    while not stop.is_set():
        run_round("mail delivery", deliver_round)
        if time.monotonic() >= next_purge:
            run_round("purge", _purge_round)
            next_purge = time.monotonic() + interval
        stop.wait(poll)
    log.info("worker stopped")
