"""HTML door for the code step of signing in (/masuk/kode)."""
from flask import Blueprint, flash, redirect, render_template, request, url_for

from guardsvc import messages
from guardsvc.accounts.views import start_session
from guardsvc.identity import current_client
from guardsvc.pages.navigation import safe_next
from guardsvc.signin import pending
from guardsvc.signin.limits import code_attempt_limit, remember_outcome
from guardsvc.signin.service import sign_in_with_code
from guardsvc.transaction import keep_writes

bp = Blueprint("signin_pages", __name__)


def _expired():
    pending.clear()
    flash(messages.SIGNIN_CODE_EXPIRED, "error")
    return redirect(url_for("account_pages.sign_in"), code=303)


def _render_code_form(failure=None, status=200, trust=False):
    return render_template("signin/code.html", failure=failure, trust=trust), status


@bp.get("/masuk/kode")
def code_form():
    """Ask for the code from the authenticator app (or a recovery code)."""
    if pending.current() is None:
        return _expired()
    return _render_code_form()


@bp.post("/masuk/kode")
@code_attempt_limit(pending.email)
def code_submit():
    """Check the code; on success the session starts and the person goes on."""
    state = pending.current()
    if state is None:
        return _expired()
    trust = request.form.get("trust") == "1"
    outcome = remember_outcome(sign_in_with_code(state["user_id"], state["epoch"],
                                                 request.form.get("code", ""), current_client(),
                                                 trust_this_device=trust))
    keep_writes()  # the attempt is recorded even when it is refused
    if outcome.signed_in:
        start_session(outcome.user)
        return redirect(safe_next(state["next"], default=url_for("account_pages.account")), code=303)
    if outcome.restart:
        return _expired()
    return _render_code_form(outcome.error.message, 401, trust)
