"""Bouncers (remediation components holding an API key) and what each one was last sent."""
from datetime import datetime

from sqlalchemy import BigInteger, ForeignKey, String
from sqlalchemy.orm import Mapped, mapped_column

from guardsvc.extensions import db
from guardsvc.storage import clock


class Bouncer(db.Model):
    """A remediation component allowed to pull the decision stream with its key (stored hashed)."""

    __tablename__ = "crowdsec_bouncers"

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(100), unique=True)
    key_hash: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[datetime] = mapped_column(default=clock.utcnow)
    last_pull_at: Mapped[datetime | None]


class SentDecision(db.Model):
    """A decision the bouncer holds as active: sent as new, not yet sent as deleted.

    This set is the bouncer's cursor: a later pull sends what is active now and
    not in it (new) and what is in it and no longer active (deleted), then makes
    it equal to what is active now. Kept in the database, so every worker and a
    restart see it.
    """

    __tablename__ = "crowdsec_sent_decisions"

    bouncer_id: Mapped[int] = mapped_column(ForeignKey("crowdsec_bouncers.id", ondelete="CASCADE"),
                                            primary_key=True)
    decision_id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    block_id: Mapped[int]
    scope: Mapped[str] = mapped_column(String(8))
    value: Mapped[str] = mapped_column(String(64))
    scenario: Mapped[str] = mapped_column(String(40))
