"""Unblock appeal tickets."""
from datetime import datetime

from sqlalchemy import CheckConstraint, false, ForeignKey, Index, String, text, Text
from sqlalchemy.orm import Mapped, mapped_column, relationship

from guardsvc.storage import clock
from guardsvc.appeals.statuses import PENDING, STATUSES
from guardsvc.storage.columns import one_of
from guardsvc.extensions import db
from guardsvc.web.identity import device_label

PENDING_WITHOUT_DEVICE = text(f"status = '{PENDING}' AND device_id IS NULL")
PENDING_WITH_DEVICE = text(f"status = '{PENDING}' AND device_id IS NOT NULL")
PENDING_ONLY = text(f"status = '{PENDING}'")


class UnblockTicket(db.Model):
    __tablename__ = "unblock_tickets"
    __table_args__ = (
        CheckConstraint(one_of("status", STATUSES), name="status"),
        # The cooldown rule lives in the database, whatever the number of workers
        # or machines: one pending ticket per device id, and one per IP address
        # among clients that name no device. A device never waits for another
        # device's ticket, even on a shared address (NAT, campus, office).
        Index("uq_unblock_tickets_pending_ip", "ip_address", unique=True,
              sqlite_where=PENDING_WITHOUT_DEVICE, postgresql_where=PENDING_WITHOUT_DEVICE),
        Index("uq_unblock_tickets_pending_device", "device_id", unique=True,
              sqlite_where=PENDING_WITH_DEVICE, postgresql_where=PENDING_WITH_DEVICE),
        Index("ix_unblock_tickets_status_created_at", "status", "created_at"),
        # The queue, newest first (created_at, id), read one page at a time.
        Index("ix_unblock_tickets_created_at_id", "created_at", "id"),
        Index("ix_unblock_tickets_ip_address", "ip_address"),
        # The per-address ceiling on pending tickets counts from this (appeals.service).
        Index("ix_unblock_tickets_pending_ip_address", "ip_address",
              sqlite_where=PENDING_ONLY, postgresql_where=PENDING_ONLY),
        Index("ix_unblock_tickets_device_id", "device_id"),
        # The desk's groups: pending tickets by the block they were made under, oldest first in each.
        Index("ix_unblock_tickets_pending_block", "block_id", "created_at",
              sqlite_where=PENDING_ONLY, postgresql_where=PENDING_ONLY),
        # The desk's service levels: the tickets decided in the last days.
        Index("ix_unblock_tickets_resolved_at", "resolved_at"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    ticket_number: Mapped[str] = mapped_column(String(12), unique=True)
    # Personal data: null once erased after the retention period (personal_data_erased_at).
    name: Mapped[str | None] = mapped_column(String(100))
    email: Mapped[str | None] = mapped_column(String(150))
    phone: Mapped[str | None] = mapped_column(String(30))
    reason: Mapped[str | None] = mapped_column(Text)
    ip_address: Mapped[str | None] = mapped_column(String(45))
    device_id: Mapped[str | None] = mapped_column(String(64))
    # The device id is the browser's service-issued device cookie (shown only as a fingerprint).
    device_issued: Mapped[bool] = mapped_column(default=False, server_default=false())
    local_ip: Mapped[str | None] = mapped_column(String(45))
    user_agent: Mapped[str | None] = mapped_column(String(255))
    # The page the appellant wanted when a proxy stopped them (a same-host path) and its site's host.
    return_path: Mapped[str | None] = mapped_column(String(1000))
    site: Mapped[str | None] = mapped_column(String(255))
    # ``id``/``en``: the language the appeal was written in; every e-mail about it goes out in it.
    language: Mapped[str | None] = mapped_column(String(8))
    block_id: Mapped[int | None] = mapped_column(ForeignKey("blocks.id", ondelete="SET NULL"))
    status: Mapped[str] = mapped_column(String(16), default=PENDING)
    created_at: Mapped[datetime] = mapped_column(default=clock.utcnow)
    resolved_at: Mapped[datetime | None]
    resolved_by_id: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    admin_notes: Mapped[str | None] = mapped_column(Text)
    # The first answer of an administrator: a decision, or a message to the appellant (not an internal note).
    first_answered_at: Mapped[datetime | None]
    # Set when the appellant first opened a private link sent to ``email``.
    email_verified_at: Mapped[datetime | None]
    # The administrator working on the ticket; taken with a conditional UPDATE (appeals.desk).
    claimed_by_id: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    claimed_at: Mapped[datetime | None]
    # Set by an approval: True when it lifted a block or added an allow entry.
    access_opened: Mapped[bool | None]
    personal_data_erased_at: Mapped[datetime | None]

    block = relationship("Block")
    resolved_by = relationship("User", foreign_keys=[resolved_by_id])
    claimed_by = relationship("User", foreign_keys=[claimed_by_id])

    @property
    def device_label(self):
        return device_label(self.device_id, self.device_issued)

    @property
    def is_pending(self):
        return self.status == PENDING
