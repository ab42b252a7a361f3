"""The host applications' block check in the API document."""
from guardsvc.blocks.schemas import BlockCheckQuerySchema, BlockCheckSchema
from guardsvc.openapi_operations import Envelope, Operation, Tag

BLOCKS = Tag("Blokir", "Apakah sebuah klien diblokir; pengelolaan blokir ada di bawah Administrator.")

OPERATIONS = (
    Operation("blocks_api.check_block", "checkBlock", "Cek apakah klien (IP, perangkat, IP lokal) diblokir",
              BLOCKS, {200: Envelope(BlockCheckSchema)}, roles=("admin", "service"),
              query=BlockCheckQuerySchema, description="Sebutkan `ip` dan/atau `device_id`."),
)
