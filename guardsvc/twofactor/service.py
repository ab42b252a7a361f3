"""TOTP two-step verification: enrolment, verification, recovery codes, disabling.

Codes are accepted within one 30-second step either side of the server clock
and are single-use: the last accepted step is stored, and accepting a code is a
conditional UPDATE that only succeeds for a later step, so even two concurrent
requests with the same code cannot both pass.
"""
import calendar
import re
import secrets
from dataclasses import dataclass

import pyotp
import segno
from sqlalchemy import delete, func, or_, select, update

from guardsvc import messages
from guardsvc.storage import clock
from guardsvc.accounts import notices, passwords
from guardsvc.accounts.models import User
from guardsvc.accounts.service import audit_account
from guardsvc.web.errors import InvalidState, ValidationFailed
from guardsvc.extensions import db
from guardsvc.sessions.service import mark_second_factor
from guardsvc.storage.sealing import code_digests, reseal_rows
from guardsvc.twofactor.models import RecoveryCode
from guardsvc.trust.signin_trust import forget_sign_in_trust

ISSUER = "guardsvc"
STEP_SECONDS = 30
VALID_WINDOW = 1
RECOVERY_CODE_COUNT = 10
# Unambiguous alphabet (no 0/O, 1/I/L): codes are read from paper and typed by hand.
RECOVERY_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789"
_TOTP_RE = re.compile(r"\A[0-9]{6}\Z")


@dataclass(frozen=True)
class Enrolment:
    """What a person needs to add the account to an authenticator app."""

    secret: str
    uri: str
    qr_svg: str


def _current_step():
    now = clock.utcnow()
    return calendar.timegm(now.utctimetuple()) // STEP_SECONDS


def _normalize(code):
    return re.sub(r"[\s-]", "", code or "").lower()


def _hash_recovery(code):
    return code_digests(_normalize(code))[0]


def enrolment_for(user):
    """Secret, provisioning URI and QR code (inline SVG) of the user's pending enrolment."""
    uri = pyotp.TOTP(user.totp_secret).provisioning_uri(name=user.email, issuer_name=ISSUER)
    qr_svg = segno.make(uri, error="m").svg_inline(scale=4, dark="#1f2933", light="#ffffff",
                                                   title=messages.QR_CODE_TITLE)
    return Enrolment(user.totp_secret, uri, qr_svg)


def begin_enrolment(user, *, restart=False):
    """Start (or continue) setting up 2FA: a new secret unless one is already pending."""
    if user.has_2fa:
        raise InvalidState(messages.TOTP_ALREADY_ENABLED)
    if restart or not user.totp_secret:
        user.totp_secret = pyotp.random_base32()
        user.totp_last_step = None
        db.session.flush()
    return enrolment_for(user)


def cancel_enrolment(user):
    """Drop a pending (unconfirmed) secret; 2FA that is already on is left alone."""
    if user.has_2fa:
        raise InvalidState(messages.TOTP_ALREADY_ENABLED)
    user.totp_secret = None
    user.totp_last_step = None
    db.session.flush()
    return user


def pending_enrolment(user):
    """The enrolment in progress (secret not yet confirmed), or None."""
    return enrolment_for(user) if user.totp_secret and not user.has_2fa else None


def _accept_step(user, code):
    """Accept ``code`` for ``user`` once: True when it matches a step not used before."""
    if not user.totp_secret or not _TOTP_RE.match(code):
        return False
    totp = pyotp.TOTP(user.totp_secret)
    current = _current_step()
    for step in range(current - VALID_WINDOW, current + VALID_WINDOW + 1):
        if not secrets.compare_digest(totp.at(step * STEP_SECONDS), code):
            continue
        claimed = db.session.execute(
            update(User).where(User.id == user.id,
                               or_(User.totp_last_step.is_(None), User.totp_last_step < step))
            .values(totp_last_step=step).execution_options(synchronize_session=False)).rowcount
        if claimed == 1:
            user.totp_last_step = step
            return True
        return False
    return False


def _use_recovery_code(user, code):
    """Spend one unused recovery code of ``user``; True when it was valid."""
    normalized = _normalize(code)
    if not normalized or len(normalized) > 32:
        return False
    return db.session.execute(
        update(RecoveryCode).where(RecoveryCode.user_id == user.id,
                                   RecoveryCode.code_hash.in_(code_digests(normalized)),
                                   RecoveryCode.used_at.is_(None))
        .values(used_at=clock.utcnow()).execution_options(synchronize_session=False)).rowcount == 1


