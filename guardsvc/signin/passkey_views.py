"""HTML door for passkeys at sign-in: "Masuk dengan passkey", and the options of every passkey prompt.

The script asks here for the options of a ceremony (JSON), lets the browser
answer, and sends the answer in an ordinary form: to ``/masuk/passkey``
(passwordless), to the code step, or to the re-authentication page. These are
page doors: each POST needs the page's CSRF token.
"""
from flask import Blueprint, jsonify, redirect, request, url_for
from flask_login import current_user

from guardsvc import messages
from guardsvc.accounts.auth import roles_required
from guardsvc.accounts.roles import PEOPLE
from guardsvc.accounts.sessions import start_session
from guardsvc.pages.forms import load_form
from guardsvc.pages.navigation import safe_next
from guardsvc.passkeys import service as passkeys
from guardsvc.passkeys.schemas import PasskeyAnswerSchema
from guardsvc.signin import pending, service
from guardsvc.signin.limits import code_limit, remember_outcome, sign_in_limit
from guardsvc.signin.views import render_sign_in
from guardsvc.storage.transaction import ends_with
from guardsvc.web.doors import never_guarded
from guardsvc.web.errors import InvalidState
from guardsvc.web.identity import current_client

bp = Blueprint("passkey_signin_pages", __name__)


# The sign-in ceremonies are never guarded, as the rest of signing in (signin.views).
@bp.post("/masuk/passkey/opsi")
@never_guarded
@sign_in_limit
def passwordless_options():
    """Options for "Masuk dengan passkey" (JSON): any discoverable passkey, user verification required."""
    return jsonify(passkeys.begin_authentication(passkeys.PASSWORDLESS))


@bp.post("/masuk/passkey")
@never_guarded
@sign_in_limit
def passwordless_submit():
    """Sign in with the passkey the browser answered with: both factors at once."""
    next_url = safe_next(request.form.get("next"), default="")
    data, errors, _ = load_form(PasskeyAnswerSchema(), request.form, ("credential",))
    if errors:
        return render_sign_in(next_url=next_url, failure=messages.PASSKEY_MISSING, status=422)
    outcome = remember_outcome(service.sign_in_with_passkey(data["credential"], current_client()))
    if outcome.error:
        return render_sign_in(next_url=next_url, failure=ends_with(outcome.error).message,
                              status=outcome.error.status, headers=outcome.error.headers)
    start_session(outcome.user, current_client(), second_factor=True)
    return redirect(safe_next(next_url, default=url_for("account_pages.account")), code=303)


@bp.post("/masuk/kode/passkey/opsi")
@never_guarded
@code_limit
def second_step_options():
    """Options for a passkey at the code step (JSON), for the account that passed the password."""
    state = pending.current()
    if state is None:
        raise InvalidState(messages.SIGNIN_CODE_EXPIRED)
    return jsonify(passkeys.begin_authentication(passkeys.SECOND_FACTOR, service.pending_user(state)))


@bp.post("/akun/konfirmasi/passkey/opsi")
@roles_required(*PEOPLE)
def reauthentication_options():
    """Options for a passkey as the second factor of a re-authentication (JSON)."""
    return jsonify(passkeys.begin_authentication(passkeys.SECOND_FACTOR, current_user))
