"""Accounts and personal access tokens."""
from datetime import datetime

from sqlalchemy import CheckConstraint, ForeignKey, String
from sqlalchemy.orm import Mapped, mapped_column, relationship

from guardsvc import clock
from guardsvc.accounts.roles import ADMIN, ROLES, SERVICE, USER
from guardsvc.columns import one_of
from guardsvc.extensions import db
from guardsvc.sealing import SealedString


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
    # Bumped to end every session of the user at once ("sign out everywhere").
    session_epoch: Mapped[int] = mapped_column(default=0)
    # Encrypted at rest (guardsvc/sealing.py); the attribute holds the plain secret.
    totp_secret: Mapped[str | None] = mapped_column(SealedString(255))
    totp_enabled_at: Mapped[datetime | None]
    # Last accepted TOTP time step: a code is never accepted twice.
    totp_last_step: Mapped[int | None]
    created_at: Mapped[datetime] = mapped_column(default=clock.utcnow)

    tokens = relationship("ApiToken", back_populates="user", lazy="dynamic")

    # Flask-Login protocol.
    @property
    def is_authenticated(self):
        return True

    @property
    def is_anonymous(self):
        return False

    def get_id(self):
        return f"{self.id}:{self.session_epoch}"

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
