"""Passwords known from breaches, checked offline against a Bloom filter in the instance folder.

``flask passwords load-breached`` builds the filter from a Pwned Passwords
list (accounts/breached_load.py). A password is on it when the SHA-1 of its
UTF-8 bytes is: the check hashes locally and sends nothing anywhere. The filter
(rbloom, a Rust Bloom filter) answers "listed" for about one unlisted password
in ten million and never misses a listed one; it is sized for the list when
it is built (``FALSE_POSITIVE_RATE``), and measured in bench/breached_passwords.py.

Each process reads the file when it first checks a password and again when
the file changes (a new load replaces it atomically); no file: nothing is listed.
"""
import hashlib
import logging
from pathlib import Path

import rbloom
from flask import current_app, has_app_context

from guardsvc.storage.watched_file import WatchedFile

log = logging.getLogger("guardsvc.passwords")
FILE_NAME = "breached-passwords.bloom"
# The rate the filter is built for. rbloom's filters come out somewhat above their target
# (1e-6 gave 1.8 per million in our measurement), so the target is ten times lower than the
# one in a million the filter must stay below.
FALSE_POSITIVE_RATE = 1e-7
RECHECK_SECONDS = 1.0
_OFFSET = 1 << 127


def key_of(sha1_digest):
    """The filter's key of a SHA-1 digest: its first 128 bits as a signed integer (rbloom's hash width)."""
    return int.from_bytes(sha1_digest[:16], "big") - _OFFSET


def keep_key(key):
    """rbloom's hash function: the keys are already uniform (SHA-1), so each is its own hash."""
    return key


def filter_path(app=None):
    """Where the filter lives: ``GUARDSVC_BREACHED_PASSWORDS_FILE``, else the instance folder."""
    app = app or current_app
    return Path(app.config.get("BREACHED_PASSWORDS_FILE") or Path(app.instance_path) / FILE_NAME)


def facts_path(app=None):
    """What the last load said about itself, beside the filter."""
    return filter_path(app).with_suffix(".json")


def _report(path, bloom, error):
    if error is not None and not isinstance(error, FileNotFoundError):
        log.error("breached-password list %s cannot be read (%s): no password counts as breached", path, error)


_FILTER = WatchedFile(lambda path: rbloom.Bloom.load(str(path), keep_key), _report, recheck_seconds=RECHECK_SECONDS)


def is_breached(password):
    """True when ``password`` is on the loaded breach list (or, about once in ten million, looks so)."""
    if not isinstance(password, str) or not has_app_context():  # no app, no instance folder: no list
        return False
    bloom = _FILTER.current(filter_path())
    if bloom is None:
        return False
    return key_of(hashlib.sha1(password.encode("utf-8")).digest()) in bloom
