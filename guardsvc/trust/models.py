"""Trusted (user, IP, device) records."""
from datetime import datetime

from sqlalchemy import ForeignKey, Index, String, text
from sqlalchemy.orm import Mapped, mapped_column, relationship

from guardsvc.storage import clock
from guardsvc.extensions import db


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

    user = relationship("User")
