"""The machine's rate-limit store: counters every process of one machine shares, in one LMDB file.

The embedded default (``make run``, ``gunicorn wsgi:app`` with no settings) runs one worker
process per core; a limit counted in each process's memory would allow as many times itself.
LMDB (the ``lmdb`` package: the Lightning memory-mapped database, used by OpenLDAP) serialises
write transactions across processes with a robust mutex in its lock file (a process killed in
the middle of one does not hold it), and readers never wait. So every count of every worker is
one short write transaction on the same file, and a limit is exact over all of them, with no
server to run. Redis stays the store for several machines.

Its address: ``guardsvc-lmdb:///path/to/ratelimits.lmdb?map_size_mb=256``; unset, the file
``ratelimits.lmdb`` in the instance folder (beside it LMDB keeps ``ratelimits.lmdb-lock``).

- Counters are fixed windows, as limits' own stores count them: the first count of a key sets
  its expiry, a count after it starts a new window. A second table orders the keys by expiry,
  so ended windows are swept a batch at a time (every ``SWEEP_SECONDS`` per process), and when
  the file reaches its map size the windows that end soonest are forgotten first (a client
  forgotten early gets a fresh quota, as with the in-memory store's ceiling).
- Commits do not wait for the disk (``sync=False``): after a crash of the machine, counts of its
  last moments may be lost, never the file's integrity (LMDB's copy-on-write pages).
- ``count_many`` adds to every counter of a request in one transaction.
- The environment is opened in the process that uses it, after gunicorn's fork (an LMDB
  environment must not cross a fork); ``check_store`` opens, probes and closes it at start.
"""
import errno
import hashlib
import logging
import os
import struct
import threading
import time
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlsplit

import lmdb
from limits.storage import Storage

log = logging.getLogger(__name__)
SCHEME = "guardsvc-lmdb"
FILE_NAME = "ratelimits.lmdb"
DEFAULT_MAP_SIZE_MB = 256
SWEEP_SECONDS = 1.0
SWEEP_BATCH = 2000
BYTES_PER_KEY = 512  # the ceiling on counters: the map's size over this (a counter takes about 150)
_VALUE = struct.Struct("<qd")  # count, expiry (epoch seconds)
_WHEN = struct.Struct(">Q")  # expiry in milliseconds, big-endian: the index sorts by it
_MAX_KEY = 400  # LMDB's default key limit is 511 bytes, the index adds 8


def default_uri(instance_path):
    """The store in the instance folder: ``guardsvc-lmdb:///<instance>/ratelimits.lmdb``."""
    return f"{SCHEME}://{Path(instance_path).resolve() / FILE_NAME}"


def store_path(uri):
    """The file a ``guardsvc-lmdb://`` address names."""
    parts = urlsplit(uri)
    return unquote(parts.netloc + parts.path)


class StoreProblem(Exception):
    """The store's file cannot be used; the message names the file and the fix."""


def _problem(path, error):
    """What an operator reads when the file at ``path`` cannot be opened or written."""
    lock = f"{path}-lock"
    if isinstance(error, (lmdb.CorruptedError, lmdb.InvalidError, lmdb.VersionMismatchError,
                          lmdb.PageNotFoundError, lmdb.BadValsizeError, lmdb.IncompatibleError)):
        return (f"rate-limit store {path} is damaged or not an LMDB file ({error}): stop guardsvc, "
                f"delete {path} and {lock} (they hold only rate-limit counts, recreated at the next "
                "start), then start it again")
    if isinstance(error, lmdb.MapFullError):
        return (f"rate-limit store {path} is full: give it a larger map "
                f"(GUARDSVC_RATELIMIT_STORAGE_URI={SCHEME}://{path}?map_size_mb=N, now "
                "smaller than its counters need), or stop guardsvc and delete it and its -lock file")
    code = getattr(error, "errno", None)
    if code is None and isinstance(error, lmdb.Error) and error.args:
        code = _errno_of(str(error))
    if code == errno.ENOSPC or isinstance(error, lmdb.DiskError):
        return (f"rate-limit store {path}: the disk holding it is full ({error}): free space there, "
                "or point GUARDSVC_RATELIMIT_STORAGE_URI at a file on another disk")
    if code in (errno.EACCES, errno.EPERM, errno.EROFS) or isinstance(error, (PermissionError,
                                                                            lmdb.ReadonlyError)):
        return (f"rate-limit store {path} cannot be written by this user ({error}): make the file, "
                f"{lock} and their folder writable by the user guardsvc runs as (chown/chmod), "
                "or point GUARDSVC_RATELIMIT_STORAGE_URI at a writable place")
    return (f"rate-limit store {path} cannot be used ({error}): check the file, {lock} and their "
            "folder, or point GUARDSVC_RATELIMIT_STORAGE_URI elsewhere")


