"""HTML door for account protection on /akun: 2FA, sign out everywhere, new password."""
from flask import Blueprint, flash, redirect, render_template, request, url_for
from flask_login import current_user

from guardsvc import messages
from guardsvc.accounts.account_page import Section, back_to_section, render_account_page
from guardsvc.signin.limits import sign_in_limit
from guardsvc.accounts.auth import current_session, reauthentication_required, roles_required
from guardsvc.accounts.roles import PEOPLE
from guardsvc.accounts.sessions import end_session
from guardsvc.web.errors import ValidationFailed
from guardsvc.web.identity import current_client
from guardsvc.sessions import service as sessions
from guardsvc.signin import account
from guardsvc.twofactor import service as twofactor

bp = Blueprint("security_pages", __name__)
SECTION = "dua-langkah"
# Sensitive changes on this page send a person without a recent re-authentication to confirm first.
sensitive = reauthentication_required(anchor=SECTION)


def security_part(user, _client):
    """What the security part of /akun shows: 2FA state, recovery codes left, latest sign-ins."""
    return {"has_2fa": user.has_2fa,
            "enrolment": twofactor.pending_enrolment(user),
            "recovery_left": twofactor.remaining_recovery_codes(user),
            "sign_ins": account.recent_sign_ins(user, limit=10)}


ACCOUNT_SECTION = Section("keamanan", "signin/_account_security.html", security_part, order=20)


def _back(anchor=SECTION):
    return back_to_section(anchor)


def _recovery_codes_page(codes, status=200):
    # Shown in this response only (never redirected through a cookie) and never cached.
    body = render_template("signin/recovery_codes.html", codes=codes)
    return body, status, {"Cache-Control": "no-store"}


def _form_failure(failure, form_name):
    return render_account_page(422, errors=failure.errors, error_form=form_name)


@bp.post("/akun/dua-langkah/mulai")
@roles_required(*PEOPLE)
@sensitive
def begin_2fa():
    """Start setting up 2FA: a new secret, shown as a QR code on /akun."""
    twofactor.begin_enrolment(current_user, restart=True)
    return _back()


@bp.post("/akun/dua-langkah/batal")
@roles_required(*PEOPLE)
def cancel_2fa():
    """Abandon a set-up that was never confirmed."""
    twofactor.cancel_enrolment(current_user)
    return _back()


@bp.post("/akun/dua-langkah/aktifkan")
@roles_required(*PEOPLE)
@sensitive
def confirm_2fa():
    """Turn 2FA on with a first code; the recovery codes are shown once."""
    try:
        codes = twofactor.confirm_enrolment(current_user, request.form.get("code", ""), client=current_client(),
                                            session=current_session())
    except ValidationFailed as failure:
        return _form_failure(failure, "totp-confirm")
    return _recovery_codes_page(codes, 201)


@bp.post("/akun/dua-langkah/kode-pemulihan")
@roles_required(*PEOPLE)
@sensitive
def regenerate_codes():
    """Replace the recovery codes (needs the password); the new ones are shown once."""
    try:
        codes = twofactor.regenerate_recovery_codes(current_user, request.form.get("password", ""),
                                                    client=current_client())
    except ValidationFailed as failure:
        return _form_failure(failure, "totp-codes")
    return _recovery_codes_page(codes, 201)


@bp.post("/akun/dua-langkah/nonaktifkan")
@roles_required(*PEOPLE)
@sensitive
def disable_2fa():
    """Turn 2FA off (needs the password)."""
    try:
        twofactor.disable(current_user, request.form.get("password", ""), client=current_client())
    except ValidationFailed as failure:
        return _form_failure(failure, "totp-disable")
    return back_to_section(SECTION, messages.TOTP_DISABLED)


@bp.post("/akun/keluar-semua")
@roles_required(*PEOPLE)
def sign_out_everywhere():
    """End every session of this account, this one included."""
    sessions.end_sessions(current_user)
    end_session()
    flash(messages.SIGNED_OUT_EVERYWHERE, "success")
    return redirect(url_for("signin_pages.sign_in"), code=303)


def _render_password_form(errors=None, status=200):
    return render_template("signin/change_password.html", errors=errors), status


@bp.get("/akun/kata-sandi")
@roles_required(*PEOPLE)
@reauthentication_required("security_pages.password_form")
def password_form():
    """The change-password form."""
    return _render_password_form()


@bp.post("/akun/kata-sandi")
@roles_required(*PEOPLE)
@sign_in_limit  # every prompt that makes a password hash spends the sign-in quota of the address
@reauthentication_required("security_pages.password_form")
def password_submit():
    """Set a new password; every other session ends, this one carries on (tokens, devices: if ticked)."""
    form = request.form
    try:
        account.change_password(current_user, form.get("new_password", ""), client=current_client(),
                                confirmation=form.get("confirmation", ""), keep_session=current_session(),
                                revoke_tokens=form.get("revoke_tokens") == "1",
                                revoke_devices=form.get("revoke_devices") == "1")
    except ValidationFailed as failure:
        return _render_password_form(failure.errors, 422)
    return back_to_section("keamanan", messages.PASSWORD_CHANGED)
