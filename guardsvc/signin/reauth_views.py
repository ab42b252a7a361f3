"""HTML door for re-authentication: /akun/konfirmasi asks for the password (and code) again.

Pages that make a sensitive change send a person here (accounts.auth
``reauthentication_required``) and are reached again afterwards through ``next``.
"""
from flask import Blueprint, flash, redirect, render_template, request, url_for
from flask_login import current_user

from guardsvc import messages
from guardsvc.accounts.auth import current_session, roles_required
from guardsvc.accounts.roles import PEOPLE
from guardsvc.web.errors import ValidationFailed
from guardsvc.web.identity import current_client
from guardsvc.pages.navigation import safe_next
from guardsvc.passkeys.service import has_passkeys
from guardsvc.signin import service
from guardsvc.signin.limits import sign_in_limit
from guardsvc.storage.transaction import ends_with

bp = Blueprint("reauth_pages", __name__)


def _next_target(value):
    return safe_next(value, default=url_for("account_pages.account"))


def _render(next_url, errors=None, status=200):
    return render_template("signin/confirm.html", next_url=next_url, errors=errors, has_2fa=current_user.has_2fa,
                           passkey=current_user.has_2fa and has_passkeys(current_user)), status


@bp.get("/akun/konfirmasi")
@roles_required(*PEOPLE)
def confirm():
    """Ask for the password (and a code when 2FA is on) before a sensitive change."""
    return _render(_next_target(request.args.get("next")))


@bp.post("/akun/konfirmasi")
@roles_required(*PEOPLE)
@sign_in_limit
def confirm_submit():
    """Check the password (and code); on success go back to ``next``."""
    next_url = _next_target(request.form.get("next"))
    try:
        # The script sends a passkey's answer in ``credential`` instead of a code.
        service.reauthenticate(current_user, request.form.get("password"), request.form.get("code"),
                               current_client(), current_session(), passkey=request.form.get("credential"))
    except ValidationFailed as failure:
        # The failed attempt stays in the sign-in history.
        return _render(next_url, ends_with(failure).errors, 401)
    flash(messages.REAUTH_DONE, "success")
    return redirect(next_url, code=303)
