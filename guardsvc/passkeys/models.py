"""Stored passkeys and the challenges of ceremonies in progress."""
from datetime import datetime

from sqlalchemy import BigInteger, CheckConstraint, ForeignKey, LargeBinary, String
from sqlalchemy.orm import Mapped, mapped_column, relationship

from guardsvc.storage import clock
from guardsvc.storage.columns import one_of
from guardsvc.extensions import db

NAME_MAX = 100
# WebAuthn credential ids are at most 1023 bytes: 1364 characters of base64url.
CREDENTIAL_ID_MAX = 1400
# What a challenge was issued for; a challenge is only ever accepted for its own purpose.
REGISTER = "register"
SECOND_FACTOR = "second_factor"
PASSWORDLESS = "passwordless"
PURPOSES = (REGISTER, SECOND_FACTOR, PASSWORDLESS)


class Passkey(db.Model):
    __tablename__ = "passkeys"

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    # base64url of the raw credential id, as the browser names it.
    credential_id: Mapped[str] = mapped_column(String(CREDENTIAL_ID_MAX), unique=True)
    # COSE-encoded public key, as the authenticator gave it at registration.
    public_key: Mapped[bytes] = mapped_column(LargeBinary)
    # The WebAuthn user handle of the account (random, no personal data; one per account).
    user_handle: Mapped[str] = mapped_column(String(100))
    sign_count: Mapped[int] = mapped_column(BigInteger, default=0)
    # Comma-separated hints ("internal,hybrid") handed back to the browser when asking for it.
    transports: Mapped[str] = mapped_column(String(200), default="")
    backed_up: Mapped[bool] = mapped_column(default=False)
    name: Mapped[str] = mapped_column(String(NAME_MAX))
    created_at: Mapped[datetime] = mapped_column(default=clock.utcnow)
    last_used_at: Mapped[datetime | None]

    user = relationship("User")

    @property
    def transport_list(self):
        return [value for value in self.transports.split(",") if value]


class PasskeyChallenge(db.Model):
    """A challenge handed to a browser: single-use (deleted when used) and short-lived."""

    __tablename__ = "passkey_challenges"
    __table_args__ = (CheckConstraint(one_of("purpose", PURPOSES), name="purpose"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    # SHA-256 of the challenge: the table alone answers no ceremony.
    challenge_hash: Mapped[str] = mapped_column(String(64), unique=True)
    purpose: Mapped[str] = mapped_column(String(16))
    # The account the ceremony is for (None: a passwordless sign-in, account not known yet).
    user_id: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    # Registration only: the user handle the options named, which the new passkey keeps.
    user_handle: Mapped[str | None] = mapped_column(String(100))
    expires_at: Mapped[datetime] = mapped_column(index=True)
