"""Webhook endpoints, and the queue of outward calls: one row per endpoint and event, or per unban."""
from datetime import datetime

from sqlalchemy import CheckConstraint, ForeignKey, Index, String, Text, UniqueConstraint, false
from sqlalchemy.orm import Mapped, mapped_column

from guardsvc.extensions import db
from guardsvc.storage import clock
from guardsvc.storage.columns import one_of
from guardsvc.storage.queue import QueuedWork
from guardsvc.storage.sealing import SealedString

EVENTS = ("ticket.submitted", "ticket.decided", "block.created", "block.lifted", "block.self_released",
          "signin.new_device", "blocks.imported")
# A queued run of GUARDSVC_FAIL2BAN_UNBAN_COMMAND: the same queue, no endpoint, the address as its body.
UNBAN = "fail2ban.unban"
STATUSES = ("pending", "sending", "delivered", "failed")
FINISHED = ("delivered", "failed")


class WebhookEndpoint(db.Model):
    """A receiver: where events go, which ones, and the secret they are signed with (sealed at rest)."""

    __tablename__ = "webhook_endpoints"

    id: Mapped[int] = mapped_column(primary_key=True)
    url: Mapped[str] = mapped_column(String(2000))
    # The event types it wants, comma-separated, in EVENTS order.
    events: Mapped[str] = mapped_column(String(255))
    # "whsec_" + base64 of 32 random bytes, encrypted (guardsvc.storage.sealing): needed in full to sign.
    secret: Mapped[str] = mapped_column(SealedString(255))
    created_at: Mapped[datetime] = mapped_column(default=clock.utcnow)
    disabled: Mapped[bool] = mapped_column(default=False, server_default=false())

    @property
    def event_list(self):
        return self.events.split(",")


class HookDelivery(QueuedWork, db.Model):
    """One outward call to make, claimed and retried like the mail outbox (guardsvc.storage.queue).

    A webhook: one row per (endpoint, event id), so an endpoint gets each event
    once; ``body`` is the exact JSON that is signed and sent. An unban: no
    endpoint, ``event_type`` UNBAN, ``body`` the address. The body is emptied
    when the row is finished (it may name a person's address).
    """

    __tablename__ = "webhook_deliveries"
    __table_args__ = (
        UniqueConstraint("endpoint_id", "event_id"),
        CheckConstraint(one_of("status", STATUSES), name="status"),
        Index("ix_webhook_deliveries_status_next_attempt_at", "status", "next_attempt_at"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    endpoint_id: Mapped[int | None] = mapped_column(ForeignKey("webhook_endpoints.id", ondelete="CASCADE"))
    # The webhook-id header: one id per event, the same for every endpoint and every retry.
    event_id: Mapped[str] = mapped_column(String(40))
    event_type: Mapped[str] = mapped_column(String(32))
    body: Mapped[str] = mapped_column(Text)
    # status, attempts, next_attempt_at, claim_token, claimed_until, last_error, created_at: QueuedWork.
    delivered_at: Mapped[datetime | None]
