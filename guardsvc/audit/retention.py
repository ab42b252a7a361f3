"""What the audit log forgets, and when (``flask purge``, guardsvc.retention): personal details of entries."""
import json

from sqlalchemy import or_, select

from guardsvc.audit.models import AuditEvent
from guardsvc.extensions import db
from guardsvc.retention.service import Rule

# Keys earlier audit entries used for a person's address, device or contact.
PERSONAL_AUDIT_KEYS = ("target", "local_ip", "email", "name", "ip_address", "device_id")


def _audit_due(now, config):
    return (or_(*(AuditEvent.details.contains(f'"{key}":') for key in PERSONAL_AUDIT_KEYS)),)


def _scrub_audit(ids, now):
    for event in db.session.scalars(select(AuditEvent).where(AuditEvent.id.in_(ids))):
        try:
            details = json.loads(event.details)
        except ValueError:
            continue
        if isinstance(details, dict):
            kept = {key: value for key, value in details.items() if key not in PERSONAL_AUDIT_KEYS}
            event.details = json.dumps(kept, ensure_ascii=False, sort_keys=True) if kept else None
    db.session.flush()


RULES = (Rule("audit entries scrubbed", AuditEvent, _audit_due, _scrub_audit),)
