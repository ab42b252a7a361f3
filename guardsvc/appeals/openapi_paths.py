"""Unblock appeal tickets in the API document."""
from marshmallow import fields

from guardsvc.appeals.schemas import (TicketDecidedSchema, TicketDecisionSchema, TicketStatusSchema,
                                      TicketSubmitSchema, TicketSubmittedSchema)
from guardsvc.openapi.operations import (COOLDOWN_ERROR, ERROR, TICKET_NUMBER, TICKET_NUMBER_PATTERN, Envelope,
                                         Failure, Link, Operation, Tag)

APPEALS = Tag("Banding", "Permohonan pembukaan blokir: ajukan tanpa akun, cek status, putuskan (administrator).")
TICKET_NOT_FOUND = "Nomor tiket tidak ditemukan."
FOLLOW_TICKET = {
    "checkTicket": Link("checkTicket", {"ticketNumber": "$response.body#/ticket_number"}),
    "getAdminTicket": Link("getAdminTicket", {"ticketNumber": "$response.body#/ticket_number"}),
    "respondToTicket": Link("respondToTicket", {"ticketNumber": "$response.body#/ticket_number"}),
}

OPERATIONS = (
    Operation("appeals_api.submit", "submitTicket", "Ajukan permohonan pembukaan blokir", APPEALS,
              {201: Envelope(TicketSubmittedSchema, message=True,
                             extra={"ticket_number": fields.String(
                                 required=True, metadata={"pattern": TICKET_NUMBER_PATTERN})})},
              body=TicketSubmitSchema, identity=True, rate_limited=True, links=FOLLOW_TICKET,
              errors={429: Failure("Klien ini (perangkat, atau IP bila tanpa perangkat) masih punya tiket "
                                   "yang menunggu: `ticket_number` menyebut tiket itu.", (ERROR, COOLDOWN_ERROR))},
              description="Tanpa akun. Satu tiket menunggu per klien."),
    Operation("appeals_api.check", "checkTicket", "Cek status tiket", APPEALS,
              {200: Envelope(TicketStatusSchema)}, rate_limited=True,
              path_params={"ticket_number": TICKET_NUMBER}, errors={404: TICKET_NOT_FOUND},
              description="Tanpa akun. Tidak pernah mengungkap nama, e-mail, telepon, alasan atau IP."),
    Operation("appeals_api.respond", "respondToTicket", "Putuskan tiket", APPEALS,
              {200: Envelope(TicketDecidedSchema, message=True, name="TicketDecidedResponse")}, roles=("admin",),
              body=TicketDecisionSchema, path_params={"ticket_number": TICKET_NUMBER},
              errors={404: TICKET_NOT_FOUND, 409: "Tiket sudah diputuskan (tidak lagi menunggu)."},
              description="Setujui membuka hanya blokir yang tepat mengenai pemohon (IP tunggal, ID perangkat); "
                          "rentang tetap berlaku kecuali `lift_ranges`, dan pemohon mendapat daftar izin."),
)
