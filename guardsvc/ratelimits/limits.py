"""Rate limits: one bucket per operation, shared by every door that performs it.

Counting is the ``limits`` library's job: its fixed-window counters, kept in
a file every process of the machine shares (the default, ``guardsvc-lmdb://``,
``guardsvc.ratelimits.lmdb_store``), in this process's memory
(``guardsvc-memory://``, ``guardsvc.ratelimits.memory``) or in Redis. This module is the thin part around it, and it does per request only
what a limit needs: the client's address, one counter increment per limit of
the operation (one round trip each on Redis), and the ``X-RateLimit-*``
headers from the counts those increments return. A general-purpose extension
(default limits, meta limits, per-route exemption scopes, checking once in a
before_request hook and again in the decorator) cost a status check several
times the work of its database lookup.

A limited page is decorated with a ``Limit``; a JSON operation names it in its
declaration (``@operation(..., limits=(check_limit,))``, ``guardsvc/web/operations.py``)::

    check_limit = Limit("RATELIMIT_CHECK", scope="ticket-check")

    @check_limit
    def status_page(...): ...

``RATELIMIT_CHECK`` names the setting holding the limit (``"60 per minute"``,
several separated by ``;``); ``scope`` names the bucket, so the API door and
the page door of one operation spend one quota. When the store cannot be
reached the limits go on in memory (a request is never refused because Redis
is away, or the machine's file failed: an error naming the file and the fix is
logged), and the store is tried again every ``STORE_RETRY_SECONDS``.
"""
import logging
import sys
import time
from dataclasses import dataclass
from functools import wraps

from flask import current_app, g
from limits import parse_many
from limits.storage import RedisStorage, storage_from_string

from guardsvc.ratelimits import lmdb_store  # registers guardsvc-lmdb://
from guardsvc.ratelimits.memory import BoundedMemoryStorage  # also registers guardsvc-memory://
from guardsvc.web.addresses import client_ip, counted_address
from guardsvc.web.errors import RateLimited

log = logging.getLogger(__name__)
EXTENSION = "guardsvc.ratelimits.limits"
STORE_RETRY_SECONDS = 5.0
_SPENT = "guardsvc_ratelimit_spent"
_DEFERRED = "guardsvc_ratelimit_deferred"
# Redis: every counter of the request incremented, started and read back in one round trip.
_COUNT_ON_REDIS = """
local out = {}
for i, key in ipairs(KEYS) do
  local count = redis.call('INCRBY', key, 1)
  if count == 1 then redis.call('EXPIRE', key, ARGV[i]) end
  out[2 * i - 1] = count
  out[2 * i] = redis.call('TTL', key)
end
return out
"""


@dataclass(frozen=True)
class Spent:
    """What one limit of this request said: the header values and, when refused, the wait."""

    amount: int
    remaining: int
    reset_at: float


class Counters:
    """One application's counters: the configured store, with memory standing in while it is away."""

    def __init__(self, config):
        self.enabled = bool(config["RATELIMIT_ENABLED"])
        self.prefix = config["RATELIMIT_KEY_PREFIX"]
        self.uri = config["RATELIMIT_STORAGE_URI"]
        self.options = dict(config.get("RATELIMIT_STORAGE_OPTIONS") or {})
        self.primary = storage_from_string(self.uri, **self.options) if self.enabled else None
        self.fallback = None
        self.retry_at = 0.0
        self._parsed = {}
        self._redis_script = None

    def limits_of(self, text):
        """The parsed limits of a setting's value (parsed once per distinct value)."""
        parsed = self._parsed.get(text)
        if parsed is None:
            parsed = self._parsed[text] = tuple(parse_many(text))
        return parsed

    def key(self, item, client, scope):
        return item.key_for(self.prefix, client, scope)

    def count(self, store, counters):
        """Add one to each ``(key, window seconds)`` counter; ``[(count, reset_at), ...]``.

        On a plain Redis store this is one round trip for all of them, on the keys
        limits' RedisStorage counts on (``prefixed_key``, INCRBY and EXPIRE: a layout
        of its own that tests/project/test_dependency_reaches.py holds); on the machine's file, one
        write transaction for all of them; elsewhere (memory) each counter is a dictionary
        update and a read.
        """
        if type(store) is lmdb_store.LmdbStorage:  # noqa: E721
            return store.count_many(counters)
        if type(store) is RedisStorage:  # noqa: E721 - not its cluster or sentinel subclasses
            if self._redis_script is None:
                self._redis_script = store.get_connection().register_script(_COUNT_ON_REDIS)
            flat = self._redis_script(keys=[store.prefixed_key(key) for key, _ in counters],
                                      args=[seconds for _, seconds in counters])
            now = time.time()
            return [(int(flat[2 * i]), now + max(int(flat[2 * i + 1]), 0)) for i in range(len(counters))]
        return [(store.incr(key, seconds), store.get_expiry(key)) for key, seconds in counters]

    def run(self, operation):
        """``operation(store)`` on the configured store, or on memory while that store is away."""
        store = self._store()
        try:
            return operation(store)
        except Exception:  # noqa: BLE001 - any store failure: keep limiting, in memory
            if store is not self.primary:
                raise
            if isinstance(store, lmdb_store.LmdbStorage):
                log.error("%s; counting in this process's memory meanwhile (per process: not exact)",
                          lmdb_store.describe_failure(self.uri, sys.exc_info()[1]))
            else:
                log.warning("rate-limit store %s unreachable: counting in this process's memory for now",
                            self.uri.split("://")[0], exc_info=log.isEnabledFor(logging.DEBUG))
            self._fall_back()
            return operation(self.fallback)

    def _store(self):
        if self.fallback is None:
            return self.primary
        now = time.monotonic()
        if now >= self.retry_at:
            self.retry_at = now + STORE_RETRY_SECONDS
            try:
                back = self.primary.check()
            except Exception:  # noqa: BLE001
                back = False
            if back:
                log.info("rate-limit store %s is back", self.uri.split("://")[0])
                self.fallback = None
                return self.primary
        return self.fallback

    def _fall_back(self):
        if self.fallback is None:
            self.fallback = BoundedMemoryStorage()
        self.retry_at = time.monotonic() + STORE_RETRY_SECONDS


