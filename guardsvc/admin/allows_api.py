"""JSON door for administrators: allow entries."""
from flask import Blueprint, request
from flask_login import current_user

from guardsvc import messages
from guardsvc.admin.access import require_admin
from guardsvc.blocks import allows
from guardsvc.blocks.allow_schemas import AllowCreateSchema, AllowEntrySchema, AllowListQuerySchema
from guardsvc.web.identity import client_ip
from guardsvc.web.jsonio import json_body, ok
from guardsvc.web.listing import query_args
from guardsvc.web.schema_fields import load_or_raise
from guardsvc.web.doors import json_door

bp = json_door(Blueprint("admin_allows_api", __name__, url_prefix="/api/admin/allows"))
bp.before_request(require_admin)


@bp.get("")
def list_allows():
    """Allow entries, newest first; ``active`` true/false, ``q`` searches (an IP also finds its ranges)."""
    query = load_or_raise(AllowListQuerySchema(), query_args(request.args))
    page = allows.search_allow_entries(**query)
    return ok(data=AllowEntrySchema().dump(page.items, many=True), pagination=page.as_dict())


@bp.post("")
def create_allow():
    """Allow an IP, a CIDR range or a device id (outranks blocks)."""
    data = load_or_raise(AllowCreateSchema(), json_body())
    entry = allows.add_allow_entry(network=data.pop("ip"), **data, actor=current_user, origin_ip=client_ip())
    body = AllowEntrySchema().dump(entry)
    return ok(201, message=messages.ALLOW_CREATED.format(target=body["target"]), data=body)


@bp.post("/<id:entry_id>/remove")
def remove_allow(entry_id):
    """Remove an active allow entry (409 when it was already removed)."""
    entry = allows.remove_allow_entry(entry_id, actor=current_user, origin_ip=client_ip())
    body = AllowEntrySchema().dump(entry)
    return ok(message=messages.ALLOW_REMOVED.format(target=body["target"]), data=body)
