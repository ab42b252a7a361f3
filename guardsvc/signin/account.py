"""Protecting an account: change the password, sign out everywhere, read the history."""
from sqlalchemy import select

from guardsvc import messages
from guardsvc.accounts import passwords
from guardsvc.accounts import service as accounts
from guardsvc.accounts.password_rule import password_problems
from guardsvc.errors import ValidationFailed
from guardsvc.extensions import db
from guardsvc.signin.models import LoginEvent


def sign_out_everywhere(user):
    """End every session of the user (all browsers, this one too)."""
    return accounts.end_all_sessions(user)


def change_password(user, current_password, new_password, confirmation, *, client):
    """Set a new password (the current one is required); every session ends and the owner is told."""
    errors = {}
    if not passwords.verify_password(user.password_hash, current_password or ""):
        errors["current_password"] = [messages.WRONG_PASSWORD]
    problems = password_problems(new_password, user.email)
    if problems:
        errors["new_password"] = problems
    elif new_password == current_password:
        errors["new_password"] = [messages.PASSWORD_UNCHANGED]
    if new_password != confirmation:
        errors["confirmation"] = [messages.PASSWORD_MISMATCH]
    if errors:
        raise ValidationFailed(errors)
    return accounts.set_password(user, new_password, actor=user, client=client, field="new_password")


def recent_sign_ins(user, limit=20):
    """The user's latest sign-in attempts, newest first."""
    return db.session.scalars(select(LoginEvent).where(LoginEvent.user_id == user.id)
                              .order_by(LoginEvent.created_at.desc(), LoginEvent.id.desc())
                              .limit(limit)).all()


def all_sign_ins(limit=100, offset=0, result=None):
    """Every account's sign-in attempts, newest first (administrators)."""
    query = select(LoginEvent)
    if result:
        query = query.where(LoginEvent.result == result)
    return db.session.scalars(query.order_by(LoginEvent.created_at.desc(), LoginEvent.id.desc())
                              .limit(limit).offset(offset)).all()
