"""The nodes that report themselves, and the key their settings' fingerprints are made with."""
from datetime import datetime

from sqlalchemy import String, Text
from sqlalchemy.orm import Mapped, mapped_column

from guardsvc.extensions import db


class Node(db.Model):
    """One node: the processes that share an instance folder on one host (its gunicorn workers, its worker).

    ``node_key`` tells nodes apart (host name and the instance folder's own id), never the name: two
    nodes given one name are two rows, which the fleet view reports. ``fingerprints`` is a JSON object
    ``{setting: keyed hash or null}`` (guardsvc.nodes.fingerprints), never a value.
    """

    __tablename__ = "nodes"

    id: Mapped[int] = mapped_column(primary_key=True)
    node_key: Mapped[str] = mapped_column(String(64), unique=True)
    name: Mapped[str] = mapped_column(String(100))
    version: Mapped[str] = mapped_column(String(40))
    code_revision: Mapped[str] = mapped_column(String(200))
    schema_revision: Mapped[str | None] = mapped_column(String(200))
    started_at: Mapped[datetime]
    last_seen_at: Mapped[datetime] = mapped_column(index=True)
    fingerprints: Mapped[str] = mapped_column(Text)


class FleetKey(db.Model):
    """A random key every node reads from the database: it keys the settings' fingerprints (docs/security.md)."""

    __tablename__ = "fleet_keys"

    purpose: Mapped[str] = mapped_column(String(40), primary_key=True)
    key: Mapped[str] = mapped_column(String(128))
