"""Every wait on a dependency has an end that the settings name."""
from sqlalchemy import text

from guardsvc.config import load_settings
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


def test_memory_rate_limit_store_gets_no_socket_options(monkeypatch, tmp_path):
    monkeypatch.setenv("GUARDSVC_RATELIMIT_STORAGE_URI", "memory://")
    assert load_settings(str(tmp_path))["RATELIMIT_STORAGE_OPTIONS"] == {}
