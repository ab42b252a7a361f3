"""Releases, the blocks each released, the proofs already used, and the row every release passes through."""
from datetime import datetime

from sqlalchemy import ForeignKey, Index, String
from sqlalchemy.orm import Mapped, mapped_column

from guardsvc.extensions import db
from guardsvc.storage import clock


class SelfRelease(db.Model):
    """One visitor's release of themselves: an exact, temporary allow entry and what it released."""

    __tablename__ = "self_releases"
    __table_args__ = (
        # The cooldown asks "has this address / this device released itself since ...?".
        Index("ix_self_releases_address_key_created_at", "address_key", "created_at"),
        Index("ix_self_releases_device_key_created_at", "device_key", "created_at"),
        # ... and "has this network?" (the blocked range, or the client's /24 or /48 in a wider one).
        Index("ix_self_releases_network_key_created_at", "network_key", "created_at"),
        # The hourly cap counts the releases of the last hour.
        Index("ix_self_releases_created_at", "created_at"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    created_at: Mapped[datetime] = mapped_column(default=clock.utcnow)
    allowed_until: Mapped[datetime]
    # The address (an IPv6 one by its /64) and the device's digest the cooldown is counted by;
    # erased, with the address itself, once neither the cooldown nor retention needs them.
    address_key: Mapped[str | None] = mapped_column(String(64))
    device_key: Mapped[str | None] = mapped_column(String(64))
    # The network the cooldown and the hour's share also count (``selfrelease.service.network_key``).
    network_key: Mapped[str | None] = mapped_column(String(64))
    ip_address: Mapped[str | None] = mapped_column(String(45))
    allow_entry_id: Mapped[int | None] = mapped_column(ForeignKey("allow_entries.id", ondelete="SET NULL"))
    # A block created while the release was in force that applies to the same client: found by the
    # worker (selfrelease.followup), shown on the desk as "blocked again".
    reblocked_at: Mapped[datetime | None]
    reblocked_by: Mapped[str | None] = mapped_column(String(12))


class ReleasedBlock(db.Model):
    """One block a release let its visitor through (the desk counts releases per block and per source)."""

    __tablename__ = "self_release_blocks"
    __table_args__ = (Index("ix_self_release_blocks_block_id", "block_id"),)

    release_id: Mapped[int] = mapped_column(ForeignKey("self_releases.id", ondelete="CASCADE"), primary_key=True)
    block_id: Mapped[int] = mapped_column(ForeignKey("blocks.id", ondelete="CASCADE"), primary_key=True)


class UsedProof(db.Model):
    """A solved challenge already spent: its digest is the key, so a second use conflicts everywhere."""

    __tablename__ = "self_release_proofs"
    __table_args__ = (Index("ix_self_release_proofs_expires_at", "expires_at"),)

    digest: Mapped[str] = mapped_column(String(64), primary_key=True)
    # When the challenge itself expires: from then on it is refused anyway, and the row is purged.
    expires_at: Mapped[datetime]


class ReleaseGate(db.Model):
    """One row every release updates first: releases pass one at a time (PostgreSQL: its row lock;
    SQLite: the write lock), so the cooldown and the hourly cap count what others committed."""

    __tablename__ = "self_release_gate"

    id: Mapped[int] = mapped_column(primary_key=True)
    passed_at: Mapped[datetime | None]
