"""Shape of an audit entry in JSON."""
import json

from marshmallow import fields

from guardsvc.web.schema_fields import BaseSchema, Nullable, Timestamp


class AuditEventSchema(BaseSchema):
    """One administrator action as the audit API shows it."""

    id = fields.Integer()
    created_at = Timestamp()
    actor_id = Nullable(fields.Integer)
    actor = fields.String(attribute="actor_label")
    action = fields.String()
    target = fields.String()
    details = fields.Method("_details", metadata={"type": "object"})
    ip_address = Nullable()

    def _details(self, event):
        return json.loads(event.details) if event.details else {}
