"""Outgoing e-mail: the body until delivered (or given up on), the metadata a while longer."""
from datetime import datetime

from sqlalchemy import CheckConstraint, Index, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from guardsvc.storage.columns import one_of
from guardsvc.storage.queue import QueuedWork
from guardsvc.extensions import db

STATUSES = ("pending", "sending", "sent", "failed")
FINISHED = ("sent", "failed")
# A finished message keeps its metadata but not its body (retention of personal data).
ERASED_BODY = {"body_text": "", "body_html": None}


class OutboxMessage(QueuedWork, db.Model):
    __tablename__ = "mail_outbox"
    __table_args__ = (
        CheckConstraint(one_of("status", STATUSES), name="status"),
        Index("ix_mail_outbox_status_next_attempt_at", "status", "next_attempt_at"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    # What the message is about (signin_alert, appeal_decision): for logs and audits.
    kind: Mapped[str] = mapped_column(String(32))
    recipient: Mapped[str] = mapped_column(String(254))
    subject: Mapped[str] = mapped_column(String(255))
    body_text: Mapped[str] = mapped_column(Text)
    body_html: Mapped[str | None] = mapped_column(Text)
    # status, attempts, next_attempt_at, claim_token, claimed_until, last_error, created_at: QueuedWork.
    sent_at: Mapped[datetime | None]
