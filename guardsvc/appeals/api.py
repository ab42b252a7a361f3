"""JSON door for unblock appeal tickets."""
from flask import Blueprint
from flask_login import current_user

from guardsvc import messages
from guardsvc.accounts.auth import public_json, roles_required
from guardsvc.accounts.roles import ADMINS
from guardsvc.appeals import service
from guardsvc.appeals.limits import check_limit, submit_limit
from guardsvc.appeals.schemas import (TicketDecidedSchema, TicketDecisionSchema, TicketStatusSchema,
                                      TicketSubmitSchema, TicketSubmittedSchema)
from guardsvc.web.doors import json_door, never_guarded
from guardsvc.web.identity import client_ip, current_client
from guardsvc.web.jsonio import json_body, ok
from guardsvc.web.schema_fields import load_or_raise
from guardsvc.web.locale import current_language

bp = json_door(Blueprint("appeals_api", __name__, url_prefix="/api/guard/unblock-tickets"))
# The hot paths' schemas are built once: a schema holds no request state, and building one
# per request was a measurable share of a status check.
SUBMIT_SCHEMA = TicketSubmitSchema()
SUBMITTED_SCHEMA = TicketSubmittedSchema()
STATUS_SCHEMA = TicketStatusSchema()


@bp.post("/submit")
@never_guarded
@public_json
@submit_limit
def submit():
    """Submit an unblock appeal for the calling client (no account needed)."""
    data = load_or_raise(SUBMIT_SCHEMA, json_body())
    ticket = service.submit_ticket(current_client(), **data, language=current_language())
    return ok(201, message=messages.TICKET_SUBMITTED, ticket_number=ticket.ticket_number,
              data=SUBMITTED_SCHEMA.dump(ticket))


@bp.get("/check/<path:ticket_number>")
@never_guarded
@check_limit
def check(ticket_number):
    """Public status of one ticket."""
    return ok(data=STATUS_SCHEMA.dump(service.ticket_status(ticket_number)))


@bp.post("/<path:ticket_number>/respond")
@roles_required(*ADMINS)
def respond(ticket_number):
    """An administrator approves or rejects a pending ticket; the answer lists what it opened."""
    data = load_or_raise(TicketDecisionSchema(), json_body())
    decision = service.decide_ticket(ticket_number, data["action"], actor=current_user,
                                     notes=data.get("admin_notes"), origin_ip=client_ip(),
                                     lift_ranges=data["lift_ranges"])
    return ok(message=service.decision_message(decision.ticket), data=TicketDecidedSchema().dump(decision))
