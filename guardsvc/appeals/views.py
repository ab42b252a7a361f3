"""HTML door for unblock appeals: the /banding form, its receipt and the status check."""
from functools import partial

from flask import Blueprint, current_app, redirect, render_template, request, session, url_for
from sqlalchemy.exc import SQLAlchemyError

from guardsvc import messages
from guardsvc.storage import codes
from guardsvc.appeals import service, spam
from guardsvc.appeals.limits import check_limit, submit_limit
from guardsvc.appeals.schemas import TicketSubmitSchema
from guardsvc.appeals.statuses import TABLE as TICKET_STATUSES, explanation
from guardsvc.blocks.service import REFERENCE_PREFIX
from guardsvc.web.doors import never_guarded
from guardsvc.web.errors import Cooldown, NotFound, TooManyPending, is_connection_problem
from guardsvc.web.identity import current_client
from guardsvc.web.original_request import safe_host, safe_path
from guardsvc.pages.forms import load_form
from guardsvc.web.stale_forms import rerender_when_stale
from guardsvc.web.locale import current_language, rendered_in_chosen_language
from guardsvc.storage.transaction import abandon

bp = never_guarded(Blueprint("appeal_pages", __name__, url_prefix="/banding"))

FIELDS = ("name", "email", "phone", "reason")
# Only the ticket number travels in the session: nothing personal in URLs or cookies.
SUBMITTED_KEY = "appeal_ticket"
TICKET_QUERY_MAX = 64
# The page the visitor wanted (from the block page's link), carried by the form to the ticket.
RETURN_FIELD = "kembali"
# Every page that shows a ticket (these and /admin) reads its status from the one table.
bp.add_app_template_global(TICKET_STATUSES, "ticket_statuses")
bp.add_app_template_global(explanation, "ticket_explanation")


def _render_form(values, *, errors=None, unavailable=False, refused=None, reference=None, failure=None,
                 status=200, return_path=None, stamp=None):
    """The appeal form; ``stamp``: the one it was first served with (the time spent on it still counts)."""
    return render_template("appeals/form.html", values=values, errors=errors, unavailable=unavailable,
                           refused=refused, reference=reference, failure=failure,
                           stamp=stamp or spam.form_stamp(), honeypot=spam.HONEYPOT_FIELD,
                           stamp_field=spam.STAMP_FIELD, return_field=RETURN_FIELD,
                           return_path=return_path), status


def _typed(form):
    return {name: form.get(name, "") for name in FIELDS}


@rerender_when_stale("appeal_pages.submit_appeal")
@rerender_when_stale("appeal_pages.switch_language")
def _stale_appeal_form(form):
    return _render_form(_typed(form), failure=messages.FORM_EXPIRED, status=400,
                        return_path=safe_path(form.get(RETURN_FIELD)), stamp=spam.carried_stamp(form))


@bp.get("")
def appeal_form():
    """The empty appeal form; ``?ref=BLK-...`` starts the reason with the block reference."""
    reference = codes.parse_code(REFERENCE_PREFIX, request.args.get("ref"))
    values = dict.fromkeys(FIELDS, "")
    if reference:
        values["reason"] = messages.APPEAL_REASON_REFERENCE.format(reference=reference)
    return _render_form(values, reference=reference, return_path=safe_path(request.args.get(RETURN_FIELD)))


@bp.post("")
@submit_limit
def submit_appeal():
    """Submit the appeal; success goes (303) to the receipt, trouble keeps the typed text."""
    data, errors, values = load_form(TicketSubmitSchema(), request.form, FIELDS)
    # Shown again, the form keeps what was typed and the time it was first served.
    again = partial(_render_form, values, return_path=safe_path(request.form.get(RETURN_FIELD)),
                    stamp=spam.carried_stamp(request.form))
    if errors:
        return again(errors=errors, status=422)
    refusal = spam.refusal(request.form)
    if refusal is not None:
        return again(refused=messages.APPEAL_FORM_TOO_FAST.format(minimum=current_app.config["APPEAL_MIN_FILL_SECONDS"])
                     if refusal == spam.TOO_FAST else messages.APPEAL_FORM_REFUSED, status=422)
    try:
        ticket = service.submit_ticket(current_client(), **data, site=safe_host(request.host),
                                       return_path=safe_path(request.form.get(RETURN_FIELD)),
                                       language=current_language())
    except Cooldown as cooldown:
        return render_template("appeals/cooldown.html", ticket_number=cooldown.ticket_number), 429
    except TooManyPending as ceiling:
        return again(refused=ceiling.message, status=429)
    except SQLAlchemyError as error:
        if not is_connection_problem(error):
            raise
        abandon()  # the page below must not meet a broken session
        current_app.logger.error("appeal form: database unavailable", exc_info=True)
        return again(unavailable=True, status=503)
    session[SUBMITTED_KEY] = ticket.ticket_number
    return redirect(url_for(".submitted"), code=303)


@bp.post("/bahasa")
def switch_language():
    """The header's language switch pressed on the appeal form: the form again in that language, as typed.

    The switch submits this form (its ``form`` attribute), so nothing typed is lost and no script is
    needed; nothing is sent or stored, only the choice is kept (like ``/bahasa`` does).
    """
    return rendered_in_chosen_language(lambda: _render_form(
        _typed(request.form), return_path=safe_path(request.form.get(RETURN_FIELD)),
        stamp=spam.carried_stamp(request.form)))


@bp.get("/terkirim")
def submitted():
    """Receipt of the appeal this browser just submitted: the ticket number, prominently."""
    ticket_number = session.get(SUBMITTED_KEY)
    if not ticket_number:
        return redirect(url_for(".check_status"), code=303)
    return render_template("appeals/submitted.html", ticket_number=ticket_number)


@bp.get("/cek")
@check_limit
def check_status():
    """Status check form; with ``?tiket=`` the ticket's status in plain Indonesian."""
    typed = request.args.get("tiket", "")[:TICKET_QUERY_MAX]
    if not typed.strip():
        return render_template("appeals/check.html", typed=typed, ticket=None)
    try:
        ticket = service.ticket_status(typed)
    except NotFound:
        return render_template("appeals/check.html", typed=typed, ticket=None, not_found=True), 404
    return render_template("appeals/check.html", typed=ticket.ticket_number, ticket=ticket)
