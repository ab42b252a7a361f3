"""JSON door for host applications: is this client blocked?"""
from flask import Blueprint

from guardsvc.accounts.roles import HOST_CHECKERS
from guardsvc.blocks.schemas import BlockCheckQuerySchema, BlockCheckSchema
from guardsvc.blocks.service import find_active_block
from guardsvc.web.doors import json_door
from guardsvc.web.jsonio import ok
from guardsvc.web.operations import VALIDATION_ERROR, Envelope, Failure, Tag, operation

bp = json_door(Blueprint("blocks_api", __name__, url_prefix="/api/guard/blocks"))
BLOCKS = Tag("Blokir", "Apakah sebuah klien diblokir; pengelolaan blokir ada di bawah Administrator.")

# What a block or an allow entry must hold besides what the schema says: said here, refused with 422.
CONTENT_RULES = Failure("Aturan isi yang tidak dikatakan skema: rentang CIDR tanpa bit host (alamatnya alamat pertama "
                        "rentang: `10.0.0.0/24`, bukan `10.0.0.1/24`), dan `expires_at` (atau `minutes`) di masa "
                        "depan.", (VALIDATION_ERROR,))

@bp.get("/check")
@operation("checkBlock", "Cek apakah klien (IP, perangkat, IP lokal) diblokir", BLOCKS,
           {200: Envelope(BlockCheckSchema)}, roles=HOST_CHECKERS, query=BlockCheckQuerySchema,
           description="Sebutkan `ip` dan/atau `device_id` (parameter kueri biasa: `?ip=...&device_id=...`).")
def check_block(query):
    """Host check: the block that applies now to (ip, device_id, local_ip), if any."""
    block = find_active_block(query["ip"], query["device_id"], query["local_ip"])
    answer = {"blocked": block is not None, "reference": None, "reason": None, "expires_at": None}
    if block is not None:
        answer.update(reference=block.reference, reason=block.reason, expires_at=block.expires_at)
    return ok(data=BlockCheckSchema().dump(answer))
