"""Shapes of ticket requests and responses."""
from marshmallow import fields

from guardsvc.appeals.models import STATUSES
from guardsvc.schema_fields import BaseSchema, Nullable, Choice, Email, Text, Timestamp


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


class TicketDecisionSchema(BaseSchema):
    """An administrator's decision."""

    action = Choice(("approve", "reject"), required=True)
    admin_notes = Text(max_length=1000, multiline=True, load_default=None, blank_as_none=True,
                       allow_none=True)


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
