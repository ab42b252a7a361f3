"""HTML door for accounts: sign-in (/masuk), sign-out (/keluar), the account page and tokens."""
from flask import (Blueprint, flash, redirect, render_template, request, session,
                   url_for)
from flask_login import current_user, login_user, logout_user

from guardsvc import messages
from guardsvc.accounts import service
from guardsvc.accounts.account_page import render_account_page
from guardsvc.accounts.auth import roles_required
from guardsvc.accounts.schemas import TokenRequestSchema
from guardsvc.extensions import configured_limit, limiter
from guardsvc.identity import current_client
from guardsvc.pages.forms import load_form
from guardsvc.pages.navigation import safe_next
from guardsvc.pages.stale_forms import rerender_when_stale
from guardsvc.signin import pending
from guardsvc.signin import service as signin_flow
from guardsvc.transaction import keep_writes

bp = Blueprint("account_pages", __name__)

SIGN_IN_FIELDS = ("email", "password")
ACCOUNT_ROLES = ("user", "admin")
NEW_TOKEN_KEY = "new_token"


def _next_target(value):
    return safe_next(value, default=url_for(".account"))


def _render_sign_in(email="", next_url="", *, errors=None, failure=None, status=200):
    return render_template("accounts/sign_in.html", values={"email": email}, next_url=next_url,
                           errors=errors, failure=failure), status


@rerender_when_stale("account_pages.sign_in_submit")
def _stale_sign_in(form):
    # The password is never sent back into the page; the e-mail is.
    return _render_sign_in(form.get("email", ""), safe_next(form.get("next"), default=""),
                           failure=messages.FORM_EXPIRED, status=400)


@bp.get("/masuk")
def sign_in():
    """The sign-in form (already signed in: straight on to ``next``)."""
    next_url = safe_next(request.args.get("next"), default="")
    if current_user.is_authenticated:
        return redirect(_next_target(next_url), code=303)
    return _render_sign_in(next_url=next_url)


@bp.post("/masuk")
@limiter.limit(configured_limit("RATELIMIT_AUTH"))
def sign_in_submit():
    """Check e-mail and password; the same answer whether the e-mail exists or not."""
    next_url = safe_next(request.form.get("next"), default="")
    schema = TokenRequestSchema(only=SIGN_IN_FIELDS)
    data, errors, values = load_form(schema, request.form, SIGN_IN_FIELDS)
    if errors:
        return _render_sign_in(values["email"], next_url, errors=errors, status=422)
    outcome = signin_flow.sign_in(data["email"], data["password"], current_client(), web=True)
    keep_writes()  # every attempt is recorded, refused ones too
    if outcome.needs_code:
        return pending.begin_code_step(outcome.user, next_url)
    if outcome.error:
        return _render_sign_in(values["email"], next_url, failure=outcome.error.message,
                               status=outcome.error.status)
    start_session(outcome.user)
    return redirect(_next_target(next_url), code=303)


def start_session(user):
    """A fresh session for ``user``: nothing from before sign-in carries over (no fixation)."""
    session.clear()
    login_user(user)


@bp.post("/keluar")
def sign_out():
    """End the session (POST only, with CSRF)."""
    logout_user()
    session.clear()
    flash(messages.SIGNED_OUT, "success")
    return redirect(url_for("pages.landing"), code=303)


@bp.get("/akun")
@roles_required(*ACCOUNT_ROLES)
def account():
    """The signed-in person's trusted devices and personal access tokens."""
    # A token just created is shown on this one page view, then forgotten.
    return render_account_page(new_token=session.pop(NEW_TOKEN_KEY, None))


@bp.post("/akun/token")
@roles_required(*ACCOUNT_ROLES)
def create_token():
    """Create a personal access token, then redirect to the page that shows it once.

    Post/redirect/get: a reload of the page never creates a second token. The
    plain token waits in the signed, HttpOnly session only until that next
    GET, which removes it and is marked no-store.
    """
    data, errors, values = load_form(TokenRequestSchema(only=("name",)), request.form, ("name",))
    if errors:
        return render_account_page(422, errors=errors, values=values, error_form="token")
    plain, _record = service.create_token(current_user, data.get("name"))
    session[NEW_TOKEN_KEY] = plain
    return redirect(url_for(".account", _anchor="token"), code=303)


@bp.post("/akun/token/<int(max=2147483647):token_id>/cabut")
@roles_required(*ACCOUNT_ROLES)
def revoke_token(token_id):
    """Revoke one of the person's own tokens."""
    service.revoke_token(current_user, token_id)
    flash(messages.TOKEN_REVOKED, "success")
    return redirect(url_for(".account", _anchor="token"), code=303)
