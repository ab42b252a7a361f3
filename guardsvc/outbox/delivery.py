"""Delivering the outbox: claim due messages safely, send, record the outcome.

Claiming is one UPDATE that moves due rows to ``sending`` under a fresh claim
token. On PostgreSQL the candidate rows are picked ``FOR UPDATE SKIP LOCKED``,
so concurrent deliverers take different rows; on SQLite (one writer at a time)
the same statement is a conditional update. Either way the outer WHERE repeats
the "is due" test, so a row another deliverer already claimed is never taken.
A claim is a lease: if a deliverer dies mid-batch, its rows become due again
when the lease runs out.

Unlike requests and other commands (guardsvc.storage.transaction), the deliverer
commits here, once per claim and once per message: each is its own unit of
work, so a message that was sent is recorded as sent before the next one is
tried, and a crash loses at most the message in hand.
"""
import logging
import secrets
from dataclasses import dataclass, field
from datetime import timedelta

from flask import current_app
from sqlalchemy import and_, or_, select, update

from guardsvc.storage import clock
from guardsvc.extensions import db
from guardsvc.outbox.models import ERASED_BODY, OutboxMessage
from guardsvc.outbox.transport import is_permanent, transport_for

log = logging.getLogger("guardsvc.mail")
BATCH_SIZE = 20
LEASE = timedelta(minutes=10)
MAX_BACKOFF = timedelta(hours=1)
ERROR_MAX = 1000


@dataclass
class DeliveryReport:
    """What one delivery run did."""

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


def _is_due(now):
    return or_(and_(OutboxMessage.status == "pending", OutboxMessage.next_attempt_at <= now),
               and_(OutboxMessage.status == "sending", OutboxMessage.claimed_until < now))


def claim_due(limit=BATCH_SIZE):
    """Claim up to ``limit`` due messages for this deliverer and commit the claim."""
    now = clock.utcnow()
    token = secrets.token_hex(16)
    candidates = (select(OutboxMessage.id).where(_is_due(now))
                  .order_by(OutboxMessage.next_attempt_at, OutboxMessage.id).limit(limit)
                  .with_for_update(skip_locked=True))
    db.session.execute(
        update(OutboxMessage)
        .where(OutboxMessage.id.in_(candidates), _is_due(now))
        .values(status="sending", claim_token=token, claimed_until=now + LEASE,
                attempts=OutboxMessage.attempts + 1)
        .execution_options(synchronize_session=False))
    db.session.commit()
    return db.session.scalars(select(OutboxMessage).where(
        OutboxMessage.claim_token == token, OutboxMessage.status == "sending")
        .order_by(OutboxMessage.id)).all()


def retry_delay(attempts):
    """Exponential backoff: base, 2x base, 4x base ... capped at one hour."""
    base = timedelta(seconds=current_app.config["MAIL_RETRY_SECONDS"])
    return min(base * (2 ** max(attempts - 1, 0)), MAX_BACKOFF)


def _finish(message, **values):
    # Only the holder of the claim may record the outcome.
    db.session.execute(
        update(OutboxMessage)
        .where(OutboxMessage.id == message.id, OutboxMessage.claim_token == message.claim_token)
        .values(claim_token=None, claimed_until=None, **values)
        .execution_options(synchronize_session=False))
    db.session.commit()


def _record_failure(message, error, report):
    text = f"{error.__class__.__name__}: {error}"[:ERROR_MAX]
    if message.attempts >= current_app.config["MAIL_MAX_ATTEMPTS"] or is_permanent(error):
        log.error("mail %s to %s failed for good after %s attempt(s): %s",
                  message.id, message.recipient, message.attempts, text)
        _finish(message, status="failed", last_error=text, **ERASED_BODY)
        report.failed.append(message.id)
        return
    delay = retry_delay(message.attempts)
    log.warning("mail %s to %s not delivered (attempt %s), retry in %ss: %s",
                message.id, message.recipient, message.attempts, int(delay.total_seconds()), text)
    _finish(message, status="pending", last_error=text, next_attempt_at=clock.utcnow() + delay)
    report.retrying.append(message.id)


def deliver_batch(limit=BATCH_SIZE):
    """Claim one batch of due messages and try to deliver each; returns a DeliveryReport."""
    report = DeliveryReport()
    messages = claim_due(limit)
    if not messages:
        return report
    try:
        with transport_for(current_app.config) as transport:
            for message in messages:
                try:
                    transport.send(message)
                except Exception as exc:  # every failure is retried later, none is lost
                    _record_failure(message, exc, report)
                else:
                    _finish(message, status="sent", sent_at=clock.utcnow(), last_error=None, **ERASED_BODY)
                    report.sent.append(message.id)
    except Exception as exc:  # the server is unreachable: the whole batch waits for a retry
        for message in messages:
            if message.id not in report.sent + report.retrying + report.failed:
                _record_failure(message, exc, report)
    return report


def deliver_due(limit=BATCH_SIZE):
    """Deliver everything that is due now, batch after batch; returns one DeliveryReport."""
    report = DeliveryReport()
    while True:
        batch = deliver_batch(limit)
        report.add(batch)
        if batch.handled == 0:
            return report
