"""Account care by operators: listing accounts, roles, disabling and enabling (each audited).

``actor`` is the administrator who acts (None: the command line) and
``client`` where from (None: the command line), as everywhere in services.
"""
from sqlalchemy import select, update

from guardsvc import messages
from guardsvc.storage import clock
from guardsvc.accounts import notices
from guardsvc.accounts.models import ApiToken, User
from guardsvc.accounts.roles import ROLES
from guardsvc.accounts.service import audit_account, create_user, end_all_sessions
from guardsvc.web.errors import ValidationFailed
from guardsvc.extensions import db


def _audit(action, user, actor, client, **details):
    return audit_account(action, user, actor=actor, client=client, **details)


def list_users():
    """Every account, oldest first."""
    return db.session.scalars(select(User).order_by(User.id)).all()


def create_account(email, name, password, role, *, actor, client):
    """Create an account (password rule applies) and audit it."""
    user = create_user(email, name, password, role)
    _audit("user.created", user, actor, client, role=role)
    return user


def set_role(user, role, *, actor, client):
    """Give ``user`` another role (audited); the same role again changes nothing."""
    if role not in ROLES:
        raise ValidationFailed({"role": [messages.FIELD_BAD_CHOICE.format(choices=", ".join(ROLES))]})
    if user.role != role:
        _audit("user.role_set", user, actor, client, old=user.role, new=role)
        user.role = role
        db.session.flush()
    return user


def revoke_all_tokens(user):
    """Revoke every token of ``user`` still in force; returns how many."""
    return db.session.execute(
        update(ApiToken).where(ApiToken.user_id == user.id, ApiToken.revoked_at.is_(None))
        .values(revoked_at=clock.utcnow()).execution_options(synchronize_session=False)).rowcount


def disable_account(user, *, actor, client):
    """Disable ``user``: no sign-in, every session ended, every token revoked; audited, owner told."""
    if not user.is_active:
        return user
    user.is_active = False
    end_all_sessions(user)
    revoked = revoke_all_tokens(user)
    _audit("user.disabled", user, actor, client, tokens_revoked=revoked)
    notices.account_disabled(user, client=client)
    return user


def enable_account(user, *, actor, client):
    """Let ``user`` sign in again (tokens revoked on disabling stay revoked); audited."""
    if not user.is_active:
        user.is_active = True
        db.session.flush()
        _audit("user.enabled", user, actor, client)
    return user


def revoke_any_token(token_id, *, actor, client):
    """Revoke a token of any account by its id (audited), or None when there is no such token."""
    record = db.session.get(ApiToken, token_id)
    if record is None:
        return None
    if record.revoked_at is None:
        record.revoked_at = clock.utcnow()
        _audit("token.revoked", record.user, actor, client, token_id=record.id, token_name=record.name)
    return record
