"""Bouncers: created with a key shown once and stored hashed, listed, removed; a key names its bouncer."""
import secrets

from sqlalchemy import delete, select

from guardsvc import messages
from guardsvc.accounts.service import hash_token
from guardsvc.crowdsec.models import Bouncer, SentDecision
from guardsvc.extensions import db
from guardsvc.storage import clock
from guardsvc.storage.inserts import insert_unless_conflict
from guardsvc.web.errors import Conflict, NotFound, ValidationFailed

NAME_MAX = 100


def add_bouncer(name):
    """Register a bouncer; returns (bouncer, key). The key exists only in this answer."""
    name = (name or "").strip()
    if not name or len(name) > NAME_MAX:
        raise ValidationFailed({"name": [messages.BOUNCER_NAME_INVALID]})
    key = secrets.token_urlsafe(32)
    bouncer = insert_unless_conflict(Bouncer, {"name": name, "key_hash": hash_token(key),
                                               "created_at": clock.utcnow()})
    if bouncer is None:
        raise Conflict(messages.BOUNCER_NAME_TAKEN)
    return bouncer, key


def list_bouncers():
    """Every bouncer, by name."""
    return db.session.scalars(select(Bouncer).order_by(Bouncer.name)).all()


def remove_bouncer(name):
    """Remove a bouncer by name; its key stops working at once."""
    bouncer = db.session.scalar(select(Bouncer).where(Bouncer.name == name))
    if bouncer is None:
        raise NotFound(messages.BOUNCER_NOT_FOUND)
    db.session.execute(delete(SentDecision).where(SentDecision.bouncer_id == bouncer.id))
    db.session.delete(bouncer)
    return bouncer


def bouncer_for_key(key):
    """The bouncer this API key belongs to, or None (a missing key, an unknown one)."""
    if not key:
        return None
    return db.session.scalar(select(Bouncer).where(Bouncer.key_hash == hash_token(key)))
