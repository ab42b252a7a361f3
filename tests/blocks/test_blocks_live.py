"""Decisions and lifts under real concurrency (gunicorn, several workers)."""
from concurrent.futures import ThreadPoolExecutor

import pytest
import requests

from tests.support.factories import submit_body

pytestmark = pytest.mark.live
THREADS = 8


def race(calls):
    with ThreadPoolExecutor(max_workers=len(calls)) as pool:
        return sorted(f.result().status_code for f in [pool.submit(call) for call in calls])


def test_concurrent_decisions_on_one_ticket_exactly_one_wins(live_server, bearer, make_block, app):
    _, headers = bearer("admin")
    blocked = make_block(network="203.0.113.0/24")
    number = requests.post(live_server.url + "/api/guard/unblock-tickets/submit", json=submit_body(),
                           timeout=10).json()["ticket_number"]
    # The live client is 127.0.0.1: block it too, so approval has something to lift.
    own = make_block(network="127.0.0.1")
    url = f"{live_server.url}/api/guard/unblock-tickets/{number}/respond"
    actions = ["approve", "reject"] * (THREADS // 2)
    statuses = race([lambda a=a: requests.post(url, json={"action": a}, headers=headers, timeout=30)
                     for a in actions])
    assert statuses == [200] + [409] * (THREADS - 1)
    audit = requests.get(live_server.url + "/api/admin/audit", headers=headers, timeout=10).json()
    decisions = [e for e in audit["data"] if e["target"] == number]
    assert len(decisions) == 1
    with app.app_context():
        from guardsvc.blocks.service import get_block

        assert get_block(blocked).lifted_at is None
        approved = decisions[0]["action"] == "ticket.approved"
        assert (get_block(own).lifted_at is not None) == approved


def test_concurrent_lifts_of_one_block_exactly_one_wins(live_server, bearer, make_block):
    _, headers = bearer("admin")
    reference = make_block(device_id="dev-race")
    url = f"{live_server.url}/api/admin/blocks/{reference}/lift"
    statuses = race([lambda: requests.post(url, json={}, headers=headers, timeout=30)] * THREADS)
    assert statuses == [200] + [409] * (THREADS - 1)
    audit = requests.get(live_server.url + "/api/admin/audit", headers=headers, timeout=10).json()
    assert [e["action"] for e in audit["data"] if e["target"] == reference] == ["block.lifted", "block.created"]


def test_block_takes_effect_in_every_worker_at_once(live_server, bearer):
    _, headers = bearer("admin")
    created = requests.post(live_server.url + "/api/admin/blocks", json={"ip": "127.0.0.1"},
                            headers=headers, timeout=10).json()["data"]
    statuses = race([lambda: requests.get(live_server.url + "/api/auth/tokens", timeout=10)] * THREADS)
    assert statuses == [403] * THREADS
    requests.post(f"{live_server.url}/api/admin/blocks/{created['reference']}/lift", headers=headers, timeout=10)
    statuses = race([lambda: requests.get(live_server.url + "/api/auth/tokens", timeout=10)] * THREADS)
    assert statuses == [401] * THREADS
