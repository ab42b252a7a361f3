"""HTML door for passkeys on /akun: the list, adding one (with the script) and removing one.

Adding and removing are sensitive changes: they wait for a recent
re-authentication. The options the script asks for are JSON, but this is a
page door: every POST here needs the page's CSRF token (the script sends it as
``X-CSRFToken``).
"""
from flask import Blueprint, jsonify, request
from flask_login import current_user

from guardsvc import messages
from guardsvc.accounts.account_page import Section, back_to_section, render_account_page
from guardsvc.accounts.auth import current_session, reauthentication_required, roles_required
from guardsvc.accounts.roles import PEOPLE
from guardsvc.pages.forms import load_form
from guardsvc.passkeys import service
from guardsvc.passkeys.availability import check_address_at_start, passkey_obstacle
from guardsvc.passkeys.ceremony import expected_origin
from guardsvc.passkeys.schemas import NewPasskeySchema
from guardsvc.sessions.service import is_recently_reauthenticated
from guardsvc.storage.transaction import ends_with
from guardsvc.web.identity import current_client

bp = Blueprint("passkey_pages", __name__, url_prefix="/akun/passkey")
SECTION = "passkey"
sensitive = reauthentication_required(anchor=SECTION)
FIELDS = ("name", "credential")


def passkeys_part(user, _client):
    """What the passkey part of /akun shows: the passkeys, and whether one may be added right now."""
    return {"passkeys": service.list_passkeys(user),
            "ready": is_recently_reauthenticated(current_session())}


ACCOUNT_SECTION = Section(SECTION, "passkeys/_account_passkeys.html", passkeys_part, order=25)


@bp.record_once
def _passkey_buttons(state):
    """At start: can browsers use passkeys at BASE_URL (the log says when not)? The buttons read the answer."""
    check_address_at_start(state.app)
    state.app.jinja_env.globals.update(passkey_obstacle=passkey_obstacle, passkey_origin=expected_origin)


@bp.post("/mulai")
@roles_required(*PEOPLE)
@sensitive
def begin():
    """"Tambah passkey" before a re-authentication: confirm first, then the page offers the ceremony."""
    return back_to_section(SECTION)


@bp.post("/opsi")
@roles_required(*PEOPLE)
@sensitive
def registration_options():
    """Options for ``navigator.credentials.create()`` (JSON), for the script."""
    return jsonify(service.begin_registration(current_user))


@bp.post("")
@roles_required(*PEOPLE)
@sensitive
def add():
    """Store the passkey the browser just created; the owner is told by e-mail."""
    data, errors, values = load_form(NewPasskeySchema(), request.form, FIELDS)
    if errors:
        return render_account_page(422, errors=errors, values=values, error_form=SECTION)
    try:
        passkey = service.add_passkey(current_user, data["credential"], data.get("name"), client=current_client())
    except service.PasskeyRefused as refused:
        ends_with(refused)
        return render_account_page(422, errors={"credential": [refused.message]}, values=values,
                                   error_form=SECTION)
    return back_to_section(SECTION, messages.PASSKEY_ADDED.format(name=passkey.name))


@bp.post("/<id:passkey_id>/hapus")
@roles_required(*PEOPLE)
@sensitive
def remove(passkey_id):
    """Remove one of the person's passkeys; the owner is told by e-mail."""
    name = service.remove_passkey(current_user, passkey_id, actor=current_user, client=current_client())
    return back_to_section(SECTION, messages.PASSKEY_REMOVED.format(name=name))
