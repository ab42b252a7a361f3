"""Blocks and allow entries: the guard on every request, the host check, forward auth, the edge list,
the block page, and the blocks, allows and edge commands."""
from guardsvc import messages
from guardsvc.blocks import api, edge_api, forward_auth, retention, views
from guardsvc.blocks.allows_cli import allows_cli
from guardsvc.blocks.bulk_import import IMPORTED_EVENT
from guardsvc.blocks.cli import blocks_cli
from guardsvc.blocks.guard import init_guard
from guardsvc.blocks.proxy_cli import edge_cli
from guardsvc.blocks.service import count_active
from guardsvc.features import Feature

FEATURE = Feature(
    "blocks",
    init_app=init_guard,
    blueprints=(api.bp, forward_auth.bp, edge_api.bp, views.bp),
    commands=(blocks_cli, allows_cli, edge_cli),
    retention_rules=retention.RULES,
    gauges={"guardsvc_active_blocks": ("Blocks that apply now.", count_active)},
    audit_actions={
        "block.created": messages.AUDIT_BLOCK_CREATED,
        "block.lifted": messages.AUDIT_BLOCK_LIFTED,
        IMPORTED_EVENT: messages.AUDIT_BLOCKLIST_IMPORTED,
        "block.self_release_changed": messages.AUDIT_BLOCK_SELF_RELEASE_CHANGED,
        "allow.created": messages.AUDIT_ALLOW_CREATED,
        "allow.removed": messages.AUDIT_ALLOW_REMOVED,
    },
)
