"""Shapes of account and token requests and responses."""
from marshmallow import fields

from guardsvc import messages
from guardsvc.web.schema_fields import BaseSchema, Email, EmailCode, SecondFactorCode, Text, Timestamp


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
    # Accounts without two-step verification signing in from somewhere new: the 8-digit code
    # that was e-mailed after the answer ``verification_required``.
    email_code = EmailCode(load_default=None, blank_as_none=True)


class TokenSchema(BaseSchema):
    """A token as listed: never the token itself, only its first characters."""

    id = fields.Integer()
    name = fields.String()
    prefix = fields.String()
    created_at = Timestamp()
    last_used_at = Timestamp()
    revoked_at = Timestamp()


class ResetRequestSchema(BaseSchema):
    """``/masuk/lupa``: the address to send a reset link to."""

    email = Email(required=True, max_length=150)


class NewAccountSchema(BaseSchema):
    """``flask users create``: the shape of a new account (the password rule is the service's)."""

    email = Email(required=True, max_length=150)
    name = Text(required=True, max_length=100)


class AccountSchema(BaseSchema):
    """An account as operators list it (``flask users list --json``)."""

    id = fields.Integer()
    email = fields.String()
    name = fields.String()
    role = fields.String()
    active = fields.Boolean(attribute="is_active")
    two_factor = fields.Boolean(attribute="has_2fa")
    created_at = Timestamp()
