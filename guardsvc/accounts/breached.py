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
import os
import threading
import time
from pathlib import Path

import rbloom
from flask import current_app, has_app_context

from guardsvc.storage import clock

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
NONE, LOADED, KEPT, UNREADABLE = "none", "loaded", "kept", "unreadable"


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
    return Path(config.get("BREACHED_PASSWORDS_FILE") or Path(instance_folder) / FILE_NAME)


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


def _reason(exc):
    return exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)


class _Filter:
    """The filter of one process, what the file looked like when it was last read, and how that went."""

    def __init__(self):
        self.lock = threading.Lock()
        self.path = None
        self.identity = None
        self.bloom = None  # the last good filter
        self.fingerprint = None
        self.loaded_at = None  # when this process read the filter it answers from (UTC)
        self.problem = None  # why the file cannot be read now, or None
        self.checked_at = float("-inf")
        self.on_change = None  # called (outside the lock) after the state changed: serving processes report it

    @property
    def state(self):
        if self.problem is None:
            return NONE if self.bloom is None else LOADED
        return UNREADABLE if self.bloom is None else KEPT

    def _fresh(self, path):
        return path == self.path and time.monotonic() - self.checked_at < RECHECK_SECONDS

    def current(self, path):
        if self._fresh(path):
            return self.bloom
        with self.lock:
            changed = False
            if not self._fresh(path):
                changed = self._refresh(path)
                self.path, self.checked_at = path, time.monotonic()
            bloom = self.bloom
        if changed and self.on_change is not None:
            self.on_change()
        return bloom

    def _refresh(self, path):
        """Read the file again when it changed; True when what this process answers from, or why not, changed."""
        before = (self.state, self.fingerprint, self.problem)
        try:
            stat = os.stat(path)
        except FileNotFoundError:
            if self.bloom is not None:
                log.warning("the breached-password list %s is gone: no password counts as breached", path)
            self.identity, self.bloom, self.fingerprint, self.loaded_at, self.problem = None, None, None, None, None
            return self._settled(before)
        except OSError as exc:  # its folder cannot be searched
            self.identity = None
            return self._unreadable(path, exc, before)
        # ctime too: a change of owner or mode alone may make the same file readable or not.
        identity = (str(path), stat.st_ino, stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns)
        if identity == self.identity:
            return False
        self.identity = identity
        try:
            self.bloom, self.fingerprint = read_filter(path)
        except (OSError, ValueError) as exc:
            return self._unreadable(path, exc, before)
        self.loaded_at, self.problem = clock.utcnow(), None
        return self._settled(before)

    def _unreadable(self, path, exc, before):
        problem = unreadable_text(path, _reason(exc))
        if problem == self.problem:  # said already
            return False
        self.problem = problem
        if self.bloom is not None:
            log.error("%s; this process keeps answering from the list it read at %s (fingerprint %s)",
                      self.problem, self.loaded_at.isoformat(), self.fingerprint[:16])
        else:
            log.error("%s; until then no password counts as breached in this process", self.problem)
        return self._settled(before)

    def _settled(self, before):
        return (self.state, self.fingerprint, self.problem) != before

    def snapshot(self):
        """What this process answers from now: state, fingerprint, when read, the problem, the file."""
        with self.lock:
            return {"state": self.state, "fingerprint": self.fingerprint, "loaded_at": self.loaded_at,
                    "problem": self.problem, "path": str(self.path) if self.path else None}

    def forget(self):
        """Read the file again at the next check, whatever it looks like (a load in this process)."""
        with self.lock:
            self.identity, self.checked_at = None, float("-inf")


_FILTER = _Filter()


def is_breached(password):
    """True when ``password`` is on the loaded breach list (or, about once in ten million, looks so)."""
    if not isinstance(password, str) or not has_app_context():  # no app, no instance folder: no list
        return False
    bloom = _FILTER.current(filter_path())
    if bloom is None:
        return False
    return key_of(hashlib.sha1(password.encode("utf-8")).digest()) in bloom


def breached_list_problem(app=None):
    """Why this process cannot use the configured list (read now), or None.

    Configured: a file at ``filter_path`` (set by ``GUARDSVC_BREACHED_PASSWORDS_FILE`` or the
    default one in the instance folder). No file at all is no list, not a problem.
    """
    _FILTER.current(filter_path(app))
    return _FILTER.snapshot()["problem"]


def current_state(app=None):
    """What this process answers from now (read again when the file changed): see ``_Filter.snapshot``."""
    _FILTER.current(filter_path(app))
    return _FILTER.snapshot()
