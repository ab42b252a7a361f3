"""Trusted (user, IP, device) records."""
from datetime import datetime

from sqlalchemy import ForeignKey, Index, String, false, text
from sqlalchemy.orm import Mapped, mapped_column, relationship

from guardsvc.storage import clock
from guardsvc.extensions import db
from guardsvc.web.identity import device_label


class TrustedIp(db.Model):
    __tablename__ = "trusted_ips"
    __table_args__ = (
        # One record per (user, ip, device); a missing device matches a missing device.
        Index("uq_trusted_ips_user_ip_device", "user_id", "ip_address",
              text("coalesce(device_id, '')"), unique=True),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    ip_address: Mapped[str] = mapped_column(String(45))
    local_ip: Mapped[str | None] = mapped_column(String(45))
    device_id: Mapped[str | None] = mapped_column(String(64))
    device_name: Mapped[str] = mapped_column(String(100))
    operating_system: Mapped[str | None] = mapped_column(String(255))
    is_active: Mapped[bool] = mapped_column(default=True)
    verified_at: Mapped[datetime] = mapped_column(default=clock.utcnow)
    created_at: Mapped[datetime] = mapped_column(default=clock.utcnow)
    revoked_at: Mapped[datetime | None]
    # SHA-256 of the trust secret held by the browser that earned sign-in trust; null: host-check
    # trust only (a bearer token's save-my-ip), which never skips the code step.
    secret_hash: Mapped[str | None] = mapped_column(String(64))
    # The device id is the service-issued device cookie (a secret: shown only as a fingerprint).
    device_issued: Mapped[bool] = mapped_column(default=False, server_default=false())

    @property
    def device_label(self):
        return device_label(self.device_id, self.device_issued)

    user = relationship("User")
