"""Rules that concurrency could break, against a real gunicorn (4 workers x 4 threads)."""
import http.client
import json
from collections import Counter

import pytest

from tests.support.factories import submit_body
from tests.support.live import all_at_once

pytestmark = pytest.mark.live
SUBMIT = "/api/guard/unblock-tickets/submit"


def post(server, path, body, headers=None, source_ip="127.0.0.1"):
    """POST JSON from a chosen loopback source address (every 127.x address is this machine)."""
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30, source_address=(source_ip, 0))
    try:
        conn.request("POST", path, body=json.dumps(body),
                     headers={"Content-Type": "application/json", "Accept": "application/json", **(headers or {})})
        response = conn.getresponse()
        return response.status, json.loads(response.read() or b"{}")
    finally:
        conn.close()


def assert_one_ticket(results):
    statuses = Counter(status for status, _ in results)
    assert statuses == {201: 1, 429: len(results) - 1}, statuses
    winner = next(body["ticket_number"] for status, body in results if status == 201)
    # The losers name the winner's ticket, or (from another address with the device id alone) none.
    assert {body.get("ticket_number", winner) for status, body in results if status == 429} == {winner}
    return winner


def count_tickets(app):
    from guardsvc.appeals.models import UnblockTicket
    from guardsvc.extensions import db

    with app.app_context():
        try:
            return db.session.query(UnblockTicket).filter_by(status="pending").count()
        finally:
            db.session.remove()


def test_sixteen_simultaneous_submissions_from_one_ip_make_one_ticket(live_server, app):
    results = all_at_once(16, lambda i: post(live_server, SUBMIT, submit_body(name=f"Klien {i}")))
    assert_one_ticket(results)
    assert count_tickets(app) == 1


def test_sixteen_simultaneous_submissions_from_one_device_on_many_ips_make_one_ticket(live_server, app):
    results = all_at_once(16, lambda i: post(live_server, SUBMIT, submit_body(),
                                             headers={"X-Device-Id": "shared-device"},
                                             source_ip=f"127.0.0.{10 + i}"))
    assert_one_ticket(results)
    assert count_tickets(app) == 1


def test_devices_sharing_one_address_race_to_one_ticket_each(live_server, app):
    devices = ["hp-1", "hp-2", "hp-3", "hp-4"]
    results = all_at_once(16, lambda i: post(live_server, SUBMIT, submit_body(name=f"Klien {i}"),
                                             headers={"X-Device-Id": devices[i % 4]}))
    for device in devices:
        assert_one_ticket([results[i] for i in range(16) if devices[i % 4] == device])
    assert len({body["ticket_number"] for _, body in results}) == 4
    assert count_tickets(app) == 4


def test_concurrent_decisions_exactly_one_wins(live_server, app, bearer):
    status, body = post(live_server, SUBMIT, submit_body(), source_ip="127.0.0.50")
    assert status == 201
    number = body["ticket_number"]
    _, headers = bearer("admin")
    actions = ["approve", "reject"] * 4
    results = all_at_once(8, lambda i: post(live_server, f"/api/guard/unblock-tickets/{number}/respond",
                                            {"action": actions[i], "admin_notes": f"keputusan {i}"},
                                            headers=headers))
    statuses = Counter(status for status, _ in results)
    assert statuses == {200: 1, 409: 7}, statuses
    winner = next(body for status, body in results if status == 200)["data"]
    conn = http.client.HTTPConnection("127.0.0.1", live_server.port, timeout=10)
    conn.request("GET", f"/api/guard/unblock-tickets/check/{number}")
    final = json.loads(conn.getresponse().read())["data"]
    assert (final["status"], final["admin_notes"]) == (winner["status"], winner["admin_notes"])


def test_concurrent_first_registrations_of_one_device_make_one_record(live_server, app, bearer):
    from guardsvc.extensions import db
    from guardsvc.trust.models import TrustedIp

    user, headers = bearer()
    headers = {**headers, "X-Device-Id": "laptop-1"}
    results = all_at_once(12, lambda i: post(live_server, "/api/security/trusted-ips/save-my-ip",
                                             {"device_name": f"Laptop {i}"}, headers=headers))
    statuses = Counter(status for status, _ in results)
    assert statuses == {201: 1, 200: 11}, statuses
    assert len({body["data"]["id"] for _, body in results}) == 1
    with app.app_context():
        assert db.session.query(TrustedIp).filter_by(user_id=user.id).count() == 1
        db.session.remove()


def test_rate_limit_is_shared_by_all_workers_through_redis(limited_server):
    import requests

    url = f"{limited_server.url}/api/guard/unblock-tickets/check/TKT-00000000"
    statuses = [requests.get(url, timeout=10).status_code for _ in range(12)]
    limited = requests.get(url, timeout=10)
    # Spread over three workers with separate memories, only a shared store counts to five.
    assert statuses[:5] == [404] * 5
    assert set(statuses[5:]) == {429}
    assert limited.status_code == 429 and int(limited.headers["Retry-After"]) > 0
