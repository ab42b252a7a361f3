"""New-appeal digests: administrators who opt in hear of new tickets, at most once per interval.

``queue_appeal_digests`` runs on every round of the mail deliverer (see
guardsvc.outbox.rounds). For each opted-in administrator whose last digest is
at least ``ADMIN_DIGEST_MINUTES`` old and who has tickets newer than it, one
digest is queued. Taking the turn is a conditional UPDATE on the time the
administrator last heard (compare and set), so two deliverers running at once
queue one digest, not two.

When the oldest pending ticket waits longer than ``DESK_TARGET_HOURS``, the
digest says so first (its subject and its first line), and an administrator
with nothing new to hear of still gets one such reminder per target period.
"""
from datetime import timedelta

from flask import current_app
from sqlalchemy import or_, select, update

from guardsvc import messages
from guardsvc.storage import clock
from guardsvc.accounts.models import User
from guardsvc.accounts.roles import ADMINS
from guardsvc.appeals.models import UnblockTicket
from guardsvc.appeals.service_levels import oldest_pending_since
from guardsvc.appeals.statuses import PENDING
from guardsvc.extensions import db
from guardsvc.web.humantime import human_age, human_time
from guardsvc.web.links import external_url
from guardsvc.web.locale import in_language
from guardsvc.outbox.service import queue_mail

DIGEST_LIMIT = 50


def set_digest_opt_in(user, wanted):
    """Turn the new-appeal e-mail on or off; turning it on starts from now, never from the past."""
    user.notify_new_appeals = wanted
    if wanted:
        user.last_appeal_digest_at = clock.utcnow()


def _new_tickets(since, until):
    return db.session.scalars(
        select(UnblockTicket)
        .where(UnblockTicket.status == PENDING, UnblockTicket.created_at > since,
               UnblockTicket.created_at <= until)
        .order_by(UnblockTicket.created_at, UnblockTicket.id)).all()


def _take_turn(admin, seen, now):
    """Move ``admin``'s last digest time from ``seen`` to ``now``; False when another deliverer did."""
    same = User.last_appeal_digest_at.is_(None) if seen is None else User.last_appeal_digest_at == seen
    return db.session.execute(
        update(User).where(User.id == admin.id, same).values(last_appeal_digest_at=now)
        .execution_options(synchronize_session=False)).rowcount == 1


def _overdue_since(now):
    """When the oldest pending ticket was submitted, if that is longer ago than the desk's target; else None."""
    oldest = oldest_pending_since()
    target = timedelta(hours=current_app.config["DESK_TARGET_HOURS"])
    return oldest if oldest is not None and now - oldest > target else None


def queue_appeal_digests():
    """Queue one digest per opted-in administrator who is due and has new tickets (or an overdue queue to
    hear of again); returns how many."""
    now = clock.utcnow()
    due_before = now - timedelta(minutes=current_app.config["ADMIN_DIGEST_MINUTES"])
    admins = db.session.scalars(select(User).where(
        User.notify_new_appeals.is_(True), User.is_active.is_(True), User.role.in_(ADMINS),
        or_(User.last_appeal_digest_at.is_(None), User.last_appeal_digest_at <= due_before))).all()
    if not admins:
        return 0
    overdue_since = _overdue_since(now)
    remind_before = now - timedelta(hours=current_app.config["DESK_TARGET_HOURS"])
    queued = 0
    for admin in admins:
        seen = admin.last_appeal_digest_at
        tickets = _new_tickets(seen or admin.created_at, now)
        reminder = overdue_since is not None and (seen is None or seen <= remind_before)
        if not (tickets or reminder) or not _take_turn(admin, seen, now):
            continue
        _queue_digest(admin, tickets, now, overdue_since)
        queued += 1
    return queued


def _queue_digest(admin, tickets, now, overdue_since=None):
    with in_language(admin.language):  # the digest reads in the administrator's language
        shown = tickets[:DIGEST_LIMIT]
        rows = [{"ticket_number": t.ticket_number, "age": human_age(now - t.created_at),
                 "submitted": human_time(t.created_at),
                 "url": external_url("admin_pages.ticket", ticket_number=t.ticket_number)} for t in shown]
        overdue = None
        if overdue_since is not None:
            age = human_age(now - overdue_since)
            overdue = messages.DIGEST_OVERDUE.format(age=age, hours=current_app.config["DESK_TARGET_HOURS"])
            subject = messages.DIGEST_OVERDUE_SUBJECT.format(age=age)
        else:
            subject = messages.DIGEST_MAIL_SUBJECT.format(count=len(tickets))
        queue_mail("appeal_digest", admin.email, subject, "appeal_digest",
                   name=admin.name, tickets=rows, more=len(tickets) - len(shown), overdue=overdue,
                   queue_url=external_url("admin_pages.queue"))
