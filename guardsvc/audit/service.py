"""Writing and reading the audit log.

Entries are added to the session of the action they describe and committed
with it by the door, so an action and its audit entry exist together or not at all.
"""
import json

from sqlalchemy import select

from guardsvc import messages
from guardsvc.storage import clock
from guardsvc.audit.models import AuditEvent
from guardsvc.extensions import db
from guardsvc.web.listing import contains_text, paginate

CLI_ACTOR = "cli"


def record_event(action, target, *, actor=None, ip_address=None, details=None):
    """Add one audit entry for ``actor`` (None: the command line) to the current transaction."""
    event = AuditEvent(
        created_at=clock.utcnow(), actor_id=actor.id if actor else None,
        actor_label=actor.email if actor else CLI_ACTOR, action=action, target=target,
        details=json.dumps(details, ensure_ascii=False, sort_keys=True, default=messages.as_text) if details else None,
        ip_address=ip_address)
    db.session.add(event)
    return event


def list_events(page=1, per_page=20, q=None, target=None):
    """Audit entries, newest first; ``q`` searches action, target and actor."""
    query = select(AuditEvent)
    if target:
        query = query.where(AuditEvent.target == target)
    if q:
        query = query.where(contains_text(q, AuditEvent.action, AuditEvent.target, AuditEvent.actor_label))
    return paginate(query.order_by(AuditEvent.created_at.desc(), AuditEvent.id.desc()), page, per_page)
