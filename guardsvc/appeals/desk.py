"""The administrators' desk: claiming tickets, reply templates, and what the queue shows per ticket."""
from sqlalchemy import func, or_, select, update

from guardsvc import messages
from guardsvc.stored_texts import for_storage
from guardsvc.storage import clock
from guardsvc.appeals.conversation_models import ADMIN, APPELLANT, ResponseTemplate, TicketMessage
from guardsvc.appeals.models import UnblockTicket
from guardsvc.appeals.statuses import PENDING
from guardsvc.audit.service import record_event
from guardsvc.blocks.service import create_block
from guardsvc.web.errors import InvalidState, NotFound
from guardsvc.extensions import db


def claim_ticket(ticket, actor, *, origin_ip=None):
    """``actor`` takes a pending ticket nobody holds (or they already hold): one conditional UPDATE.

    Of two administrators claiming at once exactly one changes the row; the
    other gets InvalidState naming who has it.
    """
    changed = db.session.execute(
        update(UnblockTicket)
        .where(UnblockTicket.id == ticket.id, UnblockTicket.status == PENDING,
               or_(UnblockTicket.claimed_by_id.is_(None), UnblockTicket.claimed_by_id == actor.id))
        .values(claimed_by_id=actor.id, claimed_at=clock.utcnow())
        .execution_options(synchronize_session=False)).rowcount
    db.session.refresh(ticket)
    if changed != 1:
        if not ticket.is_pending:
            raise InvalidState(messages.TICKET_NOT_PENDING)
        raise InvalidState(messages.TICKET_CLAIMED_BY_OTHER.format(admin=ticket.claimed_by.name))
    record_event("ticket.claimed", ticket.ticket_number, actor=actor, ip_address=origin_ip)
    return ticket


def release_ticket(ticket, actor, *, origin_ip=None):
    """``actor`` lets go of a ticket they hold; a claim of someone else is left alone (InvalidState)."""
    changed = db.session.execute(
        update(UnblockTicket)
        .where(UnblockTicket.id == ticket.id, UnblockTicket.claimed_by_id == actor.id)
        .values(claimed_by_id=None, claimed_at=None)
        .execution_options(synchronize_session=False)).rowcount
    db.session.refresh(ticket)
    if changed != 1:
        raise InvalidState(messages.TICKET_NOT_CLAIMED_BY_YOU)
    record_event("ticket.released", ticket.ticket_number, actor=actor, ip_address=origin_ip)
    return ticket


def answered_since_asked(ticket_ids):
    """The ids among ``ticket_ids`` whose appellant wrote after the last administrator message.

    A ticket where no administrator wrote yet counts once the appellant wrote anything.
    """
    if not ticket_ids:
        return set()
    rows = db.session.execute(
        select(TicketMessage.ticket_id, TicketMessage.author_kind, func.max(TicketMessage.created_at))
        .where(TicketMessage.ticket_id.in_(ticket_ids), TicketMessage.author_kind.in_((ADMIN, APPELLANT)))
        .group_by(TicketMessage.ticket_id, TicketMessage.author_kind)).all()
    latest = {}
    for ticket_id, kind, when in rows:
        latest.setdefault(ticket_id, {})[kind] = when
    return {ticket_id for ticket_id, times in latest.items()
            if APPELLANT in times and (ADMIN not in times or times[APPELLANT] > times[ADMIN])}


def list_templates():
    """Every reply template, by title."""
    return db.session.scalars(select(ResponseTemplate).order_by(ResponseTemplate.title, ResponseTemplate.id)).all()


def get_template(template_id):
    """One reply template, else NotFound."""
    template = db.session.get(ResponseTemplate, template_id)
    if template is None:
        raise NotFound(messages.TEMPLATE_NOT_FOUND)
    return template


def save_template(title, body, template_id=None):
    """Add a reply template, or change the one with ``template_id``."""
    now = clock.utcnow()
    if template_id is None:
        template = ResponseTemplate(created_at=now)
        db.session.add(template)
    else:
        template = get_template(template_id)
    template.title, template.body, template.updated_at = title, body, now
    db.session.flush()
    return template


def delete_template(template_id):
    """Remove one reply template; returns it (for the confirmation)."""
    template = get_template(template_id)
    db.session.delete(template)
    return template


def block_ticket_device(ticket, *, actor, origin_ip=None):
    """Block the device a ticket came from, named by the ticket: the desk never shows a device
    cookie's value, so it blocks by the ticket instead of by a copied id."""
    if not ticket.device_id:
        raise InvalidState(messages.TICKET_HAS_NO_DEVICE)
    return create_block(device_id=ticket.device_id, device_issued=ticket.device_issued, actor=actor,
                        origin_ip=origin_ip, reason=for_storage(messages.TICKET_DEVICE_BLOCK_REASON, ticket=ticket.ticket_number))
