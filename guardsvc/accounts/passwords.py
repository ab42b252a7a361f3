"""Password hashing with Argon2id (memory-hard)."""
from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

_hasher = PasswordHasher()
# Verified against when the e-mail is unknown, so both paths cost the same.
_DUMMY_HASH = _hasher.hash("guardsvc-timing-equaliser")


def hash_password(password):
    return _hasher.hash(password)


def verify_password(password_hash, password):
    """True when ``password`` matches; never raises for a wrong password."""
    try:
        return _hasher.verify(password_hash or _DUMMY_HASH, password)
    except (VerificationError, InvalidHashError):
        return False


def needs_rehash(password_hash):
    return _hasher.check_needs_rehash(password_hash)


def burn_time(password):
    """Spend the time of one verification (unknown user), so timing tells nothing."""
    verify_password(_DUMMY_HASH, password)
