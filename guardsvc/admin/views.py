"""HTML door for administrators: ticket queue and decisions, blocks, audit log (/admin)."""
from flask import Blueprint, flash, redirect, render_template, request, url_for
from flask_login import current_user

from guardsvc import messages
from guardsvc.storage import clock
from guardsvc.admin.access import require_admin
from guardsvc.admin.chart import age_columns, stacked_columns
from guardsvc.admin.desk import template_text, ticket_desk_context
from guardsvc.admin.schemas import TicketListQuerySchema
from guardsvc.appeals import service as appeals
from guardsvc.appeals.approval import preview_approval
from guardsvc.appeals import desk, groups
from guardsvc.appeals.service_levels import desk_levels
from guardsvc.appeals.desk import answered_since_asked
from guardsvc.appeals.schemas import TicketDecisionSchema
from guardsvc.appeals.statuses import PENDING
from guardsvc.audit import service as audit
from guardsvc.admin.audit_words import action_label, detail_lines
from guardsvc.blocks import service as blocks
from guardsvc.nodes import service as nodes
from guardsvc.nodes.fingerprints import SHARED
from guardsvc.passkeys.service import count_passkey_holders
from guardsvc.selfrelease import figures as self_release_figures
from guardsvc.blocks.schemas import BlockCreateSchema, BlockLiftSchema, BlockListQuerySchema
from guardsvc.web.errors import InvalidState, ValidationFailed
from guardsvc.web.identity import client_ip
from guardsvc.web.listing import COUNT_CAP, SearchQuerySchema, load_query
from guardsvc.pages.forms import load_form
from guardsvc.signin import account as signin_account
from guardsvc.signin.models import RESULTS
from guardsvc.signin.schemas import LoginQuerySchema
from guardsvc.storage.transaction import ends_with

bp = Blueprint("admin_pages", __name__, url_prefix="/admin")
bp.before_request(require_admin)

CHART_DAYS = 14
TOP_GROUPS = 5  # the largest groups of tickets by block, on the queue page
DECISION_FIELDS = ("action", "admin_notes")
# One checkbox per range covering the appellant, valued with the range's reference.
LIFT_RANGE_FIELD = "lift_range"
BLOCK_FIELDS = ("ip", "device_id", "local_ip", "reason", "minutes", "self_release")


def _list_query(schema):
    """Filters of a list page; a bad filter is a 422 page, like the API."""
    return load_query(schema, request.args)


@bp.get("")
def queue():
    """Ticket queue: pending, oldest first, unless filtered otherwise; counts, a chart, pages.

    An explicit empty ``status`` ("Semua") lists every ticket, newest first.
    """
    filters = _list_query(TicketListQuerySchema())
    if "status" not in request.args:
        filters["status"] = PENDING
    page = appeals.search_tickets(**filters, oldest_first=filters["status"] == PENDING)
    now = clock.utcnow()
    levels = desk_levels(now)
    return render_template(
        "admin/queue.html", page=page, filters=filters, now=now,
        answered=answered_since_asked([t.id for t in page.items]), counts=appeals.count_by_status(),
        count_cap=COUNT_CAP, chart=stacked_columns(appeals.tickets_per_day(CHART_DAYS)),
        passkey_holders=count_passkey_holders(), node_disagreements=nodes.count_disagreements(), levels=levels,
        age_chart=age_columns(levels.bands), top_groups=groups.list_groups(per_page=TOP_GROUPS))


def render_ticket(ticket_number, *, values=None, errors=None, desk_values=None, desk_errors=None, status=200):
    """The ticket page; ``values``/``errors`` belong to the decision form, ``desk_*`` to the message form."""
    ticket = appeals.find_ticket(ticket_number)
    return render_template(
        "admin/ticket.html", ticket=ticket, earlier=appeals.earlier_tickets(ticket),
        history=audit.list_events(target=ticket.ticket_number, per_page=20).items,
        plan=preview_approval(ticket) if ticket.is_pending else None,
        values=values or {}, errors=errors, now=clock.utcnow(),
        **ticket_desk_context(ticket, desk_values or {}, desk_errors)), status


@bp.get("/tiket/<path:ticket_number>")
def ticket(ticket_number):
    """One ticket in full: the conversation, and the decision forms while it is pending.

    ``?templat=<id>`` starts the message field with that reply template's text.
    """
    return render_ticket(ticket_number, desk_values={"body": template_text(request.args.get("templat"))})


@bp.post("/tiket/<path:ticket_number>/putuskan")
def decide(ticket_number):
    """Approve or reject from the ticket page (POST + CSRF); back to the ticket (303)."""
    data, errors, values = load_form(TicketDecisionSchema(), request.form, DECISION_FIELDS)
    if errors:
        return render_ticket(ticket_number, values=values, errors=errors, status=422)
    try:
        decided = appeals.decide_ticket(ticket_number, data["action"], actor=current_user,
                                        notes=data["admin_notes"], origin_ip=client_ip(),
                                        lift_ranges=request.form.getlist(LIFT_RANGE_FIELD))
    except InvalidState as conflict:
        flash(ends_with(conflict).message, "error")
        return redirect(url_for(".ticket", ticket_number=ticket_number), code=303)
    flash(appeals.decision_message(decided), "success")
    return redirect(url_for(".ticket", ticket_number=decided.ticket_number), code=303)


