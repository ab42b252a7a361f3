"""Every wait on a dependency has an end that the settings name."""
import time

from sqlalchemy import text

from limits.storage import storage_from_string

from guardsvc.config import load_settings
from guardsvc.ratelimits.memory import BoundedMemoryStorage
from guardsvc.extensions import db


def test_the_database_connection_carries_its_timeout(app, ctx):
    if db.engine.dialect.name == "sqlite":
        assert db.session.execute(text("PRAGMA busy_timeout")).scalar() == 5000
    else:
        assert db.session.execute(text("SHOW statement_timeout")).scalar() == "5s"
        assert db.engine.pool.timeout() == 5


def test_redis_rate_limit_store_gets_socket_timeouts(monkeypatch, tmp_path):
    monkeypatch.setenv("GUARDSVC_RATELIMIT_STORAGE_URI", "redis://127.0.0.1:6390/0")
    monkeypatch.setenv("GUARDSVC_RATELIMIT_STORAGE_TIMEOUT_SECONDS", "0.25")
    settings = load_settings(str(tmp_path))
    assert settings["RATELIMIT_STORAGE_OPTIONS"] == {"socket_timeout": 0.25, "socket_connect_timeout": 0.25}


def test_memory_rate_limit_store_is_the_bounded_one(monkeypatch, tmp_path):
    monkeypatch.setenv("GUARDSVC_RATELIMIT_STORAGE_URI", "memory://")
    monkeypatch.setenv("GUARDSVC_RATELIMIT_MEMORY_MAX_KEYS", "1234")
    settings = load_settings(str(tmp_path))
    assert settings["RATELIMIT_STORAGE_URI"] == "guardsvc-memory://?max_keys=1234"
    assert settings["RATELIMIT_STORAGE_OPTIONS"] == {}
    storage = storage_from_string(settings["RATELIMIT_STORAGE_URI"], **settings["RATELIMIT_STORAGE_OPTIONS"])
    assert isinstance(storage, BoundedMemoryStorage) and storage.max_keys == 1234


def test_bounded_memory_store_forgets_the_counters_that_expire_soonest():
    storage = BoundedMemoryStorage("guardsvc-memory://?max_keys=10")
    for i in range(10):
        storage.incr(f"day-{i}", expiry=86400)
    for i in range(15):
        assert storage.incr(f"new-{i}", expiry=86400 + i) == 1
        assert len(storage.storage) <= 10
    assert storage.get("new-14") == 1
    assert storage.get("day-0") == 0  # the oldest day counters went first
    assert storage.incr("new-14", expiry=86400) == 2  # a counter still held keeps counting


def test_bounded_memory_store_starts_no_thread_per_count(monkeypatch):
    """The parent starts a clean-up Timer whenever the last has run; this store sweeps inline instead."""
    import threading

    from guardsvc.ratelimits import memory as ratelimit_memory

    storage = BoundedMemoryStorage("guardsvc-memory://")
    started = []
    monkeypatch.setattr(threading.Timer, "start", lambda timer: started.append(timer))
    for number in range(200):
        storage.incr(f"client-{number % 7}", expiry=60)
    assert started == []
    storage.incr("short", expiry=0.001)
    time.sleep(0.01)
    monkeypatch.setattr(ratelimit_memory, "SWEEP_SECONDS", 0.0)
    storage._next_sweep = 0.0  # the sweep is due: the next count runs it, in this thread
    storage.incr("client-0", expiry=60)
    assert "short" not in storage.expirations and "client-0" in storage.expirations
    assert started == []
