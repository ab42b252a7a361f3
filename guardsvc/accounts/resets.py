"""Forgotten passwords: a single-use link by e-mail, and a new password set through it.

The secret (256 bits from ``secrets``) travels only in the e-mail; the database
keeps its SHA-256. A link works once, for ``PASSWORD_RESET_MINUTES``, and only
while it is the account's newest. Setting the new password leaves two-step
verification as it was.
"""
import hashlib
import secrets
from datetime import timedelta

from flask import current_app
from sqlalchemy import func, select, update

from guardsvc import messages
from guardsvc.storage import clock
from guardsvc.accounts.models import PasswordReset
from guardsvc.accounts.password_rule import password_problems
from guardsvc.accounts.service import find_user_by_email, set_password
from guardsvc.web.errors import ValidationFailed
from guardsvc.extensions import db
from guardsvc.web.humantime import human_time
from guardsvc.web.links import external_url
from guardsvc.outbox.service import compose_mail, store_mail
from guardsvc.web.useragent import describe_user_agent

SECRET_BYTES = 32
SECRET_MAX = 128
# However many addresses ask, one account receives at most one link a minute
# (the per-IP rate limit cannot stop a flood sent from many addresses).
RESEND_AFTER = timedelta(minutes=1)
# What a link that cannot be used (any more) is: the page says which.
UNKNOWN, GONE = "unknown", "gone"


def _hash(secret):
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def lifetime_minutes():
    return current_app.config["PASSWORD_RESET_MINUTES"]


def request_reset(email, client):
    """Mail a reset link when ``email`` names an active account; otherwise do nothing.

    The caller answers the same either way. A new link voids the account's
    earlier ones; within ``RESEND_AFTER`` of the last one nothing is sent.
    Returns the new record, or None.
    """
    user = find_user_by_email(email)
    now = clock.utcnow()
    # Asked for every e-mail, known or not, like the mail below is composed for every one:
    # the answer's timing tells no more than its words which addresses have an account.
    last = db.session.scalar(select(func.max(PasswordReset.created_at)).where(
        PasswordReset.user_id == (user.id if user is not None else None)))
    secret = secrets.token_urlsafe(SECRET_BYTES)
    mail = _compose_reset_mail(user, email, secret, now, client)
    if user is None or not user.is_active:
        return None
    if last is not None and now - last < RESEND_AFTER:
        return None
    db.session.execute(
        update(PasswordReset)
        .where(PasswordReset.user_id == user.id, PasswordReset.used_at.is_(None),
               PasswordReset.voided_at.is_(None))
        .values(voided_at=now).execution_options(synchronize_session=False))
    record = PasswordReset(user_id=user.id, secret_hash=_hash(secret), created_at=now,
                           expires_at=now + timedelta(minutes=lifetime_minutes()),
                           ip_address=client.ip_address)
    db.session.add(record)
    db.session.flush()
    store_mail(mail)
    return record


def _compose_reset_mail(user, email, secret, now, client):
    """The reset e-mail, composed (for an unknown address too, and then thrown away).

    In the language of the page the reset was asked on: whoever asks is presumed
    to be the holder, and that is the language they read now.
    """
    return compose_mail("password_reset", user.email if user else email, messages.RESET_MAIL_SUBJECT,
                        "password_reset", name=user.name if user else "", email=user.email if user else email,
                        minutes=lifetime_minutes(), when=human_time(now), ip_address=client.ip_address,
                        device=describe_user_agent(client.user_agent) or messages.UNRECOGNISED_DEVICE,
                        reset_url=external_url("recovery_pages.reset_form", secret=secret),
                        forgot_url=external_url("recovery_pages.forgot_form"))


def find_link(secret):
    """``(record, None)`` for a usable link, else ``(None, UNKNOWN)`` or ``(record, GONE)``."""
    if not isinstance(secret, str) or not secret or len(secret) > SECRET_MAX:
        return None, UNKNOWN
    record = db.session.scalar(select(PasswordReset).where(PasswordReset.secret_hash == _hash(secret)))
    if record is None:
        return None, UNKNOWN
    if not record.is_usable(clock.utcnow()) or not record.user.is_active:
        return record, GONE
    return record, None


def _claim(record):
    """Mark the link used, once: two concurrent submissions cannot both pass."""
    now = clock.utcnow()
    return db.session.execute(
        update(PasswordReset)
        .where(PasswordReset.id == record.id, PasswordReset.used_at.is_(None),
               PasswordReset.voided_at.is_(None), PasswordReset.expires_at > now)
        .values(used_at=now).execution_options(synchronize_session=False)).rowcount == 1


def complete_reset(secret, password, confirmation, client):
    """Set the new password through the link ``secret``; returns ``(user, problem)``.

    ``problem`` is UNKNOWN or GONE when the link cannot be used (nothing
    changes); a password that breaks the rule or a confirmation that differs
    raises ValidationFailed (the link stays usable).
    """
    record, problem = find_link(secret)
    if problem:
        return None, problem
    errors = {}
    problems = password_problems(password, record.user.email)
    if problems:
        errors["password"] = problems
    if password != confirmation:
        errors["confirmation"] = [messages.PASSWORD_MISMATCH]
    if errors:
        raise ValidationFailed(errors)
    if not _claim(record):
        return None, GONE
    user = set_password(record.user, password, actor=record.user, client=client, reset=True)
    user.failures_cleared_at = clock.utcnow()  # the owner is back in: every throttle count starts afresh
    return user, None