@bp.post("/tiket/<path:ticket_number>/blokir-perangkat")
def block_device(ticket_number):
    """Block the device the ticket came from (POST + CSRF); back to the ticket (303)."""
    try:
        block = desk.block_ticket_device(appeals.find_ticket(ticket_number), actor=current_user,
                                         origin_ip=client_ip())
    except InvalidState as refusal:
        flash(ends_with(refusal).message, "error")
        return redirect(url_for(".ticket", ticket_number=ticket_number), code=303)
    flash(messages.BLOCK_CREATED.format(reference=block.reference), "success")
    return redirect(url_for(".ticket", ticket_number=ticket_number), code=303)


def _render_blocks(*, values=None, errors=None, status=200):
    filters = _list_query(BlockListQuerySchema())
    page = blocks.search_blocks(**filters)
    return render_template("admin/blocks.html", page=page, filters=filters, values=values or {}, errors=errors,
                           now=clock.utcnow(),
                           released=self_release_figures.per_block([block.id for block in page.items])), status


@bp.get("/blokir")
def block_list():
    """Blocks with filters, the form to add one and a lift button on each active one."""
    return _render_blocks()


@bp.post("/blokir")
def add_block():
    """Create a block from the form; back to the list (303)."""
    data, errors, values = load_form(BlockCreateSchema(), request.form, BLOCK_FIELDS,
                                      blank_means_unset=("minutes", "self_release"))
    if errors:
        return _render_blocks(values=values, errors=errors, status=422)
    try:
        block = blocks.create_block(network=data.pop("ip"), **data, actor=current_user, origin_ip=client_ip())
    except ValidationFailed as refused:  # a range too wide, a never-blocked network: on the field, form kept
        return _render_blocks(values=values, errors=ends_with(refused).errors, status=422)
    flash(messages.BLOCK_CREATED.format(reference=block.reference), "success")
    return redirect(url_for(".block_list"), code=303)


@bp.post("/blokir/<path:reference>/buka")
def lift_block(reference):
    """Lift one block (POST + CSRF); back to the list (303)."""
    data, errors, _ = load_form(BlockLiftSchema(), request.form, ("reason",))
    if errors:
        flash(messages.LIFT_REASON_PROBLEM.format(problem=errors["reason"][0]), "error")
        return redirect(url_for(".block_list"), code=303)
    try:
        block = blocks.lift_block(reference, actor=current_user, reason=data["reason"], origin_ip=client_ip())
    except InvalidState as conflict:
        flash(ends_with(conflict).message, "error")
        return redirect(url_for(".block_list"), code=303)
    flash(messages.BLOCK_LIFTED.format(reference=block.reference), "success")
    return redirect(url_for(".block_list"), code=303)


@bp.post("/blokir/<path:reference>/lepas-sendiri")
def switch_self_release(reference):
    """Let the person under a block release it by a proof of work (``aktif=1``), or not (POST + CSRF).

    Back to the block list, or to the block's group of tickets when the switch was there (``kembali=kelompok``).
    """
    on = request.form.get("aktif") == "1"
    block = blocks.set_self_release(reference, on, actor=current_user, origin_ip=client_ip())
    message = messages.SELF_RELEASE_SWITCHED_ON if on else messages.SELF_RELEASE_SWITCHED_OFF
    flash(message.format(reference=block.reference), "success")
    if request.form.get("kembali") == "kelompok":
        return redirect(url_for("admin_group_pages.group", reference=block.reference), code=303)
    return redirect(url_for(".block_list", _anchor=block.reference), code=303)


@bp.get("/lepas-sendiri")
def self_releases():
    """Self-release at a glance: releases per source and the blocks released most, each with how many
    of those clients were blocked again."""
    return render_template("admin/self_releases.html", sources=self_release_figures.per_source(),
                           top=self_release_figures.top_blocks())


@bp.get("/audit")
def audit_log():
    """The audit log, newest first."""
    filters = _list_query(SearchQuerySchema())
    return render_template("admin/audit.html", page=audit.list_events(**filters), filters=filters)


@bp.get("/masuk")
def sign_ins():
    """Every account's latest sign-in attempts, optionally of one result."""
    filters = _list_query(LoginQuerySchema())
    events = signin_account.all_sign_ins(limit=filters["limit"], result=filters["result"])
    return render_template("admin/sign_ins.html", events=events, filters=filters, results=RESULTS)


@bp.get("/node")
def nodes_page():
    """The nodes seen in the last five minutes, and each shared setting one of them holds otherwise than the rest."""
    fleet = nodes.fleet()
    differing = {}
    for disagreement in fleet.disagreements:
        differing.setdefault(disagreement.node, []).append(disagreement.setting)
    return render_template("admin/nodes.html", fleet=fleet, differing=differing, settings=SHARED,
                           name_setting=nodes.NAME_SETTING, now=clock.utcnow(),
                           live_minutes=int(nodes.LIVE_WINDOW.total_seconds() // 60))


@bp.app_template_filter("audit_lines")
def audit_lines_filter(details):
    """An audit entry's details as ``[(label, value)]`` in the reader's words."""
    return detail_lines(details)


@bp.app_template_global("audit_label")
def audit_label_global(action):
    """What an audit entry records, in the reader's words."""
    return action_label(action)
