"""Shapes of account and token requests and responses."""
from marshmallow import fields

from guardsvc import messages
from guardsvc.schema_fields import BaseSchema, Email, SecondFactorCode, Text, Timestamp


class TokenRequestSchema(BaseSchema):
    """``POST /api/auth/tokens``: credentials and an optional token name."""

    email = Email(required=True, max_length=150)
    password = fields.String(required=True, validate=[], error_messages={
        "required": messages.FIELD_REQUIRED, "null": messages.FIELD_REQUIRED,
        "invalid": messages.FIELD_NOT_STRING})
    name = Text(max_length=100, load_default=None, blank_as_none=True)
    # Accounts with two-step verification: a TOTP code or a recovery code,
    # unless the calling (IP, device) is trusted.
    otp = SecondFactorCode(load_default=None, blank_as_none=True)


class TokenSchema(BaseSchema):
    """A token as listed: never the token itself, only its first characters."""

    id = fields.Integer()
    name = fields.String()
    prefix = fields.String()
    created_at = Timestamp()
    last_used_at = Timestamp()
    revoked_at = Timestamp()
