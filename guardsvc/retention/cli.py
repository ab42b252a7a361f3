"""``flask purge``, and the worker's purge round: the features' retention rules on demand and in the background."""
import logging

import click
from flask.cli import with_appcontext

from guardsvc.extensions import db
from guardsvc.retention import service as retention

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


def purge_round():
    """A round of the worker: the retention rules, logged."""
    report = purge_now()
    log.info("purge: %s", ", ".join(f"{label} {count}" for label, count in report))
    return report
