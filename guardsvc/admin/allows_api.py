"""JSON door for administrators: allow entries."""
from flask import Blueprint
from flask_login import current_user

from guardsvc import messages
from guardsvc.accounts.roles import ADMINS
from guardsvc.admin.api import page_of
from guardsvc.blocks import allows
from guardsvc.blocks.allow_schemas import AllowCreateSchema, AllowEntrySchema, AllowListQuerySchema
from guardsvc.blocks.api import BLOCKS, CONTENT_RULES
from guardsvc.web.doors import json_door
from guardsvc.web.identity import client_ip
from guardsvc.web.jsonio import ok
from guardsvc.web.operations import RECORD_ID, Envelope, operation

bp = json_door(Blueprint("admin_allows_api", __name__, url_prefix="/api/admin/allows"))


@bp.get("")
@operation("listAllowEntries", "Daftar izin (administrator)", BLOCKS,
           {200: page_of(AllowEntrySchema, "AllowEntryPageResponse")}, roles=ADMINS, query=AllowListQuerySchema)
def list_allows(query):
    """Allow entries, newest first; ``active`` true/false, ``q`` searches (an IP also finds its ranges)."""
    page = allows.search_allow_entries(**query)
    return ok(data=AllowEntrySchema().dump(page.items, many=True), pagination=page.as_dict())


@bp.post("")
@operation("createAllowEntry", "Buat izin (administrator)", BLOCKS, {201: Envelope(AllowEntrySchema, message=True)},
           roles=ADMINS, body=AllowCreateSchema, errors={422: CONTENT_RULES},
           description="Izin mengalahkan blokir: klien yang cocok tidak diblokir. Sasaran: tepat satu dari `ip` "
                       "dan `device_id`.")
def create_allow(data):
    """Allow an IP, a CIDR range or a device id (outranks blocks)."""
    entry = allows.add_allow_entry(network=data.pop("ip"), **data, actor=current_user, origin_ip=client_ip())
    body = AllowEntrySchema().dump(entry)
    return ok(201, message=messages.ALLOW_CREATED.format(target=body["target"]), data=body)


@bp.post("/<id:entry_id>/remove")
@operation("removeAllowEntry", "Hapus izin (administrator)", BLOCKS, {200: Envelope(AllowEntrySchema, message=True)},
           roles=ADMINS, path_params={"entry_id": RECORD_ID},
           errors={404: "Izin tidak ditemukan.", 409: "Izin sudah dihapus."})
def remove_allow(entry_id):
    """Remove an active allow entry (409 when it was already removed)."""
    entry = allows.remove_allow_entry(entry_id, actor=current_user, origin_ip=client_ip())
    body = AllowEntrySchema().dump(entry)
    return ok(message=messages.ALLOW_REMOVED.format(target=body["target"]), data=body)
