"""Fingerprints of the settings every node must share: keyed hashes that compare, never values.

Each is HMAC-SHA-256 of the setting's name and value under the fleet's key, a random key kept in the
database (``fleet_keys``) that every node reads. Not the secret key: that is one of the settings
compared, and two nodes with different secret keys would then hash every setting differently. A
reader of a node's report (the API, the desk, a log) learns whether two nodes agree, not what they
hold; someone who can read the database can test a guess of a value (docs/security.md).

A file (the breached-password filter, the GeoIP database) is fingerprinted by its content: its size
and 16 blocks of 64 KiB spread over it (the whole file when it is small), read again only when the
file changes (inode, size, modification time). ``None`` says the node does not use the setting (no
file, rate limits off); nodes agree when both say so.
"""
import hashlib
import hmac
import os
import secrets
import threading
from urllib.parse import urlsplit

from sqlalchemy import select

from guardsvc.accounts.breached import filter_path
from guardsvc.extensions import db
from guardsvc.nodes.models import FleetKey
from guardsvc.storage.inserts import insert_unless_conflict

KEY_PURPOSE = "fingerprints"
# The settings every node must share, as operators name them, in the order they are shown.
SHARED = ("GUARDSVC_SECRET_KEY", "GUARDSVC_FORWARD_AUTH_SECRET", "GUARDSVC_RATELIMIT_STORAGE_URI",
          "GUARDSVC_BASE_URL", "GUARDSVC_BREACHED_PASSWORDS_FILE", "GUARDSVC_GEOIP_DATABASE")
SAMPLES = 16
SAMPLE_BYTES = 64 * 1024


def fleet_key():
    """The fleet's fingerprint key, made by the first node that asks (a race leaves one: the first insert)."""
    key = db.session.scalar(select(FleetKey.key).where(FleetKey.purpose == KEY_PURPOSE))
    if key is None:
        insert_unless_conflict(FleetKey, {"purpose": KEY_PURPOSE, "key": secrets.token_hex(32)})
        key = db.session.scalar(select(FleetKey.key).where(FleetKey.purpose == KEY_PURPOSE))
    return key


def shared_values(app, node_key):
    """``{setting: bytes or None}``: what each shared setting is on this node, to be hashed (never stored)."""
    config = app.config
    return {
        "GUARDSVC_SECRET_KEY": _text(config["SECRET_KEY"]),
        "GUARDSVC_FORWARD_AUTH_SECRET": _text(config["FORWARD_AUTH_SECRET"]),
        "GUARDSVC_RATELIMIT_STORAGE_URI": _limit_store(config, node_key),
        "GUARDSVC_BASE_URL": _text(config["BASE_URL"]),
        "GUARDSVC_BREACHED_PASSWORDS_FILE": _FILES.digest(str(filter_path(app))),
        "GUARDSVC_GEOIP_DATABASE": _FILES.digest(config["GEOIP_DATABASE"]) if config["GEOIP_DATABASE"] else None,
    }


def fingerprints(values, key):
    """``{setting: 32 hex digits or None}`` of ``shared_values`` under the fleet's ``key``."""
    secret = key.encode("utf-8")
    return {setting: (hmac.new(secret, setting.encode("utf-8") + b"\0" + value, hashlib.sha256).hexdigest()[:32]
                      if value is not None else None)
            for setting, value in values.items()}


def _text(value):
    return None if value is None else str(value).encode("utf-8")


def _limit_store(config, node_key):
    """Where rate limits are counted, with the key prefix: shared only when it is a server (``redis://host``).

    A store without a host (in memory, a file in the instance folder) counts for this node alone, so its
    fingerprint is this node's own and never agrees with another node's.
    """
    if not config["RATELIMIT_ENABLED"]:
        return None
    uri = config["RATELIMIT_STORAGE_URI"]
    if not urlsplit(uri).netloc:
        return f"this node only: {node_key} {uri}".encode("utf-8")
    return f"{uri}\0{config['RATELIMIT_KEY_PREFIX']}".encode("utf-8")


class _FileDigests:
    """Content digests of files, each read again only when the file changed."""

    def __init__(self):
        self.lock = threading.Lock()
        self.known = {}  # path -> (identity, digest)

    def digest(self, path):
        try:
            stat = os.stat(path)
        except OSError:
            return None
        identity = (stat.st_ino, stat.st_size, stat.st_mtime_ns)
        with self.lock:
            kept = self.known.get(path)
            if kept and kept[0] == identity:
                return kept[1]
        try:
            digest = sampled_digest(path, stat.st_size)
        except OSError:
            return None
        with self.lock:
            self.known[path] = (identity, digest)
        return digest


def sampled_digest(path, size):
    """SHA-256 of the size and ``SAMPLES`` blocks spread over the file, first and last included (a small file whole).

    A filter or a database of the same size but other content differs in nearly every block.
    """
    digest = hashlib.sha256(str(size).encode("ascii") + b"\0")
    with open(path, "rb") as file:
        if size <= SAMPLES * SAMPLE_BYTES:
            for block in iter(lambda: file.read(1 << 20), b""):
                digest.update(block)
        else:
            step = (size - SAMPLE_BYTES) // (SAMPLES - 1)
            for index in range(SAMPLES):
                file.seek(index * step)
                digest.update(file.read(SAMPLE_BYTES))
    return digest.hexdigest().encode("ascii")


_FILES = _FileDigests()
