"""Accounts and personal access tokens: every rule that does not need HTTP."""
import hashlib
import secrets
from datetime import timedelta

from sqlalchemy import bindparam, select, update

from guardsvc import messages
from guardsvc.storage import clock
from guardsvc.storage.inserts import as_entity, columns_of
from guardsvc.storage.statements import Prepared
from guardsvc.accounts import notices, passwords
from guardsvc.accounts.models import ApiToken, User
from guardsvc.accounts.password_rule import check_password
from guardsvc.accounts.roles import ROLES, USER
from guardsvc.audit.service import record_event
from guardsvc.web.errors import Conflict, NotFound, Unauthorized, ValidationFailed
from guardsvc.extensions import db
from guardsvc.sessions import service as sessions

TOKEN_PREFIX = "gsv_"
# last_used_at is refreshed at most this often, so reads do not become writes.
LAST_USED_RESOLUTION = timedelta(seconds=60)


def normalize_email(email):
    return email.strip().lower()


def find_user_by_email(email):
    """The user with this e-mail (any case), or None."""
    return db.session.scalar(select(User).where(User.email == normalize_email(email)))


def create_user(email, name, password, role=USER):
    """Create an account; the password must pass the password rule and is stored only as an Argon2id hash."""
    if role not in ROLES:
        raise ValidationFailed({"role": [messages.FIELD_BAD_CHOICE.format(choices=", ".join(ROLES))]})
    if find_user_by_email(email) is not None:
        raise Conflict(messages.EMAIL_TAKEN)
    check_password(password, email)
    user = User(email=normalize_email(email), name=name.strip(),
                password_hash=passwords.hash_password(password), role=role)
    db.session.add(user)
    db.session.flush()
    return user


def authenticate(email, password):
    """Return the active user with these credentials, else raise Unauthorized.

    The message never says whether the e-mail exists.
    """
    return verify_credentials(find_user_by_email(email), password)


def verify_credentials(user, password):
    """``authenticate`` for an account already looked up (None: the e-mail named none).

    An unknown account costs one password verification too, so timing tells nothing.
    """
    if user is None:
        passwords.burn_time(password)
        raise Unauthorized(messages.BAD_CREDENTIALS)
    if not passwords.verify_password(user.password_hash, password) or not user.is_active:
        raise Unauthorized(messages.BAD_CREDENTIALS)
    if passwords.needs_rehash(user.password_hash):
        user.password_hash = passwords.hash_password(password)
    return user


def end_all_sessions(user, *, keep=None):
    """End every browser session of ``user`` at once, but ``keep`` (None: the caller's too)."""
    sessions.end_sessions(user, keep=keep)
    return user


def audit_account(action, user, *, actor, client, **details):
    """Add an audit entry about ``user`` (named by id, with the e-mail in the details)."""
    return record_event(action, user.audit_target, actor=actor,
                        ip_address=client.ip_address if client else None,
                        details={"email": user.email, **details})


def set_password(user, password, *, actor, client, field="password", reset=False, keep_session=None):
    """The one place a password changes: the password rule, the new hash, every session ended, the notice.

    ``actor`` is who acts (the user; another account or None for the command
    line is an administrator, and that is audited); ``client`` where from
    (None: the command line). ``reset`` says the forgotten-password link was
    used, which the notice tells apart. Rule failures name ``field``. Every
    session ends but ``keep_session`` (the browser that changed it, if any).
    """
    check_password(password, user.email, field)
    user.password_hash = passwords.hash_password(password)
    end_all_sessions(user, keep=keep_session)
    if actor is None or actor.id != user.id:
        audit_account("user.password_set", user, actor=actor, client=client)
    if reset:
        notices.password_reset(user, client=client)
    else:
        notices.password_changed(user, client=client)
    return user


def hash_token(token):
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def create_token(user, name=None, *, client):
    """Issue a personal access token; returns ``(plain_token, record)``.

    The plain token is returned once here and never stored. The owner is told
    by e-mail, with where it came from (``client``; None: the command line).
    """
    plain = TOKEN_PREFIX + secrets.token_urlsafe(32)
    record = ApiToken(user_id=user.id, name=(name or "").strip() or messages.DEFAULT_TOKEN_NAME,
                      token_hash=hash_token(plain), prefix=plain[:10])
    db.session.add(record)
    db.session.flush()
    notices.token_created(user, record, client=client)
    return plain, record


# One statement, built once: the owner and the two token columns the request needs (a bearer
# request is a hot path; the token itself is never loaded as an object).
_USER_COLUMNS, _USER_NAMES = columns_of(User)
_TOKEN_OWNER = Prepared(select(*_USER_COLUMNS, ApiToken.id.label("token_id"),
                               ApiToken.last_used_at.label("token_last_used_at"))
                        .join(ApiToken, ApiToken.user_id == User.id)
                        .where(ApiToken.token_hash == bindparam("token_hash"), ApiToken.revoked_at.is_(None)))


def user_for_token(plain):
    """The active user owning this unrevoked token, or None."""
    if not plain or not plain.startswith(TOKEN_PREFIX) or len(plain) > 128:
        return None
    row = _TOKEN_OWNER.first({"token_hash": hash_token(plain)})
    if row is None:
        return None
    user = as_entity(User, _USER_NAMES, row[:len(_USER_NAMES)])
    if not user.is_active:
        return None
    _touch_token(row.token_id, row.token_last_used_at)
    return user


def _touch_token(token_id, last_used_at):
    now = clock.utcnow()
    if last_used_at is not None and now - last_used_at < LAST_USED_RESOLUTION:
        return
    # Part of the request's own unit of work; at most one write a minute.
    db.session.execute(update(ApiToken.__table__).where(ApiToken.__table__.c.id == token_id)
                       .values(last_used_at=now))


def list_tokens(user):
    """The user's tokens, newest first (revoked ones included, marked)."""
    return db.session.scalars(
        select(ApiToken).where(ApiToken.user_id == user.id).order_by(ApiToken.id.desc())).all()


def revoke_token(user, token_id):
    """Revoke one of the user's own tokens (another user's: NotFound)."""
    record = db.session.get(ApiToken, token_id)
    if record is None or record.user_id != user.id:
        raise NotFound(messages.TOKEN_NOT_FOUND)
    if record.revoked_at is None:
        record.revoked_at = clock.utcnow()
    return record


def revoke_all_tokens(user):
    """Revoke every unrevoked token of ``user``; returns how many."""
    tokens = db.session.scalars(select(ApiToken).where(ApiToken.user_id == user.id,
                                                      ApiToken.revoked_at.is_(None))).all()
    now = clock.utcnow()
    for record in tokens:
        record.revoked_at = now
    return len(tokens)
