"""Blocks on an IP, a CIDR range or a device id."""
from datetime import datetime

from sqlalchemy import BigInteger, CheckConstraint, false, ForeignKey, Index, Integer, String, Text, text
from sqlalchemy.orm import Mapped, mapped_column, relationship

from guardsvc.storage import clock
from guardsvc.blocks.networks import is_single_address
from guardsvc.extensions import db
from guardsvc.web.identity import device_label

NOT_LIFTED = text("lifted_at IS NULL")
ACTIVE_DEVICE = text("lifted_at IS NULL AND device_id IS NOT NULL")
FROM_ELSEWHERE = text("origin IS NOT NULL")
# Where a block came from when not made in guardsvc: a CrowdSec decision (guardsvc.crowdsec.source).
ORIGIN_CROWDSEC = "crowdsec"
# What made an allow entry. Every kind but MANUAL outranks only the blocks that existed when it was
# made (an approval, a self-release: contract sections 4 and 14); a later block wins.
MANUAL, APPROVAL, SELF_RELEASE = "manual", "approval", "self_release"
ALLOW_KINDS = (MANUAL, APPROVAL, SELF_RELEASE)


def target_kind(record):
    """``"ip"``, ``"cidr"`` or ``"device"``: what a block or an allow entry targets, without naming it.

    Audit entries say this instead of the address or device, which belong to a person.
    """
    if record.network is None:
        return "device"
    return "ip" if is_single_address(record.network) else "cidr"


