"""HTML door of the desk's ticket groups: pending tickets per block, and one decision for a group (/admin/kelompok).

Deciding a group takes two POSTs: the form, answered with a confirmation page
that states how many tickets the decision will take (and remembers the newest
of them), then the confirmation itself. A ticket submitted after the page
counted them is left for a later decision.
"""
from flask import Blueprint, flash, redirect, render_template, request, url_for
from flask_login import current_user

from guardsvc import messages
from guardsvc.admin.access import require_admin
from guardsvc.admin.desk import template_text
from guardsvc.appeals import desk, groups
from guardsvc.appeals.schemas import NOTES_MAX, GroupDecisionSchema
from guardsvc.blocks.service import get_block
from guardsvc.pages.forms import load_form
from guardsvc.storage import clock
from guardsvc.storage.deadline import allow_up_to
from guardsvc.storage.transaction import ends_with
from guardsvc.web.errors import InvalidState, ValidationFailed
from guardsvc.web.identity import client_ip
from guardsvc.web.listing import PageQuerySchema, load_query

bp = Blueprint("admin_group_pages", __name__, url_prefix="/admin")
bp.before_request(require_admin)

DECISION_FIELDS = ("decision", "notes", "lift_block")
CONFIRMED = "konfirmasi"  # the confirmation page's button
UP_TO = "sampai"  # the newest ticket the confirmation page counted


def _page_query():
    return load_query(PageQuerySchema(), request.args)


@bp.get("/kelompok")
def groups_list():
    """Every block with pending tickets, largest group first, with the tickets under no block as one group."""
    return render_template("admin/groups.html", page=groups.list_groups(**_page_query()), now=clock.utcnow())


@bp.get("/kelompok/tanpa-blokir")
def ungrouped():
    """The pending tickets made under no block (decided one by one)."""
    return _render_group(None)


@bp.get("/kelompok/<path:reference>")
def group(reference):
    """One block's pending tickets and the form to decide them all; ``?templat=<id>`` starts the notes from
    that reply template."""
    return _render_group(get_block(reference), values={"notes": template_text(request.args.get("templat"))})


def _render_group(block, *, values=None, errors=None, status=200):
    filters = _page_query()
    return render_template(
        "admin/group.html", block=block, summary=groups.group_summary(block),
        tickets=groups.group_tickets(block, **filters), filters=filters, now=clock.utcnow(),
        source=groups.block_source(block) if block else None, reply_templates=desk.list_templates(),
        values=values or {}, errors=errors, notes_max=NOTES_MAX), status


@bp.post("/kelompok/<path:reference>/putuskan")
def decide(reference):
    """The group's decision form (POST + CSRF): a confirmation page stating the count, then, confirmed,
    the decision of every pending ticket it counted; back to the groups (303)."""
    block = get_block(reference)
    data, errors, values = load_form(GroupDecisionSchema(), request.form, DECISION_FIELDS,
                                     blank_means_unset=("lift_block",))
    try:
        if errors:
            raise ValidationFailed(errors)
        groups.check_decision(data["decision"], data["lift_block"])
        if request.form.get(CONFIRMED) != "1":
            return _confirmation(block, data, values)
        allow_up_to(groups.GROUP_DECISION_SECONDS)
        result = groups.decide_group(block.reference, data["decision"], notes=data["notes"],
                                     lift_block=data["lift_block"], actor=current_user, origin_ip=client_ip(),
                                     up_to_id=_up_to())
    except ValidationFailed as refused:
        return _render_group(block, values=values, errors=ends_with(refused).errors, status=422)
    except InvalidState as conflict:
        flash(ends_with(conflict).message, "error")
        return redirect(url_for(".group", reference=block.reference), code=303)
    flash(groups.decision_message(result), "success")
    return redirect(url_for(".groups_list"), code=303)


def _up_to():
    text = request.form.get(UP_TO, "")
    return int(text) if text.isdigit() and len(text) <= 18 else 0


def _confirmation(block, data, values):
    summary = groups.group_summary(block)
    if summary is None:
        flash(messages.GROUP_NOTHING_PENDING.format(reference=block.reference), "error")
        return redirect(url_for(".group", reference=block.reference), code=303)
    return render_template("admin/group_confirm.html", block=block, summary=summary, data=data, values=values,
                           source=groups.block_source(block), now=clock.utcnow())