def counters():
    return current_app.extensions[EXTENSION]


class Limit:
    """A decorator that counts each call of a door against the limits in ``setting``.

    ``exempt_when()``: true when this request is not the operation (nothing is
    counted). ``counts_when()``: when given, the request is only checked
    beforehand and counted afterwards if it returns true (a wrong code counts,
    a right one does not).
    """

    def __init__(self, setting, scope, exempt_when=None, counts_when=None):
        self.setting, self.scope = setting, scope
        self.exempt_when, self.counts_when = exempt_when, counts_when

    def __call__(self, view):
        @wraps(view)
        def limited(*args, **kwargs):
            self.apply()
            return view(*args, **kwargs)
        return limited

    def apply(self):
        """Count this request against the limits (429 when one is spent); a JSON operation's
        ``limits=`` calls it, a page view is decorated with the limit itself."""
        state = counters()
        if state.enabled and not (self.exempt_when and self.exempt_when()):
            self._spend(state)

    def _spend(self, state):
        items = state.limits_of(current_app.config[self.setting])
        client = counted_address(client_ip())
        if self.counts_when is not None:
            g.setdefault(_DEFERRED, []).append((self, items, client))
            refused = state.run(lambda store: [item for item in items
                                               if store.get(state.key(item, client, self.scope)) >= item.amount])
            if refused:
                self._refuse(state, refused[0], client)
            return
        keyed = self.keyed(state, items, client)
        counts = state.run(lambda store: state.count(store, keyed))
        spent = [Spent(item.amount, max(0, item.amount - count), reset_at)
                 for item, (count, reset_at) in zip(items, counts)]
        refused = [s for s, (count, _) in zip(spent, counts) if count > s.amount]
        _remember(*(refused or spent))
        if refused:
            raise RateLimited(_seconds_until(max(s.reset_at for s in refused)))

    def keyed(self, state, items, client):
        """``(key, window seconds)`` of each of ``items`` for ``client`` in this limit's bucket."""
        return [(state.key(item, client, self.scope), item.get_expiry()) for item in items]

    def _refuse(self, state, item, client):
        key = state.key(item, client, self.scope)
        reset_at = state.run(lambda store: store.get_expiry(key))
        _remember(Spent(item.amount, 0, reset_at))
        raise RateLimited(_seconds_until(reset_at))


def _seconds_until(moment):
    return max(1, int(moment - time.time() + 0.999))


def _remember(*spent):
    """Keep what limits said for the headers; the tightest is picked once, when they are written."""
    g.setdefault(_SPENT, []).extend(spent)


def _count_deferred(response):
    """after_request: count the checked-only limits whose request turned out to count."""
    for limit, items, client in g.pop(_DEFERRED, ()):
        if limit.counts_when(response):
            state = counters()
            keyed = limit.keyed(state, items, client)
            state.run(lambda store: state.count(store, keyed))
    return response


def add_limit_headers(response):
    """after_request: the tightest limit this request spent, as ``X-RateLimit-*`` headers."""
    spent = g.pop(_SPENT, None)
    if spent:
        tightest = min(spent, key=lambda s: (s.remaining, -s.reset_at))
        headers = response.headers
        headers["X-RateLimit-Limit"] = str(tightest.amount)
        headers["X-RateLimit-Remaining"] = str(tightest.remaining)
        headers["X-RateLimit-Reset"] = str(int(tightest.reset_at))
    return response


def init_ratelimits(app):
    app.extensions[EXTENSION] = Counters(app.config)
    app.after_request(add_limit_headers)
    app.after_request(_count_deferred)
