"""Replayed against a real gunicorn behind a declared proxy: an approval is no skeleton key.

Range block -> approve device D at .7 -> D from .8 is still blocked; a block
made on D after the approval wins; the guarded routes and the host check agree.
"""
import pytest
import requests

from tests.support.factories import submit_body
from tests.support.live import LiveServer

pytestmark = pytest.mark.live
RANGE = "198.51.100.0/24"
GUARDED = "/api/auth/tokens"  # 403 when blocked, 401 for a client that may pass


@pytest.fixture(scope="module")
def proxied_server(app):
    server = LiveServer(workers=2, env={"GUARDSVC_PROXY_COUNT": "1"})
    yield server
    server.stop()


def status(server, ip, device):
    return requests.get(server.url + GUARDED, timeout=30,
                        headers={"X-Forwarded-For": ip, "X-Device-Id": device}).status_code


def test_an_approved_device_passes_only_at_its_address_and_yields_to_later_blocks(
        proxied_server, bearer, make_block):
    _, admin = bearer(role="admin")
    make_block(network=RANGE, reason="Jaringan kampus")
    assert status(proxied_server, "198.51.100.7", "laptop-d") == 403
    submitted = requests.post(proxied_server.url + "/api/guard/unblock-tickets/submit", json=submit_body(),
                              headers={"X-Forwarded-For": "198.51.100.7", "X-Device-Id": "laptop-d"}, timeout=30)
    number = submitted.json()["ticket_number"]
    decided = requests.post(proxied_server.url + f"/api/guard/unblock-tickets/{number}/respond", timeout=30,
                            json={"action": "approve"}, headers={**admin, "X-Forwarded-For": "192.0.2.1"})
    assert decided.status_code == 200 and decided.json()["data"]["allow_entries"]
    assert status(proxied_server, "198.51.100.7", "laptop-d") == 401
    assert status(proxied_server, "198.51.100.8", "laptop-d") == 403  # the same device elsewhere
    assert status(proxied_server, "198.51.100.7", "laptop-e") == 403  # another device there
    make_block(device_id="laptop-d", reason="Spam lagi")
    assert status(proxied_server, "198.51.100.7", "laptop-d") == 403
    check = requests.get(proxied_server.url + "/api/guard/blocks/check", timeout=30, headers=admin,
                         params={"ip": "198.51.100.7", "device_id": "laptop-d"})
    assert check.json()["data"]["blocked"] is True
