"""A file each process reads once, and again whenever it changes on disk (a list, a database file).

At most once every ``recheck_seconds`` a look asks the file system whether the
file changed: a new inode (a fresh copy moved into place, as ``geoipupdate`` or
``flask passwords load-breached`` do it), or a new size, modification or change
time (a file written in place, or made readable). Only then is it loaded
again, under a lock, so concurrent look-ups load it once.
"""
import os
import threading
import time


class WatchedFile:
    """What ``load(path)`` made of a file, kept until the file changes.

    A file that is missing or that ``load`` cannot read (it raises OSError,
    ValueError or one of ``errors``) gives None. ``report(path, value, error)``
    hears of each load and of each new problem (a problem that stays is reported
    once), to log it; a file that failed to load is tried again only once it changes.
    """

    def __init__(self, load, report=None, errors=(), recheck_seconds=1.0):
        self.load, self.report = load, report
        self.errors = (OSError, ValueError, *errors)
        self.recheck_seconds = recheck_seconds
        self.lock = threading.Lock()
        self.path = self.identity = self.value = self.problem = None
        self.checked_at = float("-inf")

    def current(self, path):
        """The value of ``path`` as the file is now (None when it is missing or cannot be read)."""
        if self._fresh(path):
            return self.value
        with self.lock:
            if not self._fresh(path):
                self._refresh(path)
            return self.value

    def _fresh(self, path):
        return path == self.path and time.monotonic() - self.checked_at < self.recheck_seconds

    def _refresh(self, path):
        self.checked_at = time.monotonic()
        identity = None
        try:
            stat = os.stat(path)
            identity = (path, stat.st_ino, stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns)
            if identity == self.identity:
                return
            value = self.load(path)
        except self.errors as error:
            self._set(path, identity, None, error)
            return
        self._set(path, identity, value, None)

    def _set(self, path, identity, value, error):
        problem = None if error is None else f"{type(error).__name__}: {error}"
        news = error is None or (path, problem) != (self.path, self.problem)
        self.path, self.identity, self.value, self.problem = path, identity, value, problem
        if news and self.report is not None:
            self.report(path, value, error)
