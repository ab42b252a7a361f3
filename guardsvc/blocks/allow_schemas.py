"""Shapes of allow-entry requests and records."""
from marshmallow import fields

from guardsvc.storage import clock
from guardsvc.blocks.models import ALLOW_KINDS, APPROVAL
from guardsvc.blocks.schemas import BlockCreateSchema, BlockListQuerySchema, block_kind, display_target_of
from guardsvc.web.schema_fields import BaseSchema, Nullable, Timestamp


class AllowCreateSchema(BlockCreateSchema):
    """A new allow entry: ``ip`` (address or CIDR) or ``device_id``; optional reason and expiry."""

    class Meta:
        exclude = ("local_ip", "self_release")  # a block's own: an allow entry releases nothing


class AllowListQuerySchema(BlockListQuerySchema):
    """Filters of the administrator's allow list."""


class AllowEntrySchema(BaseSchema):
    """An allow entry as the administrator sees it."""

    id = fields.Integer()
    kind = fields.Function(block_kind)
    target = fields.Function(display_target_of)
    network = Nullable()
    device_id = Nullable(attribute="device_label")  # a service-issued device cookie as a fingerprint
    paired_device_id = Nullable(attribute="paired_device_label")
    from_approval = fields.Function(lambda e: e.made_by == APPROVAL, metadata={"type": "boolean"})
    # What made it: an administrator ("manual"), an approval, or the visitor's own proof of work.
    made_by = fields.String(metadata={"enum": list(ALLOW_KINDS)})
    reason = Nullable()
    active = fields.Function(lambda e: e.is_active_at(clock.utcnow()))
    state = fields.Function(lambda e: e.state_at(clock.utcnow()))
    created_at = Timestamp()
    created_by = fields.Function(lambda e: e.created_by.email if e.created_by else None)
    expires_at = Timestamp()
    removed_at = Timestamp()
    removed_by = fields.Function(lambda e: e.removed_by.email if e.removed_by else None)
