"""The migrations that declared the oldest code they still serve (guardsvc.storage.revisions)."""
from datetime import datetime

from sqlalchemy import String, func
from sqlalchemy.orm import Mapped, mapped_column

from guardsvc.extensions import db


class SchemaRequirement(db.Model):
    """A migration that ran and declared the oldest code it still serves (``breaks_code_before``)."""

    __tablename__ = "schema_requirements"

    revision: Mapped[str] = mapped_column(String(64), primary_key=True)
    breaks_code_before: Mapped[str] = mapped_column(String(64))
    applied_at: Mapped[datetime] = mapped_column(server_default=func.current_timestamp())
