"""HTML door for accounts: sign-out (/keluar), the account page (/akun) and its token section."""
from flask import Blueprint, flash, redirect, request, url_for
from flask_login import current_user

from guardsvc import messages
from guardsvc.accounts import service
from guardsvc.accounts.account_page import Section, register_section_with, render_account_page
from guardsvc.accounts.auth import roles_required
from guardsvc.accounts.roles import PEOPLE
from guardsvc.accounts.schemas import TokenRequestSchema
from guardsvc.accounts.sessions import end_session
from guardsvc.doors import never_guarded
from guardsvc.pages.forms import load_form

bp = Blueprint("account_pages", __name__)


def tokens_part(user, _client):
    """What the token section of /akun shows."""
    return {"tokens": service.list_tokens(user)}


register_section_with(bp, Section("token", "accounts/_account_tokens.html", tokens_part, order=30))


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
    """The signed-in person's account page: every section the features registered."""
    return render_account_page()


@bp.post("/akun/token")
@roles_required(*PEOPLE)
def create_token():
    """Create a personal access token and show it once, in this response only.

    The page is answered directly (not redirected) so the token never sits in
    a cookie or any server-side store; the response is marked no-store.
    """
    data, errors, values = load_form(TokenRequestSchema(only=("name",)), request.form, ("name",))
    if errors:
        return render_account_page(422, errors=errors, values=values, error_form="token")
    plain, _record = service.create_token(current_user, data.get("name"))
    return render_account_page(201, new_token=plain)


@bp.post("/akun/token/<int(max=2147483647):token_id>/cabut")
@roles_required(*PEOPLE)
def revoke_token(token_id):
    """Revoke one of the person's own tokens."""
    service.revoke_token(current_user, token_id)
    flash(messages.TOKEN_REVOKED, "success")
    return redirect(url_for(".account", _anchor="token"), code=303)
