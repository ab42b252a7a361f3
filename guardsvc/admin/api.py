"""JSON door for administrators: ticket queue, blocks, audit log, the nodes that serve."""
from flask import Blueprint
from flask_login import current_user
from marshmallow import fields

from guardsvc import messages
from guardsvc.accounts.roles import ADMINS
from guardsvc.admin.schemas import TicketDetailSchema, TicketGroupSchema, TicketListQuerySchema, TicketSummarySchema
from guardsvc.appeals import groups, service as appeals
from guardsvc.appeals.schemas import GroupDecidedSchema, GroupDecisionSchema
from guardsvc.audit import service as audit
from guardsvc.audit.schemas import AuditEventSchema
from guardsvc.blocks import service as blocks
from guardsvc.blocks.api import CONTENT_RULES
from guardsvc.blocks.schemas import (BlockCreateSchema, BlockLiftSchema, BlockListQuerySchema, BlockSchema,
                                     BlockSelfReleaseSchema)
from guardsvc.nodes import service as nodes
from guardsvc.nodes.schemas import FleetSchema
from guardsvc.storage.deadline import allow_up_to
from guardsvc.web.doors import json_door
from guardsvc.web.identity import client_ip
from guardsvc.web.jsonio import ok
from guardsvc.web.listing import PageQuerySchema, PaginationSchema, SearchQuerySchema
from guardsvc.web.operations import (BLOCK_REFERENCE, GROUP_NOT_DECIDED_ERROR, TICKET_NUMBER, VALIDATION_ERROR,
                                     Envelope, Failure, Link, Tag, operation)

bp = json_door(Blueprint("admin_api", __name__, url_prefix="/api/admin"))
ADMIN = Tag("Administrator", "Antrean tiket, blokir, log audit, dan node yang melayani (hanya administrator).")
BLOCK = Envelope(BlockSchema, message=True)


def page_of(schema, name, **extra):
    """The envelope of one page of a list: ``data``, ``pagination`` and ``extra``."""
    return Envelope(schema, many=True, name=name,
                    extra={"pagination": fields.Nested(PaginationSchema, required=True), **extra})


def _page(page, schema, **extra):
    return ok(data=schema.dump(page.items, many=True), pagination=page.as_dict(), **extra)


@bp.get("/tickets")
@operation("listTickets", "Antrean tiket", ADMIN,
           {200: page_of(TicketSummarySchema, "TicketPageResponse", counts=fields.Dict(
               keys=fields.String(), values=fields.Integer(), required=True,
               metadata={"description": "Jumlah tiket per status, dihitung sampai 10000 "
                                        "(10000 berarti 10000 atau lebih)."}))},
           roles=ADMINS, query=TicketListQuerySchema,
           description="Disaring menurut status dan teks (`q`), dengan jumlah per status.")
def list_tickets(query):
    """The ticket queue, filtered by status and text, with counts per status."""
    page = appeals.search_tickets(**query)
    return _page(page, TicketSummarySchema(), counts=appeals.count_by_status())


@bp.get("/tickets/<path:ticket_number>")
@operation("getAdminTicket", "Satu tiket lengkap", ADMIN, {200: Envelope(TicketDetailSchema)}, roles=ADMINS,
           path_params={"ticket_number": TICKET_NUMBER}, errors={404: "Nomor tiket tidak ditemukan."},
           description="Beserta tiket-tiket sebelumnya dari klien yang sama.")
def show_ticket(ticket_number):
    """One ticket in full, with the same client's earlier tickets."""
    ticket = appeals.find_ticket(ticket_number)
    data = TicketDetailSchema().dump(ticket)
    data["earlier_tickets"] = TicketSummarySchema().dump(appeals.earlier_tickets(ticket), many=True)
    return ok(data=data)


@bp.get("/ticket-groups")
@operation("listTicketGroups", "Tiket menurut blokir penyebabnya", ADMIN,
           {200: page_of(TicketGroupSchema, "TicketGroupPageResponse")}, roles=ADMINS, query=PageQuerySchema,
           description="Per blokir yang punya tiket menunggu: referensi, sasaran, asal, jumlah tiket menunggu "
                       "dan umur yang tertua; kelompok terbesar dahulu. Tiket tanpa blokir membentuk satu "
                       "kelompok sendiri (`reference` null).")
def list_ticket_groups(query):
    """Pending tickets grouped by the block they were made under, largest groups first."""
    return _page(groups.list_groups(**query), TicketGroupSchema())


@bp.post("/ticket-groups/<path:reference>/decide")
@operation("decideTicketGroup", "Putuskan semua tiket satu blokir", ADMIN,
           {200: Envelope(GroupDecidedSchema, message=True, name="TicketGroupDecidedResponse")},
           roles=ADMINS, body=GroupDecisionSchema, path_params={"reference": BLOCK_REFERENCE},
           errors={404: "Referensi blokir tidak ditemukan.",
                   409: Failure("Tidak ada yang diputuskan (`decided` 0): kelompok ini sudah diputuskan, atau "
                                "blokir yang akan dibuka (`lift_block`) sudah dibuka.", (GROUP_NOT_DECIDED_ERROR,))},
           description="Setiap tiket menunggu dari blokir ini mendapat keputusan, catatan (kosong: catatan baku "
                       "dalam bahasa pemohon), e-mail, catatan audit dan peristiwa webhook sendiri, sama seperti "
                       "diputuskan satu per satu. `lift_block` (hanya dengan `approved`) membuka blokir itu "
                       "sendiri, rentang pun; tanpa itu setiap pemohon mendapat daftar izin yang tepat dan "
                       "sementara.")
