"""Shapes of the administrator's ticket lists and ticket records."""
from marshmallow import fields

from guardsvc.appeals.statuses import STATUSES
from guardsvc.blocks.schemas import BlockSchema, block_kind, display_target_of
from guardsvc.storage import clock
from guardsvc.stored_texts import readable
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


def _of_block(read, **metadata):
    """A field read from a group's block; null for the group of tickets under no block."""
    return fields.Function(lambda group: read(group.block) if group.block is not None else None,
                           metadata={"nullable": True, **metadata})


class TicketGroupSchema(BaseSchema):
    """The pending tickets made under one block (contract section 18); the block's fields are null for the
    group of tickets made under none."""

    reference = _of_block(lambda block: block.reference, type="string")
    kind = _of_block(block_kind, type="string", enum=["ip", "cidr", "device"])
    target = _of_block(display_target_of, type="string")
    source = fields.String(attribute="source", allow_none=True, metadata={
        "description": "Where the block came from: `guardsvc` (made here), `import` (an imported blocklist, see "
                       "`imported_from` and `reason`), `crowdsec/<origin>` (a CrowdSec decision)."})
    imported_from = _of_block(lambda block: block.imported_from, type="string")
    reason = _of_block(lambda block: readable(block.reason), type="string")
    state = _of_block(lambda block: block.state_at(clock.utcnow()), type="string",
                      enum=["active", "lifted", "expired"])
    self_release = _of_block(lambda block: block.self_release, type="boolean")
    pending = fields.Integer(metadata={"description": "Tickets waiting for a decision."})
    oldest_pending_at = Timestamp(attribute="oldest_at")
    oldest_pending_age_seconds = fields.Function(
        lambda group: int(group.age(clock.utcnow()).total_seconds()),
        metadata={"type": "integer", "description": "Age of the oldest waiting ticket, in seconds."})
