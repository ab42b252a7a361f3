"""Shapes of block requests and records."""
from datetime import datetime, timezone

from marshmallow import fields, pre_load

from guardsvc import messages
from guardsvc.storage import clock
from guardsvc.blocks.models import target_kind
from guardsvc.blocks.networks import ZoneIdGiven, canonical_network, display_target
from guardsvc.web import ip_grammar
from guardsvc.web.listing import SearchQuerySchema
from guardsvc.web.schema_fields import (BaseSchema, DeviceId, Flag, Given, Integer, IpAddress, Nullable, StoredText,
                                        Text, Timestamp)

MAX_MINUTES = 10 * 366 * 24 * 60  # ten years; beyond that, leave the expiry empty
NETWORK_DESCRIPTION = ("Alamat IPv4/IPv6, atau rentang CIDR tanpa bit host (`10.0.0.0/8`, `2001:db8::/32`; untuk "
                       "IPv4 juga netmask `10.0.0.0/255.0.0.0`); spasi di tepi diabaikan, id zona (`%`) ditolak.")


class IpOrNetwork(Text):
    """An IP address or a CIDR range, returned in canonical CIDR text (``1.2.3.4`` -> ``1.2.3.4/32``)."""

    limits_sent_text = True
    default_error_messages = {"bad_network": messages.FIELD_BAD_IP_OR_CIDR, "zone_id": messages.FIELD_IP_ZONE_ID}

    def json_schema(self, blank=None):
        """What the API document says of it (guardsvc.openapi.fields): the grammar ``parse_network`` reads;
        only spaces too (no range) when it is optional, or as ``blank`` says."""
        blank = not self.required if blank is None else blank
        return {"description": NETWORK_DESCRIPTION, "pattern": ip_grammar.text_pattern(ip_grammar.NETWORK, blank=blank)}

    def _deserialize(self, value, attr, data, **kwargs):
        text = super()._deserialize(value, attr, data, **kwargs)
        if not text:
            return text
        try:
            return canonical_network(text)
        except ZoneIdGiven as exc:
            raise self.make_error("zone_id") from exc
        except ValueError as exc:
            raise self.make_error("bad_network") from exc


class UtcDateTime(fields.Field):
    """An ISO 8601 moment (``Z``, an offset, or naive meaning UTC), loaded as naive UTC."""

    default_error_messages = {"invalid": messages.FIELD_BAD_TIMESTAMP,
                              "out_of_range": messages.FIELD_TIMESTAMP_OUT_OF_RANGE}

    def json_schema(self):
        """What the API document says of it (guardsvc.openapi.fields)."""
        return {"type": "string", "format": "date-time",
                "description": "Waktu ISO 8601 (`Z`, selisih waktu, atau tanpa keduanya berarti UTC), di masa depan."}

    def _deserialize(self, value, attr, data, **kwargs):
        if not isinstance(value, str):
            raise self.make_error("invalid")
        text = value.strip()
        if text.endswith(("Z", "z")):
            text = text[:-1] + "+00:00"
        try:
            moment = datetime.fromisoformat(text)
        except ValueError as exc:
            raise self.make_error("invalid") from exc
        if moment.tzinfo is not None:
            try:
                moment = moment.astimezone(timezone.utc).replace(tzinfo=None)
            except OverflowError as exc:  # 9999-12-31T23:59:59-14:00 is in year 10000 in UTC
                raise self.make_error("out_of_range") from exc
        return moment


def _optional(field_class, **kwargs):
    return field_class(load_default=None, allow_none=True, **kwargs)


class BlockCreateSchema(BaseSchema):
    """A new block: ``ip`` (address or CIDR) or ``device_id``; optional narrowing, reason, expiry."""

    rules = (Given("ip", "device_id", least=1, most=1, error=messages.BLOCK_ONE_TARGET),
             Given("minutes", "expires_at", most=1, error=messages.BLOCK_BOTH_EXPIRY))

    ip = _optional(IpOrNetwork, max_length=64, blank_as_none=True)
    device_id = _optional(DeviceId, blank_as_none=True)
    local_ip = _optional(IpAddress, max_length=64, blank_as_none=True)
    reason = _optional(Text, max_length=1000, multiline=True, blank_as_none=True)
    minutes = _optional(Integer, strict=False, maximum=MAX_MINUTES)
    expires_at = _optional(UtcDateTime)
    # The person under it may release it by a proof of work (contract section 14).
    self_release = Flag(load_default=False)

    @pre_load
    def _blank_minutes_mean_none(self, data, **kwargs):
        # The page's form sends an empty duration for "until lifted".
        if isinstance(data, dict) and isinstance(data.get("minutes"), str) and not data["minutes"].strip():
            data = {**data, "minutes": None}
        return data


class BlockLiftSchema(BaseSchema):
    """Why a block is lifted (optional)."""

    reason = _optional(Text, max_length=1000, multiline=True, blank_as_none=True)


class BlockSelfReleaseSchema(BaseSchema):
    """Whether the person under a block may release it by a proof of work."""

    self_release = Flag(required=True)


class BlockListQuerySchema(SearchQuerySchema):
    """Filters of the administrator's block list."""

    active = _optional(fields.Boolean, error_messages={"invalid": messages.FIELD_BAD_BOOLEAN})


class BlockCheckQuerySchema(BaseSchema):
    """Query of the host check: the client's IP and/or device id, and its local IP."""

    rules = (Given("ip", "device_id", least=1, error=messages.BLOCK_CHECK_NEEDS_TARGET),)

    ip = _optional(IpAddress, max_length=64, blank_as_none=True)
    device_id = _optional(DeviceId, blank_as_none=True)
    local_ip = _optional(IpAddress, max_length=64, blank_as_none=True)


class BlockCheckSchema(BaseSchema):
    """Answer of the host check; every field but ``blocked`` is null for a free client."""

    blocked = fields.Boolean()
    reference = Nullable()
    reason = StoredText()
    expires_at = Timestamp()


def block_kind(block):
    """``"ip"``, ``"cidr"`` or ``"device"`` (of a block or an allow entry)."""
    return target_kind(block)


def display_target_of(record):
    """What a block or an allow entry targets, as people write it."""
    return display_target(record.network) if record.network else record.target


class BlockSchema(BaseSchema):
    """A block as the administrator sees it."""

    reference = fields.String()
    kind = fields.Function(block_kind, metadata={"type": "string", "enum": ["ip", "cidr", "device"]})
    target = fields.Function(display_target_of, metadata={"type": "string"})
    network = Nullable()
    device_id = Nullable(attribute="device_label")  # a service-issued device cookie as a fingerprint
    local_ip = Nullable()
    reason = StoredText()
    active = fields.Function(lambda b: b.is_active_at(clock.utcnow()), metadata={"type": "boolean"})
    state = fields.Function(lambda b: b.state_at(clock.utcnow()),
                            metadata={"type": "string", "enum": ["active", "lifted", "expired"]})
    created_at = Timestamp()
    created_by = fields.Function(lambda b: b.created_by.email if b.created_by else None,
                                 metadata={"type": "string", "nullable": True})
    expires_at = Timestamp()
    lifted_at = Timestamp()
    lifted_by = fields.Function(lambda b: b.lifted_by.email if b.lifted_by else None,
                                metadata={"type": "string", "nullable": True})
    lift_reason = StoredText()
    self_release = fields.Boolean()