def decide_ticket_group(reference, data):
    """Decide every pending ticket of one block at once; the answer says how many were decided."""
    allow_up_to(groups.GROUP_DECISION_SECONDS)
    result = groups.decide_group(reference, data["decision"], notes=data["notes"], lift_block=data["lift_block"],
                                 actor=current_user, origin_ip=client_ip())
    return ok(message=groups.decision_message(result), data=GroupDecidedSchema().dump(result))


@bp.get("/blocks")
@operation("listBlocks", "Daftar blokir", ADMIN, {200: page_of(BlockSchema, "BlockPageResponse")}, roles=ADMINS,
           query=BlockListQuerySchema,
           description="Terbaru dahulu; `q` berupa IP juga menemukan rentang yang memuatnya.")
def list_blocks(query):
    """Blocks, newest first; ``active`` true/false, ``q`` searches (an IP also finds its ranges)."""
    return _page(blocks.search_blocks(**query), BlockSchema())


@bp.post("/blocks")
@operation("createBlock", "Buat blokir", ADMIN, {201: BLOCK}, roles=ADMINS, body=BlockCreateSchema,
           links={"liftBlock": Link("liftBlock", {"reference": "$response.body#/data/reference"})},
           errors={422: Failure(CONTENT_RULES.description + " Juga rentang yang lebih luas dari GUARDSVC_WIDEST_BLOCK atau "
                                "yang mengenai GUARDSVC_NEVER_BLOCK (bawaan: loopback).", (VALIDATION_ERROR,))},
           description="Sasaran: tepat satu dari `ip` (alamat atau CIDR) dan `device_id`; kedaluwarsa opsional, "
                       "`minutes` atau `expires_at`, tidak keduanya.")
def create_block(data):
    """Block an IP, a CIDR range or a device id."""
    block = blocks.create_block(network=data.pop("ip"), **data, actor=current_user,
                                origin_ip=client_ip())
    return ok(201, message=messages.BLOCK_CREATED.format(reference=block.reference),
              data=BlockSchema().dump(block))


@bp.post("/blocks/<path:reference>/lift")
@operation("liftBlock", "Buka blokir", ADMIN, {200: BLOCK}, roles=ADMINS, body=BlockLiftSchema,
           path_params={"reference": BLOCK_REFERENCE},
           errors={404: "Referensi blokir tidak ditemukan.", 409: "Blokir sudah dibuka."})
def lift_block(reference, data):
    """Lift an active block (409 when it was already lifted)."""
    block = blocks.lift_block(reference, actor=current_user, reason=data["reason"],
                              origin_ip=client_ip())
    return ok(message=messages.BLOCK_LIFTED.format(reference=block.reference),
              data=BlockSchema().dump(block))


@bp.get("/audit")
@operation("listAuditEvents", "Log audit tindakan administrator", ADMIN,
           {200: page_of(AuditEventSchema, "AuditPageResponse")}, roles=ADMINS, query=SearchQuerySchema,
           description="Terbaru dahulu.")
def list_audit(query):
    """The audit log, newest first."""
    return _page(audit.list_events(**query), AuditEventSchema())


@bp.post("/blocks/<path:reference>/self-release")
@operation("switchBlockSelfRelease", "Izinkan (atau tidak) buka blokir sendiri", ADMIN, {200: BLOCK}, roles=ADMINS,
           body=BlockSelfReleaseSchema, path_params={"reference": BLOCK_REFERENCE},
           errors={404: "Referensi blokir tidak ditemukan."},
           description="Orang di bawah blokir ini boleh membukanya sendiri dengan bukti kerja (pasal 14).")
def switch_self_release(reference, data):
    """Let the person under a block release it by a proof of work, or not (``{"self_release": bool}``)."""
    block = blocks.set_self_release(reference, data["self_release"], actor=current_user, origin_ip=client_ip())
    message = messages.SELF_RELEASE_SWITCHED_ON if block.self_release else messages.SELF_RELEASE_SWITCHED_OFF
    return ok(message=message.format(reference=block.reference), data=BlockSchema().dump(block))


@bp.get("/nodes")
@operation("listNodes", "Node yang melayani dan pengaturan yang berbeda", ADMIN, {200: Envelope(FleetSchema)},
           roles=ADMINS,
           description="Node yang melapor dalam 5 menit terakhir (yang mulai paling awal dahulu): nama, versi, "
                       "revisi migrasi kodenya dan revisi skema basis data, mulai, laporan terakhir, dan sidik "
                       "kunci (HMAC, bukan nilainya; null: tidak dipakai) tiap pengaturan yang harus sama di "
                       "semua node. Lalu setiap pengaturan bersama yang berbeda di satu node dari yang lain "
                       "(`nodes_named` 0), dan setiap nama yang dipakai beberapa node (`setting` "
                       "`GUARDSVC_NODE_NAME`, `nodes_named` jumlahnya). Sama dengan `flask --app guardsvc nodes`.")
def list_nodes():
    """The nodes seen in the last five minutes, and each shared setting a node holds otherwise than the rest."""
    return ok(data=FleetSchema().dump(nodes.fleet()))
