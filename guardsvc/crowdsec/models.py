"""Bouncers and what each one was last sent; decisions to delete on a CrowdSec LAPI."""
from datetime import datetime

from sqlalchemy import BigInteger, ForeignKey, Index, String, Text, text
from sqlalchemy.orm import Mapped, mapped_column

from guardsvc.extensions import db
from guardsvc.storage import clock

PENDING = text("confirmed_at IS NULL")


class Bouncer(db.Model):
    """A remediation component allowed to pull the decision stream with its key (stored hashed)."""

    __tablename__ = "crowdsec_bouncers"

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(100), unique=True)
    key_hash: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[datetime] = mapped_column(default=clock.utcnow)
    last_pull_at: Mapped[datetime | None]
    # The edge_changes id its deltas start from (None: it never pulled, its next pull sends everything).
    cursor: Mapped[int | None] = mapped_column(BigInteger)


class SentDecision(db.Model):
    """What a bouncer holds of a block that was not sent whole: the pieces allow entries cut it into.

    A block sent whole (nearly every one) has no row: its one decision is named
    by the block itself, and the bouncer's cursor says whether it saw it. A
    block that allow entries cover entirely has one row with no decision
    (``decision_id`` the negated block id, empty scope). A pull compares what is
    active now with this, for the blocks that changed since the cursor, then
    makes it equal. Kept in the database, so every worker and a restart see it.
    """

    __tablename__ = "crowdsec_sent_decisions"
    __table_args__ = (Index("ix_crowdsec_sent_decisions_block", "bouncer_id", "block_id"),)

    bouncer_id: Mapped[int] = mapped_column(ForeignKey("crowdsec_bouncers.id", ondelete="CASCADE"),
                                            primary_key=True)
    decision_id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    block_id: Mapped[int]
    scope: Mapped[str] = mapped_column(String(8))
    value: Mapped[str] = mapped_column(String(64))
    scenario: Mapped[str] = mapped_column(String(40))


class DecisionDeletion(db.Model):
    """A queued job: delete one CrowdSec decision, by its id, on the LAPI; retried until the LAPI confirms.

    Queued in the transaction that lifted the imported block (an approval), so
    it is done if and only if the lift is; the worker carries it out later, so
    a LAPI that is away never slows or breaks the approval.
    """

    __tablename__ = "crowdsec_decision_deletions"
    __table_args__ = (Index("ix_crowdsec_decision_deletions_due", "next_attempt_at", sqlite_where=PENDING,
                            postgresql_where=PENDING),)

    id: Mapped[int] = mapped_column(primary_key=True)
    decision_id: Mapped[int] = mapped_column(BigInteger, unique=True)
    block_reference: Mapped[str] = mapped_column(String(12))
    created_at: Mapped[datetime] = mapped_column(default=clock.utcnow)
    attempts: Mapped[int] = mapped_column(default=0)
    next_attempt_at: Mapped[datetime] = mapped_column(default=clock.utcnow)
    confirmed_at: Mapped[datetime | None]
    last_error: Mapped[str | None] = mapped_column(Text)
