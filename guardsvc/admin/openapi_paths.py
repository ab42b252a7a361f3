"""The administrators' ticket queue, blocks and audit log in the API document."""
from marshmallow import fields

from guardsvc.admin.schemas import TicketDetailSchema, TicketListQuerySchema, TicketSummarySchema
from guardsvc.audit.schemas import AuditEventSchema
from guardsvc.blocks.schemas import (BlockCreateSchema, BlockLiftSchema, BlockListQuerySchema, BlockSchema,
                                     BlockSelfReleaseSchema)
from guardsvc.web.listing import PaginationSchema, SearchQuerySchema
from guardsvc.openapi.operations import (BLOCK_REFERENCE, TICKET_NUMBER, VALIDATION_ERROR, Envelope, Failure, Link,
                                         Operation, Tag)
from guardsvc.blocks.openapi_paths import CONTENT_RULES

ADMIN = Tag("Administrator", "Antrean tiket, blokir, dan log audit (hanya administrator).")
ADMIN_ONLY = ("admin",)


def _page(schema, name, **extra):
    return Envelope(schema, many=True, name=name,
                    extra={"pagination": fields.Nested(PaginationSchema, required=True), **extra})


BLOCK = Envelope(BlockSchema, message=True)

OPERATIONS = (
    Operation("admin_api.list_tickets", "listTickets", "Antrean tiket", ADMIN,
              {200: _page(TicketSummarySchema, "TicketPageResponse", counts=fields.Dict(
                  keys=fields.String(), values=fields.Integer(), required=True,
                  metadata={"description": "Jumlah tiket per status, dihitung sampai 10000 "
                                          "(10000 berarti 10000 atau lebih)."}))},
              roles=ADMIN_ONLY, query=TicketListQuerySchema,
              description="Disaring menurut status dan teks (`q`), dengan jumlah per status."),
    Operation("admin_api.show_ticket", "getAdminTicket", "Satu tiket lengkap", ADMIN,
              {200: Envelope(TicketDetailSchema)}, roles=ADMIN_ONLY,
              path_params={"ticket_number": TICKET_NUMBER}, errors={404: "Nomor tiket tidak ditemukan."},
              description="Beserta tiket-tiket sebelumnya dari klien yang sama."),
    Operation("admin_api.list_blocks", "listBlocks", "Daftar blokir", ADMIN,
              {200: _page(BlockSchema, "BlockPageResponse")}, roles=ADMIN_ONLY, query=BlockListQuerySchema,
              description="Terbaru dahulu; `q` berupa IP juga menemukan rentang yang memuatnya."),
    Operation("admin_api.create_block", "createBlock", "Buat blokir", ADMIN,
              {201: BLOCK}, roles=ADMIN_ONLY, body=BlockCreateSchema,
              links={"liftBlock": Link("liftBlock", {"reference": "$response.body#/data/reference"})},
              errors={422: Failure(CONTENT_RULES + " Juga rentang yang lebih luas dari GUARDSVC_WIDEST_BLOCK atau "
                                   "yang mengenai GUARDSVC_NEVER_BLOCK (bawaan: loopback).", (VALIDATION_ERROR,))},
              description="Sasaran: tepat satu dari `ip` (alamat atau CIDR) dan `device_id`; kedaluwarsa opsional, "
                          "`minutes` atau `expires_at`, tidak keduanya."),
    Operation("admin_api.lift_block", "liftBlock", "Buka blokir", ADMIN,
              {200: BLOCK}, roles=ADMIN_ONLY, body=BlockLiftSchema,
              path_params={"reference": BLOCK_REFERENCE},
              errors={404: "Referensi blokir tidak ditemukan.", 409: "Blokir sudah dibuka."}),
    Operation("admin_api.switch_self_release", "switchBlockSelfRelease", "Izinkan (atau tidak) buka blokir sendiri",
              ADMIN, {200: BLOCK}, roles=ADMIN_ONLY, body=BlockSelfReleaseSchema,
              path_params={"reference": BLOCK_REFERENCE}, errors={404: "Referensi blokir tidak ditemukan."},
              description="Orang di bawah blokir ini boleh membukanya sendiri dengan bukti kerja (pasal 14)."),
    Operation("admin_api.list_audit", "listAuditEvents", "Log audit tindakan administrator", ADMIN,
              {200: _page(AuditEventSchema, "AuditPageResponse")}, roles=ADMIN_ONLY, query=SearchQuerySchema,
              description="Terbaru dahulu."),
)
