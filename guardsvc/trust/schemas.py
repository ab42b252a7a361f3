"""Shapes of trusted-IP requests and records."""
from marshmallow import fields

from guardsvc.web.schema_fields import BaseSchema, Nullable, DeviceId, IpAddress, Text, Timestamp, Integer


class SaveMyIpSchema(BaseSchema):
    """Body of save-my-ip: an optional device name."""

    device_name = Text(max_length=100, load_default=None, blank_as_none=True, allow_none=True)


class TrustedIpSchema(BaseSchema):
    """A trusted IP record: exactly the fields of seed section 2.1."""

    id = fields.Integer()
    user_id = fields.Integer()
    ip_address = fields.String()
    local_ip = Nullable()
    # A device id the client named as it is; the service-issued device cookie as a fingerprint only.
    device_id = Nullable(attribute="device_label")
    device_name = fields.String()
    operating_system = Nullable()
    is_active = fields.Boolean()
    verified_at = Timestamp()


class TrustCheckSchema(BaseSchema):
    """Answer of the host check."""

    trusted = fields.Boolean(required=True)


class TrustCheckQuerySchema(BaseSchema):
    """Query of the host check: whose trust, from which IP and device."""

    user_id = Integer(required=True, strict=False)
    ip = IpAddress(required=True, max_length=64)
    device_id = DeviceId(load_default=None, blank_as_none=True)


class DeviceRenameSchema(BaseSchema):
    """Renaming a trusted device on the account page: the name is required here."""

    device_name = Text(required=True, max_length=100)
