"""HTML door for the appellant's private ticket page, /banding/tiket/<secret>.

Never guarded: a blocked appellant must reach it. The secret in the path is
the credential, so the page is never cached and never sent on as a referrer.
"""
from flask import Blueprint, flash, redirect, render_template, request, url_for

from guardsvc import messages
from guardsvc.appeals import conversation
from guardsvc.appeals.limits import reply_limit
from guardsvc.appeals.schemas import MESSAGE_MAX, TicketReplySchema
from guardsvc.web.doors import never_guarded
from guardsvc.web.errors import InvalidState
from guardsvc.pages.forms import load_form
from guardsvc.web.stale_forms import rerender_when_stale
from guardsvc.web.locale import rendered_in_chosen_language
from guardsvc.storage.transaction import ends_with

bp = never_guarded(Blueprint("conversation_pages", __name__, url_prefix="/banding/tiket"))

PRIVATE_HEADERS = {"Cache-Control": "no-store", "Referrer-Policy": "no-referrer"}


def _render(ticket, secret, *, values=None, errors=None, failure=None, status=200):
    body = render_template(
        "appeals/conversation.html", ticket=ticket, secret=secret, errors=errors, failure=failure,
        values=values or {}, thread=conversation.thread(ticket, for_appellant=True), max_length=MESSAGE_MAX)
    return body, status, PRIVATE_HEADERS


@rerender_when_stale("conversation_pages.reply")
def _stale_reply(form):
    secret = request.view_args["secret"]
    return _render(conversation.ticket_for_secret(secret), secret, values={"body": form.get("body", "")},
                   failure=messages.FORM_EXPIRED, status=400)


@bp.get("/<secret>")
def conversation_page(secret):
    """The appellant's ticket: status, their submission, the conversation; opening it verifies the e-mail."""
    return _render(conversation.open_conversation(secret), secret)


@bp.post("/<secret>/bahasa")
def switch_language(secret):
    """The header's language switch pressed on this page: the page again in that language, the reply as
    typed (the switch submits the reply form). Nothing is sent or stored, only the choice is kept."""
    return rendered_in_chosen_language(lambda: _render(
        conversation.ticket_for_secret(secret), secret, values={"body": request.form.get("body", "")}))


@bp.post("/<secret>")
@reply_limit
def reply(secret):
    """The appellant answers (POST + CSRF); back to the page (303)."""
    data, errors, values = load_form(TicketReplySchema(), request.form, ("body",))
    if errors:
        return _render(conversation.ticket_for_secret(secret), secret, values=values, errors=errors, status=422)
    try:
        conversation.reply_as_appellant(secret, data["body"])
    except InvalidState as closed:
        flash(ends_with(closed).message, "error")
    else:
        flash(messages.REPLY_SENT, "success")
    return redirect(url_for(".conversation_page", secret=secret, _anchor="percakapan"), code=303)
