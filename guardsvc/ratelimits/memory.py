"""The in-process rate-limit store, with a ceiling on how many counters it holds.

limits' MemoryStorage keeps one counter per client and limit until its window
ends: a day for ``200 per day``. A worker that meets many different addresses
in a day (a crawler, a botnet, many users behind no proxy) would keep them all.
This store forgets the counters that expire soonest once it holds
``max_keys``: memory stays bounded, and at worst a client forgotten early gets
a fresh quota. ``memory://`` in the settings means this store
(``guardsvc.config``); Redis is unaffected.

It also drops MemoryStorage's clean-up thread: the parent starts a new
``threading.Timer`` whenever the last one has finished, which on a busy worker
is every second or third request, a large share of a cheap request's time.
Expired counters are already ignored when read (``get``); here they are swept
from the dictionaries inline, at most every ``SWEEP_SECONDS``.
"""
import heapq
import time
from operator import itemgetter
from urllib.parse import parse_qs, urlsplit

from limits.storage import MemoryStorage

SCHEME = "guardsvc-memory"
DEFAULT_MAX_KEYS = 50_000
SWEEP_SECONDS = 10.0


class BoundedMemoryStorage(MemoryStorage):
    STORAGE_SCHEME = [SCHEME]

    def __init__(self, uri=None, wrap_exceptions=False, **options):
        super().__init__(uri, wrap_exceptions=wrap_exceptions, **options)
        # The ceiling travels in the URI (guardsvc-memory://?max_keys=N), the one setting.
        query = parse_qs(urlsplit(uri or "").query)
        self.max_keys = int(query.get("max_keys", [DEFAULT_MAX_KEYS])[0])
        self._next_sweep = time.monotonic() + SWEEP_SECONDS

    def _MemoryStorage__schedule_expiry(self):  # noqa: N802 - replaces the parent's private hook
        """Called by the parent on every count: sweep now and then, in this thread, never start one.

        A private hook of limits: tests/storage/test_bounded_waits.py fails when the parent no longer calls it.
        """
        now = time.monotonic()
        if now >= self._next_sweep:
            self._next_sweep = now + SWEEP_SECONDS
            self.sweep_expired()

    def sweep_expired(self):
        """Forget every counter whose window has ended; returns how many went."""
        now = time.time()
        expired = [key for key, expiry in list(self.expirations.items()) if expiry <= now]
        for key in expired:
            self.storage.pop(key, None)
            self.expirations.pop(key, None)
            self.locks.pop(key, None)
        return len(expired)

    def incr(self, key, expiry, amount=1):
        if key not in self.storage and len(self.storage) >= self.max_keys:
            self._forget_soonest_expiring()
        return super().incr(key, expiry, amount)

    def _forget_soonest_expiring(self):
        """Drop a tenth of the ceiling at once, so the scan runs once per many new clients."""
        count = max(1, self.max_keys // 10)
        for key, _ in heapq.nsmallest(count, list(self.expirations.items()), key=itemgetter(1)):
            self.storage.pop(key, None)
            self.expirations.pop(key, None)
            self.locks.pop(key, None)
