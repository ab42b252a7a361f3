"""A ticket's conversation: private links by e-mail, the appellant's answers, administrators' messages.

The appellant proves their address by opening a link that only the e-mail
carries: ``/banding/tiket/<secret>``, 128+ random bits of which only the
SHA-256 is stored. Internal notes (``NOTE``) are for administrators only and
never reach the appellant's page, an e-mail or the public API.
"""
import hashlib
import secrets
from dataclasses import dataclass

from sqlalchemy import delete, select, update

from guardsvc import messages
from guardsvc.storage import clock
from guardsvc.storage.statements import Prepared
from guardsvc.appeals.conversation_models import (ADMIN, APPELLANT, NOTE, VISIBLE_TO_APPELLANT, TicketMessage,
                                                  TicketSecret)
from guardsvc.appeals.models import UnblockTicket
from guardsvc.appeals.notify import confirmation_mail, queue_message_mail
from guardsvc.appeals.service_levels import mark_first_answer
from guardsvc.audit.service import record_event
from guardsvc.web.errors import InvalidState, NotFound
from guardsvc.extensions import db
from guardsvc.web.links import external_url
from guardsvc.outbox.service import store_mail

SECRET_BYTES = 24  # 192 bits
ADMIN_KINDS = (ADMIN, NOTE)


def hash_secret(secret):
    """The stored form of a private link's secret."""
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def _private_url(secret):
    return external_url("conversation_pages.conversation_page", secret=secret)


_INSERT_SECRET = Prepared(TicketSecret.__table__.insert(), writes=True)


def _store_secret(ticket_id, secret_hash):
    _INSERT_SECRET.rows({"ticket_id": ticket_id, "secret_hash": secret_hash, "created_at": clock.utcnow()})


def new_private_link(ticket):
    """A fresh private link to ``ticket``'s conversation, for one e-mail; only its hash is stored."""
    secret = secrets.token_urlsafe(SECRET_BYTES)
    _store_secret(ticket.id, hash_secret(secret))
    return _private_url(secret)


@dataclass(frozen=True)
class Confirmation:
    """A new ticket's confirmation, made before the ticket is written: its link's hash and its e-mail."""

    secret_hash: str
    mail: dict


def prepare_confirmation(ticket):
    """The confirmation of a ticket about to be inserted (``ticket``: its column values).

    Made before anything is written, so that the writes of a submission (the
    ticket, the link, the e-mail) follow one another: SQLite holds its one
    write lock from the first of them to the commit, and every other writer
    waits that long.
    """
    secret = secrets.token_urlsafe(SECRET_BYTES)
    return Confirmation(hash_secret(secret), confirmation_mail(ticket, _private_url(secret)))


def store_confirmation(ticket, confirmation):
    """Store a prepared confirmation of the stored ``ticket``: the private link and the queued e-mail."""
    _store_secret(ticket.id, confirmation.secret_hash)
    store_mail(confirmation.mail)


def open_conversation(secret):
    """The ticket a private link names, marking its e-mail address verified; NotFound otherwise.

    Opening the link is the proof of address: the first time is recorded (a
    conditional UPDATE, so the first time stays the first time).
    """
    ticket = ticket_for_secret(secret)
    if ticket.email_verified_at is None:
        db.session.execute(
            update(UnblockTicket)
            .where(UnblockTicket.id == ticket.id, UnblockTicket.email_verified_at.is_(None))
            .values(email_verified_at=clock.utcnow())
            .execution_options(synchronize_session=False))
        db.session.refresh(ticket)
    return ticket


def ticket_for_secret(secret):
    """The ticket whose private link carries ``secret``, else NotFound (404)."""
    ticket = None
    if isinstance(secret, str) and 16 <= len(secret) <= 128:
        ticket = db.session.scalar(
            select(UnblockTicket).join(TicketSecret, TicketSecret.ticket_id == UnblockTicket.id)
            .where(TicketSecret.secret_hash == hash_secret(secret)))
    if ticket is None:
        raise NotFound(messages.CONVERSATION_NOT_FOUND)
    return ticket


def thread(ticket, *, for_appellant):
    """The ticket's messages in order; the appellant's view leaves the internal notes out."""
    query = select(TicketMessage).where(TicketMessage.ticket_id == ticket.id)
    if for_appellant:
        query = query.where(TicketMessage.author_kind.in_(VISIBLE_TO_APPELLANT))
    return db.session.scalars(query.order_by(TicketMessage.created_at, TicketMessage.id)).all()


def _add(ticket, kind, body, author=None):
    message = TicketMessage(ticket_id=ticket.id, author_kind=kind, body=body,
                            author_user_id=author.id if author else None, created_at=clock.utcnow())
    db.session.add(message)
    db.session.flush()
    return message


def reply_as_appellant(secret, body):
    """The appellant answers on their ticket's page; a decided ticket takes no more answers (409)."""
    ticket = ticket_for_secret(secret)
    if not ticket.is_pending:
        raise InvalidState(messages.CONVERSATION_CLOSED)
    return _add(ticket, APPELLANT, body)


def post_as_admin(ticket, body, kind, *, actor, origin_ip=None):
    """An administrator writes on a ticket: a message (e-mailed to the appellant) or an internal note.

    Messages are for pending tickets, where the appellant can still answer;
    notes may be added at any time.
    """
    if kind not in ADMIN_KINDS:
        raise ValueError(kind)
    if kind == ADMIN and not ticket.is_pending:
        raise InvalidState(messages.CONVERSATION_CLOSED)
    message = _add(ticket, kind, body, actor)
    if kind == ADMIN:
        mark_first_answer(ticket)
        queue_message_mail(ticket, body, new_private_link(ticket))
    record_event(f"ticket.{kind}", ticket.ticket_number, actor=actor, ip_address=origin_ip)
    return message


def erase_conversations(ticket_ids):
    """Delete the messages of these tickets and every private link to them (retention rules)."""
    for model in (TicketMessage, TicketSecret):
        db.session.execute(delete(model).where(model.ticket_id.in_(ticket_ids))
                           .execution_options(synchronize_session=False))
