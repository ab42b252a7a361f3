"""A file each process reads once, and again whenever it changes on disk (a list, a database file).

At most once every ``recheck_seconds`` a look asks the file system whether the
file changed: a new inode (a fresh copy moved into place, as ``geoipupdate`` or
``flask passwords load-breached`` do it), or a new size, modification or change
time (a file written in place, or made readable: a change of owner or mode alone
moves only the change time). Only then is it loaded again, under a lock, so
concurrent look-ups load it once.
"""
import os
import threading
import time

from guardsvc.storage import clock

# What a process answers from: nothing, the file's value, an earlier value it keeps because the
# file cannot be read now (``keep``), or nothing because the file cannot be read.
NONE, LOADED, KEPT, UNREADABLE = "none", "loaded", "kept", "unreadable"


def _problem(path, error):
    return f"{type(error).__name__}: {error}"


class WatchedFile:
    """What ``load(path)`` made of a file (anything but None), kept until the file changes.

    A file that is missing or that ``load`` cannot read (it raises OSError,
    ValueError or one of ``errors``) gives None, and a problem: the text
    ``describe(path, error)``. ``report(path, value, error)`` hears of each load
    and of each new problem (a problem that stays is reported once), to log it; a
    file that failed to load is tried again only once it changes.

    ``keep``: a file that cannot be read after a good load leaves that load's value
    in use (state KEPT) instead of None, so a file damaged later does not silently
    take away what the process answered from. ``missing_is_nothing``: no file is no
    value and no problem (state NONE), as when nothing was ever loaded; a file gone
    after a load is reported as ``report(path, None, None)``. ``on_change()``, when
    set, is called after the value (a value equal to the one before is the same) or
    the problem changed, outside the lock, so that it may read ``snapshot()``.
    """

    def __init__(self, load, report=None, errors=(), recheck_seconds=1.0, *, keep=False, missing_is_nothing=False,
                 describe=_problem):
        self.load, self.report, self.describe = load, report, describe
        self.errors = (OSError, ValueError, *errors)
        self.recheck_seconds = recheck_seconds
        self.keep, self.missing_is_nothing = keep, missing_is_nothing
        self.on_change = None
        self.lock = threading.Lock()
        self.path = self.identity = self.value = self.problem = None
        self.loaded_at = None  # when the value in use was loaded (UTC)
        self.checked_at = float("-inf")

    @property
    def state(self):
        if self.problem is None:
            return NONE if self.value is None else LOADED
        return UNREADABLE if self.value is None else KEPT

    def current(self, path):
        """The value of ``path`` as the file is now (None when there is none: see the class)."""
        if self._fresh(path):
            return self.value
        with self.lock:
            changed = not self._fresh(path) and self._refresh(path)
            value = self.value
        if changed and self.on_change is not None:
            self.on_change()
        return value

    def snapshot(self):
        """What ``current`` answers from now, without looking at the file: state, value, loaded_at, problem, path."""
        with self.lock:
            return {"state": self.state, "value": self.value, "loaded_at": self.loaded_at, "problem": self.problem,
                    "path": self.path}

    def forget(self):
        """Load the file at the next look, whatever it looks like (this process has just rewritten it)."""
        with self.lock:
            self.identity, self.checked_at = None, float("-inf")

    def _fresh(self, path):
        return path == self.path and time.monotonic() - self.checked_at < self.recheck_seconds

    def _refresh(self, path):
        """Look at the file and load it when it changed; True when the value or the problem changed."""
        before = (self.value, self.problem)
        try:
            stat = os.stat(path)
        except FileNotFoundError as error:
            self._set(path, None, None, None if self.missing_is_nothing else error)
        except OSError as error:  # its folder cannot be searched
            self._set(path, None, None, error)
        else:
            identity = (str(path), stat.st_ino, stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns)
            if identity != self.identity:
                try:  # an error not in ``errors`` changes nothing here: the next look raises it again
                    value = self.load(path)
                except self.errors as error:
                    self._set(path, identity, None, error)
                else:
                    self._set(path, identity, value, None)
        self.path, self.checked_at = path, time.monotonic()
        return (self.value, self.problem) != before

    def _set(self, path, identity, value, error):
        """Take what the file gave: ``value`` (None: no file), or ``error``."""
        self.identity = identity
        if error is None:
            news = value is not None or self.value is not None  # a load, or a value gone
            self.value, self.problem = value, None
            self.loaded_at = None if value is None else clock.utcnow()
        else:
            problem = self.describe(path, error)
            news = (path, problem) != (self.path, self.problem)
            self.problem = problem
            if not self.keep:
                self.value = self.loaded_at = None
            value = self.value
        if news and self.report is not None:
            self.report(path, value, error)
