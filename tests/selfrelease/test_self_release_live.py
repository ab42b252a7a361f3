"""Self-release rules that concurrency could break, against real gunicorn workers (SQLite and PostgreSQL).

Clients are told apart by their loopback source address (127.0.x.y) and their X-Device-Id.
"""

import pytest

from tests.support.live import LiveServer, all_at_once
from tests.support.self_release_support import CHALLENGE, RELEASE, call, solve

pytestmark = pytest.mark.live
RANGE = "127.0.12.0/24"


def solved(server, source, device):
    status, body = call(server.port, "GET", CHALLENGE, source, device)
    assert status == 200, body
    return solve(body["data"]["challenge"])


def release_all_at_once(server, clients):
    """Solve a challenge for each (source, device), then send every release at the same moment."""
    payloads = [solved(server, source, device) for source, device in clients]
    return [status for status, _ in all_at_once(len(clients), lambda i: call(
        server.port, "POST", RELEASE, clients[i][0], clients[i][1], {"altcha": payloads[i]}))]


def test_one_device_releases_itself_once_however_many_addresses_ask_at_once(live_server, make_block):
    make_block(network=RANGE, self_release=True)
    statuses = release_all_at_once(live_server, [(f"127.0.12.{10 + n}", "ponsel-serentak") for n in range(8)])
    assert sorted(statuses) == [201] + [429] * 7


def test_one_address_releases_itself_once_however_many_devices_ask_at_once(live_server, make_block):
    make_block(network=RANGE, self_release=True)
    statuses = release_all_at_once(live_server, [("127.0.12.40", f"perangkat-{n}") for n in range(8)])
    assert sorted(statuses) == [201] + [429] * 7


def test_a_payload_sent_many_times_at_once_releases_once(live_server, make_block):
    make_block(network=RANGE, self_release=True)
    payload = solved(live_server, "127.0.12.60", "ponsel-ulang")
    results = all_at_once(8, lambda i: call(live_server.port, "POST", RELEASE, "127.0.12.60", "ponsel-ulang",
                                            {"altcha": payload}))
    assert sorted(status for status, _ in results).count(201) == 1
    assert all(status in (201, 409, 429) for status, _ in results)


@pytest.fixture(scope="module")
def capped_server(app):
    """Two workers and at most three releases an hour in all."""
    server = LiveServer(workers=2, env={"GUARDSVC_SELF_RELEASE_PER_HOUR": "3"})
    yield server
    server.stop()


def test_the_hourly_cap_holds_across_workers(capped_server, make_block):
    make_block(network=RANGE, self_release=True)
    for n in range(10):  # ten networks, each under a block of its own: only the cap holds them back
        make_block(network=f"127.0.{20 + n}.0/24", self_release=True)
    statuses = release_all_at_once(capped_server, [(f"127.0.{20 + n}.100", f"botnet-{n}") for n in range(10)])
    assert sorted(statuses) == [201] * 3 + [429] * 7
    status, body = call(capped_server.port, "GET", CHALLENGE, "127.0.12.150", "terlambat")
    assert status == 429 and body["appeal_url"].startswith("/banding?ref=")
