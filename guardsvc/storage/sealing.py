"""Secrets at rest: TOTP secrets encrypted, recovery codes under a keyed hash.

Both keys are derived from ``SECRET_KEY`` with HKDF-SHA256, one per purpose,
so there is no second key file to keep (and lose) beside it. TOTP secrets are
Fernet tokens (AES-128-CBC with HMAC-SHA256); recovery codes are stored as
HMAC-SHA256 of the SHA-256 of the normalized code, so a copy of the database
alone neither reads a secret nor checks a guessed code.

Rotating ``SECRET_KEY``: list the old key in ``SECRET_KEY_FALLBACKS``
(``GUARDSVC_SECRET_KEY_FALLBACKS``). Secrets sealed under it still open, codes
hashed under it still match, and Flask accepts sessions it signed; whatever is
written anew uses the new key. Drop the old key once ``flask twofactor reseal``
has sealed every TOTP secret again under the new key (recovery codes keep the
key they were issued under until they are replaced). A key that is lost, or
removed too early, leaves those secrets unreadable: the sign-in of such an
account fails loudly (``SecretUnreadable``) rather than skipping its code.
"""
import base64
import functools
import hashlib
import hmac

from cryptography.fernet import Fernet, InvalidToken, MultiFernet
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from flask import current_app
from sqlalchemy import String, select
from sqlalchemy.orm.attributes import flag_modified
from sqlalchemy.types import TypeDecorator

from guardsvc.extensions import db

TOTP_SECRETS = b"guardsvc totp secrets"
RECOVERY_CODES = b"guardsvc recovery codes"


class SecretUnreadable(RuntimeError):
    """A sealed secret opens under none of the configured keys."""


def secret_keys(config=None):
    """The current secret key first, then the fallbacks still accepted."""
    config = current_app.config if config is None else config
    return [config["SECRET_KEY"], *(config.get("SECRET_KEY_FALLBACKS") or [])]


@functools.lru_cache(maxsize=32)
def derive_key(secret_key, purpose):
    """32 bytes for ``purpose`` from ``secret_key`` (HKDF-SHA256, no salt: the key is random)."""
    raw = secret_key.encode("utf-8") if isinstance(secret_key, str) else secret_key
    return HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=purpose).derive(raw)


def _fernet(config):
    return MultiFernet([Fernet(base64.urlsafe_b64encode(derive_key(key, TOTP_SECRETS)))
                        for key in secret_keys(config)])


def seal(plain, config=None):
    """Encrypt ``plain`` under the current key; returns ASCII text."""
    return _fernet(config).encrypt(plain.encode("utf-8")).decode("ascii")


def unseal(sealed, config=None):
    """Decrypt what ``seal`` made under the current key or a fallback."""
    try:
        return _fernet(config).decrypt(sealed.encode("ascii")).decode("utf-8")
    except (InvalidToken, UnicodeError) as exc:
        raise SecretUnreadable("a sealed secret opens under no configured key: was SECRET_KEY "
                               "changed without listing the old one in "
                               "GUARDSVC_SECRET_KEY_FALLBACKS?") from exc


def reseal(sealed, config=None):
    """The same secret sealed under the current key (for key rotation)."""
    try:
        return _fernet(config).rotate(sealed.encode("ascii")).decode("ascii")
    except InvalidToken as exc:
        raise SecretUnreadable("a sealed secret opens under no configured key") from exc


def reseal_rows(model, attribute):
    """Seal the ``SealedString`` column ``attribute`` of every ``model`` row again under the current key.

    After a key rotation: each value is written again, so ``seal`` uses the new
    key. Returns how many rows were resealed.
    """
    rows = db.session.scalars(select(model).where(getattr(model, attribute).is_not(None))).all()
    for row in rows:
        flag_modified(row, attribute)
    db.session.flush()
    return len(rows)


def keyed_digest(digest_hex, secret_key):
    """HMAC-SHA256 of an (unkeyed) SHA-256 hex digest under the recovery-code key of ``secret_key``."""
    return hmac.new(derive_key(secret_key, RECOVERY_CODES), digest_hex.encode("ascii"),
                    hashlib.sha256).hexdigest()


def code_digests(normalized_code, config=None):
    """What a recovery code is stored as: under the current key first, then under each fallback."""
    plain = hashlib.sha256(normalized_code.encode("utf-8")).hexdigest()
    return [keyed_digest(plain, key) for key in secret_keys(config)]


class SealedString(TypeDecorator):
    """A string column stored encrypted (``seal``); Python code sees the plain text."""

    impl = String
    cache_ok = True

    def process_bind_param(self, value, dialect):
        return None if value is None else seal(value)

    def process_result_value(self, value, dialect):
        return None if value is None else unseal(value)
