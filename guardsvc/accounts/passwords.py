"""Password hashing with Argon2id (memory-hard), at most ``HASH_CONCURRENCY`` at once per process.

A hash costs tens of milliseconds of CPU and 64 MiB. Beyond the cap a request
is refused at once (503 with Retry-After) instead of waiting in a queue that a
flood of guesses would grow without end; the throttles run before any hash.
"""
import threading
from contextlib import contextmanager

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from flask import current_app, has_app_context

from guardsvc.web.errors import HashingBusy

# argon2-cffi's defaults: RFC 9106's low-memory profile (64 MiB, 3 passes, 4 lanes).
PRODUCTION = PasswordHasher()
# The smallest costs Argon2id allows. Only for test suites, which hash thousands
# of passwords; never reachable unless TESTING_CHEAP_PASSWORD_HASHES is set.
CHEAP_FOR_TESTS = PasswordHasher(time_cost=1, memory_cost=8, parallelism=1)

# Verified against when the e-mail is unknown, so both paths cost the same. Made
# on first use: hashing at import would slow every process start by a full hash.
_dummy_hashes = {}


def _hasher():
    if has_app_context() and current_app.config.get("TESTING_CHEAP_PASSWORD_HASHES"):
        return CHEAP_FOR_TESTS
    return PRODUCTION


def _dummy_hash(hasher):
    if hasher not in _dummy_hashes:
        _dummy_hashes[hasher] = hasher.hash("guardsvc-timing-equaliser")
    return _dummy_hashes[hasher]


_slots = {}
_slots_lock = threading.Lock()


def _semaphore():
    size = current_app.config["HASH_CONCURRENCY"] if has_app_context() else 2
    with _slots_lock:
        if size not in _slots:
            _slots[size] = threading.BoundedSemaphore(size)
        return _slots[size]


@contextmanager
def hashing_slot():
    """Hold one of the process's hashing slots, or raise HashingBusy (503) when none is free."""
    slot = _semaphore()
    if not slot.acquire(blocking=False):
        raise HashingBusy()
    try:
        yield
    finally:
        slot.release()


def hash_password(password):
    with hashing_slot():
        return _hasher().hash(password)


def verify_password(password_hash, password):
    """True when ``password`` matches; never raises for a wrong password (HashingBusy when no slot is free)."""
    hasher = _hasher()
    stored = password_hash or _dummy_hash(hasher)
    with hashing_slot():
        try:
            return hasher.verify(stored, password)
        except (VerificationError, InvalidHashError):
            return False


def needs_rehash(password_hash):
    """True when the hash was made with other costs than the current ones (it is upgraded at sign-in)."""
    return _hasher().check_needs_rehash(password_hash)


def burn_time(password):
    """Spend the time of one verification (unknown user), so timing tells nothing."""
    verify_password(_dummy_hash(_hasher()), password)
