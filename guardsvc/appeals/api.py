"""JSON door for unblock appeal tickets."""
from flask import Blueprint
from flask_login import current_user
from marshmallow import fields

from guardsvc import messages
from guardsvc.accounts.roles import ADMINS
from guardsvc.appeals import service
from guardsvc.appeals.limits import check_limit, submit_limit
from guardsvc.appeals.schemas import (TicketDecidedSchema, TicketDecisionSchema, TicketStatusSchema,
                                      TicketSubmitSchema, TicketSubmittedSchema)
from guardsvc.web.doors import json_door, never_guarded
from guardsvc.web.identity import client_ip, current_client
from guardsvc.web.jsonio import ok
from guardsvc.web.locale import current_language
from guardsvc.web.operations import (COOLDOWN_ERROR, ERROR, TICKET_NUMBER, TICKET_NUMBER_PATTERN, Envelope, Failure,
                                     Link, Tag, operation)

bp = json_door(Blueprint("appeals_api", __name__, url_prefix="/api/guard/unblock-tickets"))
APPEALS = Tag("Banding", "Permohonan pembukaan blokir: ajukan tanpa akun, cek status, putuskan (administrator).")
TICKET_NOT_FOUND = Failure("Nomor tiket tidak ditemukan.")
FOLLOW_TICKET = {
    "checkTicket": Link("checkTicket", {"ticketNumber": "$response.body#/ticket_number"}),
    "getAdminTicket": Link("getAdminTicket", {"ticketNumber": "$response.body#/ticket_number"}),
    "respondToTicket": Link("respondToTicket", {"ticketNumber": "$response.body#/ticket_number"}),
}
# The hot paths' schemas are built once: a schema holds no request state, and building one
# per request was a measurable share of a status check.
SUBMITTED_SCHEMA = TicketSubmittedSchema()
STATUS_SCHEMA = TicketStatusSchema()


@bp.post("/submit")
@never_guarded
@operation("submitTicket", "Ajukan permohonan pembukaan blokir", APPEALS,
           {201: Envelope(TicketSubmittedSchema, message=True,
                          extra={"ticket_number": fields.String(
                              required=True, metadata={"pattern": TICKET_NUMBER_PATTERN})})},
           body=TicketSubmitSchema, identity=True, limits=(submit_limit,), links=FOLLOW_TICKET,
           errors={429: Failure("Klien ini (perangkat, atau IP bila tanpa perangkat) masih punya tiket "
                                "yang menunggu: `ticket_number` menyebut tiket itu.", (ERROR, COOLDOWN_ERROR))},
           description="Tanpa akun. Satu tiket menunggu per klien.")
def submit(data):
    """Submit an unblock appeal for the calling client (no account needed)."""
    ticket = service.submit_ticket(current_client(), **data, language=current_language())
    return ok(201, message=messages.TICKET_SUBMITTED, ticket_number=ticket.ticket_number,
              data=SUBMITTED_SCHEMA.dump(ticket))


@bp.get("/check/<path:ticket_number>")
@never_guarded
@operation("checkTicket", "Cek status tiket", APPEALS, {200: Envelope(TicketStatusSchema)}, limits=(check_limit,),
           path_params={"ticket_number": TICKET_NUMBER}, errors={404: TICKET_NOT_FOUND},
           description="Tanpa akun. Tidak pernah mengungkap nama, e-mail, telepon, alasan atau IP.")
def check(ticket_number):
    """Public status of one ticket."""
    return ok(data=STATUS_SCHEMA.dump(service.ticket_status(ticket_number)))


@bp.post("/<path:ticket_number>/respond")
@operation("respondToTicket", "Putuskan tiket", APPEALS,
           {200: Envelope(TicketDecidedSchema, message=True, name="TicketDecidedResponse")}, roles=ADMINS,
           body=TicketDecisionSchema, path_params={"ticket_number": TICKET_NUMBER},
           errors={404: TICKET_NOT_FOUND, 409: "Tiket sudah diputuskan (tidak lagi menunggu)."},
           description="Setujui membuka hanya blokir yang tepat mengenai pemohon (IP tunggal, ID perangkat); "
                       "rentang tetap berlaku kecuali `lift_ranges`, dan pemohon mendapat daftar izin.")
def respond(ticket_number, data):
    """An administrator approves or rejects a pending ticket; the answer lists what it opened."""
    decision = service.decide_ticket(ticket_number, data["action"], actor=current_user,
                                     notes=data.get("admin_notes"), origin_ip=client_ip(),
                                     lift_ranges=data["lift_ranges"])
    return ok(message=service.decision_message(decision.ticket), data=TicketDecidedSchema().dump(decision))