def _errno_of(text):
    for code in (errno.EACCES, errno.EPERM, errno.EROFS, errno.ENOSPC):
        if os.strerror(code) in text:
            return code
    return None


def _key(key):
    raw = key.encode()
    return raw if len(raw) <= _MAX_KEY else b"#" + hashlib.sha256(raw).digest()


# One environment per file and process: LMDB's locks belong to the process, so a file is opened
# once however many applications (or stores) of the process count in it.
_OPEN = {}
_OPEN_LOCK = threading.Lock()


def _environment(path, map_size):
    """``(environment, counts table, expiries table)`` of ``path`` in this process."""
    key = os.path.abspath(path)
    with _OPEN_LOCK:
        opened = _OPEN.get(key)
        if opened is None or opened[0] != os.getpid():
            Path(key).parent.mkdir(parents=True, exist_ok=True)
            env = lmdb.open(key, subdir=False, map_size=map_size, max_dbs=2, max_readers=1024,
                            sync=False, metasync=False, readahead=False, mode=0o600, lock=True)
            opened = _OPEN[key] = (os.getpid(), env, env.open_db(b"counts"), env.open_db(b"expiries"))
        return opened[1:]


def _close(path):
    key = os.path.abspath(path)
    with _OPEN_LOCK:
        opened = _OPEN.pop(key, None)
        if opened is not None and opened[0] == os.getpid():
            opened[1].close()


