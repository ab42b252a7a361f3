"""Accounts and personal access tokens."""
from datetime import datetime

from sqlalchemy import CheckConstraint, ForeignKey, String, false
from sqlalchemy.orm import Mapped, mapped_column, relationship

from guardsvc.storage import clock
from guardsvc.accounts.roles import ADMIN, ROLES, SERVICE, USER
from guardsvc.storage.columns import one_of
from guardsvc.extensions import db
from guardsvc.storage.sealing import SealedString


class User(db.Model):
    __tablename__ = "users"
    __table_args__ = (
        CheckConstraint(one_of("role", ROLES), name="role"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    # Stored lower-cased (see accounts.service.normalize_email), so unique is case-blind.
    email: Mapped[str] = mapped_column(String(150), unique=True)
    name: Mapped[str] = mapped_column(String(100))
    password_hash: Mapped[str] = mapped_column(String(255))
    role: Mapped[str] = mapped_column(String(16), default=USER)
    is_active: Mapped[bool] = mapped_column(default=True)
    # Encrypted at rest (guardsvc/storage/sealing.py); the attribute holds the plain secret.
    totp_secret: Mapped[str | None] = mapped_column(SealedString(255))
    totp_enabled_at: Mapped[datetime | None]
    # Wrong passwords and codes before this moment no longer count (a completed password reset).
    failures_cleared_at: Mapped[datetime | None]
    # Last accepted TOTP time step: a code is never accepted twice.
    totp_last_step: Mapped[int | None]
    created_at: Mapped[datetime] = mapped_column(default=clock.utcnow)
    # Administrators who opt in get an e-mail digest of new appeals (appeals.digest).
    notify_new_appeals: Mapped[bool] = mapped_column(default=False, server_default=false())
    # Until when the last digest reported; compared and set in one conditional UPDATE.
    last_appeal_digest_at: Mapped[datetime | None]
    # ``id``/``en``: what the holder last chose or signed in with; notices to them go out in it.
    language: Mapped[str | None] = mapped_column(String(8))
    # The account's first successful sign-in: null only for an account that never signed in (its next
    # sign-in is its first: no alert, no e-mailed code). Accounts from before the column whose history
    # was purged already carry their creation time (migration 0032).
    first_signed_in_at: Mapped[datetime | None]

    tokens = relationship("ApiToken", back_populates="user", lazy="dynamic")

    # Flask-Login protocol.
    @property
    def is_authenticated(self):
        return True

    @property
    def is_anonymous(self):
        return False

    def get_id(self):
        # The session cookie never carries this: it names a UserSession (accounts.sessions).
        return str(self.id)

    @property
    def audit_target(self):
        """How the audit log names this account."""
        return f"user-{self.id}"

    @property
    def is_admin(self):
        return self.role == ADMIN

    @property
    def is_service(self):
        return self.role == SERVICE

    @property
    def has_2fa(self):
        return self.totp_enabled_at is not None and self.totp_secret is not None


class ApiToken(db.Model):
    __tablename__ = "api_tokens"

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    name: Mapped[str] = mapped_column(String(100))
    # SHA-256 of the token; the token itself is shown once and never stored.
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    # First characters, so a person can tell tokens apart in a list.
    prefix: Mapped[str] = mapped_column(String(16))
    created_at: Mapped[datetime] = mapped_column(default=clock.utcnow)
    last_used_at: Mapped[datetime | None]
    revoked_at: Mapped[datetime | None]

    user = relationship("User", back_populates="tokens")

    @property
    def is_active(self):
        return self.revoked_at is None


class PasswordReset(db.Model):
    """One forgotten-password link: only the SHA-256 of its secret is kept.

    A link works once (``used_at``), until ``expires_at``, and only while it is
    the account's newest (a newer link sets ``voided_at`` on the older ones).
    """

    __tablename__ = "password_resets"

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    secret_hash: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[datetime] = mapped_column(default=clock.utcnow)
    expires_at: Mapped[datetime]
    used_at: Mapped[datetime | None]
    voided_at: Mapped[datetime | None]
    # Who asked for the link (for the account holder's and the operator's eyes).
    ip_address: Mapped[str | None] = mapped_column(String(45))

    user = relationship("User")

    def is_usable(self, now):
        return self.used_at is None and self.voided_at is None and now < self.expires_at


# What a serving process answers from (accounts/breached.py): the file's list, no list, the last good
# list while the file cannot be read, or nothing because the file cannot be read.
BREACHED_LIST_STATES = ("none", "loaded", "kept", "unreadable")


class BreachedListReader(db.Model):
    """One serving process's breached-password filter, as it reported it (accounts/breached_readers.py)."""

    __tablename__ = "breached_list_readers"
    __table_args__ = (
        CheckConstraint(one_of("state", BREACHED_LIST_STATES), name="state"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    # ``host:pid``: one row per process, replaced at each report.
    process: Mapped[str] = mapped_column(String(160), unique=True)
    host: Mapped[str] = mapped_column(String(128))
    pid: Mapped[int]
    path: Mapped[str] = mapped_column(String(1000))
    state: Mapped[str] = mapped_column(String(12))
    # SHA-256 of the filter it answers from (accounts/breached.py), null with none.
    fingerprint: Mapped[str | None] = mapped_column(String(64))
    # When it read that filter, and why the file cannot be read now (with the fix).
    loaded_at: Mapped[datetime | None]
    problem: Mapped[str | None] = mapped_column(String(1500))
    reported_at: Mapped[datetime] = mapped_column(default=clock.utcnow)
