"""HTML door for forgotten passwords: ask for a link (/masuk/lupa), use it (/masuk/atur-ulang/<secret>).

It lives with signing in because a reset may also revoke trusted devices, which
the accounts package never reaches (no import cycles).
"""
from flask import Blueprint, flash, redirect, render_template, request, url_for

from guardsvc import messages
from guardsvc.accounts import resets
from guardsvc.web.unlinkable import unlinkable
from guardsvc.accounts.schemas import ResetRequestSchema
from guardsvc.web.errors import ValidationFailed
from guardsvc.web.identity import current_client
from guardsvc.pages.forms import load_form
from guardsvc.ratelimits.limits import Limit
from guardsvc.signin import account

bp = Blueprint("recovery_pages", __name__)
bp.add_app_template_filter(unlinkable, "unlinkable")

# Requests for a link per client IP: each one may send an e-mail.
reset_request_limit = Limit("RATELIMIT_RESET", scope="password-reset")
# The secret is in the address: never cached, never sent on as a referrer.
PRIVATE = {"Cache-Control": "no-store", "Referrer-Policy": "no-referrer"}


def _render_forgot(email="", errors=None, status=200):
    return render_template("accounts/forgot.html", values={"email": email}, errors=errors), status


@bp.get("/masuk/lupa")
def forgot_form():
    """Ask for the account's e-mail address."""
    return _render_forgot()


@bp.post("/masuk/lupa")
@reset_request_limit
def forgot_submit():
    """Send a link when the account exists; the answer is the same whether it does or not."""
    data, errors, values = load_form(ResetRequestSchema(), request.form, ("email",))
    if errors:
        return _render_forgot(values["email"], errors, 422)
    resets.request_reset(data["email"], current_client())
    notice = messages.RESET_REQUESTED.format(minutes=resets.lifetime_minutes())
    return render_template("accounts/forgot_sent.html", notice=notice)


def _render_unusable(problem):
    status = 404 if problem == resets.UNKNOWN else 410
    return render_template("accounts/reset_unusable.html", problem=problem), status, PRIVATE


def _render_reset(secret, errors=None, status=200):
    return render_template("accounts/reset.html", secret=secret, errors=errors), status, PRIVATE


@bp.get("/masuk/atur-ulang/<secret>")
def reset_form(secret):
    """The new-password form, for a link that can still be used."""
    _record, problem = resets.find_link(secret)
    return _render_unusable(problem) if problem else _render_reset(secret)


@bp.post("/masuk/atur-ulang/<secret>")
def reset_submit(secret):
    """Set the new password (typed twice); the link is used up, two-step verification stays.

    Every session ends; tokens and trusted devices too when the person ticks them.
    """
    form = request.form
    try:
        _user, problem = account.complete_reset(secret, form.get("password", ""), form.get("confirmation", ""),
                                                current_client(), revoke_tokens=form.get("revoke_tokens") == "1",
                                                revoke_devices=form.get("revoke_devices") == "1")
    except ValidationFailed as failure:
        return _render_reset(secret, failure.errors, 422)
    if problem:
        return _render_unusable(problem)
    flash(messages.RESET_DONE, "success")
    return redirect(url_for("signin_pages.sign_in"), code=303)
