"""Work the mail deliverer does on each round besides delivering: what features register.

A feature that queues periodic e-mail (the administrators' digest of new
appeals) names a task in its ``feature.py`` (``Feature.mail_tasks``); ``flask
mail deliver`` (and the worker's mail round) runs every registered task at the
start of each round, so what they queue goes out in the same round. The outbox
never imports the features.
"""
import logging

from guardsvc.extensions import db
from guardsvc.features import each

log = logging.getLogger("guardsvc.mail")


def run_rounds():
    """Run every registered task, each its own unit of work: committed, or rolled back on failure."""
    for name, task in sorted(each("mail_tasks").items()):
        try:
            task()
            db.session.commit()
        except Exception:  # one task's trouble never stops delivery
            log.exception("mail round task %s failed", name)
            db.session.rollback()
