"""Protecting an account: change the password, sign out everywhere, read the history."""
from sqlalchemy import select

from guardsvc import messages
from guardsvc.accounts import passwords
from guardsvc.errors import ValidationFailed
from guardsvc.extensions import db
from guardsvc.signin.models import LoginEvent

PASSWORD_MIN = 10
PASSWORD_MAX = 256


def sign_out_everywhere(user):
    """End every session of the user (all browsers, this one too)."""
    user.session_epoch = (user.session_epoch or 0) + 1
    db.session.flush()
    return user


def change_password(user, current_password, new_password, confirmation):
    """Set a new password (the current one is required); every other session ends."""
    errors = {}
    if not passwords.verify_password(user.password_hash, current_password or ""):
        errors["current_password"] = [messages.WRONG_PASSWORD]
    if len(new_password or "") < PASSWORD_MIN:
        errors["new_password"] = [messages.PASSWORD_TOO_SHORT.format(min=PASSWORD_MIN)]
    elif len(new_password) > PASSWORD_MAX:
        errors["new_password"] = [messages.FIELD_TOO_LONG.format(max=PASSWORD_MAX)]
    elif new_password == current_password:
        errors["new_password"] = [messages.PASSWORD_UNCHANGED]
    if new_password != confirmation:
        errors["confirmation"] = [messages.PASSWORD_MISMATCH]
    if errors:
        raise ValidationFailed(errors)
    user.password_hash = passwords.hash_password(new_password)
    return sign_out_everywhere(user)


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
