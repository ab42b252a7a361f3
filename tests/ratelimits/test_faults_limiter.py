"""The rate-limit store (Redis) goes away: pages and the API keep answering, limits fall back to memory.

Each test starts a Redis of its own on a free port and stops, freezes or
restarts it; no shared Redis is touched.
"""
import secrets
import time

import pytest

from guardsvc import create_app
from tests.support.factories import submit_ticket
from tests.support.faults_support import redis_server  # noqa: F401  (fixture)

pytestmark = pytest.mark.faults
CHECK = "/api/guard/unblock-tickets/check/TKT-NOPE"


@pytest.fixture()
def limited_app(app, redis_server, monkeypatch):  # noqa: F811
    monkeypatch.setenv("GUARDSVC_RATELIMIT_ENABLED", "true")
    monkeypatch.setenv("GUARDSVC_RATELIMIT_STORAGE_URI", redis_server.url)
    monkeypatch.setenv("GUARDSVC_RATELIMIT_STORAGE_TIMEOUT_SECONDS", "0.2")
    monkeypatch.setenv("GUARDSVC_RATELIMIT_KEY_PREFIX", f"faults-{secrets.token_hex(4)}")
    monkeypatch.setenv("GUARDSVC_RATELIMIT_CHECK", "3 per minute")
    return create_app({"SQLALCHEMY_DATABASE_URI": app.config["SQLALCHEMY_DATABASE_URI"]})


def checks(client, count, ip):
    return [client.get(CHECK, environ_base={"REMOTE_ADDR": ip}).status_code for _ in range(count)]


def answers_without_redis(client, ip, what):
    started = time.monotonic()
    assert submit_ticket(client, ip=ip).status_code == 201
    print(f"rate-limit store {what}: first limited request answered in {time.monotonic() - started:.2f} s")
    assert client.get("/", environ_base={"REMOTE_ADDR": ip}).status_code == 200
    assert client.get("/banding", environ_base={"REMOTE_ADDR": ip}).status_code == 200
    # The limit still holds, counted in this process's memory meanwhile.
    assert checks(client, 4, ip) == [404, 404, 404, 429]


def test_limits_are_counted_in_redis_while_it_is_up(limited_app, redis_server):  # noqa: F811
    client = limited_app.test_client()
    assert checks(client, 4, "198.51.100.1") == [404, 404, 404, 429]


@pytest.mark.parametrize("fault", ["down", "hung"])
def test_redis_down_or_hung_fails_open_to_memory(limited_app, redis_server, fault):  # noqa: F811
    client = limited_app.test_client()
    assert checks(client, 1, "198.51.100.2") == [404]
    assert redis_keys(redis_server)
    {"down": redis_server.stop, "hung": redis_server.freeze}[fault]()
    answers_without_redis(client, "198.51.100.3", fault)


def test_redis_restarted_is_used_again(limited_app, redis_server):  # noqa: F811
    client = limited_app.test_client()
    redis_server.stop()
    assert checks(client, 1, "198.51.100.6") == [404]
    redis_server.start()
    # The store is probed again every few seconds (ratelimits.STORE_RETRY_SECONDS).
    deadline = time.monotonic() + 20
    while not redis_keys(redis_server) and time.monotonic() < deadline:
        assert checks(client, 1, "198.51.100.7") in ([404], [429])
        time.sleep(0.25)
    assert redis_keys(redis_server)
    assert checks(client, 4, "198.51.100.8") == [404, 404, 404, 429]


def redis_keys(server):
    import redis

    return redis.Redis.from_url(server.url).keys("*")
