"""Unblock appeals: submitting, looking up and deciding tickets."""
from sqlalchemy import func, or_, select, update
from sqlalchemy.exc import IntegrityError

from guardsvc import clock, codes, messages
from guardsvc.appeals.models import UnblockTicket
from guardsvc.appeals.notify import queue_decision_mail
from guardsvc.blocks.service import find_active_block, lift_blocks_matching
from guardsvc.errors import Cooldown, InvalidState, NotFound
from guardsvc.extensions import db

TICKET_PREFIX = "TKT"
MAX_ATTEMPTS = 8
DECISIONS = {"approve": "approved", "reject": "rejected"}
DEFAULT_NOTES = {"approved": messages.TICKET_APPROVED_DEFAULT_NOTES,
                 "rejected": messages.TICKET_REJECTED_DEFAULT_NOTES}


def pending_ticket_for(client):
    """The pending ticket of this client (same IP, or same device id when sent), or None."""
    same_client = UnblockTicket.ip_address == client.ip_address
    if client.device_id:
        same_client = or_(same_client, UnblockTicket.device_id == client.device_id)
    return db.session.scalar(select(UnblockTicket).where(
        UnblockTicket.status == "pending", same_client).order_by(UnblockTicket.id).limit(1))


def submit_ticket(client, *, name, email, reason, phone=None):
    """Open a pending ticket for ``client``; raise Cooldown while one is pending.

    The partial unique indexes on pending tickets are what enforce the rule:
    when two submissions race, the loser's insert fails and it answers with the
    winner's ticket. A failed insert that no pending ticket explains was a
    ticket-number collision, and is retried with a new number.
    """
    for _ in range(MAX_ATTEMPTS):
        existing = pending_ticket_for(client)
        if existing is not None:
            raise Cooldown(existing.ticket_number)
        block = find_active_block(client.ip_address, client.device_id, client.local_ip)
        ticket = UnblockTicket(
            ticket_number=codes.new_code(TICKET_PREFIX), name=name, email=email, phone=phone,
            reason=reason, ip_address=client.ip_address, device_id=client.device_id,
            local_ip=client.local_ip, user_agent=client.user_agent,
            block_id=block.id if block else None, status="pending", created_at=clock.utcnow())
        db.session.add(ticket)
        try:
            db.session.flush()
            return ticket
        except IntegrityError:
            db.session.rollback()
    raise RuntimeError("could not store the ticket")  # pragma: no cover


def find_ticket(ticket_number):
    """The ticket with this number (spaces trimmed, any case), else NotFound."""
    canonical = codes.parse_code(TICKET_PREFIX, ticket_number)
    ticket = canonical and db.session.scalar(
        select(UnblockTicket).where(UnblockTicket.ticket_number == canonical))
    if not ticket:
        raise NotFound(messages.TICKET_NOT_FOUND)
    return ticket


def decide_ticket(ticket_number, action, *, actor=None, notes=None):
    """Approve or reject a pending ticket; approval lifts the client's blocks.

    The status change is one conditional UPDATE (``WHERE status = 'pending'``),
    so of two concurrent decisions exactly one changes a row; the other gets
    InvalidState (409). Blocks are lifted in the same transaction.
    """
    ticket = find_ticket(ticket_number)
    status = DECISIONS[action]
    notes = notes or DEFAULT_NOTES[status]
    now = clock.utcnow()
    changed = db.session.execute(
        update(UnblockTicket)
        .where(UnblockTicket.id == ticket.id, UnblockTicket.status == "pending")
        .values(status=status, resolved_at=now, admin_notes=notes,
                resolved_by_id=actor.id if actor else None)
        .execution_options(synchronize_session=False)
    ).rowcount
    if changed != 1:
        db.session.rollback()
        raise InvalidState(messages.TICKET_NOT_PENDING)
    db.session.refresh(ticket)
    if status == "approved":
        lift_blocks_matching(ticket.ip_address, ticket.device_id, actor=actor,
                             reason=f"Banding {ticket.ticket_number} disetujui")
    queue_decision_mail(ticket)
    return ticket


def list_tickets(status=None, limit=100, offset=0):
    """Tickets, newest first, optionally of one status."""
    query = select(UnblockTicket)
    if status:
        query = query.where(UnblockTicket.status == status)
    return db.session.scalars(
        query.order_by(UnblockTicket.created_at.desc(), UnblockTicket.id.desc()).limit(limit).offset(offset)
    ).all()


def count_by_status():
    """``{"pending": n, "approved": n, "rejected": n}``."""
    rows = db.session.execute(
        select(UnblockTicket.status, func.count()).group_by(UnblockTicket.status)).all()
    counts = dict.fromkeys(DECISIONS.values(), 0) | {"pending": 0}
    counts.update({status: count for status, count in rows})
    return counts
