"""Shapes of login history records and queries."""
from marshmallow import fields

from guardsvc.web.schema_fields import BaseSchema, Choice, EmailCode, Integer, Nullable, SecondFactorCode, Timestamp
from guardsvc.signin.models import RESULTS
from guardsvc.web.useragent import describe_user_agent


class LoginEventSchema(BaseSchema):
    """One sign-in attempt as shown to its account's owner."""

    id = fields.Integer()
    created_at = Timestamp()
    email = fields.String()
    ip_address = fields.String()
    # A device id the client named as it is; the service-issued device cookie as a fingerprint only.
    device_id = Nullable(attribute="device_label")
    user_agent = Nullable()
    device = fields.Function(lambda event: describe_user_agent(event.user_agent), allow_none=True,
                             metadata={"type": "string"})
    result = fields.String(metadata={"enum": list(RESULTS)})
    alerted = fields.Boolean()
    # Where the address was by the operator's GeoIP database (ISO 3166-1 code; the city's English
    # name); null when it did not say.
    country = Nullable(metadata={"pattern": "^[A-Z]{2}$"})
    city = Nullable()


class AdminLoginEventSchema(LoginEventSchema):
    """One sign-in attempt as administrators see it (with the account, when one matched)."""

    user_id = Nullable(fields.Integer)


class LoginQuerySchema(BaseSchema):
    """``?limit=&result=`` of the administrators' history."""

    limit = Integer(strict=False, maximum=500, load_default=100)
    result = Choice(RESULTS, load_default=None, blank_as_none=True)


class CodeStepSchema(BaseSchema):
    """The code step of the web sign-in (``/masuk/kode``): a TOTP or recovery code."""

    code = SecondFactorCode(required=True)


class EmailCodeStepSchema(BaseSchema):
    """The e-mailed-code step of the web sign-in (``/masuk/kode-email``)."""

    code = EmailCode(required=True)
