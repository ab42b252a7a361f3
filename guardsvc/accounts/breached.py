"""Passwords known from breaches, checked offline against a Bloom filter in the instance folder.

``flask passwords load-breached`` builds the filter from a Pwned Passwords
list (accounts/breached_load.py). A password is on it when the SHA-1 of its
UTF-8 bytes is: the check hashes locally and sends nothing anywhere. The filter
(rbloom, a Rust Bloom filter) answers "listed" for about one unlisted password
in ten million and never misses a listed one; it is sized for the list when
it is built (``FALSE_POSITIVE_RATE``), and measured in bench/breached_passwords.py.

The file is rbloom's own bytes behind a header holding their SHA-256 (``MAGIC``),
so a damaged file is found out: rbloom itself reads any bytes as some filter.
A file without the header (written before it existed) is read when its shape is
rbloom's. The SHA-256 is the filter's fingerprint: what a process answers from.

Each process reads the file when it first checks a password and again when
the file changes (a new load replaces it atomically). No file: nothing is
listed. A file the process cannot read (damaged, or not readable by its user)
never silently lists nothing (contract section 16): a server refuses to start
on it and a command that sets a password refuses to run
(``breached_list_problem``); a process that read a good filter before keeps
answering from it, and says so in its log, in ``/metrics``
(``guardsvc_breached_list_unreadable``) and to ``passwords breached-status``
(``on_change``: serving processes report what they answer from).
"""
import hashlib
import logging
from dataclasses import dataclass, field
from functools import lru_cache
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
MAGIC = b"guardsvc-breached-bloom-1\n"
_DIGEST_BYTES = 32
_OFFSET = 1 << 127
LOAD_COMMAND = "flask --app guardsvc passwords load-breached LIST"


def key_of(sha1_digest):
    """The filter's key of a SHA-1 digest: its first 128 bits as a signed integer (rbloom's hash width)."""
    return int.from_bytes(sha1_digest[:16], "big") - _OFFSET


def keep_key(key):
    """rbloom's hash function: the keys are already uniform (SHA-1), so each is its own hash."""
    return key


def filter_path(app=None):
    """Where the filter lives: ``GUARDSVC_BREACHED_PASSWORDS_FILE``, else the instance folder."""
    app = app or current_app
    return path_in(app.config, app.instance_path)


def path_in(config, instance_folder):
    """The filter's path for these settings (``BREACHED_PASSWORDS_FILE``) and instance folder."""
    return _path(config.get("BREACHED_PASSWORDS_FILE"), instance_folder)


@lru_cache(maxsize=64)
def _path(setting, instance_folder):
    """One Path object per setting and folder: a serving process asks for it on every request."""
    return Path(setting or Path(instance_folder) / FILE_NAME)


def facts_path(app=None):
    """What the last load said about itself, beside the filter."""
    return filter_path(app).with_suffix(".json")


def filter_bytes(bloom):
    """(the file's content for ``bloom``: the header, the SHA-256 of rbloom's bytes, the bytes; its fingerprint)."""
    payload = bloom.save_bytes()
    digest = hashlib.sha256(payload)
    return MAGIC + digest.digest() + payload, digest.hexdigest()


class Damaged(ValueError):
    """The file is not a filter written by ``load-breached`` (cut short, overwritten, another file)."""


def parse_filter(data):
    """(the filter, its fingerprint) from a file's bytes; Damaged when they are not a whole filter."""
    if data.startswith(MAGIC):
        digest, payload = data[len(MAGIC):len(MAGIC) + _DIGEST_BYTES], data[len(MAGIC) + _DIGEST_BYTES:]
        if hashlib.sha256(payload).digest() != digest:
            raise Damaged("its content does not match its checksum: the file is damaged or cut short")
    else:
        payload = data
    # rbloom's bytes: the number of hash functions (8 bytes, little-endian), then the bits. rbloom
    # reads whatever it is given, and stops the process on fewer than 8 bytes: checked here.
    hashes = int.from_bytes(payload[:8], "little")
    if len(payload) <= 8 or not 1 <= hashes <= 64:
        raise Damaged("it is not a breached-password filter")
    return rbloom.Bloom.load_bytes(payload, keep_key), hashlib.sha256(payload).hexdigest()


def read_filter(path):
    """(the filter, its fingerprint) read from ``path``; OSError or Damaged when it cannot be."""
    return parse_filter(Path(path).read_bytes())


def unreadable_text(path, reason):
    """What an operator reads about a filter that cannot be read: the file, why, and the fix."""
    return (f"the breached-password list {path} cannot be read ({reason}): load it again with `{LOAD_COMMAND}` "
            f"(it writes the file readable by the service's user), give the user guardsvc runs as read access "
            f"to it, or remove it to run without a list")


@dataclass(frozen=True)
class Filter:
    """A filter read from the file, with its fingerprint: two with the same fingerprint are the same list
    (a file written again with the same list changes nothing serving processes report)."""

    bloom: rbloom.Bloom = field(compare=False)
    fingerprint: str


def _problem(path, exc):
    return unreadable_text(path, exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc))


def _report(path, loaded, error):
    """Log what the filter of this process became when that is bad news (a good load is quiet)."""
    if error is None:
        if loaded is None:
            log.warning("the breached-password list %s is gone: no password counts as breached", path)
    elif loaded is not None:
        log.error("%s; this process keeps answering from the list it read at %s (fingerprint %s)",
                  _FILTER.problem, _FILTER.loaded_at.isoformat(), loaded.fingerprint[:16])
    else:
        log.error("%s; until then no password counts as breached in this process", _FILTER.problem)


# The filter of this process: its last good one is kept while the file cannot be read; no file is no list.
# ``on_change`` is set by serving processes, which report what they answer from (breached_readers.py).
_FILTER = WatchedFile(lambda path: Filter(*read_filter(path)), _report, recheck_seconds=RECHECK_SECONDS,
                      keep=True, missing_is_nothing=True, describe=_problem)


def snapshot():
    """What this process answers from now, without reading the file: state, fingerprint, when read, the
    problem, the file."""
    now = _FILTER.snapshot()
    loaded = now.pop("value")
    return {**now, "fingerprint": loaded.fingerprint if loaded else None,
            "path": str(now["path"]) if now["path"] else None}


def is_breached(password):
    """True when ``password`` is on the loaded breach list (or, about once in ten million, looks so)."""
    if not isinstance(password, str) or not has_app_context():  # no app, no instance folder: no list
        return False
    loaded = _FILTER.current(filter_path())
    return loaded is not None and key_of(hashlib.sha1(password.encode("utf-8")).digest()) in loaded.bloom


def breached_list_problem(app=None):
    """Why this process cannot use the configured list (read now), or None.

    Configured: a file at ``filter_path`` (set by ``GUARDSVC_BREACHED_PASSWORDS_FILE`` or the
    default one in the instance folder). No file at all is no list, not a problem.
    """
    _FILTER.current(filter_path(app))
    return snapshot()["problem"]


def current_state(app=None):
    """What this process answers from now (read again when the file changed): see ``snapshot``."""
    _FILTER.current(filter_path(app))
    return snapshot()
