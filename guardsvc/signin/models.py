"""Login history: one row per sign-in attempt, successful or not."""
from datetime import datetime

from sqlalchemy import CheckConstraint, ForeignKey, Index, String, false, text
from sqlalchemy.orm import Mapped, mapped_column, relationship

from guardsvc.storage import clock
from guardsvc.storage.columns import one_of
from guardsvc.extensions import db
from guardsvc.web.identity import device_label, digest

# Results that end signed in; everything else is a refusal or an unfinished step.
SUCCESS_RESULTS = ("success", "2fa_skipped", "2fa_passed", "recovery_code_used", "email_verified")
FAILURE_RESULTS = ("wrong_password", "code_required", "wrong_code", "locked", "not_allowed",
                   "email_code_required", "wrong_email_code")
RESULTS = SUCCESS_RESULTS + FAILURE_RESULTS
EMAIL_MAX = 150


class LoginEvent(db.Model):
    __tablename__ = "login_events"
    __table_args__ = (
        CheckConstraint(one_of("result", RESULTS), name="result"),
        Index("ix_login_events_user_id_created_at", "user_id", "created_at"),
        Index("ix_login_events_created_at", "created_at"),
        # Counting an unknown e-mail's recent failures (signin/throttle.py).
        Index("ix_login_events_email_created_at", "email", "created_at"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    created_at: Mapped[datetime] = mapped_column(default=clock.utcnow)
    # Null when the e-mail matches no account.
    user_id: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    email: Mapped[str] = mapped_column(String(EMAIL_MAX))
    ip_address: Mapped[str] = mapped_column(String(45))
    device_id: Mapped[str | None] = mapped_column(String(64))
    user_agent: Mapped[str | None] = mapped_column(String(255))
    result: Mapped[str] = mapped_column(String(24))
    # SHA-256 of the service-issued device cookie this attempt presented (never a named device id).
    device_cookie_hash: Mapped[str | None] = mapped_column(String(64))
    # From a browser the account knows (signin/known_browsers.py): its failures count for it alone.
    known_browser: Mapped[bool] = mapped_column(default=False, server_default=false())
    # True when this sign-in queued a new-device alert e-mail.
    alerted: Mapped[bool] = mapped_column(default=False)
    # Where the address was, by the operator's GeoIP database at the time (guardsvc.places); null: unknown.
    country: Mapped[str | None] = mapped_column(String(2))
    city: Mapped[str | None] = mapped_column(String(100))

    user = relationship("User")

    @property
    def device_label(self):
        """The device as people see it: the service-issued cookie only as a fingerprint."""
        issued = bool(self.device_id and self.device_cookie_hash == digest(self.device_id))
        return device_label(self.device_id, issued)

    @property
    def succeeded(self):
        return self.result in SUCCESS_RESULTS


# What an e-mailed sign-in code is: waiting for its owner, used once, spent by wrong tries,
# out of time, or replaced by a newer one for the same account and address.
CODE_STATES = ("pending", "used", "spent", "expired", "replaced")
# Why a password sign-in had to prove the e-mail address (signin/verification.py).
VERIFY_REASONS = ("new_country", "fast_travel")


class EmailVerification(db.Model):
    """One e-mailed sign-in code: only its keyed hash is kept.

    At most one is pending per account and address (a partial unique index), so
    concurrent sign-ins from one place share one code instead of racing to mail several.
    """

    __tablename__ = "signin_email_codes"
    __table_args__ = (
        CheckConstraint(one_of("state", CODE_STATES), name="state"),
        CheckConstraint(one_of("reason", VERIFY_REASONS), name="reason"),
        Index("uq_signin_email_codes_pending", "user_id", "ip_address", unique=True,
              sqlite_where=text("state = 'pending'"), postgresql_where=text("state = 'pending'")),
        Index("ix_signin_email_codes_created_at", "created_at"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    # The address whose sign-in it completes (and whose place the e-mail named).
    ip_address: Mapped[str] = mapped_column(String(45))
    code_hash: Mapped[str] = mapped_column(String(64))
    state: Mapped[str] = mapped_column(String(8), default="pending")
    reason: Mapped[str] = mapped_column(String(16))
    tries: Mapped[int] = mapped_column(default=0)
    created_at: Mapped[datetime] = mapped_column(default=clock.utcnow)
    expires_at: Mapped[datetime]
    used_at: Mapped[datetime | None]
    country: Mapped[str | None] = mapped_column(String(2))
    city: Mapped[str | None] = mapped_column(String(100))
    # The outbox message that carries the code: what the page says about its delivery.
    mail_id: Mapped[int | None]


class SignInCountry(db.Model):
    """A country an account signed in from successfully, and when it last did (signin/verification.py).

    Kept for the new-country rule's ``KNOWN_COUNTRY_DAYS`` even when the sign-in history is purged
    sooner (GUARDSVC_SIGNIN_HISTORY_DAYS), so a quiet account's sign-in from elsewhere still asks
    for the e-mailed code; retention deletes a row once the rule no longer looks that far back.
    """

    __tablename__ = "signin_countries"
    __table_args__ = (
        Index("uq_signin_countries_user_id_country", "user_id", "country", unique=True),
        Index("ix_signin_countries_last_signed_in_at", "last_signed_in_at"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    country: Mapped[str] = mapped_column(String(2))
    last_signed_in_at: Mapped[datetime]