def verify_second_factor(user, code):
    """Check a TOTP code or a recovery code: ``"totp"``, ``"recovery"`` or None (refused)."""
    if not user.has_2fa or not isinstance(code, str):
        return None
    normalized = _normalize(code)
    if _TOTP_RE.match(normalized):
        return "totp" if _accept_step(user, normalized) else None
    return "recovery" if _use_recovery_code(user, normalized) else None


def _new_recovery_code():
    raw = "".join(secrets.choice(RECOVERY_ALPHABET) for _ in range(10))
    return f"{raw[:5]}-{raw[5:]}"


def replace_recovery_codes(user):
    """Issue a fresh set of recovery codes (old ones stop working); returns the plain codes."""
    db.session.execute(delete(RecoveryCode).where(RecoveryCode.user_id == user.id))
    codes = [_new_recovery_code() for _ in range(RECOVERY_CODE_COUNT)]
    now = clock.utcnow()
    db.session.add_all(RecoveryCode(user_id=user.id, code_hash=_hash_recovery(code), created_at=now)
                       for code in codes)
    db.session.flush()
    return codes


def confirm_enrolment(user, code, *, client, session=None):
    """Turn 2FA on once the first code from the app matches; returns the recovery codes.

    The owner is told by e-mail, with where it was done from (``client``).
    That code is a second factor passed in this browser: ``session`` (the one
    that turned 2FA on) counts as having passed it, so trusting this browser
    right afterwards asks for no other code (the one just used could not serve twice).
    """
    if user.has_2fa:
        raise InvalidState(messages.TOTP_ALREADY_ENABLED)
    if not user.totp_secret:
        raise InvalidState(messages.TOTP_NOT_STARTED)
    if not isinstance(code, str) or not _accept_step(user, _normalize(code)):
        raise ValidationFailed({"code": [messages.TOTP_WRONG_CODE]})
    user.totp_enabled_at = clock.utcnow()
    if session is not None:
        mark_second_factor(session)
    db.session.flush()
    notices.two_factor_enabled(user, client=client)
    return replace_recovery_codes(user)


def _require_password(user, password):
    if not isinstance(password, str) or not passwords.verify_password(user.password_hash, password):
        raise ValidationFailed({"password": [messages.WRONG_PASSWORD]})


def regenerate_recovery_codes(user, password, *, client):
    """New recovery codes for an account with 2FA (needs the password); the owner is told."""
    if not user.has_2fa:
        raise InvalidState(messages.TOTP_NOT_ENABLED)
    _require_password(user, password)
    codes = replace_recovery_codes(user)
    notices.recovery_codes_replaced(user, client=client)
    return codes


def _turn_off(user):
    """Remove the secret and the recovery codes: two-step verification is off."""
    user.totp_secret = None
    user.totp_enabled_at = None
    user.totp_last_step = None
    db.session.execute(delete(RecoveryCode).where(RecoveryCode.user_id == user.id))
    forget_sign_in_trust(user)  # nothing left to skip: no browser keeps a pass for a later 2FA
    db.session.flush()
    return user


def disable(user, password, *, client):
    """Turn 2FA off (needs the password); secret and recovery codes are removed, the owner is told."""
    if not user.has_2fa and not user.totp_secret:
        raise InvalidState(messages.TOTP_NOT_ENABLED)
    _require_password(user, password)
    was_on = user.has_2fa
    _turn_off(user)
    if was_on:  # abandoning a set-up that was never confirmed changes nothing worth telling
        notices.two_factor_disabled(user, client=client)
    return user


def reset_two_factor(user, *, actor, client):
    """An administrator turns 2FA off for someone who lost the device and the codes (audited, owner told)."""
    if not user.has_2fa and not user.totp_secret:
        raise InvalidState(messages.TOTP_NOT_ENABLED)
    was_on = user.has_2fa
    _turn_off(user)
    audit_account("user.2fa_reset", user, actor=actor, client=client)
    if was_on:
        notices.two_factor_reset(user, client=client)
    return user


def remaining_recovery_codes(user):
    """How many unused recovery codes the user still has."""
    return db.session.scalar(select(func.count()).select_from(RecoveryCode).where(
        RecoveryCode.user_id == user.id, RecoveryCode.used_at.is_(None)))


def reseal_secrets():
    """Seal every stored TOTP secret again under the current key (after a key rotation); returns the count."""
    return reseal_rows(User, "totp_secret")