class Block(db.Model):
    __tablename__ = "blocks"
    __table_args__ = (
        CheckConstraint("(network IS NULL) <> (device_id IS NULL)", name="one_target"),
        # Lookups only ever ask for blocks that are not lifted: keep those indexes small.
        Index("ix_blocks_active_network", "network", sqlite_where=NOT_LIFTED, postgresql_where=NOT_LIFTED),
        # Device blocks only: in a list of a million addresses the NULLs would make SQLite's planner
        # (after ANALYZE) take the device lookup for a scan.
        Index("ix_blocks_active_device_id", "device_id", sqlite_where=ACTIVE_DEVICE, postgresql_where=ACTIVE_DEVICE),
        # The administrator's list, newest first: an imported list shares one created_at.
        Index("ix_blocks_created_at_id", "created_at", "id"),
        # The decision stream: the blocks whose expiry fell between two pulls.
        Index("ix_blocks_active_expiry", "expires_at", sqlite_where=NOT_LIFTED, postgresql_where=NOT_LIFTED),
        # A decision of another system is imported once (its id names it there).
        Index("ix_blocks_source_decision", "origin", "source_decision_id", "network", unique=True,
              sqlite_where=FROM_ELSEWHERE, postgresql_where=FROM_ELSEWHERE),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    reference: Mapped[str] = mapped_column(String(12), unique=True)
    # Canonical CIDR text ("203.0.113.7/32", "10.0.0.0/8", "2001:db8::/32");
    # a single address is stored as a full-length prefix.
    network: Mapped[str | None] = mapped_column(String(64))
    device_id: Mapped[str | None] = mapped_column(String(64))
    local_ip: Mapped[str | None] = mapped_column(String(45))
    reason: Mapped[str | None] = mapped_column(Text)
    created_by_id: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    created_at: Mapped[datetime] = mapped_column(default=clock.utcnow)
    expires_at: Mapped[datetime | None]
    lifted_at: Mapped[datetime | None]
    lifted_by_id: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    lift_reason: Mapped[str | None] = mapped_column(Text)
    # None: made in guardsvc. Else the system it was imported from and that system's decision id.
    origin: Mapped[str | None] = mapped_column(String(16))
    source_decision_id: Mapped[int | None] = mapped_column(BigInteger)
    # The device id is a browser's service-issued device cookie (shown only as a fingerprint).
    device_issued: Mapped[bool] = mapped_column(default=False, server_default=false())
    # The person under it may release it by a proof of work (a low-risk block, contract section 14).
    self_release: Mapped[bool] = mapped_column(default=False, server_default=false())
    # The other system's own name for where its decision came from (CrowdSec: CAPI, lists, cscli, ...).
    source_origin: Mapped[str | None] = mapped_column(String(32))
    # The blocklist it was imported from (``flask blocks import``: the file's name); None otherwise.
    imported_from: Mapped[str | None] = mapped_column(String(100))

    created_by = relationship("User", foreign_keys=[created_by_id])
    lifted_by = relationship("User", foreign_keys=[lifted_by_id])

    def is_active_at(self, moment):
        return self.lifted_at is None and (self.expires_at is None or self.expires_at > moment)

    def state_at(self, moment):
        """``"active"``, ``"lifted"`` or ``"expired"`` at ``moment``."""
        if self.lifted_at is not None:
            return "lifted"
        return "active" if self.is_active_at(moment) else "expired"

    @property
    def target(self):
        """The address or range, or the device as people see it (a service-issued one as a fingerprint)."""
        return self.network if self.network is not None else self.device_label

    @property
    def device_label(self):
        return device_label(self.device_id, self.device_issued)


NOT_REMOVED = text("removed_at IS NULL")


class AllowEntry(db.Model):
    """An IP, CIDR range or device id that is never blocked while the entry is active."""

    __tablename__ = "allow_entries"
    __table_args__ = (
        CheckConstraint("(network IS NULL) <> (device_id IS NULL)", name="one_target"),
        # The guard probes these on every request, next to the block indexes.
        Index("ix_allow_entries_active_network", "network", sqlite_where=NOT_REMOVED,
              postgresql_where=NOT_REMOVED),
        Index("ix_allow_entries_active_device", "device_id", sqlite_where=NOT_REMOVED,
              postgresql_where=NOT_REMOVED),
        Index("ix_allow_entries_created_at", "created_at"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    network: Mapped[str | None] = mapped_column(String(64))  # canonical CIDR text, as for blocks
    device_id: Mapped[str | None] = mapped_column(String(64))
    reason: Mapped[str | None] = mapped_column(Text)
    created_by_id: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    created_at: Mapped[datetime] = mapped_column(default=clock.utcnow)
    expires_at: Mapped[datetime | None]
    removed_at: Mapped[datetime | None]
    removed_by_id: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    # With ``network`` (one address): the entry lets through only that address AND this device.
    paired_device_id: Mapped[str | None] = mapped_column(String(64))
    # What made it (ALLOW_KINDS): every kind but MANUAL yields to the blocks created after it.
    made_by: Mapped[str] = mapped_column(String(16), default=MANUAL, server_default=MANUAL)
    # The rule's flag before ``kind``: still written (true when the entry yields) so that a process of
    # the previous version, during a rolling upgrade, applies the same rule. A later revision drops it.
    from_approval: Mapped[bool] = mapped_column(default=False, server_default=false())
    # ``device_id`` / ``paired_device_id`` is a service-issued device cookie (shown only as a fingerprint).
    device_issued: Mapped[bool] = mapped_column(default=False, server_default=false())

    @property
    def paired_device_label(self):
        return device_label(self.paired_device_id, self.device_issued)

    created_by = relationship("User", foreign_keys=[created_by_id])
    removed_by = relationship("User", foreign_keys=[removed_by_id])

    def outranks(self, block, moment):
        """Does this entry let the clients it matches through ``block`` at ``moment``?

        Every enforcement path applies this rule (in SQL: ``blocks.service._enforced_statement``):
        an active entry outranks a block, except that an approval's or a self-release's entry yields
        to a later block.
        """
        return self.is_active_at(moment) and (not self.yields or self.created_at >= block.created_at)

    @property
    def yields(self):
        """True when blocks created after this entry win over it (an approval's, a self-release's)."""
        return self.made_by != MANUAL

    def is_active_at(self, moment):
        return self.removed_at is None and (self.expires_at is None or self.expires_at > moment)

    def state_at(self, moment):
        """``"active"``, ``"removed"`` or ``"expired"`` at ``moment``."""
        if self.removed_at is not None:
            return "removed"
        return "active" if self.is_active_at(moment) else "expired"

    @property
    def target(self):
        """The address or range, or the device as people see it (a service-issued one as a fingerprint)."""
        return self.network if self.network is not None else self.device_label

    @property
    def device_label(self):
        return device_label(self.device_id, self.device_issued)


class EdgeChange(db.Model):
    """A block whose enforcement changed (created, lifted, expiry or target changed), logged by triggers.

    The edge pulls the whole list once and then the blocks logged after its cursor (an id here);
    ``blocks.edge`` turns them into the current state of their targets. Written by database
    triggers (revision 0031_edge_deltas), so a bulk import is logged as surely as a single block.
    """

    __tablename__ = "edge_changes"
    __table_args__ = (
        Index("ix_edge_changes_block_id", "block_id"),
        {"sqlite_autoincrement": True},  # ids never reused: an edge's cursor stays meaningful
    )

    id: Mapped[int] = mapped_column(BigInteger().with_variant(Integer(), "sqlite"), primary_key=True)
    block_id: Mapped[int]
    # Unix seconds when the row was logged (the database's clock).
    logged_at: Mapped[int] = mapped_column(BigInteger)


class BlockGate(db.Model):
    """One row every change of what blocks cover updates first (PostgreSQL: its row lock; SQLite: the write
    lock): two writers cannot together take the coverage past ``GUARDSVC_MAX_COVERAGE``, and an import
    learns every approval or self-release committed while it ran (``blocks.coverage``)."""

    __tablename__ = "block_gate"

    id: Mapped[int] = mapped_column(primary_key=True)
    passed_at: Mapped[datetime | None]


class BlockCoverage(db.Model):
    """Public IPv4 addresses the active blocks cover, summed by the hour their blocks expire in.

    A block counts in the bucket of its expiry rounded up to the hour (never-expiring ones in the last
    bucket): once ``ends_at`` has passed, every block of the bucket has expired and the bucket counts no
    more, with no job to run. A lift takes its block's addresses out of its bucket.
    """

    __tablename__ = "block_coverage"

    ends_at: Mapped[datetime] = mapped_column(primary_key=True)
    addresses: Mapped[int] = mapped_column(BigInteger)
