"""Work the mail deliverer does on each round besides delivering: features register it here.

A feature that queues periodic e-mail (the administrators' digest of new
appeals) registers a function when its blueprint is registered; ``flask mail
deliver`` runs every registered function at the start of each round, so what
they queue goes out in the same round. The outbox never imports the features.
"""
import logging

from flask import current_app

from guardsvc.extensions import db

log = logging.getLogger("guardsvc.mail")
_ROUNDS = "guardsvc.mail_rounds"


def register_round(app, name, task):
    """Run ``task()`` (in an app context) on each round of the deliverer of ``app``."""
    app.extensions.setdefault(_ROUNDS, {})[name] = task


def register_round_with(blueprint, name, task):
    """Register ``task`` when ``blueprint`` is registered on an app (the feature's set-up)."""
    blueprint.record_once(lambda state: register_round(state.app, name, task))


def run_rounds():
    """Run every registered task, each its own unit of work: committed, or rolled back on failure."""
    for name, task in sorted(current_app.extensions.get(_ROUNDS, {}).items()):
        try:
            task()
            db.session.commit()
        except Exception:  # one task's trouble never stops delivery
            log.exception("mail round task %s failed", name)
            db.session.rollback()
