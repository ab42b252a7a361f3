"""The host applications' block check in the API document."""
from marshmallow import fields

from guardsvc.blocks.allow_schemas import AllowCreateSchema, AllowEntrySchema, AllowListQuerySchema
from guardsvc.blocks.schemas import BlockCheckQuerySchema, BlockCheckSchema
from guardsvc.web.listing import PaginationSchema
from guardsvc.openapi.operations import BLOCKED_ERROR, RECORD_ID, VALIDATION_ERROR, Envelope, Failure, Operation, Tag

BLOCKS = Tag("Blokir", "Apakah sebuah klien diblokir; pengelolaan blokir ada di bawah Administrator.")
# What a block or an allow entry must hold besides what the schema says: said here, refused with 422.
CONTENT_RULES = ("Aturan isi yang tidak dikatakan skema: rentang CIDR tanpa bit host (alamatnya alamat pertama "
                 "rentang: `10.0.0.0/24`, bukan `10.0.0.1/24`), dan `expires_at` (atau `minutes`) di masa depan.")

OPERATIONS = (
    Operation("blocks_api.check_block", "checkBlock", "Cek apakah klien (IP, perangkat, IP lokal) diblokir",
              BLOCKS, {200: Envelope(BlockCheckSchema)}, roles=("admin", "service"),
              query=BlockCheckQuerySchema,
              description="Sebutkan `ip` dan/atau `device_id` (parameter kueri biasa: `?ip=...&device_id=...`)."),
    Operation("forward_auth.forward_auth", "forwardAuth",
              "Forward auth untuk reverse proxy: boleh lewat (204) atau diblokir (403)", BLOCKS,
              {204: None}, identity=True, errors={400: "Alamat yang diteruskan proksi tidak terbaca.",
                                                 401: "Rahasia X-Guardsvc-Secret tidak ada atau salah (`flask edge secret` mencetaknya).",
                                                 403: Failure("Klien asli diblokir; proksi menampilkan "
                                                              "/terblokir?ref=...", (BLOCKED_ERROR,))},
              description="Klien asli dibaca dari header proksi (GUARDSVC_PROXY_COUNT) dan cookie perangkat. "
                          "Peramban (`Accept` mengutamakan `text/html`) mendapat halaman blokir HTML itu sendiri "
                          "dengan status 403; klien lain mendapat JSON di bawah."),
    Operation("admin_allows_api.list_allows", "listAllowEntries", "Daftar izin (administrator)", BLOCKS,
              {200: Envelope(AllowEntrySchema, many=True, name="AllowEntryPageResponse",
                             extra={"pagination": fields.Nested(PaginationSchema, required=True)})},
              roles=("admin",), query=AllowListQuerySchema),
    Operation("admin_allows_api.create_allow", "createAllowEntry", "Buat izin (administrator)", BLOCKS,
              {201: Envelope(AllowEntrySchema, message=True)}, roles=("admin",), body=AllowCreateSchema,
              errors={422: Failure(CONTENT_RULES, (VALIDATION_ERROR,))},
              description="Izin mengalahkan blokir: klien yang cocok tidak diblokir. Sasaran: tepat satu dari `ip` "
                          "dan `device_id`."),
    Operation("admin_allows_api.remove_allow", "removeAllowEntry", "Hapus izin (administrator)", BLOCKS,
              {200: Envelope(AllowEntrySchema, message=True)}, roles=("admin",),
              path_params={"entry_id": RECORD_ID},
              errors={404: "Izin tidak ditemukan.", 409: "Izin sudah dihapus."}),
)
