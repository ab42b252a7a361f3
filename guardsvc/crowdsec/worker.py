"""The background side of CrowdSec as a source: pull the LAPI's stream, send queued decision deletions.

Each round is its own unit of work and commits here (like the mail
deliverer). The LAPI moves its cursor for the bouncer key when it answers, so
a pull that could not be stored is followed by a full pull (``startup=true``),
which lists every active decision and lets ``apply_decisions`` catch up.
"""
import logging

from flask import current_app

from guardsvc.crowdsec.lapi import LapiError, is_configured, pull_decisions
from guardsvc.crowdsec.source import apply_decisions, due_deletions, login_for, send_deletion
from guardsvc.extensions import db

log = logging.getLogger("guardsvc.crowdsec")
_IN_STEP = "guardsvc.crowdsec_in_step"  # app.extensions: this process has applied a pull since it started
BATCH_SIZE = 50


def source_enabled():
    return is_configured(current_app.config)


def pull_round(full=False):
    """Pull the stream once (in full at the start of the process) and apply it; ``(created, lifted)``."""
    full = full or not current_app.extensions.get(_IN_STEP)
    current_app.extensions[_IN_STEP] = False
    try:
        new, deleted = pull_decisions(startup=full)
    except LapiError as exc:
        log.warning("crowdsec: pull failed: %s", exc)
        return [], []
    created, lifted = apply_decisions(new, deleted, complete=full)
    db.session.commit()
    current_app.extensions[_IN_STEP] = True
    if created or lifted:
        log.info("crowdsec: %s block(s) created, %s lifted", len(created), len(lifted))
    return created, lifted


def deletion_round():
    """Send the due decision deletions, one commit per outcome; the number confirmed."""
    confirmed = 0
    while True:
        jobs = due_deletions(BATCH_SIZE)
        if not jobs:
            db.session.commit()
            return confirmed
        token = login_for(jobs)
        if token is None:
            db.session.commit()
            return confirmed
        for job in jobs:
            confirmed += send_deletion(job, token)
        db.session.commit()
        if len(jobs) < BATCH_SIZE:
            return confirmed


def crowdsec_round():
    """One round of the worker: deletions first (an approval's lift waits least), then the pull."""
    if not source_enabled():
        return None
    deletion_round()
    return pull_round()
