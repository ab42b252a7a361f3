"""One row per signed-in browser; the cookie carries a random key, this table only its hash."""
from datetime import datetime

from sqlalchemy import ForeignKey, String
from sqlalchemy.orm import Mapped, mapped_column, relationship

from guardsvc.storage import clock
from guardsvc.extensions import db


class UserSession(db.Model):
    __tablename__ = "user_sessions"

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    # SHA-256 of the 256-bit key in the cookie; the key itself is never stored.
    key_hash: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[datetime] = mapped_column(default=clock.utcnow)
    # Refreshed at most once a minute; rows idle past GUARDSVC_SESSION_IDLE_DAYS are dead.
    last_seen_at: Mapped[datetime] = mapped_column(default=clock.utcnow, index=True)
    # When the person last proved it is them (sign-in, or the confirmation page).
    reauthenticated_at: Mapped[datetime | None]
    # When this session last passed a second factor (the code step, or a re-authentication with it).
    second_factor_at: Mapped[datetime | None]
    ip_address: Mapped[str] = mapped_column(String(45))
    user_agent: Mapped[str | None] = mapped_column(String(255))
    device_id: Mapped[str | None] = mapped_column(String(64))

    # Named by string: this package never imports accounts (accounts reads sessions).
    user = relationship("User")