class LmdbStorage(Storage):
    """A ``limits`` storage on an LMDB file shared by every process of the machine (fixed windows)."""

    STORAGE_SCHEME = [SCHEME]

    def __init__(self, uri=None, wrap_exceptions=False, **options):
        super().__init__(uri, wrap_exceptions=wrap_exceptions, **options)
        self.path = store_path(uri)
        query = parse_qs(urlsplit(uri).query)
        self.map_size = int(query.get("map_size_mb", [DEFAULT_MAP_SIZE_MB])[0]) * 1024 * 1024
        self.max_keys = int(query.get("max_keys", [self.map_size // BYTES_PER_KEY])[0])
        self._env = None
        self._pid = None
        self._next_sweep = 0.0
        self._next_warning = 0.0

    @property
    def base_exceptions(self):
        return lmdb.Error

    # ------------------------------------------------------------ the environment

    def environment(self):
        """This process's environment (opened on first use, again after a fork)."""
        env = self._env
        if env is not None and self._pid == os.getpid():
            return env
        self._env, self.counts, self.expiries = _environment(self.path, self.map_size)
        self._pid = os.getpid()
        self._next_sweep = time.monotonic() + SWEEP_SECONDS
        return self._env

    def close(self):
        if self._env is not None and self._pid == os.getpid():
            _close(self.path)
        self._env = None

    # ------------------------------------------------------------ counting

    def count_many(self, counters, amount=1):
        """Add ``amount`` to each ``(key, window seconds)``; ``[(count, window end), ...]``, one transaction."""
        env = self.environment()
        now = time.time()
        if time.monotonic() >= self._next_sweep:
            self._next_sweep = time.monotonic() + SWEEP_SECONDS
            self.sweep(now)
        try:
            out, crowded = self._count(env, counters, amount, now)
        except lmdb.MapFullError:
            self._make_room(now)
            out, crowded = self._count(env, counters, amount, now)
        if crowded:
            self._make_room(now)
        return out

    def _count(self, env, counters, amount, now):
        """The counts, and whether the store now holds more counters than its ceiling."""
        out = []
        added = False
        with env.begin(write=True) as txn:
            for key, seconds in counters:
                raw_key = _key(key)
                raw = txn.get(raw_key, db=self.counts)
                count, expiry = _VALUE.unpack(raw) if raw else (0, 0.0)
                if expiry <= now:
                    if raw:
                        txn.delete(_WHEN.pack(int(expiry * 1000)) + raw_key, db=self.expiries)
                    count, expiry = 0, now + seconds
                    txn.put(_WHEN.pack(int(expiry * 1000)) + raw_key, b"", db=self.expiries)
                    added = added or not raw
                count += amount
                txn.put(raw_key, _VALUE.pack(count, expiry), db=self.counts)
                out.append((count, expiry))
            crowded = added and txn.stat(self.counts)["entries"] > self.max_keys
        return out, crowded

    def incr(self, key, expiry, amount=1):
        return self.count_many([(key, expiry)], amount)[0][0]

    def _read(self, key):
        with self.environment().begin(db=self.counts) as txn:
            raw = txn.get(_key(key))
        if not raw:
            return 0, 0.0
        count, expiry = _VALUE.unpack(raw)
        return (count, expiry) if expiry > time.time() else (0, 0.0)

    def get(self, key):
        return self._read(key)[0]

    def get_expiry(self, key):
        expiry = self._read(key)[1]
        return expiry or time.time()

    def check(self):
        try:
            with self.environment().begin():
                return True
        except lmdb.Error:
            return False

    def clear(self, key):
        raw_key = _key(key)
        with self.environment().begin(write=True) as txn:
            raw = txn.get(raw_key, db=self.counts)
            if raw:
                txn.delete(raw_key, db=self.counts)
                txn.delete(_WHEN.pack(int(_VALUE.unpack(raw)[1] * 1000)) + raw_key, db=self.expiries)

    def reset(self):
        env = self.environment()
        with env.begin(write=True) as txn:
            count = txn.stat(self.counts)["entries"]
            txn.drop(self.counts, delete=False)
            txn.drop(self.expiries, delete=False)
        return count

    # ------------------------------------------------------------ keeping it small

    def sweep(self, now=None, limit=SWEEP_BATCH):
        """Forget up to ``limit`` counters whose window has ended; returns how many went."""
        now = time.time() if now is None else now
        return self._forget(lambda when: when <= now * 1000, limit)

    def _make_room(self, now):
        """Past the ceiling (or the map full): forget the ended windows, else the tenth that ends soonest.

        The ceiling keeps the counters to a quarter of the map or so, so that forgetting (which
        writes pages too: LMDB never overwrites a page in place) always has room.
        """
        if self.sweep(now, limit=10 ** 9):
            return
        with self.environment().begin() as txn:
            count = max(1, min(self.max_keys, txn.stat(self.counts)["entries"]) // 10)
        if time.monotonic() >= self._next_warning:
            self._next_warning = time.monotonic() + 60
            log.warning("rate-limit store %s is full: forgetting the %d counters whose windows end "
                        "soonest (a larger map_size_mb keeps more)", self.path, count)
        self._forget(lambda when: True, count)

    def _forget(self, ended, limit):
        gone = 0
        with self.environment().begin(write=True) as txn:
            cursor = txn.cursor(db=self.expiries)
            if not cursor.first():
                return 0
            while gone < limit:
                index_key = cursor.key()
                if not ended(_WHEN.unpack(index_key[:8])[0]):
                    break
                raw_key = index_key[8:]
                raw = txn.get(raw_key, db=self.counts)
                if raw and int(_VALUE.unpack(raw)[1] * 1000) == _WHEN.unpack(index_key[:8])[0]:
                    txn.delete(raw_key, db=self.counts)
                gone += 1
                if not cursor.delete():  # moves to the next entry; False past the last one
                    break
        return gone


def check_store(uri):
    """Open the store at ``uri``, write and erase a probe, close it; raise StoreProblem naming the fix.

    Run once at start (gunicorn's master, before the workers fork), so an unwritable, full or
    damaged file stops the server with the fix instead of being found by the first request.
    """
    store = LmdbStorage(uri)
    try:
        store.environment().reader_check()  # readers of processes that died
        store.sweep(limit=10 ** 9)
        probe = f"guardsvc-start-probe-{os.getpid()}"
        store.count_many([(probe, 1)])
        store.clear(probe)
        with store.environment().begin() as txn:  # reading every page of the index proves it sound
            for _ in txn.cursor(db=store.expiries).iternext(values=False):
                pass
    except (lmdb.Error, OSError) as error:
        raise StoreProblem(_problem(store.path, error)) from None
    finally:
        try:
            store.close()
        except lmdb.Error:
            pass


def describe_failure(uri, error):
    """The log line for a store that failed while serving (names the file and the fix)."""
    return _problem(store_path(uri), error)
