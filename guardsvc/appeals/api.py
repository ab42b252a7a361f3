"""JSON door for unblock appeal tickets."""
from flask import Blueprint
from flask_login import current_user

from guardsvc import messages
from guardsvc.accounts.auth import public_json, roles_required
from guardsvc.appeals import service
from guardsvc.appeals.schemas import (TicketDecisionSchema, TicketStatusSchema, TicketSubmitSchema,
                                      TicketSubmittedSchema)
from guardsvc.extensions import configured_limit, limiter
from guardsvc.identity import client_ip, current_client
from guardsvc.jsonio import json_body, ok
from guardsvc.schema_fields import load_or_raise

bp = Blueprint("appeals_api", __name__, url_prefix="/api/guard/unblock-tickets")


@bp.post("/submit")
@public_json
@limiter.limit(configured_limit("RATELIMIT_SUBMIT"))
def submit():
    """Submit an unblock appeal for the calling client (no account needed)."""
    data = load_or_raise(TicketSubmitSchema(), json_body())
    ticket = service.submit_ticket(current_client(), **data)
    return ok(201, message=messages.TICKET_SUBMITTED, ticket_number=ticket.ticket_number,
              data=TicketSubmittedSchema().dump(ticket))


@bp.get("/check/<path:ticket_number>")
@limiter.limit(configured_limit("RATELIMIT_CHECK"))
def check(ticket_number):
    """Public status of one ticket."""
    return ok(data=TicketStatusSchema().dump(service.find_ticket(ticket_number)))


@bp.post("/<path:ticket_number>/respond")
@roles_required("admin")
def respond(ticket_number):
    """An administrator approves or rejects a pending ticket."""
    data = load_or_raise(TicketDecisionSchema(), json_body())
    ticket = service.decide_ticket(ticket_number, data["action"], actor=current_user,
                                   notes=data.get("admin_notes"), origin_ip=client_ip())
    return ok(message=service.decision_message(ticket),
              data=TicketStatusSchema().dump(ticket))
