"""Passkeys of an account: add, list, remove, and use one (to sign in or as a second factor).

The doors pass the browser's response as it came; the ceremonies and their
checks are in ``ceremony.py``. A sign count that goes backwards (a copied
authenticator, or a replay) is refused and the owner is told, once the
signature proved the response came from that credential.
"""
import secrets

from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError
from webauthn.helpers import base64url_to_bytes, bytes_to_base64url

from guardsvc import messages
from guardsvc.accounts import notices
from guardsvc.accounts.models import User
from guardsvc.accounts.roles import ADMIN
from guardsvc.accounts.service import audit_account
from guardsvc.extensions import db
from guardsvc.passkeys import ceremony
from guardsvc.passkeys.ceremony import PasskeyRefused
from guardsvc.passkeys.models import NAME_MAX, PASSWORDLESS, SECOND_FACTOR, Passkey
from guardsvc.storage import clock
from guardsvc.web.errors import InvalidState, NotFound

__all__ = ["PasskeyRefused", "PASSWORDLESS", "SECOND_FACTOR"]


def list_passkeys(user):
    """The account's passkeys, oldest first."""
    return db.session.scalars(select(Passkey).where(Passkey.user_id == user.id)
                              .order_by(Passkey.created_at, Passkey.id)).all()


def has_passkeys(user):
    """True when the account has at least one passkey."""
    return db.session.scalar(select(Passkey.id).where(Passkey.user_id == user.id).limit(1)) is not None


def get_own(user, passkey_id):
    """One of the account's own passkeys (another account's, or none: NotFound)."""
    passkey = db.session.get(Passkey, passkey_id)
    if passkey is None or passkey.user_id != user.id:
        raise NotFound(messages.PASSKEY_NOT_FOUND)
    return passkey


def _user_handle(user, existing):
    """The account's WebAuthn user handle: the one its passkeys carry, else a new random one."""
    return existing[0].user_handle if existing else bytes_to_base64url(secrets.token_bytes(32))


def begin_registration(user):
    """Options for adding a passkey to ``user`` (for ``navigator.credentials.create()``)."""
    existing = list_passkeys(user)
    return ceremony.registration_options(user, _user_handle(user, existing), existing)


def _clean_name(name, count):
    name = (name or "").strip()[:NAME_MAX]  # the forms' schema already refused longer names
    return name or messages.DEFAULT_PASSKEY_NAME.format(number=count + 1)


def add_passkey(user, response, name=None, *, client):
    """Store the passkey of a ``create()`` response for ``user``; audited, the owner is told."""
    existing = list_passkeys(user)
    name = _clean_name(name, len(existing))
    verified, transports, user_handle = ceremony.verify_registration(user, response)
    passkey = Passkey(user_id=user.id, credential_id=bytes_to_base64url(verified.credential_id),
                      public_key=verified.credential_public_key, user_handle=user_handle,
                      sign_count=verified.sign_count, transports=",".join(transports),
                      backed_up=verified.credential_backed_up, name=name, created_at=clock.utcnow())
    try:
        with db.session.begin_nested():  # the same authenticator offered twice, perhaps at once
            db.session.add(passkey)
    except IntegrityError:
        raise PasskeyRefused(messages.PASSKEY_ALREADY_ADDED, user=user) from None
    audit_account("passkey.added", user, actor=user, client=client, passkey=name, passkey_id=passkey.id)
    notices.passkey_added(user, name, client=client)
    return passkey


def remove_passkey(user, passkey_id, *, actor, client):
    """Remove one of the account's passkeys (``actor`` None: the command line); audited, the owner is told."""
    passkey = get_own(user, passkey_id)
    name = passkey.name
    db.session.delete(passkey)
    db.session.flush()
    audit_account("passkey.removed", user, actor=actor, client=client, passkey=name, passkey_id=passkey_id)
    notices.passkey_removed(user, name, client=client)
    return name


def begin_authentication(purpose, user=None):
    """Options for using a passkey: any discoverable one (passwordless), or one of ``user``'s."""
    passkeys = []
    if purpose != PASSWORDLESS:
        passkeys = list_passkeys(user)
        if not passkeys:
            raise InvalidState(messages.PASSKEY_NONE)
    return ceremony.authentication_options(purpose, user if purpose != PASSWORDLESS else None, passkeys)


def _find(credential_id):
    if not isinstance(credential_id, str) or len(credential_id) > 1400:
        return None
    return db.session.scalar(select(Passkey).where(Passkey.credential_id == credential_id))


def _handle_fits(handle, passkey, purpose):
    """The assertion's ``userHandle`` names the credential's account.

    A passwordless sign-in must carry it (WebAuthn: a discoverable credential
    always returns it, and it is what names the account); at a second step,
    where the account is already known, an authenticator may leave it out.
    """
    if handle is None:
        return purpose != PASSWORDLESS
    return handle == base64url_to_bytes(passkey.user_handle)


def use_passkey(response, purpose, *, user=None, client):
    """Check a ``get()`` response; returns the passkey used (its account is ``passkey.user``).

    ``purpose`` SECOND_FACTOR needs ``user`` and a passkey of that account;
    PASSWORDLESS finds the account from the credential and needs user
    verification and a ``userHandle`` of the credential's account. Raises PasskeyRefused,
    with ``user`` set whenever the account is known.
    """
    credential, credential_id, handle = ceremony.read_assertion(response)
    passkey = _find(credential_id)
    if passkey is None or (user is not None and passkey.user_id != user.id):
        raise PasskeyRefused(messages.PASSKEY_UNKNOWN, user=user)
    if not _handle_fits(handle, passkey, purpose):
        raise PasskeyRefused(user=passkey.user)
    verified = ceremony.verify_assertion(credential, passkey, purpose, user)
    stored, new = passkey.sign_count, verified.new_sign_count
    if (stored or new) and new <= stored:
        audit_account("passkey.sign_count_back", passkey.user, actor=None, client=client, passkey=passkey.name,
                      passkey_id=passkey.id, stored=stored, presented=new)
        notices.passkey_sign_count_back(passkey.user, passkey.name, client=client)
        raise PasskeyRefused(messages.PASSKEY_SIGN_COUNT_BACK, user=passkey.user, proven=True)
    passkey.sign_count = new
    passkey.backed_up = verified.credential_backed_up
    passkey.last_used_at = clock.utcnow()
    audit_account("passkey.used", passkey.user, actor=passkey.user, client=client, passkey=passkey.name,
                  passkey_id=passkey.id, purpose=purpose)
    db.session.flush()
    return passkey


def count_passkey_holders():
    """How many accounts, and how many administrators, have at least one passkey."""
    holders = select(Passkey.user_id).distinct().subquery()
    row = db.session.execute(
        select(func.count(), func.count().filter(User.role == ADMIN))
        .select_from(User).join(holders, holders.c.user_id == User.id)).one()
    return {"accounts": row[0], "admins": row[1]}
