"""HTML door of self-release: the page that computes the proof, the form it sends, the confirmation.

The block page (and the appeal form with ``?ref=``) offer the page through
``self_release_offer`` only when the visitor may release itself now. Without
JavaScript the page says that the appeal form is the way.
"""
from dataclasses import replace
from datetime import datetime

from flask import Blueprint, redirect, render_template, request, session, url_for

from guardsvc.selfrelease import service
from guardsvc.selfrelease.limits import self_release_limit
from guardsvc.selfrelease.schemas import ReleaseRequestSchema
from guardsvc.storage.transaction import ends_with
from guardsvc.web.doors import never_guarded
from guardsvc.web.errors import GuardError, ValidationFailed
from guardsvc.web.identity import DEVICE_HEADER, client_ip, current_client, device_to_issue
from guardsvc.web.original_request import original_page, safe_path
from guardsvc.web.schema_fields import load_or_raise

# Blocked visitors are who opens it: never guarded.
bp = never_guarded(Blueprint("self_release_pages", __name__, url_prefix="/lepas-blokir"))
RETURN_FIELD = "kembali"
DONE_KEY = "self_release_done"
REQUEST_SCHEMA = ReleaseRequestSchema()  # the JSON door's: one shape for both


def _render(client, *, return_path, failure=None, status=200):
    found = service.standing(client)
    challenge = service.challenge_for(client, found)[0] if found.state == service.OPEN else None
    return render_template("selfrelease/page.html", standing=found, challenge=challenge, failure=failure,
                           return_path=return_path, return_field=RETURN_FIELD,
                           expected_attempts=service.expected_attempts()), status


def _browser_client():
    """The caller; a browser that has no device cookie yet gets its id now, so its challenge is bound to
    the device it will have (the cookie goes out with this page)."""
    client = current_client()
    if client.device_id is None and DEVICE_HEADER not in request.headers:
        issued = device_to_issue()
        client = replace(client, device_id=issued, device_cookie=issued)
    return client


@bp.get("")
@self_release_limit
def page():
    """The self-release page: the proof computed in the browser, or why the appeal form is the way."""
    return _render(_browser_client(), return_path=safe_path(request.args.get(RETURN_FIELD)))


@bp.post("")
@self_release_limit
def submit():
    """Release with the proof the page computed (POST + CSRF); success goes (303) to the confirmation."""
    client, return_path = current_client(), safe_path(request.form.get(RETURN_FIELD))
    try:
        sent = load_or_raise(REQUEST_SCHEMA, {service.ALTCHA_FIELD: request.form.get(service.ALTCHA_FIELD, "")})
        released = service.release_client(client, sent[service.ALTCHA_FIELD], origin_ip=client_ip())
    except GuardError as refusal:
        ends_with(refusal)
        failure = next(iter(refusal.errors.values()))[0] if isinstance(refusal, ValidationFailed) else refusal.message
        return _render(client, return_path=return_path, failure=failure, status=refusal.status)
    session[DONE_KEY] = {"until": released.allowed_until.isoformat(), "back": return_path}
    return redirect(url_for(".done"), code=303)


@bp.get("/selesai")
def done():
    """Confirmation of this browser's release: until when, and the way back to the page it wanted."""
    released = session.get(DONE_KEY)
    if not released:
        return redirect(url_for(".page"), code=303)
    return render_template("selfrelease/done.html", allowed_until=datetime.fromisoformat(released["until"]),
                           return_path=safe_path(released.get("back")))


@bp.app_template_global()
def self_release_offer(return_path=None):
    """The link to the self-release page when the visitor may release itself now, else None.

    A browser without a device cookie yet (its first page under an address block) is offered it too:
    the self-release page gives it its device.
    """
    try:
        found = service.standing(current_client())
    except GuardError:  # malformed identity headers: the page that shows this says so itself
        return None
    browser_without_device = found.state == service.NO_DEVICE and DEVICE_HEADER not in request.headers
    if found.state != service.OPEN and not browser_without_device:
        return None
    return url_for("self_release_pages.page", **{RETURN_FIELD: return_path or original_page()[1]})
