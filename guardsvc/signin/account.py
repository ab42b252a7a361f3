"""Protecting an account: change the password, read the history."""
from sqlalchemy import select

from guardsvc import messages
from guardsvc.accounts import passwords
from guardsvc.accounts import resets
from guardsvc.accounts import service as accounts
from guardsvc.accounts.password_rule import password_problems
from guardsvc.web.errors import ValidationFailed
from guardsvc.extensions import db
from guardsvc.signin.models import LoginEvent
from guardsvc.trust import service as trust


def _password_errors(user, new_password, confirmation):
    errors = {}
    problems = password_problems(new_password, user.email)
    if problems:
        errors["new_password"] = problems
    elif passwords.verify_password(user.password_hash, new_password):
        errors["new_password"] = [messages.PASSWORD_UNCHANGED]
    if confirmation is not None and new_password != confirmation:
        errors["confirmation"] = [messages.PASSWORD_MISMATCH]
    return errors


def change_password(user, new_password, *, client, confirmation=None, keep_session=None,
                    revoke_tokens=False, revoke_devices=False, reset=False):
    """Set a new password; every session but ``keep_session`` ends (None: every one).

    With ``revoke_tokens`` every personal access token is revoked too, with
    ``revoke_devices`` every trusted device. The caller has made sure it is the
    owner (a recent re-authentication, or a reset link: ``reset``). ``confirmation``,
    when given, must repeat the new password. The owner is told by e-mail.
    """
    errors = _password_errors(user, new_password, confirmation)
    if errors:
        raise ValidationFailed(errors)
    accounts.set_password(user, new_password, actor=user, client=client, field="new_password",
                          reset=reset, keep_session=keep_session)
    return revoke_access(user, tokens=revoke_tokens, devices=revoke_devices)


def complete_reset(secret, password, confirmation, client, *, revoke_tokens=False, revoke_devices=False):
    """Use a reset link (``accounts.resets.complete_reset``); then revoke what the owner ticked.

    Returns ``(user, problem)`` like the link itself.
    """
    user, problem = resets.complete_reset(secret, password, confirmation, client)
    if user is not None:
        revoke_access(user, tokens=revoke_tokens, devices=revoke_devices)
    return user, problem


def revoke_access(user, *, tokens=False, devices=False):
    """Revoke every personal access token and/or every trusted device of ``user``."""
    if tokens:
        accounts.revoke_all_tokens(user)
    if devices:
        trust.revoke_all(user)
    db.session.flush()
    return user


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
