"""Retention of personal data (contract section 10): one small rule per kind of record.

A rule names the rows that are due (a condition on one table at a moment) and
what happens to a batch of them. ``purge`` walks each rule's due rows in
primary-key order, a batch at a time, so a big table is never locked for long
and every batch can be committed on its own. Each feature retires its own
personal data: its rules are in its ``retention.py``, registered in its
``feature.py`` (``Feature.retention_rules``); this module imports none of them.
"""
from dataclasses import dataclass
from datetime import timedelta
from typing import Callable

from flask import current_app
from sqlalchemy import delete, func, inspect, select

from guardsvc.extensions import db
from guardsvc.features import each
from guardsvc.storage import clock

BATCH_SIZE = 500


@dataclass(frozen=True)
class Rule:
    """``due(now, config)``: SQL condition on ``model``; ``apply(ids, now)``: retire those rows."""

    label: str  # English, as ``flask purge`` prints it
    model: type
    due: Callable
    apply: Callable


def days_ago(now, config, setting):
    """``now`` less the number of days the setting ``setting`` holds."""
    return now - timedelta(days=config[setting])


def delete_rows(model):
    """A rule's ``apply`` that deletes the due rows of ``model``."""
    def apply(ids, now):
        db.session.execute(delete(model).where(model.id.in_(ids)).execution_options(synchronize_session=False))
    return apply


def finished_long_ago(model, finished):
    """A rule's ``due``: finished rows of a queue past the retention period (finished mail: the recipient's
    address goes with the row; a finished webhook delivery or unban has no body left, but its row says when
    what happened)."""
    def due(now, config):
        return (model.status.in_(finished), model.created_at < days_ago(now, config, "RETENTION_DAYS"))
    return due


def rules():
    """Every rule the app's features registered, in the order of the features."""
    return each("retention_rules")


def count_due(rule, now):
    """How many rows ``rule`` would retire at ``now``."""
    conditions = rule.due(now, current_app.config)
    return db.session.scalar(select(func.count()).select_from(rule.model).where(*conditions))


def apply_rule(rule, now, after_batch=None):
    """Retire ``rule``'s due rows in batches (primary-key order); returns how many.

    Walking by primary key always moves forward, even past a row that a batch
    could not change. ``after_batch`` (the caller's commit) ends each batch's
    transaction, so locks are held for one batch only.
    """
    key = inspect(rule.model).primary_key[0]
    conditions, done, last = rule.due(now, current_app.config), 0, None
    while True:
        query = select(key).where(*conditions)
        if last is not None:
            query = query.where(key > last)
        ids = db.session.scalars(query.order_by(key).limit(BATCH_SIZE)).all()
        if not ids:
            return done
        rule.apply(ids, now)
        done, last = done + len(ids), ids[-1]
        if after_batch is not None:
            after_batch()


def purge(*, dry_run=False, after_batch=None, now=None):
    """Apply every retention rule now; ``[(label, count), ...]``. A dry run only counts."""
    now = now or clock.utcnow()
    if dry_run:
        return [(rule.label, count_due(rule, now)) for rule in rules()]
    return [(rule.label, apply_rule(rule, now, after_batch)) for rule in rules()]
