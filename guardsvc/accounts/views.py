"""HTML door for accounts: sign-out (/keluar), the account page (/akun) and its token section."""
from flask import Blueprint, flash, redirect, request, session, url_for
from flask_login import current_user

from guardsvc import messages
from guardsvc.accounts import service
from guardsvc.accounts.account_page import Section, render_account_page
from guardsvc.accounts.auth import reauthentication_required, roles_required, waiting_form
from guardsvc.accounts.roles import PEOPLE
from guardsvc.accounts.schemas import TokenRequestSchema
from guardsvc.accounts.sessions import end_session
from guardsvc.web.doors import never_guarded
from guardsvc.web.identity import current_client
from guardsvc.pages.forms import load_form

bp = Blueprint("account_pages", __name__)
NEW_TOKEN_KEY = "new_token"


def tokens_part(user, _client):
    """What the token section of /akun shows."""
    return {"tokens": service.list_tokens(user)}


ACCOUNT_SECTION = Section("token", "accounts/_account_tokens.html", tokens_part, order=30)


@bp.post("/keluar")
@never_guarded  # signing out only gives up access
def sign_out():
    """End the session (POST only, with CSRF)."""
    end_session()
    flash(messages.SIGNED_OUT, "success")
    return redirect(url_for("pages.landing"), code=303)


@bp.get("/akun")
@roles_required(*PEOPLE)
def account():
    """The signed-in person's trusted devices and personal access tokens."""
    # A token just created is shown on this one page view, then forgotten; so is what a form held
    # while its sender re-authenticated (the form shows it again, to be sent once more).
    form_name, values = waiting_form()
    return render_account_page(new_token=session.pop(NEW_TOKEN_KEY, None), values=values, error_form=form_name)


@bp.post("/akun/token")
@roles_required(*PEOPLE)
@reauthentication_required(anchor="token", keep=("token", ("name",)))
def create_token():
    """Create a personal access token, then redirect to the page that shows it once.

    Post/redirect/get: a reload of the page never creates a second token. The
    plain token waits in the signed, HttpOnly session only until that next
    GET, which removes it and is marked no-store.
    """
    data, errors, values = load_form(TokenRequestSchema(only=("name",)), request.form, ("name",))
    if errors:
        return render_account_page(422, errors=errors, values=values, error_form="token")
    plain, _record = service.create_token(current_user, data.get("name"), client=current_client())
    session[NEW_TOKEN_KEY] = plain
    return redirect(url_for(".account", _anchor="token"), code=303)


@bp.post("/akun/token/<id:token_id>/cabut")
@roles_required(*PEOPLE)
def revoke_token(token_id):
    """Revoke one of the person's own tokens."""
    service.revoke_token(current_user, token_id)
    flash(messages.TOKEN_REVOKED, "success")
    return redirect(url_for(".account", _anchor="token"), code=303)
