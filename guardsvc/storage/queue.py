"""Work queues kept in a table (the mail outbox, webhook deliveries): claimed under a lease, retried with
backoff and jitter.

A queue's model has the columns of ``QueuedWork``: ``status`` (``pending``
while it waits, ``sending`` while a worker holds it, any other word once
finished), ``attempts``, ``next_attempt_at``, ``claim_token``,
``claimed_until``, ``last_error`` and ``created_at``.

Claiming is one UPDATE that moves due rows to ``sending`` under a fresh claim
token. On PostgreSQL the candidate rows are picked once, ``FOR UPDATE SKIP LOCKED``,
so concurrent workers take different rows; on SQLite (one writer at a time)
the same statement is a conditional update. Either way the outer WHERE repeats
the "is due" test, so a row another worker already claimed is never taken.
A claim is a lease: if a worker dies mid-batch, its rows become due again
when the lease runs out (so a receiver may, rarely, see a row twice: the one
that was in hand when the worker died).

Unlike requests and other commands (guardsvc.storage.transaction), a worker
commits here, once per claim and once per outcome: each is its own unit of
work, so a row that was sent is recorded as sent before the next one is
tried, and a crash loses at most the row in hand.
"""
import random
import secrets
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from flask import current_app
from sqlalchemy import String, Text, and_, or_, select, update
from sqlalchemy.orm import Mapped, mapped_column

from guardsvc.extensions import db
from guardsvc.storage import clock

PENDING, CLAIMED = "pending", "sending"
ERROR_MAX = 1000
JITTER = 0.2  # a retry's wait varies by up to a fifth either way


class QueuedWork:
    """The columns of a queue's rows, mixed into its model (``class OutboxMessage(QueuedWork, db.Model)``).

    A worker owns a row while ``status`` is ``sending`` and ``claimed_until``
    lies ahead; after that (a crashed worker) the row is due again.
    """

    status: Mapped[str] = mapped_column(String(16), default=PENDING)
    attempts: Mapped[int] = mapped_column(default=0)
    next_attempt_at: Mapped[datetime] = mapped_column(default=clock.utcnow)
    claim_token: Mapped[str | None] = mapped_column(String(32))
    claimed_until: Mapped[datetime | None]
    last_error: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(default=clock.utcnow)


@dataclass
class Report:
    """What one delivery run did: the ids sent, to be tried again, and given up on."""

    sent: list = field(default_factory=list)
    retrying: list = field(default_factory=list)
    failed: list = field(default_factory=list)

    def add(self, other):
        self.sent += other.sent
        self.retrying += other.retrying
        self.failed += other.failed

    @property
    def handled(self):
        return len(self.sent) + len(self.retrying) + len(self.failed)

    def summary(self, sent_word="sent"):
        return f"{sent_word} {len(self.sent)}, retrying {len(self.retrying)}, failed {len(self.failed)}"


def _is_due(model, now):
    return or_(and_(model.status == PENDING, model.next_attempt_at <= now),
               and_(model.status == CLAIMED, model.claimed_until < now))


def configured_lease():
    """How long a claim holds (``GUARDSVC_DELIVERY_LEASE_SECONDS``): longer than a batch can take to carry out,
    and what a node that died holding a claim leaves waiting for another node."""
    return timedelta(seconds=current_app.config["DELIVERY_LEASE_SECONDS"])


def claim_due(model, limit, lease=None):
    """Claim up to ``limit`` due rows of ``model`` for this worker for ``lease`` (the configured one), and commit
    the claim."""
    lease = lease or configured_lease()
    now = clock.utcnow()
    token = secrets.token_hex(16)
    # Chosen once (a materialized CTE): as a plain IN (subquery), PostgreSQL may run the subquery
    # again for each row it updates, each run skipping other rows, and claim far more than ``limit``.
    candidates = (select(model.id).where(_is_due(model, now))
                  .order_by(model.next_attempt_at, model.id).limit(limit)
                  .with_for_update(skip_locked=True)
                  .cte("candidates").prefix_with("MATERIALIZED", dialect="postgresql"))
    db.session.execute(
        update(model)
        .where(model.id.in_(select(candidates.c.id)), _is_due(model, now))
        .values(status=CLAIMED, claim_token=token, claimed_until=now + lease, attempts=model.attempts + 1)
        .execution_options(synchronize_session=False))
    db.session.commit()
    return db.session.scalars(select(model).where(model.claim_token == token, model.status == CLAIMED)
                              .order_by(model.id)).all()


def finish(row, **values):
    """Record the outcome of a claimed row and commit; only the holder of the claim may (else nothing changes)."""
    model = type(row)
    db.session.execute(
        update(model)
        .where(model.id == row.id, model.claim_token == row.claim_token)
        .values(claim_token=None, claimed_until=None, **values)
        .execution_options(synchronize_session=False))
    db.session.commit()


def error_text(error):
    """An exception as stored in ``last_error``: its class and message, cut to a bounded length."""
    return f"{error.__class__.__name__}: {error}"[:ERROR_MAX]


def backoff(first, attempts, cap, jitter=JITTER):
    """The wait after ``attempts`` failed attempts: ``first``, then doubling up to ``cap``, each varied by up
    to ``jitter`` of itself either way, so rows that failed together (a mail server or an endpoint that was
    away) do not all come back at once."""
    return min(first * (2 ** max(attempts - 1, 0)), cap) * random.uniform(1 - jitter, 1 + jitter)


def drain(batch):
    """Run ``batch()`` (one claim's worth, a Report) until a batch handles nothing; one Report for all."""
    report = Report()
    while True:
        done = batch()
        report.add(done)
        if done.handled == 0:
            return report
