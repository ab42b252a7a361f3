"""Shapes of the administrator's ticket lists and ticket records."""
from marshmallow import fields

from guardsvc.appeals.statuses import STATUSES
from guardsvc.blocks.schemas import BlockSchema
from guardsvc.web.listing import SearchQuerySchema
from guardsvc.web.schema_fields import BaseSchema, Choice, Nullable, Timestamp


class TicketListQuerySchema(SearchQuerySchema):
    """Filters of the ticket queue: status and free text."""

    status = Choice(STATUSES, load_default=None, allow_none=True, blank_as_none=True)


class TicketSummarySchema(BaseSchema):
    """A ticket as a row of the queue; personal fields are null once erased (retention)."""

    ticket_number = fields.String()
    status = fields.String(metadata={"enum": list(STATUSES)})
    name = Nullable()
    email = Nullable()
    ip_address = Nullable()
    device_id = Nullable(attribute="device_label")  # a service-issued device cookie as a fingerprint
    created_at = Timestamp()
    resolved_at = Timestamp()


def _user_email(user):
    return user.email if user is not None else None


class TicketDetailSchema(TicketSummarySchema):
    """A ticket in full, for the administrator deciding it."""

    id = fields.Integer()
    phone = Nullable()
    reason = Nullable()
    local_ip = Nullable()
    user_agent = Nullable()
    admin_notes = Nullable()
    resolved_by = fields.Function(lambda ticket: _user_email(ticket.resolved_by),
                                  metadata={"type": "string", "nullable": True})
    block = fields.Nested(BlockSchema, allow_none=True)
    # Null until an approval: whether it lifted a block or added an allow entry.
    access_opened = Nullable(fields.Boolean)
    personal_data_erased_at = Timestamp()
    # Filled in by the door (a query, not an attribute of the ticket).
    earlier_tickets = fields.List(fields.Nested(TicketSummarySchema), dump_default=list)
