"""Shapes of ticket requests and responses."""
from marshmallow import fields

from guardsvc.appeals.models import STATUSES
from guardsvc.blocks.schemas import display_target_of
from guardsvc.web.schema_fields import BaseSchema, Nullable, Choice, Email, Flag, Text, Timestamp


class TicketSubmitSchema(BaseSchema):
    """An appeal as submitted (API body or the /banding form)."""

    name = Text(required=True, max_length=100)
    email = Email(required=True, max_length=150)
    phone = Text(max_length=30, load_default=None, blank_as_none=True, allow_none=True)
    reason = Text(required=True, max_length=1000, multiline=True)


class TicketSubmittedSchema(BaseSchema):
    """What the submitter gets back: exactly the submission fields of seed section 2.2."""

    id = fields.Integer()
    ticket_number = fields.String()
    ip_address = fields.String()
    name = fields.String()
    email = fields.String()
    status = fields.String(metadata={"enum": list(STATUSES)})
    created_at = Timestamp()


class TicketStatusSchema(BaseSchema):
    """The public status check: never name, e-mail, phone, reason or IP."""

    ticket_number = fields.String()
    status = fields.String(metadata={"enum": list(STATUSES)})
    created_at = Timestamp()
    resolved_at = Timestamp()
    admin_notes = Nullable()


# What an administrator may write to the appellant with a decision.
NOTES_MAX = 1000


class TicketDecisionSchema(BaseSchema):
    """An administrator's decision."""

    action = Choice(("approve", "reject"), required=True)
    admin_notes = Text(max_length=NOTES_MAX, multiline=True, load_default=None, blank_as_none=True,
                       allow_none=True)
    # On approval, also lift the CIDR ranges that cover the client (never by default).
    lift_ranges = Flag(load_default=False)


class GroupDecisionSchema(BaseSchema):
    """One decision for every pending ticket of a block (contract section 18)."""

    decision = Choice(("approved", "rejected"), required=True)
    notes = Text(max_length=NOTES_MAX, multiline=True, load_default=None, blank_as_none=True, allow_none=True)
    # On approval, lift the block itself (a range too); else each client gets its exact allow entry.
    lift_block = Flag(load_default=False)


MESSAGE_MAX = 2000


class TicketReplySchema(BaseSchema):
    """The appellant's answer on their ticket's page."""

    body = Text(required=True, max_length=MESSAGE_MAX, multiline=True)


class TicketPostSchema(BaseSchema):
    """An administrator's message to the appellant, or an internal note."""

    body = Text(required=True, max_length=MESSAGE_MAX, multiline=True)
    kind = Choice(("admin", "note"), required=True)


class ResponseTemplateSchema(BaseSchema):
    """A reply template as administrators edit it."""

    title = Text(required=True, max_length=100)
    body = Text(required=True, max_length=MESSAGE_MAX, multiline=True)


class AllowEntryRefSchema(BaseSchema):
    """An allow entry an approval added: its id and what it allows."""

    id = fields.Integer()
    target = fields.Function(display_target_of, metadata={"type": "string"})
    # The device the entry is paired with (both must match), and when it ends.
    device_id = Nullable(attribute="paired_device_label")
    expires_at = Timestamp()


class TicketDecidedSchema(TicketStatusSchema):
    """A decision: the public status plus what the approval opened."""

    lifted_blocks = fields.Function(lambda decision: [block.reference for block in decision.lifted_blocks],
                                    metadata={"type": "array", "items": {"type": "string"}})
    allow_entries = fields.List(fields.Nested(AllowEntryRefSchema))


class GroupDecidedSchema(BaseSchema):
    """What one decision of a group did: how many tickets it decided, and which."""

    reference = fields.String(attribute="block.reference")
    decision = fields.String(attribute="status", metadata={"enum": ["approved", "rejected"]})
    decided = fields.Integer(metadata={"description": "How many tickets this request decided."})
    tickets = fields.Function(lambda result: [ticket.ticket_number for ticket in result.tickets],
                              metadata={"type": "array", "items": {"type": "string"}})
    lifted_block = fields.Boolean(metadata={"description": "The group's block was lifted (`lift_block`)."})
    lifted_blocks = fields.Function(lambda result: sorted({block.reference for block in result.lifted_blocks}),
                                    metadata={"type": "array", "items": {"type": "string"},
                                              "description": "Every block lifted: the group's own, and those on "
                                                             "exactly one appellant."})
    allow_entries = fields.Integer(metadata={"description": "How many exact, temporary allow entries were made."})
