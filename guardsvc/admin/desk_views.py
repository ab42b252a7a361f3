"""HTML door of the administrator's desk: claims, the conversation, reply templates, new-appeal e-mail."""
from flask import Blueprint, flash, redirect, render_template, request, url_for
from flask_login import current_user

from guardsvc import messages
from guardsvc.accounts.account_page import Section
from guardsvc.admin.access import require_admin
from guardsvc.admin.views import render_ticket
from guardsvc.appeals import conversation, desk
from guardsvc.appeals.conversation_models import ADMIN
from guardsvc.appeals.digest import set_digest_opt_in
from guardsvc.appeals.schemas import MESSAGE_MAX, ResponseTemplateSchema, TicketPostSchema
from guardsvc.appeals.service import find_ticket
from guardsvc.web.errors import InvalidState
from guardsvc.web.identity import client_ip
from guardsvc.pages.forms import load_form
from guardsvc.storage.transaction import ends_with

bp = Blueprint("admin_desk_pages", __name__, url_prefix="/admin")
bp.before_request(require_admin)

POST_FIELDS = ("body", "kind")
TEMPLATE_FIELDS = ("title", "body")


def digest_part(user, client):
    """The new-appeal e-mail switch on /akun; administrators only."""
    return {"shown": user.is_admin, "on": user.notify_new_appeals}


ACCOUNT_SECTION = Section("pemberitahuan", "admin/_account_digest.html", digest_part, order=40)


def _back_to_ticket(ticket_number, anchor=None):
    return redirect(url_for("admin_pages.ticket", ticket_number=ticket_number, _anchor=anchor), code=303)


def _refused(conflict, ticket_number, anchor=None):
    flash(ends_with(conflict).message, "error")
    return _back_to_ticket(ticket_number, anchor)


def _change_claim(ticket_number, change, done):
    ticket = find_ticket(ticket_number)
    try:
        change(ticket, current_user, origin_ip=client_ip())
    except InvalidState as conflict:
        return _refused(conflict, ticket.ticket_number)
    flash(done.format(ticket=ticket.ticket_number), "success")
    return _back_to_ticket(ticket.ticket_number)


@bp.post("/tiket/<path:ticket_number>/klaim")
def claim(ticket_number):
    """Claim a pending ticket (POST + CSRF); a claim by another administrator stays theirs."""
    return _change_claim(ticket_number, desk.claim_ticket, messages.TICKET_CLAIMED)


@bp.post("/tiket/<path:ticket_number>/lepas")
def release(ticket_number):
    """Release one's own claim on a ticket (POST + CSRF)."""
    return _change_claim(ticket_number, desk.release_ticket, messages.TICKET_RELEASED)


@bp.post("/tiket/<path:ticket_number>/pesan")
def post_message(ticket_number):
    """Write to the appellant (e-mailed) or add an internal note (POST + CSRF)."""
    ticket = find_ticket(ticket_number)
    data, errors, values = load_form(TicketPostSchema(), request.form, POST_FIELDS)
    if errors:
        return render_ticket(ticket.ticket_number, desk_values=values, desk_errors=errors, status=422)
    try:
        conversation.post_as_admin(ticket, data["body"], data["kind"], actor=current_user, origin_ip=client_ip())
    except InvalidState as conflict:
        return _refused(conflict, ticket.ticket_number, "percakapan")
    flash(messages.ADMIN_MESSAGE_SENT if data["kind"] == ADMIN else messages.ADMIN_NOTE_SAVED, "success")
    return _back_to_ticket(ticket.ticket_number, "percakapan")


def _render_templates(*, editing=None, values=None, errors=None, status=200):
    return render_template("admin/templates.html", templates=desk.list_templates(), editing=editing,
                           values=values or {}, errors=errors, max_length=MESSAGE_MAX), status


@bp.get("/templat")
def templates():
    """Reply templates: the list and the form to add one."""
    return _render_templates()


@bp.get("/templat/<id:template_id>")
def edit_template(template_id):
    """The form to change one reply template."""
    template = desk.get_template(template_id)
    return _render_templates(editing=template, values={"title": template.title, "body": template.body})


@bp.post("/templat")
@bp.post("/templat/<id:template_id>")
def save_template(template_id=None):
    """Add a reply template, or save the one being edited (POST + CSRF); back to the list (303)."""
    editing = desk.get_template(template_id) if template_id is not None else None
    data, errors, values = load_form(ResponseTemplateSchema(), request.form, TEMPLATE_FIELDS)
    if errors:
        return _render_templates(editing=editing, values=values, errors=errors, status=422)
    template = desk.save_template(data["title"], data["body"], template_id)
    flash(messages.TEMPLATE_SAVED.format(title=template.title), "success")
    return redirect(url_for(".templates"), code=303)


@bp.post("/templat/<id:template_id>/hapus")
def delete_template(template_id):
    """Delete one reply template (POST + CSRF)."""
    template = desk.delete_template(template_id)
    flash(messages.TEMPLATE_DELETED.format(title=template.title), "success")
    return redirect(url_for(".templates"), code=303)


@bp.post("/pemberitahuan")
def digest_switch():
    """Turn the new-appeal e-mail on (``aktif=1``) or off for the signed-in administrator."""
    wanted = request.form.get("aktif") == "1"
    set_digest_opt_in(current_user, wanted)
    flash(messages.DIGEST_ON if wanted else messages.DIGEST_OFF, "success")
    return redirect(url_for("account_pages.account", _anchor="pemberitahuan"), code=303)
