"""Recovery codes for accounts with two-step verification."""
from datetime import datetime

from sqlalchemy import ForeignKey, String
from sqlalchemy.orm import Mapped, mapped_column

from guardsvc.storage import clock
from guardsvc.extensions import db


class RecoveryCode(db.Model):
    __tablename__ = "recovery_codes"

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    # HMAC-SHA256 (key from SECRET_KEY) of the SHA-256 of the normalized code
    # (guardsvc/storage/sealing.py); the code itself is shown once and never stored.
    code_hash: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[datetime] = mapped_column(default=clock.utcnow)
    used_at: Mapped[datetime | None]
