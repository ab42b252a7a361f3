"""HTML door for signing in: the password step (/masuk), the code step (/masuk/kode) and the
e-mailed-code step of a sign-in from somewhere new (/masuk/kode-email)."""
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
from guardsvc.signin import email_step, pending, service, verification
from guardsvc.signin.schemas import CodeStepSchema, EmailCodeStepSchema
from guardsvc.passkeys.schemas import PasskeyAnswerSchema
from guardsvc.signin.limits import code_limit, remember_outcome, sign_in_limit
from guardsvc.storage.transaction import ends_with
from guardsvc.web.doors import never_guarded

# Never guarded (contract section 15): whatever blocks exist, an administrator can sign in and
# reach /admin to lift them; a blocked non-administrator who signs in meets the block page next.
bp = never_guarded(Blueprint("signin_pages", __name__))

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
        return pending.begin_code_step(outcome.user, next_url, breached=outcome.password_breached)
    if outcome.needs_email_code:
        return pending.begin_email_step(outcome.user, next_url, verification.CODE_MINUTES,
                                        breached=outcome.password_breached, reason=outcome.email_code_reason)
    if outcome.error:
        return render_sign_in(values["email"], next_url, failure=ends_with(outcome.error).message,
                               status=outcome.error.status, headers=outcome.error.headers)
    start_session(outcome.user, current_client(), reauthenticated=outcome.reauthenticates)
    return _signed_in(next_url, outcome.password_breached)


def _signed_in(next_url, breached):
    """On to ``next``; a password on the breach list goes to the change-password form first, saying why."""
    if breached:
        flash(messages.PASSWORD_BREACHED_AT_SIGNIN, "error")
        return redirect(url_for("security_pages.password_form"), code=303)
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
        return _signed_in(state["next"], state.get("breached"))
    ends_with(outcome.error)
    if outcome.restart:
        return _expired()
    return _render_code_form(outcome.error.message, outcome.error.status, trust, outcome.error.headers)


def _render_email_code_form(state, failure=None, status=200, headers=None):
    record = email_step.pending_code_of(state, current_client())
    return render_template("signin/email_code.html", failure=failure, record=record,
                           delivery=verification.delivery_of(record) if record else None,
                           email=state["email"]), status, {"Cache-Control": "no-store", **(headers or {})}


@bp.get("/masuk/kode-email")
def email_code_form():
    """Ask for the code e-mailed for a sign-in from somewhere new, and say how far its e-mail got."""
    state = pending.current(pending.EMAIL_STEP)
    if state is None:
        return _expired()
    return _render_email_code_form(state)


@bp.post("/masuk/kode-email")
@sign_in_limit  # a guess at the code is counted like a password guess, per address too
def email_code_submit():
    """Check the e-mailed code; on success the session starts and the person goes on."""
    state = pending.current(pending.EMAIL_STEP)
    if state is None:
        return _expired()
    data, errors, _ = load_form(EmailCodeStepSchema(), request.form, ("code",))
    if errors:  # not eight digits: no guess to count
        return _render_email_code_form(state, errors["code"][0], 422)
    outcome = email_step.sign_in_with_email_code(state, data["code"], current_client())
    if outcome.signed_in:
        start_session(outcome.user, current_client(), reauthenticated=outcome.reauthenticates)
        return _signed_in(state["next"], state.get("breached"))
    ends_with(outcome.error)
    if outcome.restart:
        return _expired()
    return _render_email_code_form(state, outcome.error.message, outcome.error.status, outcome.error.headers)


@bp.post("/masuk/kode-email/baru")
@sign_in_limit
def email_code_resend():
    """Send a new code (at most one a minute); the older one stops working."""
    state = pending.current(pending.EMAIL_STEP)
    if state is None:
        return _expired()
    record = email_step.resend_email_code(state, current_client())
    flash(messages.EMAIL_CODE_RESENT if record is not None else messages.EMAIL_CODE_RESEND_WAIT,
          "success" if record is not None else "error")
    return redirect(url_for(".email_code_form"), code=303)
