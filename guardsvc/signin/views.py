"""HTML door for signing in: the password step (/masuk) and the code step (/masuk/kode)."""
from flask import Blueprint, flash, redirect, render_template, request, url_for
from flask_login import current_user

from guardsvc import messages
from guardsvc.accounts.schemas import TokenRequestSchema
from guardsvc.accounts.sessions import start_session
from guardsvc.extensions import login_manager
from guardsvc.web.identity import current_client, issue_trust_cookie
from guardsvc.pages.forms import load_form
from guardsvc.pages.navigation import safe_next
from guardsvc.web.stale_forms import rerender_when_stale
from guardsvc.signin import pending, service
from guardsvc.signin.schemas import CodeStepSchema
from guardsvc.passkeys.schemas import PasskeyAnswerSchema
from guardsvc.signin.limits import code_limit, remember_outcome, sign_in_limit
from guardsvc.storage.transaction import ends_with

bp = Blueprint("signin_pages", __name__)

SIGN_IN_FIELDS = ("email", "password")


@bp.record_once
def _sign_in_lives_here(_state):
    # Where a visitor who must sign in first is sent (accounts.auth reads it).
    login_manager.login_view = f"{bp.name}.sign_in"


def _next_target(value):
    return safe_next(value, default=url_for("account_pages.account"))


def render_sign_in(email="", next_url="", *, errors=None, failure=None, status=200, headers=None):
    """The sign-in page (again), with what went wrong."""
    return render_template("signin/sign_in.html", values={"email": email}, next_url=next_url,
                           errors=errors, failure=failure), status, headers or {}


@rerender_when_stale("signin_pages.sign_in_submit")
def _stale_sign_in(form):
    # The password is never sent back into the page; the e-mail is.
    return render_sign_in(form.get("email", ""), safe_next(form.get("next"), default=""),
                           failure=messages.FORM_EXPIRED, status=400)


@bp.get("/masuk")
def sign_in():
    """The sign-in form (already signed in: straight on to ``next``)."""
    next_url = safe_next(request.args.get("next"), default="")
    if current_user.is_authenticated:
        return redirect(_next_target(next_url), code=303)
    return render_sign_in(next_url=next_url)


@bp.post("/masuk")
@sign_in_limit
def sign_in_submit():
    """Check e-mail and password; the same answer whether the e-mail exists or not."""
    next_url = safe_next(request.form.get("next"), default="")
    schema = TokenRequestSchema(only=SIGN_IN_FIELDS)
    data, errors, values = load_form(schema, request.form, SIGN_IN_FIELDS)
    if errors:
        return render_sign_in(values["email"], next_url, errors=errors, status=422)
    outcome = service.sign_in(data["email"], data["password"], current_client(), web=True)
    if outcome.needs_code:
        return pending.begin_code_step(outcome.user, next_url)
    if outcome.error:
        return render_sign_in(values["email"], next_url, failure=ends_with(outcome.error).message,
                               status=outcome.error.status, headers=outcome.error.headers)
    start_session(outcome.user, current_client(), reauthenticated=outcome.reauthenticates)
    return redirect(_next_target(next_url), code=303)


def _expired():
    pending.clear()
    flash(messages.SIGNIN_CODE_EXPIRED, "error")
    return redirect(url_for(".sign_in"), code=303)


def _render_code_form(failure=None, status=200, trust=False, headers=None):
    state = pending.current()
    return render_template("signin/code.html", failure=failure, trust=trust,
                           passkey=state is not None and service.offers_passkey(state)), status, headers or {}


@bp.get("/masuk/kode")
def code_form():
    """Ask for the code from the authenticator app (or a recovery code)."""
    if pending.current() is None:
        return _expired()
    return _render_code_form()


@bp.post("/masuk/kode")
@code_limit
def code_submit():
    """Check the code; on success the session starts and the person goes on."""
    state = pending.current()
    if state is None:
        return _expired()
    trust = request.form.get("trust") == "1"
    # The script sends a passkey's answer in ``credential`` instead of a code.
    schema, field = (PasskeyAnswerSchema(), "credential") if request.form.get("credential") else (
        CodeStepSchema(), "code")
    data, errors, _ = load_form(schema, request.form, (field,))
    if errors:  # not a code at all (full-width digits, say): no guess to count
        return _render_code_form(errors[field][0], 422, trust)
    outcome = remember_outcome(service.sign_in_with_code(state["user_id"], state["stamp"],
                                                         data.get("code"), current_client(),
                                                         trust_this_device=trust, passkey=data.get("credential")))
    if outcome.signed_in:
        start_session(outcome.user, current_client(), second_factor=outcome.passed_second_factor)
        if outcome.trust_secret:
            issue_trust_cookie(outcome.trust_secret)
        return redirect(_next_target(state["next"]), code=303)
    ends_with(outcome.error)
    if outcome.restart:
        return _expired()
    return _render_code_form(outcome.error.message, outcome.error.status, trust, outcome.error.headers)
