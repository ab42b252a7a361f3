"""The conversation around a ticket: private links, messages, and administrators' reply templates."""
from datetime import datetime

from sqlalchemy import CheckConstraint, ForeignKey, Index, String, Text
from sqlalchemy.orm import Mapped, mapped_column, relationship

from guardsvc.storage import clock
from guardsvc.storage.columns import one_of
from guardsvc.extensions import db

APPELLANT = "appellant"
ADMIN = "admin"
NOTE = "note"
AUTHOR_KINDS = (APPELLANT, ADMIN, NOTE)
# What the appellant may read: never the administrators' internal notes.
VISIBLE_TO_APPELLANT = (APPELLANT, ADMIN)


class TicketSecret(db.Model):
    """One private link ``/banding/tiket/<secret>`` sent by e-mail; only its SHA-256 is kept.

    Every e-mail to the appellant carries a fresh link (the secret itself cannot
    be read back), and every link stays valid until the conversation is erased.
    """

    __tablename__ = "ticket_secrets"

    id: Mapped[int] = mapped_column(primary_key=True)
    ticket_id: Mapped[int] = mapped_column(ForeignKey("unblock_tickets.id", ondelete="CASCADE"), index=True)
    secret_hash: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[datetime] = mapped_column(default=clock.utcnow)

    ticket = relationship("UnblockTicket")


class TicketMessage(db.Model):
    """One message of a ticket's conversation: the appellant's, an administrator's, or an internal note."""

    __tablename__ = "ticket_messages"
    __table_args__ = (
        CheckConstraint(one_of("author_kind", AUTHOR_KINDS), name="author_kind"),
        Index("ix_ticket_messages_ticket_id_created_at", "ticket_id", "created_at"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    ticket_id: Mapped[int] = mapped_column(ForeignKey("unblock_tickets.id", ondelete="CASCADE"))
    author_kind: Mapped[str] = mapped_column(String(16))
    author_user_id: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    body: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(default=clock.utcnow)

    author = relationship("User")


class ResponseTemplate(db.Model):
    """A reusable text administrators start a message or note from."""

    __tablename__ = "response_templates"

    id: Mapped[int] = mapped_column(primary_key=True)
    title: Mapped[str] = mapped_column(String(100))
    body: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(default=clock.utcnow)
    updated_at: Mapped[datetime] = mapped_column(default=clock.utcnow)
