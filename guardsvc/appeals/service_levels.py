"""The desk's service levels (contract section 18): how long appellants wait for an answer.

A ticket's first answer is the first decision or message to the appellant by an
administrator (an internal note answers no one); ``first_answered_at`` keeps it.
The histograms of ``/metrics`` are observed as each answer happens; the desk's
figures (the oldest pending ticket, the median time to decision, the pending
tickets by age) are read from the tickets whenever the page is drawn.
"""
from dataclasses import dataclass
from datetime import datetime, timedelta

from flask import current_app
from sqlalchemy import func, select, update

from guardsvc.appeals.models import UnblockTicket
from guardsvc.appeals.statuses import DECIDED, PENDING
from guardsvc.extensions import db
from guardsvc.metrics import counters as metrics
from guardsvc.storage import clock
from guardsvc.storage.durations import seconds_between

MEDIAN_DAYS = 7
# The chart of pending tickets by age: bands of hours, each from the previous bound up to its own.
AGE_BOUNDS_HOURS = (1, 4, 12, 24, 72, 168)


def _waited(ticket, moment):
    return (moment - ticket.created_at).total_seconds()


def observe_decision(ticket):
    """Count a decided ticket in the histograms: time to decision, and to first answer when it was that."""
    waited = _waited(ticket, ticket.resolved_at)
    metrics.TICKET_DECISION_SECONDS.labels(ticket.status).observe(waited)
    if ticket.first_answered_at == ticket.resolved_at:  # no message to the appellant came before it
        metrics.TICKET_FIRST_ANSWER_SECONDS.observe(waited)


def mark_first_answer(ticket):
    """An administrator wrote to the appellant of a pending ticket: the first answer, unless one came before.

    A conditional UPDATE, so of two answers at once only the first counts.
    """
    now = clock.utcnow()
    changed = db.session.execute(
        update(UnblockTicket).where(UnblockTicket.id == ticket.id, UnblockTicket.first_answered_at.is_(None))
        .values(first_answered_at=now).execution_options(synchronize_session=False)).rowcount
    if changed == 1:
        ticket.first_answered_at = now
        metrics.TICKET_FIRST_ANSWER_SECONDS.observe(_waited(ticket, now))


def oldest_pending_since():
    """When the oldest pending ticket was submitted, or None (one probe of the (status, created_at) index)."""
    return db.session.scalar(select(func.min(UnblockTicket.created_at)).where(UnblockTicket.status == PENDING))


def oldest_pending_age_seconds():
    """The age of the oldest pending ticket in seconds; 0 when none waits (the ``/metrics`` gauge)."""
    oldest = oldest_pending_since()
    return (clock.utcnow() - oldest).total_seconds() if oldest else 0.0


def median_decision_seconds(days=MEDIAN_DAYS, now=None):
    """The median time from submission to decision of the tickets decided in the last ``days`` days, or None.

    Counted and then read at the middle by the database (the index on
    ``resolved_at`` finds the tickets), so a wave decided this week costs two
    statements, not a row each.
    """
    since = (now or clock.utcnow()) - timedelta(days=days)
    recent = (UnblockTicket.resolved_at >= since, UnblockTicket.status.in_(DECIDED))
    count = db.session.scalar(select(func.count()).select_from(UnblockTicket).where(*recent))
    if not count:
        return None
    waited = seconds_between(UnblockTicket.created_at, UnblockTicket.resolved_at)
    middle = db.session.scalars(select(waited).where(*recent).order_by(waited)
                                .offset((count - 1) // 2).limit(2 - count % 2)).all()
    return round(sum(middle) / len(middle), 3)  # SQLite's julianday arithmetic leaves float noise


@dataclass(frozen=True)
class AgeBand:
    """Pending tickets whose age is at least ``low`` hours and less than ``high`` (None: no upper bound)."""

    low: int
    high: int | None
    count: int


def pending_by_age(now=None):
    """``[AgeBand]`` for the chart: one count per band, each a range of the (status, created_at) index."""
    now = now or clock.utcnow()
    bounds = (0, *AGE_BOUNDS_HOURS, None)
    bands = list(zip(bounds, bounds[1:]))

    def count(low, high):
        query = select(func.count()).select_from(UnblockTicket).where(
            UnblockTicket.status == PENDING, UnblockTicket.created_at <= now - timedelta(hours=low))
        if high is not None:
            query = query.where(UnblockTicket.created_at > now - timedelta(hours=high))
        return query.scalar_subquery()

    row = db.session.execute(select(*(count(low, high) for low, high in bands))).one()
    return [AgeBand(low, high, counted) for (low, high), counted in zip(bands, row)]


@dataclass(frozen=True)
class DeskLevels:
    """What the desk shows of its service levels."""

    oldest_pending_since: datetime | None
    oldest_pending_age: timedelta | None
    median_decision: timedelta | None  # over the last MEDIAN_DAYS days
    target_hours: int
    bands: list

    @property
    def overdue(self):
        """The oldest pending ticket waits longer than the target."""
        return self.oldest_pending_age is not None and self.oldest_pending_age > timedelta(hours=self.target_hours)


def desk_levels(now=None):
    """The desk's service levels now."""
    now = now or clock.utcnow()
    oldest = oldest_pending_since()
    median = median_decision_seconds(now=now)
    return DeskLevels(oldest, now - oldest if oldest else None,
                      None if median is None else timedelta(seconds=median),
                      current_app.config["DESK_TARGET_HOURS"], pending_by_age(now))
