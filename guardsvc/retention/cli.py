"""``flask purge`` and ``flask worker``: the retention rules on demand and in the background."""
import logging
import time

import click
from flask import current_app
from flask.cli import with_appcontext

from guardsvc.retention import service as retention
from guardsvc.cli.background import run_round, stop_on_signals
from guardsvc.crowdsec.worker import crowdsec_round
from guardsvc.extensions import db
from guardsvc.nodes.heartbeat import WORKER, start_reporting
from guardsvc.outbox.cli import deliver_round
from guardsvc.selfrelease import followup
from guardsvc.webhooks.cli import webhooks_round

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
    """Deliver queued e-mail and webhooks, run unbans, apply the retention rules, see which self-released
    clients were blocked again and, when configured, pull CrowdSec's decisions."""
    stop = stop_on_signals()
    config = current_app.config
    start_reporting(current_app._get_current_object(), WORKER)  # this node is seen, with or without web
    poll = min(config["MAIL_POLL_SECONDS"], config["CROWDSEC_PULL_SECONDS"], config["WEBHOOK_POLL_SECONDS"])
    log.info("worker started (mail every %ss, purge every %ss)", config["MAIL_POLL_SECONDS"],
             config["PURGE_INTERVAL_SECONDS"])
    # (name, work, interval): each runs at start, then again once its interval has passed.
    jobs = [("mail delivery", deliver_round, config["MAIL_POLL_SECONDS"]),
            ("purge", _purge_round, config["PURGE_INTERVAL_SECONDS"]),
            ("crowdsec", crowdsec_round, config["CROWDSEC_PULL_SECONDS"]),
            ("webhooks", webhooks_round, config["WEBHOOK_POLL_SECONDS"]),
            ("self-release follow-up", followup.mark_blocked_again, followup.INTERVAL_SECONDS)]
    due = {name: time.monotonic() for name, _, _ in jobs}
    while not stop.is_set():
        for name, work, interval in jobs:
            if time.monotonic() >= due[name]:
                run_round(name, work)
                due[name] = time.monotonic() + interval
        stop.wait(poll)
    log.info("worker stopped")
