"""JSON door for administrators: ticket queue, blocks, audit log."""
from flask import Blueprint, request
from flask_login import current_user

from guardsvc import messages
from guardsvc.admin.access import require_admin
from guardsvc.admin.schemas import TicketDetailSchema, TicketGroupSchema, TicketListQuerySchema, TicketSummarySchema
from guardsvc.appeals import groups, service as appeals
from guardsvc.appeals.schemas import GroupDecidedSchema, GroupDecisionSchema
from guardsvc.audit import service as audit
from guardsvc.audit.schemas import AuditEventSchema
from guardsvc.blocks import service as blocks
from guardsvc.blocks.schemas import (BlockCreateSchema, BlockLiftSchema, BlockListQuerySchema, BlockSchema,
                                     BlockSelfReleaseSchema)
from guardsvc.storage.deadline import allow_up_to
from guardsvc.web.doors import json_door
from guardsvc.web.identity import client_ip
from guardsvc.web.jsonio import json_body, ok
from guardsvc.web.listing import PageQuerySchema, SearchQuerySchema, query_args
from guardsvc.web.schema_fields import load_or_raise

bp = json_door(Blueprint("admin_api", __name__, url_prefix="/api/admin"))
bp.before_request(require_admin)


def _page(page, schema, **extra):
    return ok(data=schema.dump(page.items, many=True), pagination=page.as_dict(), **extra)


@bp.get("/tickets")
def list_tickets():
    """The ticket queue, filtered by status and text, with counts per status."""
    query = load_or_raise(TicketListQuerySchema(), query_args(request.args))
    page = appeals.search_tickets(**query)
    return _page(page, TicketSummarySchema(), counts=appeals.count_by_status())


@bp.get("/tickets/<path:ticket_number>")
def show_ticket(ticket_number):
    """One ticket in full, with the same client's earlier tickets."""
    ticket = appeals.find_ticket(ticket_number)
    data = TicketDetailSchema().dump(ticket)
    data["earlier_tickets"] = TicketSummarySchema().dump(appeals.earlier_tickets(ticket), many=True)
    return ok(data=data)


@bp.get("/ticket-groups")
def list_ticket_groups():
    """Pending tickets grouped by the block they were made under, largest groups first."""
    query = load_or_raise(PageQuerySchema(), query_args(request.args))
    return _page(groups.list_groups(**query), TicketGroupSchema())


@bp.post("/ticket-groups/<path:reference>/decide")
def decide_ticket_group(reference):
    """Decide every pending ticket of one block at once; the answer says how many were decided."""
    data = load_or_raise(GroupDecisionSchema(), json_body())
    allow_up_to(groups.GROUP_DECISION_SECONDS)
    result = groups.decide_group(reference, data["decision"], notes=data["notes"], lift_block=data["lift_block"],
                                 actor=current_user, origin_ip=client_ip())
    return ok(message=groups.decision_message(result), data=GroupDecidedSchema().dump(result))


@bp.get("/blocks")
def list_blocks():
    """Blocks, newest first; ``active`` true/false, ``q`` searches (an IP also finds its ranges)."""
    query = load_or_raise(BlockListQuerySchema(), query_args(request.args))
    return _page(blocks.search_blocks(**query), BlockSchema())


@bp.post("/blocks")
def create_block():
    """Block an IP, a CIDR range or a device id."""
    data = load_or_raise(BlockCreateSchema(), json_body())
    block = blocks.create_block(network=data.pop("ip"), **data, actor=current_user,
                                origin_ip=client_ip())
    return ok(201, message=messages.BLOCK_CREATED.format(reference=block.reference),
              data=BlockSchema().dump(block))


@bp.post("/blocks/<path:reference>/lift")
def lift_block(reference):
    """Lift an active block (409 when it was already lifted)."""
    data = load_or_raise(BlockLiftSchema(), json_body())
    block = blocks.lift_block(reference, actor=current_user, reason=data["reason"],
                              origin_ip=client_ip())
    return ok(message=messages.BLOCK_LIFTED.format(reference=block.reference),
              data=BlockSchema().dump(block))


@bp.get("/audit")
def list_audit():
    """The audit log, newest first."""
    query = load_or_raise(SearchQuerySchema(), query_args(request.args))
    return _page(audit.list_events(**query), AuditEventSchema())


@bp.post("/blocks/<path:reference>/self-release")
def switch_self_release(reference):
    """Let the person under a block release it by a proof of work, or not (``{"self_release": bool}``)."""
    data = load_or_raise(BlockSelfReleaseSchema(), json_body())
    block = blocks.set_self_release(reference, data["self_release"], actor=current_user, origin_ip=client_ip())
    message = messages.SELF_RELEASE_SWITCHED_ON if block.self_release else messages.SELF_RELEASE_SWITCHED_OFF
    return ok(message=message.format(reference=block.reference), data=BlockSchema().dump(block))
