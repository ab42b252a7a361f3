"""JSON door for host applications: is this client blocked?"""
from flask import Blueprint, request

from guardsvc.accounts.auth import roles_required
from guardsvc.accounts.roles import HOST_CHECKERS
from guardsvc.blocks.schemas import BlockCheckQuerySchema, BlockCheckSchema
from guardsvc.blocks.service import find_active_block
from guardsvc.web.doors import json_door
from guardsvc.web.jsonio import ok
from guardsvc.web.listing import query_args
from guardsvc.web.schema_fields import load_or_raise

bp = json_door(Blueprint("blocks_api", __name__, url_prefix="/api/guard/blocks"))


@bp.get("/check")
@roles_required(*HOST_CHECKERS)
def check_block():
    """Host check: the block that applies now to (ip, device_id, local_ip), if any."""
    query = load_or_raise(BlockCheckQuerySchema(), query_args(request.args))
    block = find_active_block(query["ip"], query["device_id"], query["local_ip"])
    answer = {"blocked": block is not None, "reference": None, "reason": None, "expires_at": None}
    if block is not None:
        answer.update(reference=block.reference, reason=block.reason, expires_at=block.expires_at)
    return ok(data=BlockCheckSchema().dump(answer))
